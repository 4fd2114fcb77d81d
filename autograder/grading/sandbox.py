"""The grading sandbox: bubblewrap around the processes that run learners' code.

Inside: no network, no other process (its own pid namespace: nothing it starts outlives
it, and it can signal nothing of the grader's), an unprivileged user, a read-only view of
the system, of the Python installation and of the course's `learner_kit` (nothing else of
the checkout: no reference, no hidden tests, no `solutions/`), and a private /tmp that is
discarded with it. No submission, no OUT, no gradebook, no other notebook's files. Only
the descriptors the grader hands over are open. The unit server (learner_kit/unit_server.py)
runs in one per grading job and kills everything but itself between two notebooks.

Processes: at most MAX_PROCESSES (threads included) per sandbox, so a fork bomb fails inside
it instead of starving the other jobs. Where the grader is not root, the sandboxed servers set
RLIMIT_NPROC themselves (learner_kit/processes.py; Linux counts it per user namespace). Root
is exempt from RLIMIT_NPROC, so a root grader puts each sandbox in a cgroup of the pids
controller (ProcessCap) where the machine has one; where it has none, runner.py warns.

bubblewrap is Debian's `bubblewrap` package (`make test` installs it where it may).
"""
import glob
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from autograder.paths import ROOT

MAX_PROCESSES = 256  # the same cap as learner_kit/processes.py's
PIDS_HIERARCHIES = ("/sys/fs/cgroup/pids", "/sys/fs/cgroup")  # cgroup v1's pids controller, then v2's

CODE = "/sandbox/code"  # where learner_kit appears inside
TMP_BYTES = 512 * 1024 * 1024  # the private /tmp (in memory): all a notebook can write, but for /dev/shm
SHM_BYTES = 64 * 1024 * 1024  # the private /dev/shm (in memory; bubblewrap's own /dev would hold any amount)
SYSTEM = ("/usr", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime",
          "/etc/fonts")
MERGED_USR = {"/bin": "usr/bin", "/lib": "usr/lib", "/lib64": "usr/lib64", "/sbin": "usr/sbin"}
HOW_TO_INSTALL = (
    "Grading runs learners' code in a bubblewrap sandbox. Install it (Debian, Ubuntu: `sudo apt-get install bubblewrap`; "
    "Fedora: `sudo dnf install bubblewrap`), or grade without it with --no-sandbox (not safe for untrusted code). "
    "On Ubuntu 23.10 and later, AppArmor may block the user namespaces it needs "
    "(sysctl kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for bwrap); inside Docker, "
    "run the container with a seccomp profile that allows them."
)


class SandboxUnavailable(Exception):
    """bubblewrap is missing or cannot make a sandbox on this machine; str() says how to fix it."""


def _python_dirs():
    """The Python installation and the environment the grader runs in (read-only inside)."""
    dirs = {Path(sys.base_prefix).resolve(), Path(sys.prefix).absolute()}
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    if not any(stdlib.is_relative_to(d) for d in dirs):
        dirs.add(stdlib)
    return sorted(str(d) for d in dirs)


# What CUDA needs inside, and nothing else of the host: the NVIDIA device nodes, the PCI topology
# the driver reads (read-only), and the folders of LD_LIBRARY_PATH where a container keeps the
# driver's libraries (read-only; on a plain Linux install they are under /usr already).
GPU_NODES = ("/dev/nvidia*", "/dev/nvidia-caps")
GPU_SYSTEM = ("/sys/bus/pci", "/sys/devices", "/sys/module/nvidia")
GPU_ENV = ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "LD_LIBRARY_PATH")


def gpu_nodes():
    """The host's NVIDIA device nodes (none on a machine without the driver)."""
    return sorted({path for pattern in GPU_NODES for path in glob.glob(pattern)})


def gpu_env():
    """The variables that choose and find the GPU, as the grader has them (CUDA_VISIBLE_DEVICES= hides it)."""
    return {key: os.environ[key] for key in GPU_ENV if key in os.environ}


def _gpu_binds():
    line = []
    for node in gpu_nodes():
        line += ["--dev-bind", node, node]
    for path in GPU_SYSTEM:
        line += ["--ro-bind-try", path, path]
    for folder in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep):
        if folder and os.path.isabs(folder) and os.path.isdir(folder):
            line += ["--ro-bind-try", folder, folder]
    return line


def command(argv, env, writable=(), gpu=False):
    """The bwrap command line that runs ``argv`` (paths inside the sandbox) with exactly ``env``.

    ``writable``: folders of the grader's shared with the sandbox at the same path (a job's kernel sockets).
    ``gpu``: the NVIDIA device nodes and what the driver reads, so that CUDA can run inside.
    """
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed. " + HOW_TO_INSTALL)
    line = [bwrap, "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534", "--die-with-parent",
            "--new-session", "--hostname", "sandbox", "--proc", "/proc", "--dev", "/dev",
            "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm", "--mqueue", "/dev/mqueue",
            "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    for path in SYSTEM:
        line += ["--ro-bind-try", path, path]
    for link, target in MERGED_USR.items():
        line += ["--symlink", target, link] if os.path.islink(link) else ["--ro-bind-try", link, link]
    for path in _python_dirs():
        line += ["--ro-bind", path, path]
    line += ["--ro-bind", str(ROOT / "learner_kit"), f"{CODE}/learner_kit"]
    for path in writable:
        line += ["--bind", path, path]
    if gpu:
        line += _gpu_binds()
    # bubblewrap's own root and /dev are tmpfs of any size: read-only, so that /tmp and /dev/shm (capped) are
    # what a notebook may write (writing to /dev/null and the other device nodes is unaffected)
    line += ["--remount-ro", "/dev", "--remount-ro", "/"]
    line += ["--chdir", "/tmp", "--clearenv"]
    for key, value in env.items():
        line += ["--setenv", key, value]
    return line + ["--", *argv]


def unit_server_command(env, sandboxed=True, gpu=False):
    """The command that starts the unit server, in the sandbox unless ``sandboxed`` is False; with ``gpu``,
    its children may run the learner's code on the host's GPU (the device aspect's CUDA run)."""
    if not sandboxed:
        return [sys.executable, "-I", str(ROOT / "learner_kit" / "unit_server.py"), str(ROOT)]
    inside = {**env, "HOME": "/tmp", "TMPDIR": "/tmp"}
    argv = [sys.executable, "-I", f"{CODE}/learner_kit/unit_server.py", CODE, "--pid-namespace"]
    return command(argv, inside, gpu=gpu)


def check_available():
    """Raise SandboxUnavailable unless a sandbox can be made and runs this Python."""
    line = command([sys.executable, "-I", "-c", "print('sandbox ok')"], {"PATH": "/usr/bin:/bin"})
    try:
        result = subprocess.run(line, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SandboxUnavailable(f"bubblewrap could not start ({error}). " + HOW_TO_INSTALL) from None
    if result.returncode != 0 or "sandbox ok" not in result.stdout:
        why = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise SandboxUnavailable(f"bubblewrap could not make a sandbox here ({why}). " + HOW_TO_INSTALL)


def pids_hierarchy():
    """The cgroup folder under which a root grader may make pids cgroups, or None."""
    if os.geteuid() != 0:
        return None
    for base in PIDS_HIERARCHIES:
        v2 = os.path.exists(f"{base}/cgroup.subtree_control")
        if v2 and "pids" not in Path(base, "cgroup.subtree_control").read_text().split():
            continue
        if os.access(f"{base}/cgroup.procs", os.W_OK) and (v2 or base.endswith("/pids")):
            return base
    return None


class ProcessCap:
    """A pids cgroup around one sandbox: it and everything started in it count, MAX_PROCESSES at most.

    Used where the grader is root (RLIMIT_NPROC does not hold for root). ``wrap`` returns the
    command that joins the cgroup and then becomes bwrap; ``remove`` deletes it once all its
    processes have ended. Without a pids controller both do nothing (see ``missing_warning``).
    """

    def __init__(self, limit=MAX_PROCESSES):
        self.limit, self.folder = limit, None

    def wrap(self, argv):
        base = pids_hierarchy()
        if base is None:
            return list(argv)
        sweep(base)
        try:
            self.folder = tempfile.mkdtemp(prefix=cap_prefix(), dir=base)
            Path(self.folder, "pids.max").write_text(str(self.limit))
        except OSError:
            self.remove()
            return list(argv)
        return ["/bin/sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', self.folder, *argv]

    def remove(self):
        if self.folder is None:
            return
        # A killed sandbox's processes leave its cgroup a moment after they are reaped: hundreds of them (a fork
        # bomb) on a loaded machine take seconds. Whatever is still there then is swept by a later run.
        deadline = time.monotonic() + REMOVE_WAIT_S
        while True:
            try:
                os.rmdir(self.folder)
                break
            except FileNotFoundError:
                break
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.02)
        self.folder = None


def cap_prefix():
    """The name of this run's pids cgroups begins so: "autograder-", then AUTOGRADER_RUN_TAG where it is set
    (a test that grades beside other runs tells its own cgroups apart by it)."""
    tag = "".join(c for c in os.environ.get("AUTOGRADER_RUN_TAG", "") if c.isalnum())[:32]
    return f"autograder-{tag}-" if tag else "autograder-"


REMOVE_WAIT_S = 15  # how long ProcessCap.remove waits for a killed sandbox's processes to leave its cgroup
STALE_CAP_S = 60  # an empty cgroup of ours older than this was left by a grader that was killed


def sweep(base):
    """Remove the empty pids cgroups a killed grader left (a process killed outright cannot remove its own);
    a young one may be another run's, about to be joined, and is left alone."""
    try:
        folders = [entry for entry in os.scandir(base) if entry.name.startswith("autograder-") and entry.is_dir()]
    except OSError:
        return
    for folder in folders:
        try:
            if time.time() - folder.stat().st_mtime > STALE_CAP_S and not Path(folder.path, "cgroup.procs").read_text().strip():
                os.rmdir(folder.path)
        except OSError:
            pass


def missing_cap_warning():
    """A line for the instructor where a notebook's processes cannot be capped (root, no pids cgroup)."""
    if os.geteuid() != 0 or pids_hierarchy() is not None:
        return None
    return ("no cap on a notebook's processes: the grader runs as root (exempt from RLIMIT_NPROC) on a machine "
            "without a writable pids cgroup; a fork bomb in a notebook slows the other jobs until its time budget "
            "stops it. Grade as an ordinary user, or where /sys/fs/cgroup has the pids controller")
