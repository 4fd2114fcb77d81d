"""The grading sandbox: bubblewrap around the processes that run learners' code.

Inside: no network, no other process (its own pid namespace: nothing it starts outlives
it, and it can signal nothing of the grader's), an unprivileged user, a read-only view of
the system, of the Python installation and of the course's `learner_kit` (nothing else of
the checkout: no reference, no hidden tests, no `solutions/`), and a private /tmp that is
discarded with it. No submission, no OUT, no gradebook, no other notebook's files. Only
the descriptors the grader hands over are open. The unit server (sandbox_servers/unit_server.py)
runs in one per grading job and kills everything but itself between two notebooks.

Processes: at most MAX_PROCESSES (threads included) per sandbox, so a fork bomb fails inside
it instead of starving the other jobs. Where the grader is not root, the sandboxed servers set
RLIMIT_NPROC themselves (sandbox_servers/processes.py; Linux counts it per user namespace). Root
is exempt from RLIMIT_NPROC, so a root grader puts each sandbox in a cgroup of the pids
controller (ProcessCap) where the machine has one; where it has none, runner.py warns.

Memory and CPU time: a root grader on cgroup v1 also puts each sandbox in a cgroup of the memory
and cpuacct controllers, and hands the unit server a descriptor of each (no cgroup file system is
mounted inside): the server puts each notebook's processes in a cgroup of their own there
(sandbox_servers/processes.NotebookCgroup), whose memory the kernel counts (every process, shared
memory, memfd and tmpfs pages) and limits, and whose CPU time it counts. Where that cannot be
had, the server watches resident memory by polling, and runner.py warns (missing_memory_warning).
These cgroups are made under the grader's own (cgroup_parent: a Slurm job's, a container's), whose limits
then hold for learners' code too.
The sandbox has its own IPC namespace (System V shared memory, POSIX queues) and its own small
/dev/shm; the unit server empties them, with /tmp, between two notebooks.

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

from autograder import environment
from autograder.paths import ROOT

MAX_PROCESSES = 256  # the same cap as sandbox_servers/processes.py's
PIDS_HIERARCHIES = ("/sys/fs/cgroup/pids", "/sys/fs/cgroup")  # cgroup v1's pids controller, then v2's
V1_ROOT = "/sys/fs/cgroup"  # where cgroup v1's hierarchies are mounted, one folder per controller

CODE = "/sandbox/code"  # where learner_kit and sandbox_servers appear inside
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
    line = [bwrap, "--unshare-all", "--unshare-user", "--unshare-ipc", "--uid", "65534", "--gid", "65534", "--die-with-parent",
            "--new-session", "--hostname", "sandbox", "--proc", "/proc", "--dev", "/dev",
            "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm", "--mqueue", "/dev/mqueue",
            "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    for path in SYSTEM:
        line += ["--ro-bind-try", path, path]
    for link, target in MERGED_USR.items():
        line += ["--symlink", target, link] if os.path.islink(link) else ["--ro-bind-try", link, link]
    for path in _python_dirs():
        line += ["--ro-bind", path, path]
    for package in ("learner_kit", "sandbox_servers"):  # the learner's helpers, and the servers beside them
        line += ["--ro-bind", str(ROOT / package), f"{CODE}/{package}"]
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


# Who the code inside is, for the libraries that ask: the sandbox has no /etc/passwd, so getpass.getuser() reads
# LOGNAME or USER (PyTorch 2.11 asks when torch._dynamo is imported, to name its cache folder, and without them
# every lazy import of torch._dynamo in the sandbox failed).
INSIDE = {"HOME": "/tmp", "TMPDIR": "/tmp", "USER": "nobody", "LOGNAME": "nobody"}


def inside_env(env):
    """``env`` with the sandbox's own home, temporary folder and user name."""
    return {**env, **INSIDE}


def unit_server_command(env, sandboxed=True, gpu=False):
    """The command that starts the unit server, in the sandbox unless ``sandboxed`` is False; with ``gpu``,
    its children may run the learner's code on the host's GPU (the device aspect's CUDA run)."""
    if not sandboxed:
        return [sys.executable, "-I", str(ROOT / "sandbox_servers" / "unit_server.py"), str(ROOT)]
    argv = [sys.executable, "-I", f"{CODE}/sandbox_servers/unit_server.py", CODE, "--pid-namespace"]
    return command(argv, inside_env(env), gpu=gpu)


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
    """The cgroup folder under which a root grader may make pids cgroups (cgroup_parent: under its own), or None."""
    if os.geteuid() != 0:
        return None
    for top in PIDS_HIERARCHIES:
        v2 = os.path.exists(f"{top}/cgroup.subtree_control")
        usable = (lambda base, v2=v2: os.access(f"{base}/cgroup.procs", os.W_OK) and os.access(base, os.W_OK) and
                  (not v2 or "pids" in Path(base, "cgroup.subtree_control").read_text().split()))
        if not (v2 or top.endswith("/pids")):
            continue
        folder = cgroup_parent(top, "" if v2 else "pids", usable)
        if folder is not None:
            return folder
    return None


def v1_hierarchy(controller):
    """The folder of cgroup v1's ``controller`` hierarchy (memory, cpuacct) under which a root grader may make cgroups
    (cgroup_parent: under its own), or None (not root; cgroup v2 only; the controller not mounted or disabled)."""
    if os.geteuid() != 0:
        return None
    probe = {"memory": "memory.limit_in_bytes", "cpuacct": "cpuacct.usage"}.get(controller, "cgroup.procs")
    return cgroup_parent(f"{V1_ROOT}/{controller}", controller,
                         lambda base: os.path.exists(f"{base}/{probe}") and os.access(f"{base}/cgroup.procs", os.W_OK)
                         and os.access(base, os.W_OK))


# Where the sandboxes' cgroups go: under the cgroup the grader itself runs in, in each hierarchy (a Slurm job's, a
# container's, a systemd slice's), so that the limits the site set there hold for learners' code too: in cgroup v1 a
# parent's memory.limit_in_bytes caps its children's sum, its cpuset pins them, its pids.max counts them. At the top of
# the hierarchy (as before issue 52) only where that cgroup cannot be written, said once per process on stderr (a
# worker's log). cgroup v2 (the pids controller only): a cgroup holding processes cannot have controllers in its
# children (the kernel's "no internal processes" rule), so the sandboxes go beside the grader's own cgroup, in its
# parent, where that parent's cgroup.subtree_control enables pids (limits set on the parent hold, those on the
# grader's own leaf do not); then at the top.
PROC_CGROUP = "/proc/self/cgroup"
PROC_MOUNTINFO = "/proc/self/mountinfo"
_TOLD = set()  # the hierarchies whose fallback to the top was said


def own_cgroup(top, controller):
    """This process's cgroup in the hierarchy mounted at ``top`` (``controller``: a v1 controller's name; "" for
    cgroup v2's), as a path under ``top``; None where /proc/self/cgroup does not name it."""
    try:
        with open(PROC_CGROUP) as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    for line in lines:
        number, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if (controller and controller in controllers.split(",")) or (not controller and number == "0" and not controllers):
            break
    else:
        return None
    root = _mount_root(top)  # the cgroup mounted at ``top``: "/" but in a container that mounts its own cgroup there
    if root not in ("/", None):
        if path != root and not path.startswith(root + "/"):
            return None
        path = path[len(root):]
    path = path.strip("/")
    return None if ".." in path.split("/") else path


def _mount_root(top):
    """The root field of /proc/self/mountinfo's line for the mount at ``top``; None where there is none."""
    real = os.path.realpath(top)
    try:
        with open(PROC_MOUNTINFO) as handle:
            for line in handle:
                fields = line.split()
                if len(fields) > 4 and fields[4] == real:
                    return fields[3]
    except OSError:
        pass
    return None


def cgroup_parent(top, controller, usable):
    """The folder under which this process makes the sandboxes' cgroups of the hierarchy mounted at ``top``: its own
    cgroup's (on v2: its parent's) where ``usable`` says so, else ``top`` (said once), else None."""
    own = own_cgroup(top, controller)
    tries = []
    if own:
        tries.append(f"{top}/{own}" if controller else f"{top}/{os.path.dirname(own)}".rstrip("/"))
    for folder in tries:
        try:
            if usable(folder):
                return folder
        except OSError:
            pass
    try:
        if not usable(top):
            return None
    except OSError:
        return None
    if tries and top not in _TOLD and os.path.normpath(tries[0]) != os.path.normpath(top):
        _TOLD.add(top)
        print(f"autograder: the sandboxes' cgroups are made at the top of {top}, not under this process's own cgroup "
              f"({own}: it cannot be written there): limits set on that cgroup (a Slurm job's, a container's) do not "
              "hold for learners' code", file=sys.stderr, flush=True)
    return top


# Run before bwrap: joins each of the sandbox's cgroups, and hands the server a descriptor of its memory and
# cpuacct folders (appended to its command line), then becomes the command.
JOIN = """
import os, sys
cut = sys.argv.index("--")
folders, argv, extra = sys.argv[1:cut], sys.argv[cut + 1:], []
for folder in folders:
    kind, path = folder.split("=", 1)
    with open(os.path.join(path, "cgroup.procs"), "w") as handle:
        handle.write(str(os.getpid()))
    if kind in ("memory", "cpuacct") and delegate:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        os.set_inheritable(fd, True)
        extra += ["--%s-cgroup-fd" % kind, str(fd)]
os.execv(argv[0], argv + extra)
"""


class ProcessCap:
    """The cgroups around one sandbox: a pids cgroup (it and everything started in it count, MAX_PROCESSES at most),
    and where the machine has cgroup v1's memory and cpuacct controllers, one of each.

    Used where the grader is root (RLIMIT_NPROC does not hold for root). ``wrap`` returns the
    command that joins the cgroups and then becomes bwrap; with ``delegate``, the command (the unit server)
    gets ``--memory-cgroup-fd N --cpuacct-cgroup-fd N`` appended: descriptors of the sandbox's memory and cpuacct
    folders, under which it makes each notebook's cgroups (sandbox_servers/processes.NotebookCgroup). ``memory_mb``:
    a limit on the whole sandbox's memory, enforced by the kernel (the kernel server's: its kernels and itself).
    ``controllers``: those of the three to use. ``remove`` deletes them once all their processes have ended. Without a controller, its part does nothing
    (see ``missing_cap_warning``, ``missing_memory_warning``).
    """

    def __init__(self, limit=MAX_PROCESSES, delegate=True, memory_mb=None, controllers=("pids", "memory", "cpuacct")):
        self.limit, self.delegate, self.memory_mb, self.controllers = limit, delegate, memory_mb, controllers
        self.folder, self.folders = None, {}  # folder: the pids cgroup's; folders: {controller: folder}

    def wrap(self, argv):
        hierarchies = {"pids": pids_hierarchy(), "memory": v1_hierarchy("memory"), "cpuacct": v1_hierarchy("cpuacct")}
        for kind, base in hierarchies.items():
            if base is None or kind not in self.controllers:
                continue
            sweep(base)
            try:
                folder = tempfile.mkdtemp(prefix=cap_prefix(), dir=base)
            except OSError:
                continue
            self.folders[kind] = folder
            try:
                if kind == "pids":
                    Path(folder, "pids.max").write_text(str(self.limit))
                elif kind == "memory" and self.memory_mb:
                    Path(folder, "memory.limit_in_bytes").write_text(str(self.memory_mb * 2**20))
            except OSError:
                self._remove_one(kind)
        self.folder = self.folders.get("pids")
        if not self.folders:
            return list(argv)
        script = f"delegate = {bool(self.delegate)}\n" + JOIN
        return [sys.executable, "-I", "-S", "-c", script, *(f"{k}={v}" for k, v in self.folders.items()), "--", *argv]

    def remove(self):
        for kind in list(self.folders):
            self._remove_one(kind)
        self.folder = None

    def _remove_one(self, kind):
        folder = self.folders.pop(kind, None)
        if folder is None:
            return
        # A killed sandbox's processes leave its cgroup a moment after they are reaped: hundreds of them (a fork
        # bomb) on a loaded machine take seconds. Whatever is still there then is swept by a later run.
        deadline = time.monotonic() + REMOVE_WAIT_S
        while True:
            try:
                remove_tree(folder)
                break
            except FileNotFoundError:
                break
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.02)


def remove_tree(folder):
    """rmdir a cgroup and the cgroups under it (a notebook's, which its server could not remove), deepest first."""
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            remove_tree(entry.path)
    os.rmdir(folder)


def cap_prefix():
    """The name of this run's pids cgroups begins so: "autograder-", then AUTOGRADER_RUN_TAG where it is set
    (a test that grades beside other runs tells its own cgroups apart by it)."""
    tag = "".join(c for c in environment.read("AUTOGRADER_RUN_TAG", "") if c.isalnum())[:32]
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
                remove_tree(folder.path)
        except OSError:
            pass


def missing_cap_warning():
    """A line for the instructor where a notebook's processes cannot be capped (root, no pids cgroup)."""
    if os.geteuid() != 0 or pids_hierarchy() is not None:
        return None
    return ("no cap on a notebook's processes: the grader runs as root (exempt from RLIMIT_NPROC) on a machine "
            "without a writable pids cgroup; a fork bomb in a notebook slows the other jobs until its time budget "
            "stops it. Grade as an ordinary user, or where /sys/fs/cgroup has the pids controller")


def missing_memory_warning():
    """A line for the instructor where a notebook's memory cannot be counted and limited by the kernel (a grader
    that is not root, or a machine without cgroup v1's memory controller), or where swap is not counted."""
    if v1_hierarchy("memory") is None:
        return ("a notebook's memory is not counted by the kernel (no cgroup v1 memory controller the grader may "
                "use: grade as root on a machine with /sys/fs/cgroup/memory): the unit server polls its processes' "
                "resident memory instead, which System V or memfd shared memory and many processes can escape or "
                "outrun")
    if not os.path.exists(f"{V1_ROOT}/memory/memory.memsw.limit_in_bytes") and _swap_bytes():
        return ("swap is not counted in a notebook's memory limit (the kernel runs without swap accounting: boot with "
                "swapaccount=1): a notebook may hold its limit in memory and more in swap")
    return None


def missing_cpu_warning():
    """A line where a notebook's CPU time cannot be counted by the kernel (no cgroup v1 cpuacct controller)."""
    if v1_hierarchy("cpuacct") is None:
        return ("the CPU time of a notebook's processes is not counted together (no cgroup v1 cpuacct controller the "
                "grader may use): each process is limited on its own (RLIMIT_CPU), with the wall-clock budget")
    return None


def _swap_bytes():
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("SwapTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0
