"""Start, watch and stop the bots of a tournament.

A bot registered with a command is started here as a subprocess on a free port: ``{port}`` in the
command is replaced by the port (``{host}`` and ``{name}`` too), a leading ``python`` or
``python3`` means this interpreter. A command without ``{port}`` must print ``listening on
HOST:PORT`` (as the SDK's ``serve`` does) and the address is read from that line. The launcher
then waits for ``grpc.health.v1`` to report SERVING, restarts a bot that has died when it is
next needed, and stops every bot at the end (SIGTERM, then SIGKILL after a grace period).

A bot's stdout and stderr go to ``LOG_DIR/NAME.log`` (appended, with a header per start), and a
bot that fails to start raises ``BotStartError`` naming the command, the log and its last lines.

Processes are made with ``subprocess`` (fork + exec at once): a plain fork of a process that has
used gRPC breaks the child's gRPC ("Wrong file descriptor generation"). Each bot gets its own session,
so a Ctrl-C at the terminal reaches the tournament (which stops the bots in order) and not the
bots mid-match. On Linux the bot also gets PR_SET_PDEATHSIG, so a tournament that is killed
outright (SIGKILL) takes its bots with it instead of leaving them listening.

A bot registered with an address is remote: it is health-checked, never started or stopped.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from ladder.sandbox import (
    BOT_SOCKET,
    DEFAULT_LIMITS,
    SOCKET_DIR,
    Isolation,
    Limits,
    LogPump,
    SandboxMode,
    SandboxSpec,
    Watch,
    build_argv,
    limits_only_argv,
    probe,
    probe_limits,
    rotate,
)
from ladder.sandbox.bwrap import (
    SANDBOX_PATH,
    bot_uid,
    disables_userns,
    hidden,
    sandbox_run_dir,
    sdk_dirs,
    unreachable,
)
from ladder.sandbox.cgroup import BotCgroup
from ladder.sandbox.peer import PeerMismatch, check_tcp, check_unix, pin
from ladder.sandbox.seccomp import seccomp_fd
from referee.untrusted import inert

__all__ = [
    "DEFAULT_STARTUP_TIMEOUT",
    "DEFAULT_STOP_GRACE",
    "BotProcess",
    "BotStartError",
    "Launcher",
    "expand_command",
    "free_port",
    "health_check",
    "log_tail",
]

DEFAULT_STARTUP_TIMEOUT: float = 15.0  # cutechess pings with a 15 s limit too
DEFAULT_STOP_GRACE: float = 5.0
MAX_RESTARTS: int = 5  # after this many restarts a bot is left down: its seats forfeit quickly
_BOT_SERVICE = "hearts.v1.BotService"
_LISTENING = re.compile(r"listening on (\S+:\d+)")
_PLACEHOLDER = re.compile(r"\{(port|host|name|address)\}")
# Exec the command with PR_SET_PDEATHSIG set (it survives exec): the bot gets SIGTERM when the
# tournament dies. Checks the parent is still there, in case it died before prctl ran.
# A sandboxed bot's first process joins its control groups here, before anything runs (a bot that
# cannot be counted does not start).
_PDEATHSIG_SHIM = (
    "import ctypes, os, signal, sys\n"
    "ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)\n"
    "os.getppid() == int(sys.argv[1]) or sys.exit(1)\n"
    "for p in filter(None, os.environ.pop('HEARTS_CGROUPS', '').split(os.pathsep)):\n"
    "    open(p, 'w').write(str(os.getpid()))\n"
    "try:\n"
    "    os.execvp(sys.argv[2], sys.argv[2:])\n"
    "except OSError as e:\n"  # one line in the bot's log, as a shell says it, not this shim's traceback
    "    sys.stderr.write(f'cannot run {sys.argv[2]}: {e.strerror}\\n')\n"
    "    sys.exit(127)\n"
)


class BotStartError(RuntimeError):
    """A bot could not be started or did not become healthy. The message says what to look at."""

    def __init__(
        self, name: str, reason: str, *, command: str | None = None, log_path: Path | None = None, tail: str = ""
    ) -> None:
        self.name = name
        self.reason = reason
        self.command = command
        self.log_path = log_path
        self.tail = tail
        lines = [f"bot {name!r} failed to start: {reason}"]
        if command is not None:
            lines.append(f"  command: {command}")
        if log_path is not None:
            lines.append(f"  log: {log_path}")
        if tail.strip():
            lines.append("  last lines of the log:")  # the bot's own output: shown inert, never as escape codes
            lines.extend(f"    {inert(ln)}" for ln in tail.rstrip().splitlines())
        super().__init__("\n".join(lines))


def free_port(host: str = "127.0.0.1") -> int:
    """A port that is free now. Another process could take it before the bot binds; the SDK turns
    SO_REUSEPORT off so such a clash fails loudly, and the launcher then retries on a new port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


HARNESS_PYTHON = ("python", "python3")
"""A command's first word that runs as this harness's own interpreter (its venv): name another
interpreter by its path (``/usr/bin/python3``, ``bot/.venv/bin/python``) to run a bot under it."""


def expand_command(
    template: str, *, port: int | None, host: str = "127.0.0.1", name: str = "", address: str | None = None
) -> list[str]:
    """The argv for a command template: placeholders filled, a leading python made this interpreter.

    Using this interpreter means a bots.toml written as ``python -m clients.bots.random`` runs in
    the project's venv even when the venv is not activated. ``{address}`` is the whole address to
    listen on (``HOST:PORT``, or ``unix:/run/hearts/bot.sock`` in a sandbox).
    """
    argv = shlex.split(template)
    if not argv:
        raise ValueError("empty bot command")
    values = {
        "port": "" if port is None else str(port),
        "host": host,
        "name": name,
        "address": address if address is not None else f"{host}:{'' if port is None else port}",
    }
    # Only the three placeholders are replaced (not str.format): other braces, e.g. a JSON
    # argument, pass through untouched.
    out = [_PLACEHOLDER.sub(lambda m: values[m.group(1)], a) for a in argv]
    if out[0] in HARNESS_PYTHON:
        out[0] = sys.executable
    return out


def log_tail(path: Path, lines: int = 15, *, since: int = 0) -> str:
    """The last ``lines`` lines of a log, from byte offset ``since`` on (one start's output)."""
    try:
        with open(path, "rb") as f:
            f.seek(since)
            data = f.read()
    except OSError:
        return ""
    kept = data.decode("utf-8", "replace").splitlines()[-lines:]
    # A bot's line may be megabytes long (a flood): an error message shows the start of each.
    return "\n".join(
        ln if len(ln) <= _TAIL_LINE else f"{ln[:_TAIL_LINE]}... ({len(ln) - _TAIL_LINE} more characters)" for ln in kept
    )


_TAIL_LINE = 300


async def health_check(address: str, timeout: float = 1.0) -> bool:
    """Whether the server at ``address`` reports SERVING (for the bot service, else the server).

    Made inside the running loop: aio channels belong to one event loop.
    """
    async with grpc.aio.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in (_BOT_SERVICE, ""):
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
            except grpc.aio.AioRpcError as e:
                if e.code() == grpc.StatusCode.NOT_FOUND:
                    continue  # this server registers only the whole-server status: ask that
                return False
            return reply.status == health_pb2.HealthCheckResponse.SERVING
    return False


@dataclass
class _Start:
    """One sandboxed start of a bot: its process, its limits, the limit it was stopped at; in
    the sandbox, its shared directory, the pinned name of its socket, its uid and control group,
    and what served its socket when that was not the bot itself."""

    proc: subprocess.Popen[bytes]
    limits: Limits
    limit_hit: str | None = None
    sock_dir: Path | None = None
    pinned: Path | None = None
    uid: int | None = None
    cgroup: BotCgroup | None = None
    impostor: str | None = None

    def discard(self) -> None:
        """What the start left on disk and in the kernel, once its processes are gone."""
        if self.sock_dir is not None:
            shutil.rmtree(self.sock_dir, ignore_errors=True)
        if self.pinned is not None:
            self.pinned.unlink(missing_ok=True)
        if self.cgroup is not None:
            self.cgroup.remove()


@dataclass
class BotProcess:
    """One bot: its command or remote address, and the running process if it is local."""

    name: str
    command: str | None = None
    address: str | None = None  # the remote address, or the local one once started
    log_path: Path | None = None
    host: str = "127.0.0.1"
    cwd: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0
    failed: str | None = None  # why the bot was given up on (too many restarts)
    sandbox: SandboxMode = SandboxMode.OFF
    limits: Limits = DEFAULT_LIMITS
    limit_hit: str | None = None  # the limit this start was stopped at ("memory: ..."), for the fault
    pump: LogPump | None = None
    # Each sandboxed start by its address (unique per start): a fault asks about the start that
    # served the failed call, even once the bot has been restarted for another match.
    started: dict[str, _Start] = field(default_factory=dict)

    @property
    def remote(self) -> bool:
        return self.command is None

    @property
    def alive(self) -> bool:
        return self.remote or (self.proc is not None and self.proc.poll() is None)

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid


class Launcher:
    """The bots of one run: ``async with Launcher(log_dir) as l: addr = await l.start(name, command)``.

    Not thread-safe; use it from one event loop (the tournament's). ``ensure(name)`` before each
    match returns the bot's current address, restarting it first if it has died.
    """

    def __init__(
        self,
        log_dir: Path | str,
        *,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        stop_grace: float = DEFAULT_STOP_GRACE,
        cwd: Path | str | None = None,
        max_restarts: int = MAX_RESTARTS,
        sandbox: SandboxMode | str = SandboxMode.OFF,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        """``sandbox``: how every bot it starts runs (``start`` may ask for more for one bot);
        ``limits`` the sandboxed bots' limits unless ``start`` gives a bot its own. A mode that
        cannot work here raises ``SandboxUnavailable`` at once, saying what to install."""
        self.sandbox = SandboxMode(sandbox)
        self.limits = limits
        self._bwrap: str | None = None
        if self.sandbox is SandboxMode.FULL:
            self._bwrap = probe()
        elif self.sandbox is SandboxMode.LIMITS_ONLY:
            probe_limits()
        self._watch: Watch | None = None
        self._run_dir: Path | None = None
        self.log_dir = Path(log_dir)
        self.startup_timeout = startup_timeout
        self.stop_grace = stop_grace
        self.cwd = Path(cwd) if cwd is not None else None
        self.max_restarts = max_restarts
        self.bots: dict[str, BotProcess] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        # Each name's number and its starts before its last ``stop``: its starts' folders are never reused.
        self._numbers: dict[str, int] = {}
        self._earlier_starts: dict[str, int] = {}
        self.events: list[str] = []  # restarts and give-ups, for the tournament's report

    async def __aenter__(self) -> Launcher:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop_all()

    def log_path(self, name: str) -> Path:
        # Bot names are free text; keep the file name portable.
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", name) or "bot"
        return self.log_dir / f"{safe}.log"

    async def start(
        self,
        name: str,
        command: str | None = None,
        *,
        address: str | None = None,
        env: dict[str, str] | None = None,
        sandbox: SandboxMode | str | None = None,
        limits: Limits | None = None,
    ) -> str:
        """Start a local bot (``command``) or check a remote one (``address``); return its address.

        ``sandbox`` (default: the launcher's) and ``limits`` (default: the launcher's) for this bot;
        the stronger of the launcher's mode and the bot's own is used."""
        if (command is None) == (address is None):
            raise ValueError(f"bot {name!r}: give exactly one of a command or an address")
        if name in self.bots:
            raise ValueError(f"bot {name!r} is already started")
        mode = _stronger(self.sandbox, SandboxMode(sandbox) if sandbox is not None else SandboxMode.OFF)
        if mode is SandboxMode.FULL and self._bwrap is None and command is not None:
            self._bwrap = probe()
        bp = BotProcess(
            name=name,
            command=command,
            address=address,
            env=dict(env or {}),
            log_path=None if command is None else self.log_path(name),
            cwd=self.cwd,
            sandbox=mode if command is not None else SandboxMode.OFF,
            limits=limits or self.limits,
        )
        self.bots[name] = bp
        self._locks[name] = asyncio.Lock()
        self._numbers.setdefault(name, len(self._numbers))
        if bp.remote:
            assert address is not None
            if not await _wait_healthy(address, None, self.startup_timeout):
                raise BotStartError(
                    name,
                    f"the remote bot at {address} did not report SERVING on "
                    f"grpc.health.v1 within {self.startup_timeout:g} s",
                )
            return address
        return await self._spawn(bp)

    async def start_many(
        self,
        specs: Iterable[tuple[str, str | None, str | None]],
        options: dict[str, tuple[SandboxMode | None, Limits | None]] | None = None,
    ) -> dict[str, str]:
        """Start several bots at once (name, command, address); on any failure stop them all.
        ``options``: a bot's own sandbox mode and limits, by name."""
        specs = list(specs)
        opts = options or {}
        tasks = [
            asyncio.ensure_future(
                self.start(n, c, address=a, sandbox=opts[n][0], limits=opts[n][1])
                if n in opts
                else self.start(n, c, address=a)
            )
            for n, c, a in specs
        ]
        try:
            addrs = await asyncio.gather(*tasks)
        except BaseException:
            # gather does not cancel the others when one fails: cancel them and let them finish,
            # so that no bot is launched after stop_all.
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.stop_all()
            raise
        return {n: a for (n, _c, _a), a in zip(specs, addrs)}

    async def ensure(self, name: str, *, check: bool = False) -> str:
        """The bot's address, restarting it first if its process has died.

        ``check``: the bot was unreachable in its last match. Its process may still be on its way
        out (the referee sees the connection drop before the process can be reaped), so ask its
        health first and, when it does not answer, end the process and start a new one.
        """
        bp = self.bots[name]
        if self._locks[name].locked():  # a restart is under way: its process runs before it serves
            async with self._locks[name]:
                pass
        if check and bp.alive and not bp.remote and not bp.failed:
            assert bp.address is not None
            if not await health_check(bp.address, timeout=1.0):
                await _terminate(bp.proc, self.stop_grace)
        if bp.alive or bp.failed:
            assert bp.address is not None
            return bp.address
        async with self._locks[name]:
            if bp.alive or bp.failed:  # another match restarted it (or gave up) while we waited
                assert bp.address is not None
                return bp.address
            code = bp.proc.returncode if bp.proc is not None else None
            if bp.starts > self.max_restarts:
                bp.failed = f"died {bp.starts} times (last exit code {code})"
                self.events.append(f"bot {name!r} given up: {bp.failed}; see {bp.log_path}")
                assert bp.address is not None
                return bp.address
            if bp.limit_hit is not None:
                self.events.append(f"bot {name!r} was stopped at a resource limit ({bp.limit_hit}); restarting it")
            else:
                self.events.append(f"bot {name!r} exited (code {code}); restarting it")
            await _terminate(bp.proc, self.stop_grace)  # what the dead leader left behind (a wrapper's child)
            try:
                return await self._spawn(bp)
            except BotStartError as e:
                bp.failed = e.reason
                self.events.append(f"bot {name!r} could not be restarted: {e.reason}; see {bp.log_path}")
                assert bp.address is not None
                return bp.address

    async def _spawn(self, bp: BotProcess, attempts: int = 3) -> str:
        assert bp.command is not None and bp.log_path is not None
        bp.log_path.parent.mkdir(parents=True, exist_ok=True)
        if bp.sandbox is not SandboxMode.OFF:
            return await self._spawn_limited(bp)
        for attempt in range(attempts):
            wants_port = "{port}" in bp.command
            # A port is offered to every bot (HEARTS_BOT_PORT, which the SDK listens on); only a {port}
            # in the command makes it the bot's address: without one, its "listening on" line says.
            port = free_port(bp.host)
            argv = expand_command(bp.command, port=port if wants_port else None, host=bp.host, name=bp.name)
            missing = _missing_program(argv[0], cwd=bp.cwd, path={**os.environ, **bp.env}.get("PATH"))
            if missing is not None:
                raise BotStartError(bp.name, missing, command=bp.command)
            # Blocking open and Popen on purpose: both take about a millisecond, and the bot must be
            # forked from the loop's own thread, since PR_SET_PDEATHSIG follows the forking thread.
            with open(bp.log_path, "ab") as log:
                log.write(
                    f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} start {bp.starts + 1} of {bp.name}: "
                    f"{shlex.join(argv)}\n".encode()
                )
                offset = log.tell()
                env = {**os.environ, **bp.env, "HEARTS_BOT_NAME": bp.name, "HEARTS_BOT_PORT": str(port)}
                try:
                    bp.proc = subprocess.Popen(
                        _wrap(argv),
                        stdin=subprocess.DEVNULL,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        cwd=bp.cwd,
                        env=env,
                        start_new_session=True,
                    )
                except OSError as e:
                    raise BotStartError(
                        bp.name, f"cannot run the command: {e}", command=bp.command, log_path=bp.log_path
                    ) from None
            bp.starts += 1
            bp.address = f"{bp.host}:{port}" if wants_port else None
            try:
                bp.address = await self._await_ready(bp, offset)
                return bp.address
            except BotStartError as e:
                await _terminate(bp.proc, self.stop_grace)
                clash = re.search(r"address already in use|failed to bind|cannot listen", e.tail, re.IGNORECASE)
                if not (clash and attempt + 1 < attempts):  # each attempt offers another port
                    raise
        raise AssertionError("unreachable")

    async def _await_ready(self, bp: BotProcess, offset: int) -> str:
        """Wait for the listening line (if needed) and for SERVING, while the process lives."""
        assert bp.proc is not None and bp.log_path is not None
        deadline = time.monotonic() + self.startup_timeout
        address = bp.address
        while True:
            if bp.proc.poll() is not None:
                raise _failed(bp, f"the process exited with code {bp.proc.returncode} before serving", offset)
            if address is None:
                m = _LISTENING.search(log_tail(bp.log_path, 200, since=offset))
                if m:
                    address = m.group(1)
            if address is not None and await health_check(address, timeout=0.5):
                return address
            if time.monotonic() > deadline:
                what = (
                    "did not report SERVING on grpc.health.v1"
                    if address is not None
                    else "did not print 'listening on HOST:PORT' (and its command has no {port})"
                )
                raise BotStartError(
                    bp.name,
                    f"{what} within {self.startup_timeout:g} s",
                    command=bp.command,
                    log_path=bp.log_path,
                    tail=log_tail(bp.log_path, since=offset),
                )
            await asyncio.sleep(0.05)

    async def stop(self, name: str) -> None:
        """Stop one bot as ``stop_all`` does and forget it: a later ``start`` of the name begins afresh."""
        bp = self.bots.pop(name)
        self._locks.pop(name)
        self._earlier_starts[name] = self._earlier_starts.get(name, 0) + bp.starts
        await _terminate(bp.proc, self.stop_grace)
        if self._watch is not None:
            self._throttle_note(bp)
            for key in self._watch.keys():
                if key.startswith(f"{name}#"):
                    self._watch.remove(key)
        await self._tidy(bp)

    async def stop_all(self) -> None:
        """SIGTERM every local bot at once, then SIGKILL whichever outlives the grace period."""
        await asyncio.gather(
            *(_terminate(bp.proc, self.stop_grace) for bp in self.bots.values() if bp.proc is not None)
        )
        if self._watch is not None:
            for bp in self.bots.values():
                self._throttle_note(bp)
            self._watch.close()
        for bp in self.bots.values():
            await self._tidy(bp)
        if self._run_dir is not None:
            shutil.rmtree(self._run_dir, ignore_errors=True)

    def _throttle_note(self, bp: BotProcess) -> None:
        assert self._watch is not None
        windows = sum(self._watch.throttled(k) for k in self._watch.keys() if k.startswith(f"{bp.name}#"))
        if windows:
            self.events.append(
                f"bot {bp.name!r} was held to its CPU share ({bp.limits.cpu_share:g} of a core): "
                f"lowest priority from {windows} windows of 100 ms on"
            )

    @staticmethod
    async def _tidy(bp: BotProcess) -> None:
        """What a stopped bot's starts left: its log's last lines written, its folders and groups gone."""
        if bp.pump is not None:
            await asyncio.to_thread(bp.pump.join, 2.0)
        for start in bp.started.values():
            start.discard()

    # -- sandboxed and limited bots ----------------------------------------------------------------

    def _hit(self, bp: BotProcess, start: _Start, why: str) -> None:
        """A limit was reached (from the watch's or the log's thread): name it, stop the bot's sandbox."""
        if start.limit_hit is None:
            start.limit_hit = why
        if bp.proc is start.proc and bp.limit_hit is None:
            bp.limit_hit = why
        _signal_group(start.proc, signal.SIGKILL)

    async def _spawn_limited(self, bp: BotProcess) -> str:
        """Start a bot in its sandbox (or, limits-only, under its limits alone), its output through
        the capped log, its processes under the watch; wait for its health check."""
        assert bp.command is not None and bp.log_path is not None
        if self._run_dir is None:
            self._run_dir = sandbox_run_dir()
        if self._watch is None:
            self._watch = Watch(run_dir=self._run_dir)
        full = bp.sandbox is SandboxMode.FULL
        uid = bot_uid() if full and os.geteuid() == 0 else None
        if bp.pump is not None:  # the last start's log ends (its tail, what it dropped) before this one's begins
            await asyncio.to_thread(bp.pump.join, 2.0)
        for earlier in bp.started.values():  # an ended start's folder and group go before the next begins
            if earlier.proc.poll() is not None:
                earlier.discard()
        # Short: a unix socket's path has room for about 107 bytes, and bot names are free in length.
        tag = f"{self._numbers[bp.name]}-{self._earlier_starts.get(bp.name, 0) + bp.starts + 1}"
        sock_dir = self._run_dir / tag
        cgroup: BotCgroup | None = None
        pinned: Path | None = None
        if full:
            sock_dir.mkdir(mode=0o700)
            if uid is not None:
                os.chown(sock_dir, uid, uid)  # the bot's own uid creates its socket there
            pins = self._run_dir / "pins"  # the referee's own names of the sockets: no bot sees this folder
            pins.mkdir(mode=0o700, exist_ok=True)
            pinned = pins / f"{tag}.sock"
            inner = f"unix:{SOCKET_DIR}/{BOT_SOCKET}"
            expanded = expand_command(bp.command, port=0, name=bp.name, address=inner)
            files = _absolute(expanded, bp.cwd, path={**os.environ, **bp.env}.get("PATH"))
            argv = files.argv
            env = {
                "PATH": SANDBOX_PATH,
                "HOME": "/tmp",
                "TMPDIR": "/tmp",
                "LANG": "C.UTF-8",
                "PYTHONDONTWRITEBYTECODE": "1",
                **bp.env,
                "HEARTS_BOT_NAME": bp.name,
                "HEARTS_BOT_ADDRESS": inner,
            }
            missing = _missing_program(argv[0], cwd=bp.cwd, path=None)
            if missing is not None:
                raise BotStartError(bp.name, missing, command=bp.command)
            assert self._bwrap is not None
            spec = SandboxSpec(
                argv=argv,
                socket_dir=sock_dir,
                limits=bp.limits,
                bot_dir=files.bot_dir,
                env=env,
                uid=uid,
                extra_ro=files.extra,
                pythonpath=files.pythonpath,
            )
            missing = unreachable(spec)  # said now: inside, only "No such file or directory" would say it
            if missing is not None:
                raise BotStartError(bp.name, missing, command=bp.command)
            if uid is not None:  # made once the start is sure to be tried: a refused one leaves no group
                cgroup = BotCgroup.make(f"{self._run_dir.name}/{tag}", bp.limits.memory_mb, bp.limits.processes)
            filter_fd = spec.seccomp_fd = seccomp_fd()
            full_argv = build_argv(spec, self._bwrap)
            # bwrap reads its options from a pipe and runs a start script it copies in, so its
            # command line, which the bot can read as its parent's, shows nothing of the host.
            short, options, script = hidden(full_argv)
            script_fd = _pipe_with(script)
            args_fd = _pipe_with(options.replace(b"{SCRIPT_FD}", str(script_fd).encode()))
            pass_fds: tuple[int, ...] = (args_fd, script_fd, filter_fd)
            full_argv = [a.replace("{ARGS_FD}", str(args_fd)) for a in short]
            popen_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
            if cgroup is not None:
                popen_env["HEARTS_CGROUPS"] = os.pathsep.join(str(p) for p in cgroup.procs)
            address = f"unix:{pinned}"
        else:
            port = free_port(bp.host)
            argv = expand_command(bp.command, port=port, host=bp.host, name=bp.name)
            missing = _missing_program(argv[0], cwd=bp.cwd, path={**os.environ, **bp.env}.get("PATH"))
            if missing is not None:
                raise BotStartError(bp.name, missing, command=bp.command)
            full_argv = limits_only_argv(argv, bp.limits)
            pass_fds = ()
            popen_env = {**os.environ, **bp.env, "HEARTS_BOT_NAME": bp.name, "HEARTS_BOT_PORT": str(port)}
            address = f"{bp.host}:{port}"
        cap = bp.limits.log_mb * 1024 * 1024
        rotated = rotate(bp.log_path, cap)  # over all its starts too, a bot's log is bounded
        log = open(bp.log_path, "ab")
        if rotated:
            log.write(f"--- the earlier starts' output is in {bp.log_path.name}.1\n".encode())
        log.write(
            f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} start {bp.starts + 1} of {bp.name} "
            f"({bp.sandbox.label}): {shlex.join(argv)}\n".encode()
        )
        log.flush()
        offset = log.tell()
        read_end, write_end = os.pipe()
        try:
            proc = subprocess.Popen(
                _wrap(full_argv),
                stdin=subprocess.DEVNULL,
                stdout=write_end,
                stderr=write_end,
                cwd=bp.cwd,
                env=popen_env,
                start_new_session=True,
                pass_fds=pass_fds,
            )
        except OSError as e:
            os.close(read_end)
            log.close()
            if cgroup is not None:
                cgroup.remove()
            raise BotStartError(bp.name, f"cannot run the command: {e}", command=bp.command) from None
        finally:
            os.close(write_end)
            for fd in pass_fds:
                os.close(fd)
        bp.proc, bp.limit_hit = proc, None
        start = bp.started[address] = _Start(
            proc, bp.limits, sock_dir=sock_dir if full else None, pinned=pinned, uid=uid, cgroup=cgroup
        )
        bp.pump = LogPump(
            read_end, log, cap, lambda n: self._hit(bp, start, f"log: more than {bp.limits.log_mb} MiB of output")
        )
        self._watch.add(
            f"{bp.name}#{bp.starts + 1}",
            proc.pid,
            bp.limits,
            lambda why: self._hit(bp, start, why),
            sandboxed=full,
            shared_dir=sock_dir if full else None,
        )
        bp.starts += 1
        bp.address = address
        try:
            if full:
                await self._await_pinned(bp, start, offset)
            if start.impostor is None:  # an impostor's seats forfeit at their handshake: nothing to wait for
                address = await self._await_ready(bp, offset)
                await self.vouch(bp.name, address)
        except BotStartError as e:
            await _terminate(bp.proc, self.stop_grace)
            limit = await self.diagnose(bp.name, address, wait=0.5)
            if limit is not None:  # the sandbox stopped it: say which limit, not only how it exited
                raise BotStartError(
                    bp.name,
                    f"stopped by its sandbox at a limit, {limit}",
                    command=e.command,
                    log_path=e.log_path,
                    tail=e.tail,
                ) from None
            raise
        return address

    async def _await_pinned(self, bp: BotProcess, start: _Start, offset: int) -> None:
        """Wait for the bot's socket in its shared directory, then pin it (``ladder.sandbox.peer.pin``):
        the referee reaches the bot through the pinned name alone. What stood there, if it was not
        the bot's own socket, is kept as the start's ``impostor``, and its seats forfeit."""
        assert bp.proc is not None and start.sock_dir is not None and start.pinned is not None
        shared = start.sock_dir / BOT_SOCKET
        deadline = time.monotonic() + self.startup_timeout
        while True:
            if bp.proc.poll() is not None:
                raise _failed(bp, f"the process exited with code {bp.proc.returncode} before serving", offset)
            if os.path.lexists(shared):
                if start.uid is not None:
                    # The shared directory becomes root's: the bot can put nothing more there, nor
                    # anything in its socket's place (the watch bounds what it wrote until now).
                    os.chown(start.sock_dir, 0, 0)
                    os.chmod(start.sock_dir, 0o755)
                try:
                    pin(shared, start.pinned, start.uid)
                except PeerMismatch as e:
                    start.impostor = str(e)
                except FileNotFoundError:
                    await asyncio.sleep(0.02)  # gone again: a server replacing its own socket
                    continue
                return
            if time.monotonic() > deadline:
                why = f"made no socket at {SOCKET_DIR}/{BOT_SOCKET} within {self.startup_timeout:g} s"
                raise _failed(bp, why, offset)
            await asyncio.sleep(0.02)

    async def vouch(self, name: str, address: str) -> str | None:
        """What serves bot ``name``'s start at ``address`` when it is not that start's own
        processes (a link or another's socket in its place, another's port), or None: asked
        before every handshake, so a seat is played by the bot it names or not at all."""
        bp = self.bots.get(name)
        if bp is None or bp.remote:
            return None
        start = bp.started.get(address)
        if start is not None and start.impostor is not None:
            return start.impostor
        proc = start.proc if start is not None else bp.proc if address == bp.address else None
        if proc is None or proc.poll() is not None:
            return None  # gone: the call finds it unreachable, a fault of its own
        try:
            if start is not None and start.pinned is not None:
                check_unix(start.pinned, proc.pid, start.uid)
            elif not address.startswith("unix:"):
                check_tcp(int(address.rsplit(":", 1)[1]), proc.pid)
        except PeerMismatch as e:
            if start is not None:
                start.impostor = str(e)
            return str(e)
        except (OSError, ValueError):
            return None  # nothing listens (yet, or any more): not an impostor
        return None

    def isolation(self, name: str) -> Isolation:
        """How bot ``name`` runs now: its kind and, sandboxed, the kernel features in force."""
        bp = self.bots[name]
        if bp.remote:
            return Isolation("remote")
        if bp.sandbox is SandboxMode.OFF:
            return Isolation("none", ("peer-checked",))
        if bp.sandbox is SandboxMode.LIMITS_ONLY:
            return Isolation("limits-only", ("peer-checked", "rlimits", "watch"))
        features = ["mount-ns", "pid-ns", "net-ns", "ipc-ns", "rlimits", "watch", "seccomp", "peer-checked"]
        if os.geteuid() == 0:
            features.append("own-uid")
        if os.geteuid() == 0 or (self._bwrap is not None and disables_userns(self._bwrap)):
            features.append("no-userns")  # refused by the seccomp filter, and by bubblewrap where it can
        start = bp.started.get(bp.address or "")
        if start is not None and start.cgroup is not None:
            features += start.cgroup.features
        return Isolation("sandbox", tuple(features))

    async def diagnose(self, name: str, address: str | None = None, wait: float = 1.0) -> str | None:
        """Why bot ``name`` (its start at ``address``; default: its current one) cannot be reached,
        if it was a resource limit: the limit, named (``memory: ...``); None for any other reason.
        Waits up to ``wait`` s for that start's process to end."""
        bp = self.bots.get(name)
        if bp is None or bp.sandbox is SandboxMode.OFF:
            return None
        start = bp.started.get(address if address is not None else bp.address or "")
        if start is None:
            return None
        deadline = time.monotonic() + wait
        while start.proc.poll() is None and start.limit_hit is None and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        code = start.proc.returncode
        if start.limit_hit is None and code in (-signal.SIGKILL, 128 + signal.SIGKILL):
            # Killed: by the watch, whose word on why comes through its pipe a moment later.
            end = time.monotonic() + 0.5
            while start.limit_hit is None and time.monotonic() < end:
                await asyncio.sleep(0.01)
        if start.limit_hit is None and start.cgroup is not None and start.cgroup.oom_kills() > 0:
            start.limit_hit = (
                f"memory: over the limit of {start.limits.memory_mb} MiB counted by its memory cgroup "
                "(every page it held: processes, tmpfs, shared memory)"
            )
        if start.limit_hit is not None:
            return start.limit_hit
        # A signal the kernel sends at an rlimit: the process itself (-N) or bubblewrap's report of
        # its child (128 + N).
        if code in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
            start.limit_hit = f"cpu: the CPU-time limit of each process ({start.limits.cpu_seconds} s)"
        elif code in (-signal.SIGXFSZ, 128 + signal.SIGXFSZ):
            start.limit_hit = f"file size: the largest file it may write ({start.limits.file_size_mb} MiB)"
        return start.limit_hit


def _failed(bp: BotProcess, reason: str, offset: int) -> BotStartError:
    """A start that failed for ``reason``, with what its log said since ``offset``."""
    assert bp.log_path is not None
    return BotStartError(
        bp.name, reason, command=bp.command, log_path=bp.log_path, tail=log_tail(bp.log_path, since=offset)
    )


def _stronger(a: SandboxMode, b: SandboxMode) -> SandboxMode:
    order = [SandboxMode.OFF, SandboxMode.LIMITS_ONLY, SandboxMode.FULL]
    return max(a, b, key=order.index)


_INTERPRETERS = ("python", "node")


def _pipe_with(data: bytes) -> int:
    """The read end of a pipe that holds ``data`` (written at once: it fits a pipe's buffer) and
    is closed for writing."""
    assert len(data) < 65536
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    return r


@dataclass
class _BotFiles:
    """What a sandboxed bot is given of its own: its argv (files named absolutely), its directory
    (bound, and where it starts), more paths to bind, and folders its Python imports from."""

    argv: list[str]
    bot_dir: Path | None
    extra: list[Path] = field(default_factory=list)
    pythonpath: list[Path] = field(default_factory=list)


def _absolute(argv: list[str], cwd: Path | None, path: str | None = None) -> _BotFiles:
    """The argv with its program found (on ``path`` where it is a bare name: the sandbox's own PATH
    is not the user's) and every argument naming an existing file or directory made absolute (the
    bot runs in its own directory inside the sandbox), and that directory: the one holding the
    first file named (the script, or the binary itself). ``python -m PKG`` from a folder holding
    PKG: PKG is the bot's own (``_own_module``); the SDK's packages (``python -m
    clients.bots.random``) are the SDK's, given to every Python bot."""
    base = cwd or Path.cwd()
    out, bot_dir = [argv[0]], None
    first = Path(argv[0])
    interpreter = first.name.startswith(_INTERPRETERS)
    if os.sep in argv[0] and (base / first).is_file():
        out[0] = os.path.abspath(base / first)  # not resolved: a venv's python is a link, and must stay one
        if not interpreter:  # a compiled bot: its directory is the binary's
            bot_dir = Path(out[0]).parent
    elif os.sep not in argv[0] and (found := shutil.which(argv[0], path=path)) is not None:
        out[0] = os.path.abspath(found)
    files = _BotFiles(out, bot_dir)
    module = _python_module(argv) if interpreter else None
    if module is not None:
        _own_module(argv[module], base, files)
    for i, a in enumerate(argv[1:], 1):
        p = base / a
        if i == module:
            pass  # a module's name, not a file
        elif a and not a.startswith("-") and p.exists():
            a = os.path.abspath(p)
            if files.bot_dir is None and not files.extra:
                files.bot_dir = Path(a) if p.is_dir() else Path(a).parent
        out.append(a)
    return files


def _python_module(argv: Sequence[str]) -> int | None:
    """Where ``python [OPTIONS] -m MODULE`` names its module in ``argv``; None for a script, ``-c``
    or another program (a ``-m`` after those is the bot's own argument)."""
    if not Path(argv[0]).name.startswith("python"):
        return None
    i = 1
    while i < len(argv) and argv[i].startswith("-") and argv[i] not in ("-", "-c"):
        if argv[i] == "-m":
            return i + 1 if i + 1 < len(argv) else None
        i += 2 if argv[i] in ("-W", "-X") else 1
    return None


def _own_module(module: str, base: Path, files: _BotFiles) -> None:
    """Give the bot what ``python -m MODULE`` imports from ``base``, unless it is the SDK's: the
    package holding the module (the module itself where it is a package) as its directory, the
    ``__init__.py`` of each package above it, and nothing else of ``base``, which is its import
    folder. A module named deep in a tree gets its own folder, never the tree's top."""
    parts = module.split(".")
    if not all(parts) or any(os.sep in p for p in parts):
        return
    if (base / parts[0]).resolve() in {p.resolve() for p in sdk_dirs()}:
        return
    *above, last = parts
    if (base.joinpath(*parts)).is_dir():
        package = parts
    elif base.joinpath(*above, f"{last}.py").is_file():
        package = above
    else:
        return
    if package:
        files.bot_dir = Path(os.path.abspath(base.joinpath(*package)))
    else:  # a module file beside the others: that file alone
        files.extra.append(Path(os.path.abspath(base / f"{last}.py")))
    for i in range(1, len(package)):
        init = base.joinpath(*package[:i], "__init__.py")
        if init.is_file():
            files.extra.append(Path(os.path.abspath(init)))
    files.pythonpath.append(Path(os.path.abspath(base)))


def _missing_program(program: str, *, cwd: Path | None, path: str | None) -> str | None:
    """Why the command's program cannot be run, said as a shell says it ("command not found: X"),
    or None. Checked before a process is made: the launch wrapper's exec would fail in the bot's
    log instead, after the wait for a bot that never comes."""
    if os.sep in program or (os.altsep is not None and os.altsep in program):
        full = Path(program) if os.path.isabs(program) else (cwd or Path.cwd()) / program
        if not full.exists():
            return f"command not found: {program} (no such file: {full})"
        if full.is_dir() or not os.access(full, os.X_OK):
            return f"cannot run {program}: not an executable file (chmod +x {program}?)"
        return None
    if shutil.which(program, path=path) is None:
        script = (cwd or Path.cwd()) / f"{program.removesuffix('.py')}.py"
        if script.is_file():  # a Python file was meant: say both ways of playing it
            module = script.stem
            return (
                f"command not found: {program} (not on PATH). To start {script.name}: "
                f'"python {script.name} --port {{port}}"; to play its class in-process: {module}:ClassName'
            )
        return f"command not found: {program} (not on PATH)"
    return None


def _wrap(argv: Sequence[str]) -> list[str]:
    if sys.platform.startswith("linux"):
        return [sys.executable, "-S", "-c", _PDEATHSIG_SHIM, str(os.getpid()), *argv]
    return list(argv)


async def _wait_healthy(address: str, proc: subprocess.Popen[bytes] | None, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        if await health_check(address, timeout=0.5):
            return True
        await asyncio.sleep(0.1)
    return False


async def _terminate(proc: subprocess.Popen[bytes] | None, grace: float) -> None:
    """SIGTERM the bot's process group, wait up to ``grace`` s, then SIGKILL what is left of it.

    The group is signalled even when its leader has already exited: a wrapper (``sh -c``, a
    script starting ``node``) can die and leave its children holding the port.
    """
    if proc is None:
        return
    _signal_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while (proc.poll() is None or process_alive(proc.pid, group=True)) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    if proc.poll() is None or process_alive(proc.pid, group=True):
        _signal_group(proc, signal.SIGKILL)
        while proc.poll() is None:
            await asyncio.sleep(0.01)


def process_alive(pid: int, *, group: bool = False) -> bool:
    """Whether process ``pid`` (or, with ``group``, any process of group ``pid``) is left: signal 0
    asks without sending. One another user owns counts as alive; so does an unreaped zombie (its
    wait is bounded by the caller's grace)."""
    try:
        (os.killpg if group else os.kill)(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    # The bot leads its own session, so its group holds whatever it started (a shell, a node
    # process...): signal them all, whether or not the leader is still there.
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass  # the whole group is gone
    except PermissionError:
        if proc.poll() is None:
            proc.send_signal(sig)
