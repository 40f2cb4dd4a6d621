"""Tournaments on a Dask LocalCluster of two worker processes, real subprocess bots on each: the
records equal the local path's, per-bot limits hold across the cluster, a worker that cannot start
a bot is reported and left out, and the errors name what to fix."""

from __future__ import annotations

import asyncio
import os
import socket
import time
from pathlib import Path

import pytest
from cluster_helpers import deterministic_bots
from distributed import Client, LocalCluster

from ladder.bots.registry import BotEntry
from ladder.sandbox import SandboxMode
from ladder.store import Store
from ladder.tournament.run import RunSummary, TournamentSpec, create_tournament, get_tournament, play_tournament
from ladder.venues.cluster import ClusterUnavailable, venue
from ladder.venues.cluster.bots import TournamentBots
from ladder.venues.cluster.client import NoWorkerCanPlay, SchedulerAddressError, SchedulerUnreachable, check_address
from ladder.venues.venue import VenueBots
from referee.match import MatchSettings

pytestmark = pytest.mark.slow  # whole processes and servers

RULES = "standard,target=30"  # short matches: the tests are about where they are played
HERE = Path(__file__).resolve().parent


def _tournament(db: Path, bots: list[BotEntry], deals: int = 2, seed: int = 11) -> tuple[Store, int]:
    store = Store(db)
    return store, create_tournament(store, bots, TournamentSpec(rules=RULES, deals=deals, seed=seed))


def _decisions(store: Store, tid: int) -> dict[str, dict[str, object]]:
    return {m: store.load_match(m).decisions() for m in store.match_ids(tournament_id=tid)}


def test_the_cluster_records_the_same_matches_as_this_process(dask_cluster: LocalCluster, tmp_path: Path) -> None:
    here, tid = _tournament(tmp_path / "here.db", deterministic_bots(), deals=1)
    asyncio.run(play_tournament(here, tid, concurrency=2, log_dir=tmp_path / "logs-here"))
    there, tid2 = _tournament(tmp_path / "there.db", deterministic_bots(), deals=1)
    summary = asyncio.run(
        play_tournament(
            there, tid2, concurrency=2, log_dir=tmp_path / "logs", venue=venue(dask_cluster.scheduler_address)
        )
    )
    assert summary.played == 4 and summary.remaining == 0 and summary.faults == 0
    assert get_tournament(there, tid2).status == "finished"
    mine, theirs = _decisions(here, tid), _decisions(there, tid2)
    assert len(mine) == 4 and mine == theirs  # same seeds, same plays: only where they were played differs
    # Each seat's isolation as the worker's own launcher ran the bot: started by command, no sandbox.
    assert all(str(s.isolation) == "none:peer-checked" for m in there.match_ids() for s in there.load_match(m).seats)
    # Each worker started its own copy of every bot, its log under logs/cluster/HOST-WORKER/.
    logs = sorted(p.parent.name for p in (tmp_path / "logs" / "cluster").glob("*/lowest.log"))
    assert len(logs) == 2, logs
    # The bots were stopped when the run ended (the plugin's teardown).
    names = {n for n in dask_cluster.workers}
    assert len(names) == 2


def test_a_bots_own_clock_goes_with_it_to_every_worker(dask_cluster: LocalCluster, tmp_path: Path) -> None:
    """A bot's own time control reaches its seat on the workers: the sleepy bot (20 ms a decision) under
    its own 5 ms clock times out until it forfeits; the same program under another name, on the run's
    clock, never does; every record says each seat's clock."""
    from referee.match import TimeControl
    from referee.record import FaultKind

    sleepy = f"python {HERE.parents[1] / 'bots' / 'sleepy.py'} --port {{port}}"
    bots = [
        BotEntry("hasty", command=sleepy, time_control=TimeControl(budget_ms=5, bank_ms=0, grace_ms=0)),
        BotEntry("calm", command=sleepy),
        *deterministic_bots()[:2],
    ]
    store, tid = _tournament(tmp_path / "there.db", bots, deals=1)
    summary = asyncio.run(
        play_tournament(
            store, tid, concurrency=2, log_dir=tmp_path / "logs", venue=venue(dask_cluster.scheduler_address)
        )
    )
    assert summary.played == 4 and summary.bot_faults == {"hasty": {"timeout": 12}}
    for m in store.match_ids(tournament_id=tid):
        record = store.load_match(m)
        hasty = next(s for s in record.seats if s.bot == "hasty")
        assert {f.seat for f in record.faults} == {hasty.seat} and hasty.forfeit
        assert all(f.kind is FaultKind.TIMEOUT for f in record.faults)
        assert {s.bot: (s.budget_ms, s.bank_ms, s.grace_ms) for s in record.seats} == {
            "hasty": (5.0, 0.0, 0.0),
            **{b: (1000.0, 10_000.0, 50.0) for b in ("calm", "lowest", "heuristic")},
        }


def test_a_bots_limit_holds_across_the_workers(dask_cluster: LocalCluster, tmp_path: Path) -> None:
    bots = deterministic_bots()
    bots[0] = BotEntry("lowest", command=bots[0].command, max_concurrency=1)
    store, tid = _tournament(tmp_path / "t.db", bots, deals=1)  # four matches, all four asked for at once
    summary = asyncio.run(
        play_tournament(
            store, tid, concurrency=4, log_dir=tmp_path / "logs", venue=venue(dask_cluster.scheduler_address)
        )
    )
    assert summary.played == 4 and summary.limits["lowest"] == 1
    assert summary.max_in_flight["lowest"] == 1  # two workers, one slot each: never two of its matches at once
    spans = sorted(
        (r.started_at, r.finished_at or "") for r in map(store.load_match, store.match_ids(tournament_id=tid))
    )
    for (_s1, end), (start, _e2) in zip(spans, spans[1:]):
        assert end <= start  # every match sits "lowest", which played one at a time


def test_a_bot_that_cannot_start_on_one_worker_is_reported_and_the_others_play(
    dask_cluster: LocalCluster, tmp_path: Path
) -> None:
    lock = tmp_path / "one.lock"
    bots = deterministic_bots()
    bots[0] = BotEntry("lowest", command=f"python {HERE / 'one_copy_bot.py'} --port {{port}} --lock {lock}")
    store, tid = _tournament(tmp_path / "t.db", bots, deals=1)
    v = venue(dask_cluster.scheduler_address)
    heard: list[tuple[str, int]] = []  # each event as it happened, with the matches recorded by then
    v.on_event = lambda e: heard.append((e, store.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]))
    summary = asyncio.run(play_tournament(store, tid, concurrency=2, log_dir=tmp_path / "logs", venue=v))
    assert summary.played == 4 and summary.remaining == 0
    said = "\n".join(summary.events)
    failed = [e for e in summary.events if "plays no match" in e]
    assert len(failed) == 1, said
    assert [(e, n) for e, n in heard if e == failed[0]] == [(failed[0], 0)]  # told before any match was played
    assert any(a in failed[0] for a in dask_cluster.scheduler_info["workers"]), failed[0]  # the worker's address
    assert "bot 'lowest' failed to start" in failed[0] and "another copy of this bot holds" in failed[0]  # the log tail


def test_workers_without_the_bots_never_take_a_match_from_the_one_that_has_them(
    dask_cluster: LocalCluster, tmp_path: Path
) -> None:
    # One worker of the two can start the bots; the other sits idle. Dask's work stealing moves a
    # task queued on a busy worker to an idle one when its worker restriction is loose: every such
    # match came back BotsNotHere, and the fifth stopped the run ("found no worker ... after 5 tries").
    # Eight in flight on a worker that plays one at a time keep seven queued there, what stealing
    # takes from; the idle worker's own task count shows any match sent to it, stopped run or not.
    lock = tmp_path / "one.lock"
    bots = deterministic_bots()
    bots[0] = BotEntry("lowest", command=f"python {HERE / 'one_copy_bot.py'} --port {{port}} --lock {lock}")
    store, tid = _tournament(tmp_path / "t.db", bots, deals=3)
    with Client(dask_cluster) as client:
        before = client.run(lambda dask_worker: dask_worker.state.executed_count)
        v = venue(dask_cluster.scheduler_address)
        summary = asyncio.run(play_tournament(store, tid, concurrency=8, log_dir=tmp_path / "logs", venue=v))
        after = client.run(lambda dask_worker: dask_worker.state.executed_count)
    assert summary.played == 12 and summary.remaining == 0 and summary.faults == 0
    assert len([e for e in summary.events if "plays no match" in e]) == 1, summary.events
    idle = [a for a in after if any(e.startswith(f"worker {a} plays no match:") for e in summary.events)]
    assert len(idle) == 1 and all(after[a] == before[a] for a in idle), (before, after, summary.events)


def test_no_worker_that_can_start_the_bots_stops_the_run_with_each_ones_reason(
    dask_cluster: LocalCluster, tmp_path: Path
) -> None:
    bots = deterministic_bots()
    bots[0] = BotEntry("lowest", command="python /nonexistent/hearts-bot.py --port {port}")
    store, tid = _tournament(tmp_path / "t.db", bots, deals=1)
    with pytest.raises(NoWorkerCanPlay) as e:
        asyncio.run(
            play_tournament(
                store, tid, log_dir=tmp_path / "logs", startup_timeout=5, venue=venue(dask_cluster.scheduler_address)
            )
        )
    message = str(e.value)
    for address in dask_cluster.scheduler_info["workers"]:
        assert f"worker {address}: bot 'lowest' failed to start" in message
    assert "hearts-bot.py" in message  # python's own complaint, from the log's tail
    info = get_tournament(store, tid)
    assert info.done == 0 and info.status == "interrupted"  # nothing lost: a resume plays it all


def test_a_file_the_command_names_must_be_on_every_worker(tmp_path: Path) -> None:
    """The check each worker makes before starting anything (here without a cluster: the plugin's own code)."""
    bots = VenueBots(
        1,
        {"b": BotEntry("b", command="bin/bot --port {port}")},
        MatchSettings(),
        SandboxMode.OFF,
        5.0,
        tmp_path,
        tmp_path,
    )
    plugin = TournamentBots(bots, {"b": [str(tmp_path / "bin" / "bot")]})

    class Worker:
        address, name = "tcp://10.0.0.7:4000", "w7"

    asyncio.run(plugin.setup(Worker()))
    assert plugin.error is not None and f"{tmp_path / 'bin' / 'bot'} missing here" in plugin.error
    assert "same paths" in plugin.error


def test_an_unreachable_scheduler_is_named_quickly() -> None:
    t0 = time.monotonic()
    v = venue("tcp://127.0.0.1:9", connect_timeout=1.0)
    bots = VenueBots(1, {}, MatchSettings(), SandboxMode.OFF, 5.0, Path("."), Path("."))
    with pytest.raises(SchedulerUnreachable, match=r"tcp://127\.0\.0\.1:9.*dask scheduler"):
        asyncio.run(v.open(bots))
    assert time.monotonic() - t0 < 10


def test_a_port_that_accepts_but_is_no_scheduler_is_named_quickly() -> None:
    # The dashboard's port (8787), say: the connection is made, Dask's handshake never answered.
    with socket.create_server(("127.0.0.1", 0)) as server:
        address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
        v = venue(address, connect_timeout=1.0)
        bots = VenueBots(1, {}, MatchSettings(), SandboxMode.OFF, 5.0, Path("."), Path("."))
        t0 = time.monotonic()
        with pytest.raises(
            SchedulerUnreachable, match=r"no Dask scheduler answered at tcp://127\.0\.0\.1:\d+ within 1 s\."
        ):
            asyncio.run(v.open(bots))
        assert time.monotonic() - t0 < 10


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("", "missing port number"),
        ("lab-01", "missing port number"),
        ("tcp://127.0.0.1:8786/", "invalid literal"),
        ("http://127.0.0.1:8786", "scheme http://"),
        ("ucx://127.0.0.1:8786", "scheme ucx://"),
    ],
)
def test_an_address_that_is_none_is_named_with_the_form_expected(address: str, said: str) -> None:
    with pytest.raises(SchedulerAddressError, match="tcp://HOST:PORT") as e:
        venue(address)
    assert said in str(e.value)


def test_a_tls_address_without_dasks_tls_settings_says_which_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("CA_FILE", "CLIENT__CERT", "CLIENT__KEY"):
        monkeypatch.delenv(f"DASK_DISTRIBUTED__COMM__TLS__{key}", raising=False)
    with pytest.raises(SchedulerAddressError, match="DASK_DISTRIBUTED__COMM__TLS__CA_FILE"):
        venue("tls://127.0.0.1:8786")
    assert check_address("tcp://127.0.0.1:8786") == "tcp://127.0.0.1:8786"
    assert check_address("127.0.0.1:8786") == "127.0.0.1:8786"  # Dask's default scheme, tcp


def test_without_dask_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "distributed", None)
    with pytest.raises(ClusterUnavailable, match=r"hearts-arena\[cluster\]"):
        venue("tcp://127.0.0.1:8786")


def test_pids_differ_per_worker(dask_cluster: LocalCluster) -> None:
    """The workers are processes of their own (processes=True): a kill takes one, not the tests'."""
    with Client(dask_cluster) as client:
        pids = client.run(os.getpid)
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()


def _can_sandbox() -> str | None:
    from ladder.sandbox import SandboxUnavailable, probe

    try:
        probe()
    except SandboxUnavailable as e:
        return str(e)
    return None


@pytest.mark.needs_bwrap
@pytest.mark.skipif(_can_sandbox() is not None, reason=f"no sandbox here: {_can_sandbox()}")
def test_each_worker_runs_its_bots_in_the_sandbox_when_asked(dask_cluster: LocalCluster, tmp_path: Path) -> None:
    store, tid = _tournament(tmp_path / "t.db", deterministic_bots(), deals=1)
    summary = asyncio.run(
        play_tournament(
            store, tid, log_dir=tmp_path / "logs", sandbox="on", venue=venue(dask_cluster.scheduler_address)
        )
    )
    assert summary.played == 4 and summary.faults == 0 and summary.sandbox == "sandboxed (bubblewrap)"
    logs = list((tmp_path / "logs" / "cluster").glob("*/lowest.log"))
    assert len(logs) == 2
    for log in logs:
        assert "start 1 of lowest (sandboxed (bubblewrap))" in log.read_text()
    seats = [s for m in store.match_ids() for s in store.load_match(m).seats]
    assert len(seats) == 16 and all(s.isolation is not None and s.isolation.kind == "sandbox" for s in seats)
    assert all({"mount-ns", "pid-ns", "net-ns"} <= set(s.isolation.features) for s in seats if s.isolation)


def test_two_databases_tournament_1_share_a_cluster_without_stopping_each_others_bots(
    dask_cluster: LocalCluster, tmp_path: Path
) -> None:
    stores = [_tournament(tmp_path / f"{x}.db", deterministic_bots(), deals=1) for x in "ab"]
    assert [tid for _, tid in stores] == [1, 1]

    async def both() -> list[RunSummary]:
        return await asyncio.gather(
            *(
                play_tournament(store, tid, log_dir=tmp_path / f"logs-{i}", venue=venue(dask_cluster.scheduler_address))
                for i, (store, tid) in enumerate(stores)
            )
        )

    for summary in asyncio.run(both()):
        assert summary.played == 4 and summary.faults == 0 and summary.forfeits == 0
    # A bot that faulted is reported with where its logs are: one folder per worker.
    assert str(summary.logs["lowest"]).endswith("logs-1/cluster/*/lowest.log")
