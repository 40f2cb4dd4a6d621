"""A control group per bot start: memory counted by the kernel, tmpfs and shared memory included.

The watch sums what a bot's processes hold, but memory held by no process (a tmpfs the bot
mounted, shared memory) is in no process's count; the kernel's memory controller charges every
page to the group of the process that touched it, so a group's limit bounds them all. Where the
cgroup v2 tree is writable (``/sys/fs/cgroup/cgroup.controllers`` lists ``memory``), a group gets
``memory.max``, ``memory.swap.max`` and ``pids.max``; where the v1 hierarchies are (``memory``
and ``pids`` mounted apart), ``memory.limit_in_bytes`` (and ``memory.memsw.limit_in_bytes``)
and ``pids.max``. Neither writable (not root, a read-only container): no group, and the bounds
are the sandbox's others (no namespaces or mounts inside, a size-capped /tmp, the watch).

The bot's first process joins its groups itself, before it runs anything (the launch shim writes
its pid into each ``cgroup.procs`` named in ``HEARTS_CGROUPS``), so no child escapes the count.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CGROUP_ROOT", "OWN_TASKS", "BotCgroup", "available", "remove_run", "run_groups"]

OWN_TASKS = 4
"""Room in ``pids.max`` for bubblewrap's own processes (its monitor and the namespace's init), which
are in the group too: the bot's own count reaches its limit, where the watch names it."""

CGROUP_ROOT = Path("/sys/fs/cgroup")
_GROUP = "hearts-arena"
MB = 1024 * 1024


def _writable(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)


def _v2_root(root: Path) -> Path | None:
    controllers = root / "cgroup.controllers"
    try:
        names = controllers.read_text().split()
    except OSError:
        return None
    return root if "memory" in names and _writable(root) else None


def available(root: Path = CGROUP_ROOT) -> str | None:
    """Which tree a bot's groups are made in here (``v2`` or ``v1``), or None where neither is writable."""
    if _v2_root(root) is not None:
        return "v2"
    if _writable(root / "memory") and (root / "memory" / "memory.limit_in_bytes").exists():
        return "v1"
    return None


def _run_tops(run: str, root: Path) -> list[Path]:
    return [root / _GROUP / run, root / "memory" / _GROUP / run, root / "pids" / _GROUP / run]


def run_groups(run: str, root: Path = CGROUP_ROOT) -> list[Path]:
    """The groups of one launcher's run that are still there."""
    return [top for top in _run_tops(run, root) if top.is_dir()]


def remove_run(run: str, root: Path = CGROUP_ROOT) -> None:
    """Remove every group of one launcher's run (``run``: the first part of its groups' names),
    once their processes are gone: what a launcher killed outright leaves, its watch removes."""
    for top in run_groups(run, root):
        for d in sorted((p for p in top.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
            try:
                d.rmdir()
            except OSError:
                pass
        try:
            top.rmdir()
        except OSError:
            pass


@dataclass
class BotCgroup:
    """The groups of one bot start; ``procs`` are the files its first process writes its pid to."""

    version: str
    dirs: list[Path] = field(default_factory=list)
    memory_dir: Path | None = None

    @classmethod
    def make(cls, name: str, memory_mb: int, processes: int, root: Path = CGROUP_ROOT) -> BotCgroup | None:
        """New groups named ``name`` under this project's own, with the limits set; None where none can be made."""
        version = available(root)
        if version is None:
            return None
        group = cls(version)
        try:
            if version == "v2":
                d = root / _GROUP / name
                for parent in reversed(d.parents):
                    if parent == root or root not in parent.parents:
                        continue
                    parent.mkdir(exist_ok=True)
                    # Children get the controllers only once each parent hands them down.
                    (parent / "cgroup.subtree_control").write_text("+memory +pids")
                d.mkdir()
                group.dirs.append(d)
                group.memory_dir = d
                (d / "memory.max").write_text(str(memory_mb * MB))
                if (d / "memory.swap.max").exists():
                    (d / "memory.swap.max").write_text("0")
                (d / "pids.max").write_text(str(processes + OWN_TASKS))
            else:
                mem = root / "memory" / _GROUP / name
                mem.mkdir(parents=True)
                group.dirs.append(mem)
                group.memory_dir = mem
                (mem / "memory.limit_in_bytes").write_text(str(memory_mb * MB))
                if (mem / "memory.memsw.limit_in_bytes").exists():  # swap is memory too
                    (mem / "memory.memsw.limit_in_bytes").write_text(str(memory_mb * MB))
                if _writable(root / "pids"):
                    pids = root / "pids" / _GROUP / name
                    pids.mkdir(parents=True)
                    group.dirs.append(pids)
                    (pids / "pids.max").write_text(str(processes + OWN_TASKS))
        except OSError:
            group.remove()
            return None
        return group

    @property
    def procs(self) -> list[Path]:
        """The ``cgroup.procs`` file of each group."""
        return [d / "cgroup.procs" for d in self.dirs]

    @property
    def features(self) -> tuple[str, ...]:
        """What this group enforces, in ``Isolation``'s words."""
        out = ["cgroup-memory"]
        if self.version == "v2" or len(self.dirs) > 1:
            out.append("cgroup-pids")
        return tuple(out)

    def oom_kills(self) -> int:
        """How many processes the kernel killed for the group's memory limit."""
        if self.memory_dir is None:
            return 0
        name = "memory.events" if self.version == "v2" else "memory.oom_control"
        try:
            for line in (self.memory_dir / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def peak_bytes(self) -> int:
        """The most memory the group held (0 where the kernel does not say)."""
        if self.memory_dir is None:
            return 0
        name = "memory.peak" if self.version == "v2" else "memory.max_usage_in_bytes"
        try:
            return int((self.memory_dir / name).read_text())
        except (OSError, ValueError):
            return 0

    def remove(self) -> None:
        """Remove the groups (once their processes are gone: a group with a process in it stays)."""
        for d in self.dirs:
            try:
                d.rmdir()
            except OSError:
                pass  # a process is still in it, or it is gone already
