"""The checks of who serves a seat (ladder/sandbox/peer.py), on real sockets and real processes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from ladder.sandbox import peer

pytestmark = pytest.mark.slow  # whole processes and servers


def test_pin_links_a_socket_and_refuses_a_link_a_file_or_anothers_socket(tmp_path: Path) -> None:
    shared, private = tmp_path / "bot.sock", tmp_path / "pinned.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(shared))
        s.listen()
        assert peer.pin(shared, private, os.getuid()) == private
        assert os.path.samestat(os.lstat(shared), os.lstat(private))
        pid, uid, _ = peer.unix_peer(private)
        assert (pid, uid) == (os.getpid(), os.getuid())
        peer.check_unix(private, os.getpid(), os.getuid())
        with pytest.raises(peer.PeerMismatch, match="not the bot's own uid 12345"):
            peer.pin(shared, private, 12345)
        with pytest.raises(peer.PeerMismatch, match="served by uid"):
            peer.check_unix(private, os.getpid(), 12345)
    link = tmp_path / "link.sock"
    link.symlink_to("../elsewhere/bot.sock")
    with pytest.raises(peer.PeerMismatch, match=r"symbolic link \(to '../elsewhere/bot.sock'\)"):
        peer.pin(link, private, None)
    plain = tmp_path / "plain"
    plain.write_text("x")
    with pytest.raises(peer.PeerMismatch, match="is not a socket"):
        peer.pin(plain, private, None)


def test_a_unix_listener_outside_the_bots_tree_is_an_impostor(tmp_path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(tmp_path / "bot.sock"))
        s.listen()
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            with pytest.raises(peer.PeerMismatch, match=f"served by pid {os.getpid()}"):
                peer.check_unix(tmp_path / "bot.sock", child.pid, None)
        finally:
            child.kill()
            child.wait()


def test_a_tcp_port_is_checked_against_the_processes_that_hold_its_listener() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert peer.tcp_listener_pids(port, [os.getpid()]) == [os.getpid()]
        peer.check_tcp(port, os.getpid())
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
        try:
            with pytest.raises(peer.PeerMismatch, match=f"port {port} is served by a process that is not this bot's"):
                peer.check_tcp(port, child.pid)
        finally:
            child.kill()
            child.wait()


def test_the_kernels_listener_table_and_proc_agree() -> None:
    """sock_diag over netlink and /proc/net/tcp name the same listening socket."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        inode = int(os.readlink(f"/proc/self/fd/{s.fileno()}")[len("socket:[") : -1])
        assert peer._diag_listeners(socket.AF_INET)[port] == {inode}
        with open("/proc/net/tcp") as f:
            rows = [line.split() for line in f.readlines()[1:]]
        assert any(int(r[1].rsplit(":", 1)[1], 16) == port and r[3] == "0A" and int(r[9]) == inode for r in rows)
