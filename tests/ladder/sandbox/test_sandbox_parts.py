"""The sandbox's parts without a sandbox: the capped log, the limits and how a bots file gives
them, the bubblewrap command line, and a bot told to listen on a unix socket."""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from clients.sdk import BotServer, bot_address
from ladder.bots.launcher import _absolute, expand_command, health_check
from ladder.bots.registry import BotEntry, RegistryError, parse_bots
from ladder.sandbox import Limits, LimitsError, LogPump, SandboxMode, SandboxSpec, build_argv
from ladder.sandbox.bwrap import prlimit_args

pytestmark = pytest.mark.slow  # whole processes and servers


class _Log(io.BytesIO):
    def close(self) -> None:  # keep the bytes readable after the pump closes it
        self.closed_by_pump = True


def _pump(chunks: list[bytes], cap: int) -> tuple[bytes, list[int]]:
    r, w = os.pipe()
    log, over = _Log(), []
    pump = LogPump(r, log, cap, over.append)
    for c in chunks:
        os.write(w, c)
    os.close(w)
    assert pump.join(5)
    return log.getvalue(), over


def test_the_log_keeps_the_head_and_the_tail_and_says_what_it_dropped() -> None:
    data, over = _pump([b"HEAD" + b"a" * 996, b"m" * 100_000, b"b" * 996 + b"TAIL"], cap=2000)
    assert data.startswith(b"HEAD") and data.endswith(b"TAIL")
    assert b"[... 100000 bytes of output dropped" in data
    assert len(data) < 2000 + 200 and len(over) == 1


def test_a_log_under_its_cap_is_kept_whole() -> None:
    data, over = _pump([b"hello\n", b"world\n"], cap=2000)
    assert data == b"hello\nworld\n" and over == []


def test_limits_from_a_bots_file() -> None:
    (entry,) = parse_bots({"bots": {"x": {"command": "c", "sandbox": True, "limits": {"memory_mb": 100}}}})
    assert entry.sandbox and entry.limits == Limits(memory_mb=100)
    assert BotEntry.from_dict(entry.to_dict()) == entry  # as a tournament stores it
    assert "sandbox" not in BotEntry("y", command="c").to_dict()  # stored entries without it are unchanged
    with pytest.raises(RegistryError, match=r"unknown limit\(s\) memory .*known: .*memory_mb"):
        parse_bots({"bots": {"x": {"command": "c", "limits": {"memory": 100}}}})
    with pytest.raises(RegistryError, match="memory_mb must be a whole number above 0"):
        parse_bots({"bots": {"x": {"command": "c", "limits": {"memory_mb": -1}}}})
    with pytest.raises(RegistryError, match="sandbox must be true or false"):
        parse_bots({"bots": {"x": {"command": "c", "sandbox": "yes"}}})
    with pytest.raises(LimitsError):
        Limits(cpu_share=0)


def test_the_rlimits_are_set_by_prlimit_inside() -> None:
    args = prlimit_args(Limits(memory_mb=100, processes=10, cpu_seconds=5, open_files=32, file_size_mb=1))
    assert "--nproc=10:10" in args and "--cpu=5:6" in args and "--nofile=32:32" in args
    assert f"--fsize={1 << 20}:{1 << 20}" in args and "--core=0:0" in args


def test_the_command_line_mounts_tmpfs_first_and_passes_no_host_environment(tmp_path: Path) -> None:
    os.environ["SECRET_OF_THE_HOST"] = "x"
    argv = build_argv(SandboxSpec(argv=["/bin/true"], socket_dir=tmp_path, limits=Limits(scratch_mb=8), env={"A": "1"}))
    assert "--clearenv" in argv and "SECRET_OF_THE_HOST" not in " ".join(argv)
    assert argv.index("--tmpfs") < argv.index("--ro-bind")
    assert argv[argv.index("--tmpfs") - 1] == str(8 << 20)  # --size N --tmpfs /tmp
    assert {"--unshare-pid", "--unshare-net", "--die-with-parent", "--new-session"} <= set(argv)
    assert argv[argv.index("--bind") + 1 : argv.index("--bind") + 3] == [str(tmp_path), "/run/hearts"]


def test_a_command_names_its_files_absolutely_and_its_directory_is_the_scripts(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    files = _absolute(["/usr/bin/python3", "bot.py", "--port", "0"], tmp_path)
    assert files.argv == ["/usr/bin/python3", str(tmp_path / "bot.py"), "--port", "0"] and files.bot_dir == tmp_path
    assert _absolute(["python", "-m", "clients.bots.random"], tmp_path).bot_dir is None
    assert expand_command("b --listen {address}", port=0, address="unix:/run/hearts/bot.sock")[2] == (
        "unix:/run/hearts/bot.sock"
    )
    assert SandboxMode("limits-only").label.startswith("LIMITS ONLY")


def test_the_sdk_listens_on_the_address_it_is_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from clients.bots import make_bot

    sock = tmp_path / "bot.sock"
    monkeypatch.setenv("HEARTS_BOT_ADDRESS", f"unix:{sock}")
    assert bot_address([]) == f"unix:{sock}"
    assert bot_address(["--address", "unix:/x"]) == "unix:/x"

    async def serve_and_check() -> bool:
        async with BotServer(make_bot("lowest"), listen=bot_address([])) as srv:
            assert srv.address == f"unix:{sock}"
            return await health_check(srv.address)

    assert asyncio.run(serve_and_check())


def test_a_bwrap_that_cannot_make_namespaces_is_named_with_what_to_allow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ladder.sandbox import SandboxUnavailable, probe

    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    with pytest.raises(SandboxUnavailable, match=r"cannot create the bot's namespaces here: bwrap: No permissions.*"):
        probe()


def test_a_log_past_its_generation_is_moved_aside_and_the_older_one_goes(tmp_path: Path) -> None:
    from ladder.sandbox.logcap import GENERATION_CAPS, rotate

    log = tmp_path / "bot.log"
    assert not rotate(log, 100)  # no log yet
    log.write_bytes(b"a" * (GENERATION_CAPS * 100 - 1))
    assert not rotate(log, 100) and log.exists()
    log.write_bytes(b"b" * GENERATION_CAPS * 100)
    (tmp_path / "bot.log.1").write_bytes(b"the oldest")
    assert rotate(log, 100)
    assert not log.exists() and (tmp_path / "bot.log.1").read_bytes() == b"b" * GENERATION_CAPS * 100


def test_a_bot_started_again_and_again_keeps_two_generations_of_log(tmp_path: Path) -> None:
    """Each start's output is capped, and so is the sum over starts: a bot's log that holds
    GENERATION_CAPS caps becomes NAME.log.1 at its next start (a real start, limits-only)."""
    from ladder.bots.launcher import Launcher
    from ladder.sandbox.logcap import GENERATION_CAPS

    logs = tmp_path / "logs"
    logs.mkdir()
    old = b"x" * (GENERATION_CAPS * 1024 * 1024)  # as a flood over earlier starts leaves it
    (logs / "r.log").write_bytes(old)

    async def run() -> None:
        launcher = Launcher(logs, sandbox=SandboxMode.LIMITS_ONLY, limits=Limits(log_mb=1))
        try:
            await launcher.start("r", "python -m clients.bots.random --port {port}")
        finally:
            await launcher.stop_all()

    asyncio.run(run())
    assert (logs / "r.log.1").read_bytes() == old
    text = (logs / "r.log").read_text()
    assert text.startswith("--- the earlier starts' output is in r.log.1\n") and "start 1 of r" in text
    assert len(text) < 1024 * 1024


def test_a_bot_stopped_at_a_limit_while_starting_is_told_so(tmp_path: Path) -> None:
    """A bot that floods its output before it serves is stopped at the log's limit, and the start's
    error names that limit (not only "exited with code -9")."""
    import sys

    from ladder.bots.launcher import BotStartError, Launcher

    flood = tmp_path / "flood.py"
    flood.write_text("import sys, time\nsys.stdout.write('x' * 3_000_000)\nsys.stdout.flush()\ntime.sleep(30)\n")

    async def run() -> BotStartError:
        launcher = Launcher(tmp_path / "logs", sandbox=SandboxMode.LIMITS_ONLY, limits=Limits(log_mb=1))
        try:
            await launcher.start("flood", f"{sys.executable} {flood} {{port}}")
        except BotStartError as e:
            return e
        finally:
            await launcher.stop_all()
        raise AssertionError("the flood started")

    error = asyncio.run(run())
    assert "stopped by its sandbox at a limit, log" in error.reason, error.reason
    assert len(str(error)) < 2000 and "more characters)" in error.tail  # its megabyte line, cut


def test_python_m_names_a_module_only_among_pythons_own_options(tmp_path: Path) -> None:
    (tmp_path / "mybot").mkdir()
    (tmp_path / "bot.py").write_text("")
    files = _absolute(["python", "-X", "dev", "-m", "mybot", "--port", "0"], tmp_path)
    assert files.argv[3:5] == ["-m", "mybot"]  # a module's name, though a folder of that name is here
    assert files.bot_dir == tmp_path / "mybot" and files.pythonpath == [tmp_path]
    files = _absolute(["python", "bot.py", "-m", "mybot"], tmp_path)  # the script's own argument
    assert files.bot_dir == tmp_path and files.pythonpath == []
    assert _absolute(["python", "-c", "pass", "-m", "mybot"], tmp_path).pythonpath == []


def test_python_m_gives_the_package_holding_the_module_never_the_top_of_its_tree(tmp_path: Path) -> None:
    (tmp_path / "mybot").mkdir()
    (tmp_path / "mybot" / "main.py").write_text("")
    (tmp_path / "contest" / "versions" / "me" / "3").mkdir(parents=True)
    (tmp_path / "contest" / "arena.db").write_text("")
    (tmp_path / "contest" / "versions" / "me" / "3" / "bot.py").write_text("")
    (tmp_path / "contest" / "__init__.py").write_text("")
    assert _absolute(["python", "-m", "mybot.main"], tmp_path).bot_dir == tmp_path / "mybot"
    files = _absolute(["python", "-m", "contest.versions.me.3.bot"], tmp_path)
    assert files.bot_dir == tmp_path / "contest" / "versions" / "me" / "3"
    assert files.extra == [tmp_path / "contest" / "__init__.py"] and files.pythonpath == [tmp_path]
    (tmp_path / "solo.py").write_text("")
    files = _absolute(["python", "-m", "solo"], tmp_path)
    assert files.bot_dir is None and files.extra == [tmp_path / "solo.py"]


def test_a_long_temp_folder_leaves_the_sockets_room_in_tmp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A unix socket's path holds about 107 bytes: under a temp folder too long for one, the
    sandboxes' folder is made in /tmp instead (their bots would otherwise never be reached)."""
    from ladder.sandbox.bwrap import SOCKET_PATH_ROOM, sandbox_run_dir

    deep = tmp_path / ("x" * 60) / ("y" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    made = sandbox_run_dir()
    try:
        assert made.parent == Path("/tmp")
        assert len(os.fsencode(made / "pins" / "9999-9999.sock")) <= SOCKET_PATH_ROOM
    finally:
        made.rmdir()
    short = Path(tempfile.mkdtemp(prefix="hs-", dir="/tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(short))
    try:
        assert sandbox_run_dir().parent == short  # a short temp folder is used as it is
    finally:
        shutil.rmtree(short)


_SIGNALLED_LAUNCHER = """
import signal, subprocess, sys
from ladder.sandbox.limits import Limits
from ladder.sandbox.watch import Watch
signalled = []
signal.signal(signal.SIGTERM, lambda *_: signalled.append(1))
watch = Watch()
print("ready", flush=True)
while not signalled:
    signal.pause()
try:  # a watch the group's signal ended is gone well within this
    print("the watch ended:", watch._proc.wait(0.5), flush=True)
except subprocess.TimeoutExpired:
    watch.add("k", watch._proc.pid, Limits(), lambda why: None, sandboxed=False)
    watch.remove("k")
    watch.close()
    print("the watch went on", flush=True)
"""


def test_a_signal_to_the_launchers_process_group_leaves_its_watch_running() -> None:
    # Ctrl-C, or a service manager's SIGTERM, reaches every process of the group while the referee
    # stops in order: a watch ended under a check or a match still going would fail it (a broken pipe).
    import signal
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[3]
    proc = subprocess.Popen(
        [sys.executable, "-c", _SIGNALLED_LAUNCHER],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"
    os.killpg(proc.pid, signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    assert (out, proc.returncode) == ("the watch went on\n", 0)
