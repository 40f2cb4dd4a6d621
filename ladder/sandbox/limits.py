"""The limits of one sandboxed bot: defaults, per-bot overrides, and how each is enforced.

Every limit is a whole number with a documented default (docs/sandbox.md). Where the kernel
enforces a limit it does (rlimits set before the bot's program starts, a size-capped tmpfs);
what the kernel cannot count per bot on a machine without a writable cgroup v2 tree (resident
memory summed over all the bot's processes, its threads and processes, its scratch space, its
log) the launcher's watch measures, and a bot over one is stopped and named in a
``resource_limit`` fault.
"""

from __future__ import annotations

import dataclasses
import resource
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_LIMITS", "LIMIT_DOCS", "Limits", "LimitsError"]

MB = 1024 * 1024


class LimitsError(ValueError):
    """A limits table that cannot be used, saying which key and what it takes."""


@dataclass(frozen=True)
class Limits:
    """One bot's limits. Sizes in MiB, times in seconds, counts as counts."""

    memory_mb: int = 512  # resident memory of all its processes together (the watch); RLIMIT_AS above it
    address_space_mb: int = 4096  # RLIMIT_AS per process: virtual reservations (gRPC threads, V8) are not memory
    cpu_seconds: int = 600  # RLIMIT_CPU per process over its life: SIGXCPU, then SIGKILL a second later
    cpu_share: float = 1.0  # cores its processes may use together, measured over 100 ms windows (the watch)
    processes: int = 64  # threads and processes together (RLIMIT_NPROC per bot uid; the watch counts them)
    open_files: int = 256  # RLIMIT_NOFILE per process
    file_size_mb: int = 64  # RLIMIT_FSIZE: the largest file it may write
    scratch_mb: int = 64  # its writable /tmp, a tmpfs of this size
    files: int = 10_000  # files and folders in its /tmp (the watch: a tmpfs counts inodes, not only bytes)
    log_mb: int = 4  # output kept per start: the first and last halves, with what was dropped between

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
            if f.name != "cpu_share":
                ok = ok and isinstance(value, int)
            if not ok:
                kind = "a positive number" if f.name == "cpu_share" else "a whole number above 0"
                raise LimitsError(f"limit {f.name} must be {kind}, not {value!r}")

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, base: Limits | None = None, source: str = "limits") -> Limits:
        """``base`` (the defaults) with the keys of ``data`` replaced; ``LimitsError`` naming an unknown key."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise LimitsError(f"{source}: unknown limit(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        try:
            return dataclasses.replace(base or cls(), **data)
        except LimitsError as e:
            raise LimitsError(f"{source}: {e}") from None

    def overrides(self) -> dict[str, Any]:
        """The limits that differ from the defaults (what a bots file needs to say)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if getattr(self, f.name) != f.default}

    def rlimits(self) -> list[tuple[int, int, int]]:
        """(resource, soft, hard) for the bot's process, set before its program starts (inherited
        by everything it starts; lowered hard limits cannot be raised again without privilege)."""
        return [
            (resource.RLIMIT_AS, self.address_space_mb * MB, self.address_space_mb * MB),
            (resource.RLIMIT_CPU, self.cpu_seconds, self.cpu_seconds + 1),
            (resource.RLIMIT_NPROC, self.processes, self.processes),
            (resource.RLIMIT_NOFILE, self.open_files, self.open_files),
            (resource.RLIMIT_FSIZE, self.file_size_mb * MB, self.file_size_mb * MB),
            (resource.RLIMIT_CORE, 0, 0),  # a crash writes no core file into anyone's disk
        ]


DEFAULT_LIMITS = Limits()

LIMIT_DOCS: dict[str, str] = {
    "memory_mb": "resident memory of all the bot's processes together, MiB",
    "address_space_mb": "address space of each process (RLIMIT_AS), MiB",
    "cpu_seconds": "CPU time of each process over its life (RLIMIT_CPU), s",
    "cpu_share": "cores the bot may keep busy, over 100 ms windows",
    "processes": "threads and processes together",
    "open_files": "open files per process (RLIMIT_NOFILE)",
    "file_size_mb": "largest file it may write (RLIMIT_FSIZE), MiB",
    "scratch_mb": "its writable /tmp, MiB",
    "files": "files and folders in its /tmp",
    "log_mb": "output kept per start (head and tail), MiB",
}
