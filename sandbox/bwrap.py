"""The bubblewrap command line of one sandboxed bot, and the check that bubblewrap works here.

A sandboxed bot runs as ``bwrap ... [setpriv ...] prlimit ... -- BOT ARGV`` with:

- its own mount namespace whose root is an empty tmpfs holding only: the system's programs and
  libraries read-only (``/usr``, ``/lib*``, ``/bin``, ``/sbin``), the runtime its command needs
  (``runtime_paths``), its own directory read-only, a private ``/tmp`` (a tmpfs capped at
  ``scratch_mb``), fresh ``/proc`` and ``/dev``, and ``/run/hearts``, the one directory shared
  with the referee, where it listens on ``bot.sock``;
- its own PID namespace (it sees only its own processes; when the sandbox ends, all of them
  end), network namespace (loopback only, nothing outside), IPC and UTS namespaces, a new
  session (no terminal to push keystrokes into), no capabilities, no new privileges;
- an unprivileged uid. Run as root, bubblewrap sets up the namespaces privileged and the bot
  drops to a uid of its own (``setpriv``), so RLIMIT_NPROC counts this bot's processes alone
  (the kernel exempts uid 0 from that limit, and a user namespace run by root maps the bot to
  uid 0). Run as another user, bubblewrap makes a user namespace and the bot is uid 65534 in it.
- its rlimits, set by ``prlimit`` inside, after the privilege is dropped.

No environment passes in but what ``env`` holds.
"""

from __future__ import annotations

import enum
import functools
import importlib.util
import itertools
import os
import resource
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.limits import Limits
from sandbox.seccomp import SeccompUnavailable, filter_bpf

__all__ = [
    "BOT_SOCKET",
    "INSTALL_HINT",
    "SOCKET_DIR",
    "SandboxMode",
    "SandboxSpec",
    "SandboxUnavailable",
    "bot_uid",
    "build_argv",
    "disables_userns",
    "hidden",
    "limits_only_argv",
    "probe",
    "probe_limits",
    "prlimit_args",
    "runtime_paths",
]

SOCKET_DIR = "/run/hearts"
"""Where the shared directory appears inside the sandbox."""
BOT_SOCKET = "bot.sock"
INSTALL_HINT = "install bubblewrap: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora)"
_UID_BASE = 2_000_000_000  # far above any user of the system: a bot's uid owns nothing outside
_serial = itertools.count()


class SandboxMode(str, enum.Enum):
    """How bots are run. The value is what ``--sandbox`` takes and what every output shows."""

    OFF = "off"
    FULL = "on"  # bubblewrap: namespaces, a private root, an unprivileged uid, and the limits
    LIMITS_ONLY = "limits-only"  # rlimits, the watch and a process group; no isolation at all

    @property
    def label(self) -> str:
        """What a report prints about the mode (the weaker one always names what it lacks)."""
        return {
            SandboxMode.OFF: "no sandbox",
            SandboxMode.FULL: "sandboxed (bubblewrap)",
            SandboxMode.LIMITS_ONLY: (
                "LIMITS ONLY: resource limits, no isolation (bots see the files, processes and network)"
            ),
        }[self]


class SandboxUnavailable(RuntimeError):
    """``--sandbox`` cannot work on this machine; the message says what to install or allow."""


def _bwrap() -> str | None:
    return shutil.which("bwrap")


def probe() -> str:
    """The path of a bwrap that can make every namespace a bot needs here; else ``SandboxUnavailable``
    saying why (not installed, or namespaces refused) and what to do."""
    path = _bwrap()
    if path is None:
        raise SandboxUnavailable(f"--sandbox needs bubblewrap (bwrap), which is not installed: {INSTALL_HINT}")
    if shutil.which("prlimit") is None or (os.geteuid() == 0 and shutil.which("setpriv") is None):
        raise SandboxUnavailable("--sandbox needs prlimit and setpriv (util-linux): apt-get install util-linux")
    try:
        filter_bpf()
    except SeccompUnavailable as e:
        raise SandboxUnavailable(f"--sandbox: {e}") from None
    argv = [path, *_namespaces(), "--die-with-parent", *_system_binds(), "--", "/bin/true"]
    try:
        run = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SandboxUnavailable(f"bubblewrap ({path}) could not be run: {e}; {INSTALL_HINT}") from None
    if run.returncode != 0:
        why = run.stderr.strip().splitlines()[-1:] or [f"exit code {run.returncode}"]
        raise SandboxUnavailable(
            f"bubblewrap ({path}) cannot create the bot's namespaces here: {why[0]}. Unprivileged user "
            "namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, or "
            "user.max_user_namespaces > 0), or a container forbids them: run as root, or allow them"
        )
    return path


@functools.cache
def disables_userns(bwrap: str = "bwrap") -> bool:
    """Whether this bubblewrap has ``--disable-userns`` (0.8 and later)."""
    try:
        run = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--disable-userns" in run.stdout + run.stderr


def bot_uid() -> int:
    """A fresh uid for one bot start (run as root): owned by no user, distinct for every bot of
    every run on the machine (the pid of this process and a counter), so the kernel's per-uid
    process count is this bot's alone."""
    return _UID_BASE + ((os.getpid() & 0xFFFF) << 12) + (next(_serial) & 0xFFF)


def _namespaces() -> list[str]:
    common = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    if os.geteuid() == 0:
        # Privileged: no user namespace (one made by root maps the bot to uid 0); setpriv drops to
        # the bot's own uid. Only the capabilities setpriv needs survive until then.
        return [*common, "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                "--cap-add", "CAP_SETPCAP"]  # fmt: skip
    return [*common, "--unshare-user", "--uid", "65534", "--gid", "65534", "--cap-drop", "ALL"]


def _system_binds() -> list[str]:
    """The system's programs and libraries, read-only; the top-level links (/lib -> usr/lib) as links."""
    out = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            out += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            out += ["--ro-bind", top, top]
    return out


def _package_dirs(names: Iterable[str]) -> list[Path]:
    """Where the SDK's packages are, found without importing them."""
    out = []
    for name in names:
        spec = importlib.util.find_spec(name)
        for loc in (spec.submodule_search_locations or []) if spec is not None else []:
            out.append(Path(loc))
    return out


def runtime_paths(argv: Sequence[str]) -> list[Path]:
    """What the bot's program needs beyond the system's libraries, to bind read-only.

    A Python bot: its interpreter's prefix (a venv, and the base installation its ``bin/python``
    links into) and the SDK (``clients``, minus the Node bot, ``referee`` for the engine the SDK's
    views use, ``hearts`` for the protocol). A Node bot: node's own installation where it is not
    under /usr (its node_modules are in the bot's directory). A compiled binary: nothing.
    """
    program = Path(argv[0])
    real = Path(os.path.realpath(program))
    name = real.name
    paths: list[Path] = []
    if name.startswith("python"):
        prefixes = {Path(sys.prefix), Path(sys.base_prefix)} if os.path.realpath(sys.executable) == str(real) else set()
        prefixes |= {program.parent.parent, real.parent.parent}
        paths += sorted(prefixes)
        for pkg in _package_dirs(["clients", "referee", "hearts"]):
            if pkg.name == "clients":  # the SDK and the sample bots, not the Node bot's directory
                paths += sorted(p for p in pkg.iterdir() if p.name not in ("node", "__pycache__"))
            else:
                paths.append(pkg)
    elif name.startswith("node"):
        paths.append(real.parent.parent)
    return [p for p in paths if not _under(p, Path("/usr"))]


def _under(p: Path, top: Path) -> bool:
    return p == top or top in p.parents


@dataclass
class SandboxSpec:
    """One bot start: its argv (absolute paths), its directory, the host directory shared as
    ``/run/hearts``, its environment, its limits and (run as root) its uid."""

    argv: list[str]
    socket_dir: Path
    limits: Limits
    bot_dir: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    uid: int | None = None
    extra_ro: list[Path] = field(default_factory=list)
    seccomp_fd: int | None = None  # the filter's pipe (``sandbox.seccomp.seccomp_fd``), passed to bubblewrap


def prlimit_args(limits: Limits) -> list[str]:
    """``prlimit`` options for the bot's limits (soft:hard), set by the bot's own uid on itself."""
    names = {
        "AS": "--as",
        "CPU": "--cpu",
        "NPROC": "--nproc",
        "NOFILE": "--nofile",
        "FSIZE": "--fsize",
        "CORE": "--core",
    }
    out = []
    for res, soft, hard in limits.rlimits():
        key = next(k for k in names if getattr(resource, f"RLIMIT_{k}") == res)
        out.append(f"{names[key]}={soft}:{hard}")
    return out


def _dirs_for(targets: Iterable[Path]) -> list[str]:
    """``--dir`` with mode 0755 for every ancestor of the bind targets: bubblewrap run as root
    makes missing parents 0700, which the bot's uid could not cross."""
    seen: set[Path] = set()
    out: list[str] = []
    for t in targets:
        for parent in reversed(t.parents):
            if parent == Path("/") or parent in seen or _under(parent, Path("/usr")):
                continue
            seen.add(parent)
            out += ["--perms", "0755", "--dir", str(parent)]
    return out


def build_argv(spec: SandboxSpec, bwrap: str = "bwrap") -> list[str]:
    """The whole command line: bwrap, its mounts and namespaces, the privilege drop, the rlimits, the bot."""
    ro = sorted({*runtime_paths(spec.argv), *spec.extra_ro})
    if spec.bot_dir is not None:
        ro.append(spec.bot_dir)
    ro = [p for p in ro if p.exists()]
    out = [bwrap, *_namespaces(), "--die-with-parent", "--new-session", "--clearenv"]
    if os.geteuid() != 0 and disables_userns(bwrap):
        out.append("--disable-userns")  # run as a user, the bot's own user namespace is the last it gets
    if spec.seccomp_fd is not None:
        out += ["--seccomp", str(spec.seccomp_fd)]
    for k, v in spec.env.items():
        out += ["--setenv", k, v]
    # The tmpfs first: a tmpfs mounted after a bind would hide it.
    out += ["--perms", "1777", "--size", str(spec.limits.scratch_mb * 1024 * 1024), "--tmpfs", "/tmp"]
    out += ["--perms", "0755", "--dir", "/run", "--perms", "0755", "--dir", SOCKET_DIR]
    out += _dirs_for(ro)
    out += _system_binds()
    out += ["--proc", "/proc", "--dev", "/dev"]
    for p in ro:
        out += ["--ro-bind", str(p), str(p)]
    out += ["--bind", str(spec.socket_dir), SOCKET_DIR]
    out += ["--chdir", str(spec.bot_dir) if spec.bot_dir is not None else "/tmp"]
    out.append("--")
    if os.geteuid() == 0:
        uid = spec.uid if spec.uid is not None else bot_uid()
        out += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--no-new-privs",
                "--inh-caps=-all", "--bounding-set=-all", "--"]  # fmt: skip
    out += ["prlimit", *prlimit_args(spec.limits), "--", *spec.argv]
    return out


START_SCRIPT = "/run/start"
"""The script bubblewrap runs (copied in with ``--file``), so that its own command line, which the
bot can read as its parent's, shows nothing of the host: ``bwrap --args FD -- /bin/sh /run/start``."""


def start_script(command: Sequence[str]) -> str:
    """The script that becomes the bot: run as root (privileged bubblewrap), it first closes System
    V shared memory and message queues in the bot's IPC namespace (their memory belongs to no
    process, so no per-process count would see it); then it becomes the bot's command."""
    lines = []
    if os.geteuid() == 0:
        lines.append("for k in shmmax shmall msgmni; do echo 0 > /proc/sys/kernel/$k || exit 125; done")
    lines.append(f"exec {shlex.join(command)}")
    return "\n".join(lines) + "\n"


def hidden(full_argv: Sequence[str]) -> tuple[list[str], bytes, bytes]:
    """``build_argv``'s command line split for bubblewrap's ``--args FD``: the short argv to exec
    (``{ARGS_FD}`` and ``{SCRIPT_FD}`` to fill with the file descriptors), the options to write to
    the first pipe, and the start script to write to the second."""
    split = list(full_argv).index("--")
    script = start_script(full_argv[split + 1 :]).encode()
    options = [*full_argv[1:split], "--perms", "0555", "--file", "{SCRIPT_FD}", START_SCRIPT]
    argv = [full_argv[0], "--args", "{ARGS_FD}", "--", "/bin/sh", START_SCRIPT]
    return argv, b"".join(a.encode() + b"\0" for a in options), script


def probe_limits() -> str:
    """The path of ``prlimit``, which the weaker mode needs; else ``SandboxUnavailable`` saying so."""
    path = shutil.which("prlimit")
    if path is None:
        raise SandboxUnavailable("--sandbox=limits-only needs prlimit (util-linux): apt-get install util-linux")
    return path


def limits_only_argv(argv: Sequence[str], limits: Limits) -> list[str]:
    """The weaker mode: the bot's own argv under its rlimits, and nothing else."""
    return [probe_limits(), *prlimit_args(limits), "--", *argv]
