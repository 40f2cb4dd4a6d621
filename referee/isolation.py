"""What guarded a bot while it played: a small frozen value that every match record keeps per seat.

``str`` and ``Isolation.parse`` round-trip: ``none``, ``in-process``, ``remote``, ``limits-only``, or
``sandbox:`` and the kernel features in force, comma-separated (``sandbox:pid-ns,net-ns,...``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FEATURE_DOCS", "KINDS", "Isolation", "IsolationError"]

KINDS = ("none", "in-process", "remote", "limits-only", "sandbox", "person")
"""How a seat's bot ran: started by command with no limits; a class in the referee's process; at an
address the referee does not start; under rlimits and the watch only; in bubblewrap. Or no bot: a
person at the table (``hearts play``), with no program of theirs to guard."""

FEATURE_DOCS: dict[str, str] = {
    "mount-ns": "its own root: only the system, its runtime and its own folder, read-only",
    "pid-ns": "sees only its own processes",
    "net-ns": "no network but its own loopback",
    "ipc-ns": "its own System V and POSIX message queues",
    "own-uid": "a uid of its own, owning nothing outside",
    "no-userns": "cannot create user namespaces (so cannot mount or make other namespaces)",
    "seccomp": "a seccomp filter refuses the system calls a bot never needs (mount, ptrace, bpf, ...)",
    "cgroup-memory": "a memory cgroup counts all it holds, tmpfs and shared memory included",
    "cgroup-pids": "a pids cgroup bounds its processes and threads",
    "rlimits": "per-process limits: address space, CPU time, processes, open files, file size",
    "watch": "its process tree measured every 50 ms: memory, tasks, CPU share, scratch space",
    "peer-checked": "its socket is checked to be served by its own processes before each match",
}
"""Every feature a sandbox may have in force, and what it guarantees."""


class IsolationError(ValueError):
    """Text that is not an isolation (``Isolation.parse``); the message names it."""


@dataclass(frozen=True)
class Isolation:
    """How one seat's bot was isolated: its kind and, in a sandbox, the features in force (sorted)."""

    kind: str
    features: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise IsolationError(f"unknown isolation {self.kind!r}: one of {', '.join(KINDS)}")
        unknown = [f for f in self.features if f not in FEATURE_DOCS]
        if unknown:
            raise IsolationError(f"unknown isolation feature {unknown[0]!r}: one of {', '.join(FEATURE_DOCS)}")
        if list(self.features) != sorted(set(self.features)):
            object.__setattr__(self, "features", tuple(sorted(set(self.features))))

    @classmethod
    def parse(cls, text: str) -> Isolation:
        """``str(iso)`` back to ``iso``."""
        kind, _, rest = text.strip().partition(":")
        return cls(kind, tuple(f for f in rest.split(",") if f))

    def __str__(self) -> str:
        return f"{self.kind}:{','.join(self.features)}" if self.features else self.kind

    @property
    def label(self) -> str:
        """One line for a person: the kind, and what it lacks where it is weak."""
        return {
            "none": "no sandbox",
            "in-process": "in the referee's process (trusted code)",
            "remote": "remote (served elsewhere, not started here)",
            "limits-only": "resource limits only, no isolation",
            "sandbox": f"sandboxed ({', '.join(self.features)})" if self.features else "sandboxed",
            "person": "a person at the table (no program to guard)",
        }[self.kind]
