"""nbgrader on a student's server of the class's JupyterHub (`make hub`), read after lab-config/nbgrader_config.py.

The Assignment List fetches, submits and fetches feedback in the course of the student's edition
(set by the hub: hub/jupyterhub_config.py), through the hub's exchange, whose folders root prepares
(hub/exchange.py); each assignment is fetched into the student's home (~/01-attention/).
"""
import os
import sys

c = get_config()  # noqa: F821
c.CourseDirectory.course_id = os.environ["TRANSFORMER_HUB_COURSE"]
c.Exchange.root = os.environ["TRANSFORMER_HUB_EXCHANGE"]
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # hub/: exchange.py
import exchange  # noqa: E402

exchange.factory_config(c)
