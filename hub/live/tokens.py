"""The token a student's kernels post their events with (hub/jupyterhub_config.py's pre_spawn_hook gives it to the
server as TRANSFORMER_LIVE_TOKEN): JupyterHub scopes it to the class-live service alone, so that it cannot reach the
student's server (list or write files, start a kernel) nor anything else of the hub; it only names its owner to the
service. The student must hold that scope (a role of the hub's config): JupyterHub gives no token more than its owner.
"""
from sqlalchemy import inspect

SERVICE = "class-live"
NOTE = "class-live: the kernels of this user's server post their visible tests' outcomes with it"


def scopes(service=SERVICE):
    return [f"access:services!service={service}"]


def renew(user, service=SERVICE):
    """A new token of `user` (JupyterHub's User, or its orm.User) for `service` alone; the user's earlier tokens made
    here are deleted, so that one server start leaves one."""
    owner = getattr(user, "orm_user", user)
    db = inspect(owner).session
    for token in list(owner.api_tokens):
        if token.note == NOTE:
            db.delete(token)
    db.commit()
    return owner.new_api_token(scopes=scopes(service), note=NOTE)
