"""Who serves a bot's socket: the check that a seat is played by the processes started for it.

A sandboxed bot makes its socket in the directory it shares with the referee, and that directory
is the bot's to write until the socket is there: a link or another bot's socket put in its place
would have the referee, on the host, play someone else in the seat. So the referee never follows
the shared path. ``pin`` hard-links what is there (the link itself, never its target) into a
directory of the referee's own, refuses anything but a socket owned by the bot's uid, and the
referee connects through that pinned name ever after: it names one socket for good, however the
shared directory changes. ``unix_peer`` then asks the kernel who listens on it (SO_PEERCRED: the
host pid and uid of the process that called ``listen``), which must be a process of the bot's own
sandbox.

A bot started by command without the sandbox listens on a TCP port of loopback: ``tcp_listener_pids``
reads from /proc which processes hold the listening socket of that port, which must be the bot's
own (its process tree). That stops a bot that names another's port as its own; it cannot stop a
bot that runs unconfined on purpose, which can do anything its user can (docs/sandbox.md).
"""

from __future__ import annotations

import os
import socket
import stat
import struct
from pathlib import Path

from ladder.sandbox.watch import tree

__all__ = ["PeerMismatch", "check_tcp", "check_unix", "pin", "tcp_listener_pids", "unix_peer"]


class PeerMismatch(Exception):
    """The seat's socket is not served by the seat's own bot; the message says what was seen."""


def pin(shared: Path, private: Path, uid: int | None) -> Path:
    """Hard-link the socket at ``shared`` (not following a link) to ``private``; ``PeerMismatch``
    unless it is a socket (owned by ``uid``, where given). Returns ``private``."""
    st = os.lstat(shared)  # FileNotFoundError: not made yet
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.readlink(shared)
        except OSError:
            target = "?"
        raise PeerMismatch(f"its socket {shared.name} is a symbolic link (to {target!r}), not a socket of its own")
    if not stat.S_ISSOCK(st.st_mode):
        raise PeerMismatch(f"its socket {shared.name} is not a socket (mode {stat.filemode(st.st_mode)})")
    if uid is not None and st.st_uid != uid:
        raise PeerMismatch(f"its socket {shared.name} belongs to uid {st.st_uid}, not the bot's own uid {uid}")
    try:
        private.unlink()
    except FileNotFoundError:
        pass
    os.link(shared, private, follow_symlinks=False)
    st2 = os.lstat(private)
    if (st2.st_dev, st2.st_ino) != (st.st_dev, st.st_ino):  # replaced between the look and the link
        private.unlink()
        raise PeerMismatch(f"its socket {shared.name} was replaced while it was checked")
    return private


def unix_peer(path: Path, timeout: float = 1.0) -> tuple[int, int, int]:
    """(pid, uid, gid) of the process listening on the unix socket at ``path``, as the host sees them."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(str(path))
        pid, uid, gid = struct.unpack("3i", s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return pid, uid, gid


def check_unix(path: Path, root_pid: int, uid: int | None) -> None:
    """``PeerMismatch`` unless the listener on ``path`` is a process under ``root_pid`` (its
    sandbox) and runs as ``uid`` (where the bot has a uid of its own). ``OSError`` if none listens."""
    pid, peer_uid, _gid = unix_peer(path)
    if uid is not None and peer_uid != uid:
        raise PeerMismatch(f"its socket is served by uid {peer_uid} (pid {pid}), not the bot's own uid {uid}")
    if pid not in tree(root_pid):
        raise PeerMismatch(f"its socket is served by pid {pid}, which is not a process of its sandbox")


_SOCK_DIAG = 4  # NETLINK_SOCK_DIAG
_BY_FAMILY = 20  # SOCK_DIAG_BY_FAMILY
_LISTEN = 10  # TCP_LISTEN


def _diag_listeners(family: int) -> dict[int, set[int]]:
    """Listening TCP sockets of ``family`` by port: their inodes, asked of the kernel over netlink
    (sock_diag walks the listening sockets only; /proc/net/tcp walks the whole table, ~5 ms)."""
    req = struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 0, 0, 1 << _LISTEN) + b"\0" * 48
    msg = struct.pack("=IHHII", 16 + len(req), _BY_FAMILY, 0x301, 1, 0) + req  # NLM_F_REQUEST | NLM_F_DUMP
    out: dict[int, set[int]] = {}
    with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _SOCK_DIAG) as s:
        s.settimeout(1.0)
        s.sendto(msg, (0, 0))
        while True:
            data = s.recv(65536)
            pos = 0
            while pos + 16 <= len(data):
                length, kind = struct.unpack_from("=IH", data, pos)
                if kind == 3:  # NLMSG_DONE
                    return out
                if kind == 2:  # NLMSG_ERROR
                    raise OSError("sock_diag refused the request")
                body = pos + 16
                sport = struct.unpack_from("!H", data, body + 4)[0]
                inode = struct.unpack_from("=I", data, body + 4 + 48 + 16)[0]
                out.setdefault(sport, set()).add(inode)
                pos += (length + 3) & ~3
                if length == 0:
                    return out


def _listening_inodes(port: int) -> set[int]:
    try:
        return _diag_listeners(socket.AF_INET).get(port, set()) | _diag_listeners(socket.AF_INET6).get(port, set())
    except OSError:
        pass  # no netlink here (a restricted container): the slower table
    out: set[int] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    cols = line.split()
                    if cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                        out.add(int(cols[9]))
        except (OSError, StopIteration, IndexError, ValueError):
            continue
    return out


def tcp_listener_pids(port: int, pids: list[int]) -> list[int]:
    """Those of ``pids`` that hold a socket listening on TCP ``port`` (this network namespace's)."""
    wanted = {f"socket:[{i}]" for i in _listening_inodes(port)}
    holders = []
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") in wanted:
                    holders.append(pid)
                    break
            except OSError:
                continue
    return holders


def _session(sid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.getsid(int(name)) == sid:
                    out.append(int(name))
            except OSError:
                continue
    return out


def check_tcp(port: int, root_pid: int) -> None:
    """``PeerMismatch`` unless a process of the bot's own (under ``root_pid``, or in the session it
    leads) listens on TCP ``port``."""
    if not _listening_inodes(port):
        return  # nothing listens: the call will find the bot unreachable, a fault of its own
    if not tcp_listener_pids(port, tree(root_pid)) and not tcp_listener_pids(port, _session(root_pid)):
        raise PeerMismatch(f"port {port} is served by a process that is not this bot's (nor one it started)")
