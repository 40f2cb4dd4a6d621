"""The arena's ``[ladder] cluster`` key: the continuous ladder's matches played on a Dask cluster."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from ladder.arena.config import TEMPLATE, ArenaConfigError, parse_config

pytestmark = pytest.mark.slow  # whole processes and servers


def test_the_cluster_key_names_a_scheduler_and_is_unset_by_default() -> None:
    assert parse_config({}).cluster is None
    assert parse_config({"ladder": {"cluster": ""}}).cluster is None
    assert parse_config({"ladder": {"cluster": "tcp://10.0.0.2:8786"}}).cluster == "tcp://10.0.0.2:8786"
    with pytest.raises(ArenaConfigError, match=r"\[ladder\] cluster: expected str"):
        parse_config({"ladder": {"cluster": 8786}})
    assert '# cluster = "tcp://' in TEMPLATE  # shown, commented out, in a new arena's file


def test_the_arena_plays_its_ladder_on_the_cluster(dask_cluster: LocalCluster, tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "arena"))
    from arena_helpers import make_arena

    a = make_arena(tmp_path)
    toml = (a.dir / "arena.toml").read_text()
    (a.dir / "arena.toml").write_text(
        toml.replace("[ladder]\n", f'[ladder]\ncluster = "{dask_cluster.scheduler_address}"\n', 1)
    )
    try:
        a.serve()
        status = a.wait_for(a.organiser, lambda s: s["matches"] >= 4, timeout=120)
        assert status["bots"] == 4
    finally:
        a.stop()
    # Played by the workers' own copies of the house bots, their logs in the arena's logs folder.
    assert len(list((a.dir / "logs" / "cluster").glob("*/lowest.v1.log"))) == 2
    # Stopping the arena stopped the batch's bots on the workers (its plugin unregistered): they
    # would run on there until the workers restart.
    with Client(dask_cluster) as client:
        left = client.run(lambda dask_worker: sorted(p for p in dask_worker.plugins if p.startswith("hearts-bots")))
    assert all(not plugins for plugins in left.values()), left
