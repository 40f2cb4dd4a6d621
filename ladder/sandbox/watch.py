"""The watch: what a sandboxed bot's processes use, measured from /proc, and what is done about it.

Where no writable cgroup v2 tree gives each bot its own ``memory.max``, ``pids.max`` and
``cpu.max``, the kernel's rlimits are per process (or per uid), not per bot. The watch adds up,
every ``TICK_S``, everything the bot's process tree holds: resident memory, threads, CPU time, and
how full its scratch tmpfs is. Over a limit, the bot is killed (SIGKILL to its sandbox: its PID
namespace takes every process with it) and the limit is named for the referee's
``resource_limit`` fault. CPU over ``cpu_share`` within a window is not a fault: the bot's
threads are given the lowest priority (nice 19) until a window ends under its share, so under
contention its share is capped (the others preempt it), and it never holds a core they want.

All of a sandbox's processes descend from its bubblewrap process: a process that leaves its
session (``setsid``) is still in the PID namespace, and an orphan is reaped by the namespace's
init, bubblewrap's own, so it stays in the tree. The walk uses ``/proc/PID/task/TID/children``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ladder.sandbox.cgroup import remove_run, run_groups
from ladder.sandbox.limits import MB, Limits

__all__ = ["TICK_S", "Usage", "Watch", "Watcher", "tree", "usage"]

TICK_S = 0.05  # 0.3 ms of the referee process's CPU per bot per tick, measured: 0.6% of a core per bot
CPU_WINDOW_S = 0.1
LOW_PRIORITY = 19
SHARED_ENTRIES = 16  # a bot's shared directory holds its socket: a few entries at most
SHARED_BYTES = 1024 * 1024  # and a socket has no size: this is far more than a bot needs
_PAGE = os.sysconf("SC_PAGE_SIZE")
_HZ = os.sysconf("SC_CLK_TCK")
_OWN_MOUNTS = os.readlink("/proc/self/ns/mnt") if os.path.exists("/proc/self/ns/mnt") else ""


def tree(root: int) -> list[int]:
    """``root`` and every process descending from it (empty if ``root`` is gone)."""
    out: list[int] = []
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        out.append(pid)
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
            except OSError:
                pass
    return out


@dataclass
class Usage:
    pids: list[int] = field(default_factory=list)  # the bot's own processes (bubblewrap's left out)
    tasks: int = 0  # threads of those processes, what RLIMIT_NPROC counts
    rss: int = 0  # bytes
    cpu: float = 0.0  # seconds, of the live processes
    memfd: int = 0  # bytes of the memory files its processes hold open (memfd_create): memory of no process


def _memfd_bytes(pid: int) -> int:
    """The sizes of the memory files ``pid`` holds open: a file of memory written and unmapped
    is in no process's resident set, yet it is memory."""
    total = 0
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return 0
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("/memfd:"):
                total += os.stat(f"/proc/{pid}/fd/{fd}").st_size
        except OSError:
            continue
    return total


def usage(root: int) -> Usage:
    """What the processes under ``root`` use now. bubblewrap's own processes (the monitor and the
    namespace's init, run as root) are not the bot's and are not counted."""
    u = Usage()
    for pid in tree(root):
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
            with open(f"/proc/{pid}/statm") as f:
                rss_pages = int(f.read().split()[1])
        except (OSError, IndexError, ValueError):
            continue
        name = stat[stat.find("(") + 1 : stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2 :].split()
        if name == "bwrap":
            continue
        u.pids.append(pid)
        u.memfd += _memfd_bytes(pid)
        u.tasks += max(1, int(fields[17]))  # num_threads (field 20 of proc(5)); a zombie shows 0 yet counts
        u.rss += rss_pages * _PAGE
        u.cpu += (int(fields[11]) + int(fields[12])) / _HZ  # utime + stime
    return u


def proportional(pids: list[int]) -> int:
    """Bytes the processes hold, each shared page counted once across them (PSS): a summed RSS
    counts a forked worker's pages shared with its parent twice. Dearer to read than RSS (the
    kernel walks the page tables), so read only once the RSS sum passes the limit."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
        except (OSError, ValueError):
            continue
    return total


def dir_usage(path: Path, most: int) -> tuple[int, int]:
    """(entries, bytes) under ``path``, counting at most ``most`` entries (a bound on the cost)."""
    entries = size = 0
    for top, dirs, files in os.walk(path):
        for name in dirs + files:
            entries += 1
            try:
                size += os.lstat(os.path.join(top, name)).st_size
            except OSError:
                pass
            if entries >= most:
                return entries, size
    return entries, size


def scratch_free(pid: int) -> tuple[int, int] | None:
    """(free bytes, inodes in use) of the bot's /tmp, seen through its process's root; None if it
    cannot be seen, or the process is not in the sandbox's mounts yet (the launch shim, before it
    becomes bubblewrap, sees the host's /tmp)."""
    try:
        if os.readlink(f"/proc/{pid}/ns/mnt") == _OWN_MOUNTS:
            return None
        st = os.statvfs(f"/proc/{pid}/root/tmp")
    except OSError:
        return None
    return st.f_bavail * st.f_frsize, st.f_files - st.f_ffree


@dataclass
class _Watched:
    root: int
    limits: Limits
    on_hit: Callable[[str], None]
    sandboxed: bool
    window_start: float = 0.0
    window_cpu: float = 0.0
    last_cpu: float | None = None
    stopped: list[int] = field(default_factory=list)  # its processes, while held to the lowest priority
    throttled: int = 0
    hit: str | None = None
    peak_rss: int = 0
    shared_dir: Path | None = None


class Watcher:
    """Watches bot process trees from one daemon thread of this process. ``add(key, pid, limits,
    on_hit)``: ``on_hit(why)`` is called once, from the watch's thread, after the bot was killed
    for a limit. ``Watch`` runs one in a process of its own."""

    def __init__(self, tick: float = TICK_S, on_throttle: Callable[[str, int], None] | None = None) -> None:
        self.tick = tick
        self.on_throttle = on_throttle
        self._bots: dict[str, _Watched] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def add(
        self,
        key: str,
        root: int,
        limits: Limits,
        on_hit: Callable[[str], None],
        *,
        sandboxed: bool = True,
        shared_dir: Path | None = None,
    ) -> None:
        """``shared_dir``: the host directory the bot shares with the referee (its socket's), on
        the host's disk, held to ``SHARED_ENTRIES`` entries and ``SHARED_BYTES``."""
        with self._lock:
            self._bots[key] = _Watched(
                root, limits, on_hit, sandboxed, window_start=time.monotonic(), shared_dir=shared_dir
            )
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="sandbox-watch", daemon=True)
                self._thread.start()

    def remove(self, key: str) -> None:
        with self._lock:
            self._bots.pop(key, None)

    def throttled(self, key: str) -> int:
        """How many windows the bot's CPU was stopped in (0 for a bot not watched)."""
        w = self._bots.get(key)
        return 0 if w is None else w.throttled

    def keys(self) -> list[str]:
        with self._lock:
            return list(self._bots)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)
        with self._lock:
            self._bots.clear()

    def _run(self) -> None:
        while not self._stop.wait(self.tick):
            with self._lock:
                watched = list(self._bots.items())
            for key, w in watched:
                try:
                    before = w.throttled
                    self._check(w)
                    if w.throttled != before and self.on_throttle is not None:
                        self.on_throttle(key, w.throttled)
                except Exception:  # one bot's odd /proc never stops the watch of the others
                    continue

    def _check(self, w: _Watched) -> None:
        if w.hit is not None:
            return
        now = time.monotonic()
        u = usage(w.root)
        if not u.pids:
            return
        lim = w.limits
        w.peak_rss = max(w.peak_rss, u.rss)
        why = None
        if u.rss + u.memfd > lim.memory_mb * MB and (held := proportional(u.pids) + u.memfd) > lim.memory_mb * MB:
            why = f"memory: {held / MB:.0f} MiB held, over the limit of {lim.memory_mb} MiB"
        elif u.tasks >= lim.processes:
            why = f"processes: {u.tasks} threads and processes, the limit is {lim.processes}"
        elif w.sandboxed:
            scratch = scratch_free(u.pids[0])
            if scratch is not None and scratch[0] < 64 * 1024:
                why = f"disk: the scratch space /tmp is full ({lim.scratch_mb} MiB)"
            elif scratch is not None and scratch[1] > lim.files:
                why = f"files: {scratch[1]} files and folders in /tmp, the limit is {lim.files}"
            elif w.shared_dir is not None:
                entries, size = dir_usage(w.shared_dir, SHARED_ENTRIES + 1)
                if entries > SHARED_ENTRIES or size > SHARED_BYTES:
                    why = f"disk: {entries} entries, {size / 1024:.0f} KiB in its shared directory /run/hearts"
        if why is not None:
            self.kill(w, why)
            return
        # CPU share: the CPU used since the window began. Over the share, every thread of the bot
        # is given the lowest priority (nice 19: about 1/70 of a nice-0 thread's weight) until a
        # window ends under the share: the others' decisions then preempt it at once, while idle
        # cores stay its to use. The bot cannot raise its priority again (no privilege).
        delta = 0.0 if w.last_cpu is None else max(0.0, u.cpu - w.last_cpu)
        w.last_cpu = u.cpu
        if now - w.window_start >= CPU_WINDOW_S:
            if w.stopped and w.window_cpu <= lim.cpu_share * CPU_WINDOW_S:
                _renice(w.stopped, 0)
                w.stopped = []
            w.window_start, w.window_cpu = now, 0.0
        w.window_cpu += delta
        if w.window_cpu > lim.cpu_share * CPU_WINDOW_S:
            if not w.stopped:
                w.throttled += 1
            w.stopped = list(u.pids)
            _renice(w.stopped, LOW_PRIORITY)  # again each tick: threads started since are caught too

    def kill(self, w: _Watched, why: str) -> None:
        w.hit = why
        try:
            os.killpg(w.root, signal.SIGKILL)
        except OSError:
            pass
        _signal([w.root, *tree(w.root)], signal.SIGKILL)
        w.on_hit(why)


class Watch:
    """The watch of one launcher, in a process of its own
    (``python -c 'from ladder.sandbox.watch import _serve; ...'``): its reading of /proc then takes
    nothing of the referee's own thread (its interpreter lock), which every decision of every match
    goes through. Same calls as ``Watcher``; ``on_hit`` is called
    from a reader thread here. The process ends when this one does (its input closes)."""

    def __init__(self, tick: float = TICK_S, *, run_dir: Path | None = None) -> None:
        """``run_dir``: the launcher's directory of sockets, removed by the watch's process when it
        ends, so that even a launcher killed outright leaves none behind."""
        where = None if run_dir is None else str(run_dir)
        self._proc = subprocess.Popen(
            [sys.executable, "-c", f"from ladder.sandbox.watch import _serve; _serve({tick!r}, {where!r})"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            # Its own session: a Ctrl-C or a service manager's SIGTERM to this process's group must not
            # end the watch under a check or a match still under way; it ends when its input closes.
            start_new_session=True,
        )
        self._on_hit: dict[str, Callable[[str], None]] = {}
        self._throttled: dict[str, int] = {}
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, name="sandbox-watch-reader", daemon=True)
        self._reader.start()

    def _send(self, message: dict[str, Any]) -> None:
        assert self._proc.stdin is not None
        with self._lock:
            self._proc.stdin.write(json.dumps(message) + "\n")
            self._proc.stdin.flush()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            event = json.loads(line)
            key = event["key"]
            if "throttled" in event:
                self._throttled[key] = event["throttled"]
            elif "hit" in event and key in self._on_hit:
                self._on_hit[key](event["hit"])

    def add(
        self,
        key: str,
        root: int,
        limits: Limits,
        on_hit: Callable[[str], None],
        *,
        sandboxed: bool = True,
        shared_dir: Path | None = None,
    ) -> None:
        """Watch the process tree of ``root`` against ``limits``; see ``Watcher.add``."""
        self._on_hit[key] = on_hit
        self._send(
            {
                "op": "add",
                "key": key,
                "root": root,
                "limits": dataclasses.asdict(limits),
                "sandboxed": sandboxed,
                "shared_dir": None if shared_dir is None else str(shared_dir),
            }
        )

    def remove(self, key: str) -> None:
        self._on_hit.pop(key, None)
        self._throttled.pop(key, None)
        self._send({"op": "remove", "key": key})

    def throttled(self, key: str) -> int:
        return self._throttled.get(key, 0)

    def keys(self) -> list[str]:
        return list(self._on_hit)

    def close(self) -> None:
        """End the watch's process (its last reports read first)."""
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):  # the watch ended already (killed): it has nothing left to read
                self._proc.stdin.close()
        try:
            self._proc.wait(5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._reader.join(2)


def _serve(tick: float, run_dir: str | None = None) -> None:
    """The watch's process: commands in (one JSON object a line), reports out, until input ends;
    then ``run_dir`` is removed."""
    out_lock = threading.Lock()

    def report(message: dict[str, Any]) -> None:
        with out_lock:
            sys.stdout.write(json.dumps(message) + "\n")
            sys.stdout.flush()

    watcher = Watcher(tick, on_throttle=lambda key, n: report({"key": key, "throttled": n}))
    for line in sys.stdin:
        msg = json.loads(line)
        key = msg["key"]
        if msg["op"] == "add":

            def hit(why: str, key: str = key) -> None:
                report({"key": key, "hit": why})

            watcher.add(
                key,
                msg["root"],
                Limits(**msg["limits"]),
                hit,
                sandboxed=msg["sandboxed"],
                shared_dir=None if msg["shared_dir"] is None else Path(msg["shared_dir"]),
            )
        elif msg["op"] == "remove":
            watcher.remove(key)
    watcher.close()
    if run_dir is not None:
        shutil.rmtree(run_dir, ignore_errors=True)
        for _ in range(20):  # a group is removable once its last process has exited
            remove_run(Path(run_dir).name)
            if not run_groups(Path(run_dir).name):
                break
            time.sleep(0.1)


def _renice(pids: list[int], nice: int) -> None:
    """Every thread of ``pids`` to ``nice`` (on Linux a priority is a thread's, not a process's)."""
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                os.setpriority(os.PRIO_PROCESS, int(tid), nice)
            except OSError:
                pass


def _signal(pids: list[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass
