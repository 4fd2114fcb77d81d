"""nbgrader's Execute with kernels forked from the job's zygote (zygote.py) instead of started from scratch.

Only how the kernel process comes to be changes: jupyter_client's LocalProvisioner still
owns it (interrupts and kills go to its process group, liveness through waitpid), and any
kernel command other than `python -m ipykernel_launcher ...` is launched the usual way.
"""
import os
import signal
import sys
import uuid

from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner
from nbgrader.preprocessors import Execute

from autograder.grading.zygote import Zygote, become_subreaper

ZYGOTE = Zygote()  # one per worker process, started when the worker starts


class ForkedKernel:
    """The few `subprocess.Popen` methods LocalProvisioner uses, for a kernel adopted by this process."""

    stdin = stdout = stderr = None

    def __init__(self, pid):
        self.pid, self.returncode = pid, None

    def _reap(self, flags):
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, flags)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def poll(self):
        return self._reap(os.WNOHANG)

    def wait(self, timeout=None):
        return self._reap(0)

    def send_signal(self, signum):
        if self.poll() is None:
            os.kill(self.pid, signum)

    def kill(self):
        self.send_signal(signal.SIGKILL)

    def terminate(self):
        self.send_signal(signal.SIGTERM)


def ipykernel_args(cmd):
    """The arguments after `python -m ipykernel_launcher` in ``cmd``, or None for any other command."""
    if len(cmd) >= 3 and os.path.basename(cmd[0]).startswith("python") and cmd[1:3] == ["-m", "ipykernel_launcher"]:
        return cmd[3:]
    return None


class ForkedProvisioner(LocalProvisioner):
    async def launch_kernel(self, cmd, **kwargs):
        args = ipykernel_args(cmd)
        if args is None or os.path.realpath(cmd[0]) != os.path.realpath(sys.executable) or not become_subreaper():
            return await super().launch_kernel(cmd, **kwargs)
        self.cwd = kwargs.get("cwd") or os.getcwd()
        try:
            pid = ZYGOTE.spawn(args, self.cwd, kwargs.get("env") or os.environ)
        except (OSError, RuntimeError) as error:
            self.log.warning("forking a kernel failed (%s): starting one from scratch", error)
            return await super().launch_kernel(cmd, **kwargs)
        self.process, self.pid, self.pgid = ForkedKernel(pid), pid, pid
        return self.connection_info


class ForkedKernelManager(AsyncKernelManager):
    async def _async_pre_start_kernel(self, **kw):
        if self.provisioner is None:
            self.kernel_id = self.kernel_id or kw.pop("kernel_id", None) or str(uuid.uuid4())
            self.provisioner = ForkedProvisioner(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
        return await super()._async_pre_start_kernel(**kw)


class ForkedExecute(Execute):
    """nbgrader's Execute (same configuration section), with ForkedKernelManager."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", ForkedKernelManager)
        super().__init__(*args, **kwargs)
