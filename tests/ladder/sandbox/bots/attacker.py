"""A bot on the SDK that plays the lowest legal card and, at its first play request, attacks.

``python attacker.py ATTACK``; the tests copy it into a directory of its own per bot. What each
attack tried and got is printed as ``ATTACK <what> <result>`` lines, read back from its log. A
``targets.json`` beside it names the host paths to try (the test writes it: the database, another
bot's directory, the home directory, the harness's sources).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time
from pathlib import Path

from clients.sdk import View, serve
from referee.rules import Card

HERE = Path(__file__).resolve().parent
ATTACK = sys.argv[1]


def report(what: str, result: str) -> None:
    print(f"ATTACK {what} {result}", flush=True)


def targets() -> dict[str, str]:
    try:
        return json.loads((HERE / "targets.json").read_text())
    except OSError:
        return {}


def peek() -> None:
    t = targets()
    for label, path in t.items():
        try:
            if os.path.isdir(path):
                report(label, f"OPEN listed {sorted(os.listdir(path))} in {path}")
            else:
                with open(path, "rb") as f:
                    report(label, f"OPEN read {len(f.read(100))} bytes of {path}")
        except OSError as e:
            report(label, f"denied {type(e).__name__}")
    for label, path in (("ppid-cmdline", f"/proc/{os.getppid()}/cmdline"), ("ppid-cwd", f"/proc/{os.getppid()}/cwd")):
        try:
            text = os.readlink(path) if label.endswith("cwd") else open(path, "rb").read().decode(errors="replace")
            report(label, f"saw {text.replace(chr(0), ' ')!r}")
        except OSError as e:
            report(label, f"denied {type(e).__name__}")
    pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    report("processes", f"saw pids {pids}")
    if "db" in t:
        try:
            with open(t["db"], "ab") as f:
                f.write(b"x")
            report("db-write", "OPEN wrote the database")
        except OSError as e:
            report("db-write", f"denied {type(e).__name__}")


def assassinate() -> None:
    me = os.getpid()
    killed = []
    for p in os.listdir("/proc"):
        if p.isdigit() and int(p) != me:
            try:
                os.kill(int(p), signal.SIGKILL)
                killed.append(int(p))
            except OSError:
                pass
    report("kill-each", f"signalled {killed}")
    try:
        os.kill(-1, signal.SIGKILL)  # everything it may signal but itself (and its namespace's init)
        report("kill-1", "sent")
    except OSError as e:
        report("kill-1", f"failed {type(e).__name__}")
    for pid in [int(x) for x in targets().get("pids", "").split()]:
        try:
            os.kill(pid, signal.SIGKILL)
            report("kill-target", f"OPEN killed {pid}")
        except OSError as e:
            report("kill-target", f"failed {type(e).__name__}")


def fork_bomb() -> None:
    """A shell that starts processes without end, each holding its slot, and keeps trying."""
    import subprocess

    subprocess.Popen(["/bin/sh", "-c", "while :; do sleep 600 & done"])
    report("fork", "started a shell fork bomb")
    time.sleep(30)  # its sandbox is ended around it meanwhile (however slowly a loaded machine forks)


def hog_memory() -> None:
    hoard = []
    for i in range(24):  # 1.5 GB in 64 MB chunks, each touched
        try:
            hoard.append(bytearray(64 * 1024 * 1024))
        except MemoryError:
            report("memory", f"refused after {i * 64} MB")
            return
    report("memory", "OPEN held 1.5 GB")


def hog_memory_files() -> None:
    """Memory in files of memory (memfd), written and never mapped: in no resident set."""
    held = []
    for i in range(24):
        try:
            fd = os.memfd_create(f"hoard{i}")
            for _ in range(2):
                os.write(fd, b"\0" * (32 * 1024 * 1024))
            held.append(fd)
        except OSError as e:
            report("memfd", f"refused after {i * 64} MB: {type(e).__name__}")
            return
    report("memfd", "OPEN held 1.5 GB")


def shared_memory() -> None:
    """System V shared memory: a segment outlives its mapping, in no process's memory."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmget.restype = ctypes.c_int
    shmid = libc.shmget(0, ctypes.c_size_t(256 * 1024 * 1024), 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
    if shmid < 0:
        report("sysv-shm", f"refused: errno {ctypes.get_errno()}")
    else:
        report("sysv-shm", f"OPEN got segment {shmid}")


def fill_disk() -> None:
    written = 0
    try:
        with open("/tmp/fill", "wb") as f:
            while written < 2 * 1024**3:
                f.write(b"\0" * (1024 * 1024))
                f.flush()
                written += 1024 * 1024
        report("disk", f"OPEN wrote {written >> 20} MB")
    except OSError as e:
        report("disk", f"stopped at {written >> 20} MB: {type(e).__name__}")
    time.sleep(5)


def fill_shared_dir() -> None:
    """The directory shared with the referee is on the host's disk."""
    try:
        with open("/run/hearts/fill", "wb") as f:
            for _ in range(100):
                f.write(b"\0" * (1024 * 1024))
        report("shared-dir", "OPEN wrote 100 MB")
    except OSError as e:
        report("shared-dir", f"denied {type(e).__name__}")


def flood_log() -> None:
    line = b"x" * 1023 + b"\n"
    for _ in range(50 * 1024):  # 50 MB
        sys.stdout.buffer.write(line)
    sys.stdout.flush()


def burn_cpu() -> None:
    for _ in range(8):  # more spinners than the machine has cores
        if os.fork() == 0:
            while True:
                pass


def spin() -> None:
    while True:  # in the handler itself: the bot's own process burns its CPU time
        pass


def call_out() -> None:
    for host, port in [("127.0.0.1", int(targets().get("port", "22"))), ("1.1.1.1", 53), ("8.8.8.8", 443)]:
        try:
            with socket.create_connection((host, port), timeout=1):
                report("connect", f"OPEN connected to {host}:{port}")
        except OSError as e:
            report("connect", f"{host}:{port} failed {type(e).__name__}")


def leave_a_child() -> None:
    if os.fork() == 0:
        os.setsid()
        os.execvp("sleep", ["sleep", targets().get("marker", "3600.4242")])
    report("setsid-child", "started")


def take_a_neighbours_socket() -> None:
    """Before serving: its own socket a link to another bot's, whose folder name is easy to guess
    (the folders are numbered; /proc/self/mountinfo shows the host's path)."""
    target = targets().get("neighbour", "../0-1/bot.sock")
    os.symlink(target, "/run/hearts/bot.sock")
    report("symlink", f"linked /run/hearts/bot.sock to {target}")
    time.sleep(3600)


def mount_a_tmpfs_of_its_own() -> None:
    """A user namespace of its own, a tmpfs mounted in it, memory written there: in no process's count."""
    import subprocess

    script = "mkdir -p /tmp/m && mount -t tmpfs -o size=2g none /tmp/m && dd if=/dev/zero of=/tmp/m/f bs=1M count=900"
    run = subprocess.run(["unshare", "-Urm", "sh", "-c", script], capture_output=True, text=True)
    if run.returncode == 0:
        report("userns", "OPEN mounted a tmpfs and held 900 MB in it")
        time.sleep(20)
    else:
        report("userns", f"refused: {run.stderr.strip().splitlines()[-1:] or run.returncode}")


def hold_memory_in_tmp() -> None:
    """Memory in its own /tmp (a tmpfs): pages of no process's resident set."""
    written = 0
    try:
        with open("/tmp/hoard", "wb") as f:
            while written < 600 * 1024 * 1024:
                f.write(b"\1" * (1024 * 1024))
                written += 1024 * 1024
        report("tmp-memory", f"OPEN held {written >> 20} MB in /tmp")
        time.sleep(20)
    except OSError as e:
        report("tmp-memory", f"stopped at {written >> 20} MB: {type(e).__name__}")


def make_many_files() -> None:
    made = 0
    try:
        os.makedirs("/tmp/many", exist_ok=True)
        for made in range(100_000):
            open(f"/tmp/many/{made}", "w").close()
        report("files", "OPEN made 100000 files")
        time.sleep(20)
    except OSError as e:
        report("files", f"stopped at {made}: {type(e).__name__}")


def fill_the_shared_dir_then_serve() -> None:
    """Before serving, files in the folder shared with the referee (on the host's disk), at every start."""
    try:
        for i in range(8):
            with open(f"/run/hearts/fill{i}", "wb") as f:
                for _ in range(8):
                    f.write(b"\0" * (1024 * 1024))
        report("shared-fill", "OPEN wrote 64 MB")
    except OSError as e:
        report("shared-fill", f"stopped: {type(e).__name__}")
    time.sleep(1)


ATTACKS = {
    "peek": peek,
    "assassin": assassinate,
    "forkbomb": fork_bomb,
    "memory": hog_memory,
    "memfd": hog_memory_files,
    "sysv": shared_memory,
    "disk": fill_disk,
    "shared": fill_shared_dir,
    "log": flood_log,
    "cpu": burn_cpu,
    "spin": spin,
    "network": call_out,
    "setsid": leave_a_child,
    "symlink": take_a_neighbours_socket,
    "userns": mount_a_tmpfs_of_its_own,
    "tmp-memory": hold_memory_in_tmp,
    "files": make_many_files,
    "shared-fill": fill_the_shared_dir_then_serve,
    "none": lambda: None,
}


class Attacker:
    def __init__(self) -> None:
        self.done = False

    def pass_cards(self, view: View) -> list[Card]:
        return sorted(view.hand, key=lambda c: c.rank)[-view.rules.pass_count :]

    def play_card(self, view: View) -> Card:
        if not self.done:
            self.done = True
            ATTACKS[ATTACK]()
        return min(view.legal, key=lambda c: c.rank)


if __name__ == "__main__":
    if ATTACK in ("setsid", "symlink", "shared-fill"):  # attacks made before serving
        ATTACKS[ATTACK]()
    serve(Attacker())
