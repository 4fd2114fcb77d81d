"""Every environment variable the course's code reads, in one list: the course's own (who sets it, who reads it, and
why it cannot be a trait of docs/options.md) and those other programs set (the system, Jupyter, nbgrader, Colab).

A setting of the grader is a trait (autograder/options.py): the command line or the course's autograder_config.py
sets it. A variable is left only where no command line or config file reaches: a learner's kernel, a process the hub
starts, a Dask worker started by someone else. The grader reads the course's variables through ``read`` (a name not
listed here is an error); the sandbox's and the learners' side (sandbox_servers/, learner_kit/) and the hub's
processes (hub/) cannot import the grader and read os.environ themselves, the names listed here.
tests/autograder/test_environment_variables.py finds every read of os.environ in autograder/, sandbox_servers/, learner_kit/ and hub/ and
checks that each name is listed, and each course variable read by the files its entry names.
"""
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Variable:
    name: str
    set_by: str
    read_by: tuple  # the files that read it (paths from the repository's root)
    why: str  # why it is not a trait: where it is read, no command line or config file reaches


HUB_SETS = "the hub's operator, in the environment `make hub` (or the hub's service unit) starts JupyterHub with"
HUB_READS = "JupyterHub's configuration and its services, started by JupyterHub with its environment"
KERNEL = "read in the learner's kernel (learner_kit), which imports nothing of the grader and reads no config of it"

COURSE = (
    Variable("AUTOGRADER_CACHE", "the instructor or a test: a cache folder other than ~/.cache/autograder",
             ("autograder/environment.py",),
             "read on every Dask worker (local, external or a Slurm job) as it sets up, a folder of that machine"),
    Variable("AUTOGRADER_RUN_TAG", "tests (and anyone running several graders on one machine), for a grader's "
                                   "subprocess: its cgroups' names begin autograder-TAG",
             ("autograder/grading/run/sandbox.py",),
             "read on each worker where it makes the sandbox's cgroups; a test sets it for the grader it starts, to "
             "find and remove that grader's cgroups alone"),
    Variable("COURSE_LANG", "the learner (make lab COURSE_LANG=ko) and the hub's spawner (hub/jupyterhub_config.py): "
                            "the edition's language",
             ("learner_kit/i18n.py", "learner_kit/lab_style.py"), KERNEL),
    Variable("COURSE_SOURCE", "tests (tests/learner_kit/test_learner_paths.py): where a notebook's Colab cell installs the course "
                              "from", (), "read by the notebooks' first cell on Colab (autograder/build_notebooks.py's "
                                          "COLAB_CODE), in the learner's kernel"),
    Variable("TRANSFORMER_LIVE_URL", "the hub's spawner (hub/jupyterhub_config.py) for each student's server",
             ("learner_kit/live.py",), KERNEL + ": where it posts the class's live view's events"),
    Variable("TRANSFORMER_LIVE_TOKEN", "the hub's spawner (hub/jupyterhub_config.py) for each student's server",
             ("learner_kit/live.py",), KERNEL + ": the live view's token, a secret that must not be in a file"),
    Variable("TRANSFORMER_LIVE", "the learner ('off': send nothing) and learner_kit/live.py itself (its switch)",
             ("learner_kit/live.py",), KERNEL),
    Variable("TRANSFORMER_HUB_DIR", HUB_SETS + "; hub/jupyterhub_config.py passes it to the live view's service",
             ("hub/jupyterhub_config.py", "hub/live/settings.py", "autograder/grading/outputs/lti_push.py"),
             HUB_READS + "; lti-push defaults its --hub to the same folder when it runs beside the hub"),
    Variable("TRANSFORMER_HUB_CLASS", HUB_SETS, ("hub/jupyterhub_config.py", "hub/live/settings.py"), HUB_READS),
    Variable("TRANSFORMER_HUB_GROUP", HUB_SETS, ("hub/jupyterhub_config.py",), HUB_READS),
    Variable("TRANSFORMER_HUB_IP", HUB_SETS, ("hub/jupyterhub_config.py",), HUB_READS),
    Variable("TRANSFORMER_HUB_PORT", HUB_SETS, ("hub/jupyterhub_config.py",), HUB_READS),
    Variable("TRANSFORMER_HUB_API_PORT", HUB_SETS, ("hub/jupyterhub_config.py",), HUB_READS),
    Variable("TRANSFORMER_HUB_PROXY_API_PORT", HUB_SETS, ("hub/jupyterhub_config.py",), HUB_READS),
    Variable("TRANSFORMER_HUB_COURSE", "the hub's spawner (hub/jupyterhub_config.py) for each student's server",
             ("hub/student/nbgrader_config.py",), "read by nbgrader's configuration in the student's server"),
    Variable("TRANSFORMER_HUB_EXCHANGE", "the hub's spawner (hub/jupyterhub_config.py) for each server",
             ("hub/course.py", "hub/student/nbgrader_config.py"),
             "read by nbgrader's configuration in the student's and the instructor's servers"),
    Variable("TRANSFORMER_LIVE_PORT", HUB_SETS, ("hub/jupyterhub_config.py", "hub/live/settings.py"), HUB_READS),
    Variable("TRANSFORMER_LIVE_DB", HUB_SETS, ("hub/jupyterhub_config.py", "hub/live/settings.py"), HUB_READS),
    Variable("TRANSFORMER_LIVE_END", HUB_SETS, ("hub/jupyterhub_config.py", "hub/live/settings.py"), HUB_READS),
    Variable("TRANSFORMER_LIVE_KEEP", HUB_SETS, ("hub/jupyterhub_config.py", "hub/live/settings.py"), HUB_READS),
    Variable("TRANSFORMER_LIVE_SOCKETS", "hub/jupyterhub_config.py, for the live view's service",
             ("hub/live/settings.py",), HUB_READS),
)

FOREIGN = {  # set by other programs; the course's code reads them as those programs define them
    "PATH": "the system", "HOME": "the system", "PYTHONPATH": "the system", "LD_LIBRARY_PATH": "the system",
    "XDG_CONFIG_HOME": "the desktop (XDG)", "MPLBACKEND": "matplotlib's users (the course sets it for its kernels)",
    "CUDA_VISIBLE_DEVICES": "CUDA", "NVIDIA_VISIBLE_DEVICES": "NVIDIA's container runtime",
    "CUDA_DEVICE_ORDER": "CUDA", "NBGRADER_EXECUTION": "nbgrader, in the kernels it grades with",
    "JPY_SESSION_NAME": "the Jupyter server, in each kernel", "JUPYTERHUB_SERVICE_URL": "JupyterHub, for a service",
    "JUPYTERHUB_SERVICE_PREFIX": "JupyterHub, for a service", "COLAB_RELEASE_TAG": "Google Colab",
}

VARIABLES = {variable.name: variable for variable in COURSE}


def read(name, default=None):
    """The environment's value of the course's variable ``name`` (KeyError for a name not listed in COURSE)."""
    if name not in VARIABLES:
        raise KeyError(f"{name} is not one of the course's environment variables (autograder/environment.py)")
    return os.environ.get(name, default)


def cache_dir():
    """The grader's cache on this machine (gradebook templates, the feedback pages' font): AUTOGRADER_CACHE, else
    ~/.cache/autograder."""
    return Path(read("AUTOGRADER_CACHE") or Path.home() / ".cache" / "autograder")
