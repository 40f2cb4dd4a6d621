"""The launcher with real subprocess bots: start, health wait, restart after death, stop, errors."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from ladder.bots.launcher import BotStartError, Launcher, expand_command, health_check

HERE = Path(__file__).parent
RANDOM = "python -m clients.bots.random --port {port} --seed 3"


def run(coro):
    return asyncio.run(coro)


def test_expand_command_fills_placeholders_and_uses_this_python() -> None:
    argv = expand_command("python -m x --port {port} --name '{name} bot'", port=123, name="b")
    assert argv == [sys.executable, "-m", "x", "--port", "123", "--name", "b bot"]
    assert expand_command("./bot --listen {host}:{port}", port=9, host="::1") == ["./bot", "--listen", "::1:9"]
    assert expand_command("""bot --cfg '{"depth": 3}' -p {port}""", port=5) == [
        "bot",
        "--cfg",
        '{"depth": 3}',
        "-p",
        "5",
    ]


@pytest.mark.slow
def test_start_waits_for_serving_logs_and_stops_cleanly(tmp_path: Path) -> None:
    async def main() -> tuple[int | None, int | None]:
        async with Launcher(tmp_path / "logs") as launcher:
            a = await launcher.start("r1", RANDOM)
            b = await launcher.start("r2", "python -m clients.bots.random --seed 4")  # port from its output
            assert a != b
            assert await health_check(a) and await health_check(b)
            procs = [launcher.bots[n].proc for n in ("r1", "r2")]
        assert all(p is not None and p.poll() is not None for p in procs)
        return procs[0].returncode, procs[1].returncode

    codes = run(main())
    assert codes == (0, 0)  # SIGTERM is handled by the SDK: a graceful exit, not a kill
    log = (tmp_path / "logs" / "r1.log").read_text()
    assert "start 1 of r1" in log and "listening on 127.0.0.1:" in log


@pytest.mark.slow
def test_a_dead_bot_is_restarted_when_next_needed(tmp_path: Path) -> None:
    async def main() -> None:
        async with Launcher(tmp_path) as launcher:
            first = await launcher.start("r", RANDOM)
            assert await launcher.ensure("r") == first  # alive: nothing happens
            pid = launcher.bots["r"].pid
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            await asyncio.sleep(0.1)
            # Several matches may ask at once: one restart, one new address for all.
            addrs = await asyncio.gather(*(launcher.ensure("r") for _ in range(3)))
            assert len(set(addrs)) == 1
            assert launcher.bots["r"].pid != pid and launcher.bots["r"].starts == 2
            assert await health_check(addrs[0])
            assert any("restarting" in e for e in launcher.events)

    run(main())
    assert (tmp_path / "r.log").read_text().count("listening on") == 2


@pytest.mark.slow
def test_a_bot_that_ignores_sigterm_is_killed(tmp_path: Path) -> None:
    async def main() -> float:
        launcher = Launcher(tmp_path, stop_grace=0.5)
        await launcher.start("stubborn", f"python {HERE / 'bots' / 'stubborn.py'} {{port}}")
        proc = launcher.bots["stubborn"].proc
        t = time.monotonic()
        await launcher.stop_all()
        assert proc is not None and proc.returncode == -signal.SIGKILL
        return time.monotonic() - t

    assert 0.4 < run(main()) < 3


def test_a_bad_command_names_the_command_the_log_and_its_last_lines(tmp_path: Path) -> None:
    cmd = "python -c 'import sys; print(\"no model file\", file=sys.stderr); sys.exit(3)' {port}"

    async def main() -> None:
        async with Launcher(tmp_path) as launcher:
            await launcher.start("broken", cmd)

    with pytest.raises(BotStartError) as err:
        run(main())
    msg = str(err.value)
    assert "'broken'" in msg and "exited with code 3" in msg
    assert cmd in msg and str(tmp_path / "broken.log") in msg and "no model file" in msg


@pytest.mark.slow
def test_a_missing_program_and_a_silent_bot_fail_clearly(tmp_path: Path) -> None:
    async def missing() -> None:
        async with Launcher(tmp_path) as launcher:
            await launcher.start("ghost", "/nonexistent/bot --port {port}")

    with pytest.raises(BotStartError, match="(?s)ghost.*nonexistent"):
        run(missing())

    async def silent() -> None:
        async with Launcher(tmp_path, startup_timeout=0.8) as launcher:
            await launcher.start("mute", "python -c 'import time; time.sleep(60)' {port}")

    t = time.monotonic()
    with pytest.raises(BotStartError, match="did not report SERVING on grpc.health.v1 within 0.8 s"):
        run(silent())
    assert time.monotonic() - t < 5


@pytest.mark.slow
def test_a_remote_bot_is_checked_not_started(tmp_path: Path) -> None:
    async def main() -> None:
        # A generous start-up for the real bot (a loaded machine is slow to start Python), a short
        # one for the address where nothing listens.
        async with Launcher(tmp_path, startup_timeout=15) as launcher:
            addr = await launcher.start("local", RANDOM)
            assert await launcher.start("remote", address=addr) == addr
            assert launcher.bots["remote"].proc is None
        async with Launcher(tmp_path, startup_timeout=0.5) as launcher:
            with pytest.raises(BotStartError, match="127.0.0.1:1 did not report SERVING"):
                await launcher.start("away", address="127.0.0.1:1")

    run(main())


# -- a wrapper's children are stopped too: a bot behind a shell must not keep its port -----------


def _wrapper() -> str:
    # A shell that starts the real bot and waits: killing the shell leaves the bot holding the port.
    return f"sh -c '{sys.executable} -m clients.bots.lowest --port {{port}} & wait'"


def _listening(address: str) -> bool:
    import socket

    host, port = address.rsplit(":", 1)
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, int(port))) == 0


async def _gone(address: str, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while _listening(address):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def _kill_leader(launcher: Launcher, name: str) -> str:
    bp = launcher.bots[name]
    assert bp.proc is not None and bp.address is not None
    os.kill(bp.proc.pid, signal.SIGKILL)  # the shell only: its child keeps serving
    while bp.proc.poll() is None:
        await asyncio.sleep(0.01)
    assert await health_check(bp.address)
    return bp.address


@pytest.mark.slow
def test_stop_all_stops_a_wrappers_child_after_the_wrapper_died(tmp_path: Path) -> None:
    async def main() -> None:
        launcher = Launcher(tmp_path, stop_grace=1.0)
        try:
            await launcher.start("wrapped", _wrapper())
            addr = await _kill_leader(launcher, "wrapped")
        finally:
            await launcher.stop_all()
        assert await _gone(addr), f"a process still listens on {addr}"

    run(main())


@pytest.mark.slow
def test_ensure_stops_a_wrappers_child_before_restarting(tmp_path: Path) -> None:
    async def main() -> None:
        async with Launcher(tmp_path, stop_grace=1.0) as launcher:
            await launcher.start("wrapped", _wrapper())
            old = await _kill_leader(launcher, "wrapped")
            new = await launcher.ensure("wrapped")
            assert new != old and await health_check(new)
            assert await _gone(old), f"the old bot still listens on {old}"

    run(main())


@pytest.mark.slow
def test_start_many_launches_nothing_after_a_failure(tmp_path: Path) -> None:
    class SlowLauncher(Launcher):
        async def start(self, name, command=None, *, address=None, env=None):
            if name == "slow":
                await asyncio.sleep(0.3)
            return await super().start(name, command, address=address, env=env)

    async def main() -> None:
        launcher = SlowLauncher(tmp_path, stop_grace=1.0)
        try:
            with pytest.raises(BotStartError, match="ghost"):
                await launcher.start_many([("ghost", "/nonexistent/bot {port}", None), ("slow", RANDOM, None)])
            await asyncio.sleep(1.0)  # the slow start would have launched its bot by now
            assert "slow" not in launcher.bots or not launcher.bots["slow"].alive
        finally:
            await launcher.stop_all()

    run(main())
