"""Where class-live listens: two Unix sockets in a folder that only root (the hub and its services) may write, so
that while the service is down no other user can bind its address, receive what is sent there, or keep the service
from starting again (a loopback TCP port is anyone's to bind once it is free).

- events.sock, mode 0666: the learners' kernels post their events there (api/events, nothing else);
- page.sock, mode 0600: the hub's proxy (root) forwards the instructors' page, stream and OAuth callback there.

The hub also checks the service at its http URL (JupyterHub 6.1 takes no other kind for a service): a loopback port
that answers 404 to everything (service.py); where another process holds it, the service runs without it.
"""
import os
import stat
from pathlib import Path

from tornado.netutil import bind_unix_socket

EVENTS_MODE, PAGE_MODE = 0o666, 0o600
FOLDER_MODE = 0o755
MAX_PATH = 107  # bytes: a Unix socket's address (sun_path) holds no more on Linux


def private_folder(folder):
    """`folder`, made (0755) where missing; SystemExit unless it and every folder above it belong to root or to this
    process's user and no one else may write in them (a folder above it may be sticky, as /tmp is)."""
    folder = Path(folder)
    if not folder.exists():
        folder.mkdir(parents=True)
        folder.chmod(FOLDER_MODE)  # whatever the umask: the students' kernels must reach events.sock
    folder = folder.resolve()
    owners = {0, os.geteuid()}
    for path in [folder, *folder.parents]:
        info = path.stat()
        sticky = path != folder and info.st_mode & stat.S_ISVTX
        if info.st_uid not in owners:
            why = f"belongs to uid {info.st_uid}"
        elif info.st_mode & 0o022 and not sticky:
            why = f"may be written by {'every user' if info.st_mode & 0o002 else 'its group'} (mode {info.st_mode & 0o7777:o})"
        else:
            continue
        raise SystemExit(f"class-live: {path} {why}: another user could put a socket of their own where the learners' "
                         f"kernels post, or rename the service's. Make it root's and closed to writing by others "
                         f"(chown root {path}; chmod go-w {path}), or set TRANSFORMER_LIVE_SOCKETS to a folder that is.")
    return folder


def bind(path, mode):
    """A listening Unix socket at `path` (a stale one from a stopped service is replaced), with `mode`."""
    if len(os.fsencode(path)) > MAX_PATH:
        raise SystemExit(f"class-live: the socket path {path} is over {MAX_PATH} bytes, more than a Unix socket's "
                         "address holds: give the hub a shorter folder (HUB_DIR) or set TRANSFORMER_LIVE_SOCKETS")
    return bind_unix_socket(str(path), mode=mode)
