"""Running untrusted bots: bubblewrap namespaces, resource limits, the watch, capped logs.

Used by ``ladder.bots.launcher``; imports nothing of the ladder (docs/sandbox.md).
"""

from ladder.sandbox.bwrap import (
    BOT_SOCKET,
    INSTALL_HINT,
    SOCKET_DIR,
    SandboxMode,
    SandboxSpec,
    SandboxUnavailable,
    build_argv,
    limits_only_argv,
    probe,
    probe_limits,
)
from ladder.sandbox.limits import DEFAULT_LIMITS, LIMIT_DOCS, Limits, LimitsError
from ladder.sandbox.logcap import LogPump, rotate
from ladder.sandbox.watch import Watch
from referee.isolation import Isolation, IsolationError

__all__ = [
    "BOT_SOCKET",
    "DEFAULT_LIMITS",
    "INSTALL_HINT",
    "Isolation",
    "IsolationError",
    "LIMIT_DOCS",
    "SOCKET_DIR",
    "Limits",
    "LimitsError",
    "LogPump",
    "SandboxMode",
    "SandboxSpec",
    "SandboxUnavailable",
    "Watch",
    "build_argv",
    "limits_only_argv",
    "probe",
    "probe_limits",
    "rotate",
]
