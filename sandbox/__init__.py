"""Running untrusted bots: bubblewrap namespaces, resource limits, the watch, capped logs.

Used by ``ladder.launcher``; imports nothing of the ladder (docs/sandbox.md).
"""

from sandbox.bwrap import (
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
from sandbox.isolation import Isolation, IsolationError
from sandbox.limits import DEFAULT_LIMITS, LIMIT_DOCS, Limits, LimitsError
from sandbox.logcap import LogPump, rotate
from sandbox.watch import Watch

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
