"""Faults on the cluster: a worker killed mid-match loses nothing (its match is played again
elsewhere from its seed, recorded once); the client SIGKILLed mid-tournament is finished by
``hearts tournament resume`` (the real command, in a subprocess), nothing lost or doubled."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cluster_helpers import deterministic_bots, local_cluster
from distributed import Client

from ladder.store import Store
from ladder.tournament.run import TournamentSpec, create_tournament, get_tournament, play_tournament
from ladder.venues.cluster import venue

pytestmark = pytest.mark.slow  # whole processes and servers

HEARTS = str(Path(sys.executable).with_name("hearts"))
RULES = "standard,target=50"  # matches of several hands each: a kill lands in the middle of one


def _recorded(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as c:
            return int(c.execute("SELECT COUNT(match_id) FROM tournament_matches").fetchone()[0])
    except sqlite3.OperationalError:
        return 0  # not created yet


def _each_scheduled_match_recorded_once(store: Store, tid: int, total: int) -> None:
    q = store.db.execute
    assert q(
        "SELECT COUNT(*), COUNT(DISTINCT idx), COUNT(match_id), COUNT(DISTINCT match_id) "
        "FROM tournament_matches WHERE tournament_id = ?",
        [tid],
    ).fetchone() == (total, total, total, total)
    assert q("SELECT COUNT(*) FROM matches WHERE tournament_id = ?", [tid]).fetchone()[0] == total


def test_a_worker_killed_mid_match_loses_nothing(tmp_path: Path) -> None:
    with local_cluster() as cluster, Client(cluster) as client:
        here = Store(tmp_path / "here.db")
        spec = TournamentSpec(rules=RULES, deals=1, seed=5)
        tid = create_tournament(here, deterministic_bots(), spec)
        asyncio.run(play_tournament(here, tid, concurrency=2, log_dir=tmp_path / "logs-here"))

        store = Store(tmp_path / "there.db")
        tid2 = create_tournament(store, deterministic_bots(), spec)
        killed: list[str] = []

        async def kill_one_mid_match() -> None:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if _recorded(tmp_path / "there.db") >= 1:  # under way: every worker has a match in hand
                    busy = {w: keys for w, keys in (await asyncio.to_thread(client.processing)).items() if keys}
                    if busy:
                        address = sorted(busy)[0]
                        pid = (await asyncio.to_thread(client.run, os.getpid, workers=[address]))[address]
                        os.kill(pid, signal.SIGKILL)
                        killed.extend([address, *map(str, busy[address])])
                        return
                await asyncio.sleep(0.05)

        async def both() -> None:
            v = venue(cluster.scheduler_address)
            run = asyncio.create_task(play_tournament(store, tid2, concurrency=2, log_dir=tmp_path / "logs", venue=v))
            await kill_one_mid_match()
            summary = await run
            assert summary.played == 4 and summary.remaining == 0

        asyncio.run(both())
        assert killed, "no worker was ever seen playing"
        # The key of the match it was playing names the match (t2-000003-…): it was recorded, once.
        assert any(k.startswith(f"t{tid2}-") for k in killed[1:]), killed
        assert all(store.has_match(k.rsplit("-", 1)[0]) for k in killed[1:])
        _each_scheduled_match_recorded_once(store, tid2, 4)
        # The match that was on the killed worker was played again elsewhere from its seed: the records
        # are the ones this process plays.
        mine = {m: here.load_match(m).decisions() for m in here.match_ids(tournament_id=tid)}
        theirs = {
            m.replace(f"t{tid2}-", f"t{tid}-"): store.load_match(m).decisions()
            for m in store.match_ids(tournament_id=tid2)
        }
        assert mine == theirs


BOTS_TOML = "".join(f'[bots.{e.name}]\ncommand = "{e.command}"\n' for e in deterministic_bots())


def test_the_client_killed_mid_tournament_is_finished_by_resume(tmp_path: Path) -> None:
    with local_cluster() as cluster:
        (tmp_path / "bots.toml").write_text(BOTS_TOML)
        db = tmp_path / "t.db"
        address = cluster.scheduler_address
        args = ["tournament", "run", "--bots", "bots.toml", "--rules", RULES, "--deals", "2", "--seed", "4"]
        args += ["--cluster", address, "--db", str(db)]
        with open(tmp_path / "run.out", "wb") as out:
            proc = subprocess.Popen([HEARTS, *args], cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT)
            try:
                deadline = time.monotonic() + 90
                while _recorded(db) < 2:  # some saved, others surely in flight on the workers
                    assert proc.poll() is None, (tmp_path / "run.out").read_text()
                    assert time.monotonic() < deadline, "the tournament did not get going"
                    time.sleep(0.05)
                proc.send_signal(signal.SIGKILL)
                proc.wait(10)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
        with Store(db) as store:
            info = get_tournament(store, 1)
            assert 2 <= info.done < 8 and info.status == "running", (info.done, info.status)
        done = subprocess.run(
            [HEARTS, "tournament", "resume", "1", "--cluster", address, "--db", str(db)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "on the Dask cluster at" in done.stdout
        with Store(db) as store:
            info = get_tournament(store, 1)
            assert info.done == 8 and info.status == "finished"
            _each_scheduled_match_recorded_once(store, 1, 8)


def test_a_worker_that_joins_mid_tournament_plays_its_share(tmp_path: Path) -> None:
    with local_cluster(workers=1) as cluster:
        store = Store(tmp_path / "t.db")
        tid = create_tournament(store, deterministic_bots(), TournamentSpec(rules=RULES, deals=3, seed=8))
        records: list[object] = []

        async def run() -> None:
            v = venue(cluster.scheduler_address)
            play = asyncio.create_task(
                play_tournament(store, tid, concurrency=1, log_dir=tmp_path / "logs", venue=v, on_record=records.append)
            )
            while not records and not play.done():
                await asyncio.sleep(0.05)
            await asyncio.to_thread(cluster.scale, 2)
            summary = await play
            assert summary.played == 12 and summary.faults == 0
            # Every match seats all four bots: two at once means the new worker played alongside.
            assert summary.max_in_flight["lowest"] == 2

        asyncio.run(run())
        assert len(list((tmp_path / "logs" / "cluster").glob("*/lowest.log"))) == 2


def test_a_match_on_the_only_worker_killed_is_played_by_its_restart(tmp_path: Path) -> None:
    # Each task may run only on the workers that had the bots when it was sent; the nanny restarts
    # a killed worker under a new address, so the match it was playing is sent again to that one.
    with local_cluster(workers=1) as cluster, Client(cluster) as client:
        store = Store(tmp_path / "t.db")
        tid = create_tournament(store, deterministic_bots(), TournamentSpec(rules=RULES, deals=1, seed=4))
        killed: list[str] = []

        async def run() -> None:
            v = venue(cluster.scheduler_address)
            play = asyncio.create_task(play_tournament(store, tid, concurrency=1, log_dir=tmp_path / "logs", venue=v))
            deadline = time.monotonic() + 60
            while not killed and time.monotonic() < deadline and not play.done():
                busy = {w: keys for w, keys in (await asyncio.to_thread(client.processing)).items() if keys}
                if busy and _recorded(tmp_path / "t.db") >= 1:
                    address = sorted(busy)[0]
                    pid = (await asyncio.to_thread(client.run, os.getpid, workers=[address]))[address]
                    os.kill(pid, signal.SIGKILL)
                    killed.append(address)
                await asyncio.sleep(0.05)
            summary = await asyncio.wait_for(play, 120)
            assert summary.played == 4 and summary.remaining == 0

        asyncio.run(run())
        assert killed, "the worker was never seen playing"
        assert killed[0] not in client.scheduler_info()["workers"]  # the restart has another address
        _each_scheduled_match_recorded_once(store, tid, 4)
