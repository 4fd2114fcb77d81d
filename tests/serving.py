"""Starting a server in a test: a free port, and waiting until the server answers (one piece for the lab, the
student pack, start.py, formgrader and the hub); a small JSON server on a thread, for the stand-ins of the hub's API
and the live view's service."""
import json
import socket
import subprocess
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_processes(processes, timeout=30):
    """Ask each of ``processes`` (Popen) still running to stop, in the order given; kill those that do not in ``timeout`` s."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


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


class JSONHandler(BaseHTTPRequestHandler):
    """A stand-in server's handler: answers with JSON (send_json) and prints nothing."""

    def send_json(self, status, payload):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class ThreadedServer:
    """`handler` served on 127.0.0.1:`port` (0: any free one) by a daemon thread, until close()."""

    def __init__(self, handler, port=0):
        self.server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
