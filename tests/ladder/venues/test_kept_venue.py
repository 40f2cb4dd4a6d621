"""The kept venue: an arena's bots stay up from one batch to the next, started again only for a
new entry (a new version), a death (a fault or a limit) or a give-up, and stopped once no batch
seats them."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest
from bot_entries import sample

from ladder.bots.launcher import BotStartError
from ladder.bots.registry import BotEntry
from ladder.sandbox import SandboxMode
from ladder.venues.here import KeptVenue
from ladder.venues.venue import MatchJob, VenueBots
from referee.match import MatchSettings

pytestmark = pytest.mark.slow  # whole processes

FAST = "standard,target=30"
BOTS = Path(__file__).parents[1] / "bots"


def _bots(tmp_path: Path, entries: list[BotEntry]) -> VenueBots:
    return VenueBots(1, {e.name: e for e in entries}, MatchSettings(), SandboxMode.OFF, 20.0, tmp_path, Path.cwd())


def _job(index: int, seats: tuple[str, ...]) -> MatchJob:
    return MatchJob(1, index, f"t1-{index:06d}", seats, FAST, seed=index)


def test_a_kept_venue_starts_each_bot_once_for_many_batches_and_again_only_when_it_must(tmp_path: Path) -> None:
    four = [sample(n, "lowest") for n in "abcd"]

    async def run() -> None:
        venue = KeptVenue(log_dir=tmp_path)
        try:
            await venue.open(_bots(tmp_path, four))
            first = {n: bp.pid for n, bp in venue.launcher.bots.items()}
            played = await venue.play(_job(0, ("a", "b", "c", "d")))
            assert played.record is not None and not any(s.forfeit_reason for s in played.record.seats)
            await venue.close()
            # The next batch: the same bots, the same processes.
            await venue.open(_bots(tmp_path, four))
            assert {n: bp.pid for n, bp in venue.launcher.bots.items()} == first
            # One dies between two batches (a fault, a limit): it is started again for its next match.
            os.killpg(first["a"], signal.SIGKILL)  # type: ignore[arg-type]
            dead = venue.launcher.bots["a"].proc
            assert dead is not None and await asyncio.to_thread(dead.wait) == -signal.SIGKILL
            played = await venue.play(_job(1, ("a", "b", "c", "d")))
            assert played.record is not None and not any(s.forfeit_reason for s in played.record.seats)
            assert venue.launcher.bots["a"].pid != first["a"]
            await venue.close()
            # A new version of d (its entry changed), and c no longer seated: d is started again, c stopped.
            d2 = sample("d", "lowest", seed=2)
            await venue.open(_bots(tmp_path, [*four[:2], d2, sample("e", "lowest")]))
            now = {n: bp.pid for n, bp in venue.launcher.bots.items()}
            assert set(now) == {"a", "b", "d", "e"} and now["b"] == first["b"] and now["d"] != first["d"]
            assert not _alive(first["c"]) and not _alive(first["d"])
            played = await venue.play(_job(2, ("a", "b", "d", "e")))
            assert played.record is not None and not any(s.forfeit_reason for s in played.record.seats)
            # One that forfeits a match is started afresh for the next batch.
            illegal = BotEntry("f", command=f"python {BOTS / 'faulty.py'} illegal_card {{port}}")
            await venue.close()
            await venue.open(_bots(tmp_path, [*four[:2], d2, illegal]))
            before = {n: bp.pid for n, bp in venue.launcher.bots.items()}
            played = await venue.play(_job(3, ("a", "b", "d", "f")))
            assert played.record is not None and [s.forfeit for s in played.record.seats] == [False] * 3 + [True]
            await venue.close()
            await venue.open(_bots(tmp_path, [*four[:2], d2, illegal]))
            now = {n: bp.pid for n, bp in venue.launcher.bots.items()}
            assert now["f"] != before["f"] and {n: now[n] for n in "abd"} == {n: before[n] for n in "abd"}
            # A bot that cannot start: said, and the others stay up.
            broken = BotEntry("x", command="python -c 'raise SystemExit(3)' --port {port}")
            with pytest.raises(BotStartError, match="'x'"):
                await venue.open(_bots(tmp_path, [*four[:2], d2, broken]))
            assert "x" not in venue.launcher.bots and venue.launcher.bots["b"].pid == first["b"]
        finally:
            await venue.shutdown()
        assert not any(_alive(p) for p in now.values())

    asyncio.run(run())


def _alive(pid: int | None) -> bool:
    assert pid is not None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
