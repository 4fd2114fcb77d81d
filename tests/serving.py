"""Starting a server in a test: a free port, and waiting until the server answers (one piece for the lab, the
student pack, start.py, formgrader and the hub)."""
import socket
import time
import urllib.request

import pytest


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def first_answer(url, process, seconds, log_text, what, interval=0.5):
    """The address `url` answers at (after redirects), polled until it answers; the test fails, with the end of
    the server's output (`log_text()`), where `process` exits first or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=3) as response:
                return response.geturl()
        except OSError:
            if process.poll() is not None:
                pytest.fail(f"{what} exited with status {process.returncode}:\n{log_text()[-4000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"{what} did not answer within {seconds} s:\n{log_text()[-4000:]}")
            time.sleep(interval)
