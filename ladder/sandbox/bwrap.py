"""The bubblewrap command line of one sandboxed bot, and the check that bubblewrap works here.

A sandboxed bot runs as ``bwrap ... [setpriv ...] prlimit ... -- BOT ARGV`` with:

- its own mount namespace whose root is an empty tmpfs holding only: the system's programs and
  libraries read-only (``/usr``, ``/lib*``, ``/bin``, ``/sbin``), the runtime its command needs
  (``runtime``: a script's ``#!`` interpreter's too), its own directory read-only, each bound at
  its host path below folders of the sandbox's own (mode 0755, whatever the host's folders above
  it are), a private ``/tmp`` (a tmpfs capped at ``scratch_mb``), fresh ``/proc`` and ``/dev``,
  and ``/run/hearts``, the one directory shared with the referee, where it listens on ``bot.sock``;
- its own PID namespace (it sees only its own processes; when the sandbox ends, all of them
  end), network namespace (loopback only, nothing outside), IPC and UTS namespaces, a new
  session (no terminal to push keystrokes into), no capabilities, no new privileges;
- an unprivileged uid. Run as root, bubblewrap sets up the namespaces privileged and the bot
  drops to a uid of its own (``setpriv``), so RLIMIT_NPROC counts this bot's processes alone
  (the kernel exempts uid 0 from that limit, and a user namespace run by root maps the bot to
  uid 0). Run as another user, bubblewrap makes a user namespace and the bot is uid 65534 in it.
- its rlimits, set by ``prlimit`` inside, after the privilege is dropped.

No environment passes in but what ``env`` holds, and, for a Python bot, ``PYTHONPATH`` naming
where its SDK is bound. ``unreachable`` says, before a start, what of its program a bot could not
reach inside.
"""

from __future__ import annotations

import enum
import functools
import importlib.metadata
import importlib.util
import itertools
import os
import re
import resource
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ladder.sandbox.limits import Limits
from ladder.sandbox.seccomp import SeccompUnavailable, filter_bpf

__all__ = [
    "BOT_SOCKET",
    "INSTALL_HINT",
    "SANDBOX_PATH",
    "SDK_PACKAGES",
    "SOCKET_DIR",
    "Runtime",
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
    "runtime",
    "runtime_paths",
    "sdk_dirs",
    "shebang",
    "unreachable",
]

SOCKET_DIR = "/run/hearts"
"""Where the shared directory appears inside the sandbox."""
BOT_SOCKET = "bot.sock"
INSTALL_HINT = "install bubblewrap: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora)"

SOCKET_PATH_ROOM = 107
"""Bytes a unix socket's path may take (``sun_path``, less its closing NUL): a longer one cannot be bound."""


def sandbox_run_dir() -> Path:
    """A fresh folder for the sandboxes' sockets and folders: in the temp folder, or in /tmp when the
    temp folder's path is so long that a socket in it would not fit ``SOCKET_PATH_ROOM`` (its bots
    would never be reached: gRPC refuses such an address)."""
    base = tempfile.gettempdir()
    # The longest socket path under it: the folder's random name, then pins/ or a start's folder.
    longest = os.path.join(base, "hearts-sb-XXXXXXXX", "pins", "9999-9999.sock")
    if len(os.fsencode(longest)) > SOCKET_PATH_ROOM:
        base = "/tmp"
    return Path(tempfile.mkdtemp(prefix="hearts-sb-", dir=base))


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
    """Where the harness imports these packages from, found without importing them."""
    out = []
    for name in names:
        spec = importlib.util.find_spec(name)
        for loc in (spec.submodule_search_locations or []) if spec is not None else []:
            out.append(Path(loc))
    return out


SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
"""The bot's ``PATH`` inside its sandbox (unless its entry sets one)."""
SDK_PACKAGES = ("clients", "referee", "hearts")
"""What a Python bot is given of the harness: the SDK, the engine its views use, the protocol."""


def sdk_dirs() -> list[Path]:
    """The SDK's packages where the harness imports them from: the ones a Python bot is given."""
    return _package_dirs(SDK_PACKAGES)


@dataclass
class Runtime:
    """What a bot's program needs beyond the system's libraries and its own directory: the paths to
    bind read-only, the folders its Python imports from first (so that it imports the SDK it is
    given, wherever the harness found it), and a script's interpreter (its ``#!`` line)."""

    binds: list[Path] = field(default_factory=list)
    pythonpath: list[Path] = field(default_factory=list)
    interpreter: list[str] = field(default_factory=list)


# pip's preamble for an interpreter whose path a #! line cannot hold (spaces, or too long).
_PIP_SH = re.compile(r"""^'''exec' (?:"([^"]+)"|(\S+)) "\$0" "\$@"$""", re.MULTILINE)
_ENTRY = re.compile(r"^from ([A-Za-z_][\w.]*) import ", re.MULTILINE)


def shebang(program: Path, path: str = SANDBOX_PATH) -> list[str]:
    """A script's interpreter and its arguments, from its ``#!`` line; ``[]`` for a binary. Through
    ``env`` (its program found on ``path``, the bot's own) and pip's ``/bin/sh`` preamble, the
    interpreter that actually runs the script."""
    try:
        with open(program, "rb") as f:
            head = f.read(4096).decode("utf-8", "replace")
    except OSError:
        return []
    if not head.startswith("#!"):
        return []
    words = head[2:].split("\n", 1)[0].split()
    if not words:
        return []
    if Path(words[0]).name == "env":
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        if rest:
            return [shutil.which(rest[0], path=path) or rest[0], *rest[1:]]
    elif Path(words[0]).name == "sh" and (m := _PIP_SH.search(head)) is not None:
        return [m.group(1) or m.group(2)]
    return words


def runtime(argv: Sequence[str], path: str = SANDBOX_PATH) -> Runtime:
    """What the bot's program needs beyond the system's libraries, to bind read-only.

    A script with a ``#!`` line needs what its interpreter needs. A Python bot: its interpreter's
    prefix (a venv, and the base installation its ``bin/python`` links into) and the SDK
    (``clients``, minus the Node bot, ``referee`` for the engine the SDK's views use, ``hearts`` for
    the protocol), imported from there first; a console script of the harness's own venv, also the
    packages of its distribution (``hearts bot serve``: the harness's code, never its data). A Node
    bot: node's own installation where it is not under /usr (its node_modules are in the bot's
    directory) and the protocol (``hearts``, with ``bot.proto``). A compiled binary: nothing.
    """
    program = Path(argv[0]) if os.sep in argv[0] else Path(shutil.which(argv[0], path=path) or argv[0])
    # A python or node named so is taken for one, though it be a script (pyenv's shims are).
    scripted = not program.name.startswith(("python", "node")) and program.is_absolute() and program.is_file()
    out = Runtime(interpreter=shebang(program, path) if scripted else [])
    script = program if out.interpreter else None
    if out.interpreter:
        program = Path(out.interpreter[0])
    real = Path(os.path.realpath(program))
    if real.name.startswith("python"):
        own = os.path.realpath(sys.executable) == str(real)
        prefixes = {Path(sys.prefix), Path(sys.base_prefix)} if own else set()
        # A prefix holds bin/python; a python elsewhere brings no installation the sandbox could give.
        prefixes |= {p.parent.parent for p in (program, real) if p.parent.name == "bin"}
        out.binds += sorted(prefixes)
        packages = sdk_dirs()
        if script is not None and _in_venv(program, Path(sys.prefix)):
            packages += _package_dirs(_console_script_packages(str(script), script.stat().st_mtime_ns))
        for pkg in packages:
            if pkg.name == "clients":  # the SDK and the sample bots, not the Node bot's directory
                out.binds += sorted(p for p in pkg.iterdir() if p.name not in ("node", "__pycache__"))
            else:
                out.binds.append(pkg)
            if pkg.parent not in out.pythonpath:
                out.pythonpath.append(pkg.parent)
    elif real.name.startswith("node"):
        if real.parent.name == "bin":
            out.binds.append(real.parent.parent)
        out.binds += _package_dirs(["hearts"])  # the protocol: the sample bot loads its bot.proto at run time
    out.binds = [p for p in out.binds if not _under(p, Path("/usr"))]
    return out


def runtime_paths(argv: Sequence[str]) -> list[Path]:
    """What ``runtime`` binds read-only for this command."""
    return runtime(argv).binds


def _in_venv(program: Path, prefix: Path) -> bool:
    """Whether ``program`` is the python of the venv (or installation) at ``prefix``."""
    try:
        return program.parent.name == "bin" and os.path.samefile(program.parent.parent, prefix)
    except OSError:
        return False


@functools.lru_cache(maxsize=64)
def _console_script_packages(script: str, mtime_ns: int) -> tuple[str, ...]:
    """The top-level packages of the distribution whose console script ``script`` is, in the
    harness's own environment (its entry imports its siblings: ``hearts``'s ``ladder.cli`` imports the
    arena, the site and the ladder); none for a script no distribution there installed. Kept per version of
    the script (``mtime_ns``): reading the environment's metadata would take some 50 ms a start."""
    try:
        m = _ENTRY.search(Path(script).read_text(errors="replace")[:4096])
    except OSError:
        return ()
    if m is None:
        return ()
    for ep in importlib.metadata.entry_points(group="console_scripts", name=Path(script).name):
        if ep.module == m.group(1) and ep.dist is not None:
            dist = ep.dist.metadata["Name"]
            return tuple(sorted(k for k, v in importlib.metadata.packages_distributions().items() if dist in v))
    return ()


def _under(p: Path, top: Path) -> bool:
    return p == top or top in p.parents


def _outermost(paths: Iterable[Path]) -> list[Path]:
    """The paths, less those inside another: a bind inside a bind would have its mount point's
    parents be the host's own folders, with the host's modes, which the bot's uid may not cross."""
    out: list[Path] = []
    for p in sorted(set(paths)):
        if not any(_under(p, q) for q in out):
            out.append(p)
    return out


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
    seccomp_fd: int | None = None  # the filter's pipe (``ladder.sandbox.seccomp.seccomp_fd``), passed to bubblewrap
    pythonpath: list[Path] = field(default_factory=list)  # the bot's own import folders (``python -m PKG``)


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
    rt = runtime(spec.argv, spec.env.get("PATH", SANDBOX_PATH))
    ro = _binds(spec, rt)
    out = [bwrap, *_namespaces(), "--die-with-parent", "--new-session", "--clearenv"]
    if os.geteuid() != 0 and disables_userns(bwrap):
        out.append("--disable-userns")  # run as a user, the bot's own user namespace is the last it gets
    if spec.seccomp_fd is not None:
        out += ["--seccomp", str(spec.seccomp_fd)]
    for k, v in _environment(spec, rt).items():
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


def _binds(spec: SandboxSpec, rt: Runtime) -> list[Path]:
    """What is bound read-only at its own path: the runtime, the extras and the bot's directory, each
    one outermost, so that every mount point's parents are the sandbox's own open folders."""
    wanted = [*rt.binds, *spec.extra_ro, *([spec.bot_dir] if spec.bot_dir is not None else [])]
    return _outermost(p for p in wanted if p.exists())


def _environment(spec: SandboxSpec, rt: Runtime) -> dict[str, str]:
    """The bot's environment: its spec's, and a Python bot's import folders after any it was given."""
    env = dict(spec.env)
    folders = [*filter(None, env.get("PYTHONPATH", "").split(os.pathsep)), *map(str, spec.pythonpath)]
    folders += [str(p) for p in rt.pythonpath if str(p) not in folders]
    if folders:
        env["PYTHONPATH"] = os.pathsep.join(folders)
    return env


_SYSTEM = tuple(Path(p) for p in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"))


def unreachable(spec: SandboxSpec) -> str | None:
    """What the bot's sandbox cannot give it of its program, and what to do; None when it can.

    Checked before the bot starts, for its program, a script's ``#!`` interpreter and every file
    its command names: inside, the kernel would say only "No such file or directory". Each must be
    at or below what is bound (the system's ``/usr``, the bot's directory, its Python or Node
    installation), and, run as root, open to a uid that is no user's: the bot's.
    """
    path = spec.env.get("PATH", SANDBOX_PATH)
    rt = runtime(spec.argv, path)
    given = [*(p for p in _SYSTEM if p.exists()), *_binds(spec, rt)]
    program = spec.argv[0]
    held = "/usr" + (f", its own directory {spec.bot_dir}" if spec.bot_dir is not None else "")
    held += ", its Python or Node installation"
    # What the bot's uid needs of each: to run a binary, to read and run a script, to read a file.
    runs = stat.S_IXOTH | (stat.S_IROTH if rt.interpreter else 0)
    checks: list[tuple[str, Path, int]] = [("its program @", Path(program), runs)]
    if rt.interpreter:
        interp = rt.interpreter[0]
        line = f"the #! line of {program}"
        if os.sep not in interp:
            return (
                f"its program's interpreter {interp} ({line}) is not on the sandbox's PATH ({path}): "
                "name the interpreter by its full path in that line, or set PATH in the bot's env"
            )
        if not Path(interp).exists():
            return f"its program's interpreter {interp} ({line}) does not exist: correct that line"
        checks.append((f"its program's interpreter @ ({line})", Path(interp), stat.S_IXOTH))
    named = [Path(a) for a in spec.argv[1:] if os.path.isabs(a) and os.path.isfile(a)]
    checks += [("a file its command names, @,", p, stat.S_IROTH) for p in named]
    for what, p, need in checks:
        root = _holder(p, given)
        if root is None:
            real = os.path.realpath(p)
            where = what.replace("@", str(p) if real == str(p) else f"{p} (a link to {real})")
            return (
                f"{where} is outside what its sandbox holds ({held}): put it in the bot's own directory "
                "and name it by its path there, or install it under /usr"
            )
        closed = _closed(p, root, need) if os.geteuid() == 0 else None  # in a user namespace, the bot is the user
        if closed is not None:
            mode = stat.S_IMODE(os.stat(closed).st_mode)
            return (
                f"{what.replace('@', str(p))} cannot be read in its sandbox: the bot runs as a uid of its own, "
                f"no user's, and {closed} is closed to others (mode {mode:04o}): chmod a+rX {closed}"
            )
    return None


def _holder(p: Path, given: Sequence[Path]) -> Path | None:
    """The bound folder (its host path, links resolved) whose content holds ``p``, named and
    resolved as the bot would find it; None when no bind does."""
    if not any(_under(Path(os.path.abspath(p)), g) for g in given):
        return None
    real = Path(os.path.realpath(p))
    return next((r for r in (Path(os.path.realpath(g)) for g in given) if _under(real, r)), None)


def _closed(p: Path, root: Path, need: int) -> Path | None:
    """The first folder from ``root`` down to ``p`` that others may not pass, or ``p`` itself where
    it lacks the ``need`` bits for others; None when the bot's uid reaches it."""
    real = Path(os.path.realpath(p))
    for folder in [root, *(d for d in reversed(real.parents) if _under(d, root) and d != root)]:
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return folder
    return None if os.stat(real).st_mode & need == need else real


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
