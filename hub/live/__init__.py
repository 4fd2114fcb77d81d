"""class-live: the live view of a lab session, a JupyterHub service (hub/jupyterhub_config.py starts it).

Learners' kernels POST each visible test's outcome to api/events on its events.sock (learner_kit/live.py, events.py);
the service stores it (store.py) before it answers, and the hub's instructors watch the session on its page, which
the hub's proxy forwards to its page.sock (service.py, sockets.py, handlers.py).
"""
