"""The real ``hearts`` command with ``--cluster`` and ``--cluster-workers``: a tournament on a
cluster it starts itself, a comparison on a running one, and the errors that name what to fix."""

from __future__ import annotations

import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cluster_helpers import deterministic_bots
from distributed import LocalCluster

from ladder.store import Store
from ladder.tournament.run import get_tournament, list_tournaments

pytestmark = pytest.mark.slow  # whole processes and servers

HEARTS = str(Path(sys.executable).with_name("hearts"))
BOTS_TOML = "".join(f'[bots.{e.name}]\ncommand = "{e.command}"\n' for e in deterministic_bots())


def _hearts(cwd: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([HEARTS, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def test_a_tournament_on_a_cluster_of_local_workers(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(BOTS_TOML)
    db = str(tmp_path / "t.db")
    done = _hearts(
        tmp_path,
        *("tournament", "run", "--bots", "bots.toml", "--rules", "standard,target=30", "--seed", "2"),
        *("--cluster-workers", "2", "--db", db),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "on the Dask cluster of 2 local workers" in done.stdout
    assert "played 4 matches" in done.stdout
    with Store(db) as store:
        assert get_tournament(store, 1).status == "finished"


def test_an_unreachable_scheduler_is_named_and_nothing_is_kept(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(BOTS_TOML)
    db = str(tmp_path / "t.db")
    t0 = time.monotonic()
    done = _hearts(tmp_path, "tournament", "run", "--bots", "bots.toml", "--cluster", "tcp://127.0.0.1:9", "--db", db)
    assert done.returncode == 1
    assert "no Dask scheduler answered at tcp://127.0.0.1:9" in done.stderr and "dask scheduler" in done.stderr
    assert "was not kept" in done.stderr
    assert time.monotonic() - t0 < 30
    with Store(db) as store:
        assert list_tournaments(store) == []


def test_a_typo_in_the_address_is_a_usage_error_and_nothing_is_stored(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(BOTS_TOML)
    db = str(tmp_path / "t.db")
    done = _hearts(tmp_path, "tournament", "run", "--bots", "bots.toml", "--cluster", "tcp://lab-01:8786/", "--db", db)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Invalid value for '--cluster'" in done.stderr and "tcp://HOST:PORT" in done.stderr
    assert "Traceback" not in done.stderr
    assert not Path(db).exists() or list_tournaments(Store(db)) == []


def test_cluster_and_cluster_workers_are_one_or_the_other(tmp_path: Path) -> None:
    done = _hearts(tmp_path, "tournament", "run", "--cluster", "tcp://x:8786", "--cluster-workers", "2")
    assert done.returncode == 2 and "--cluster and --cluster-workers: give one" in done.stderr


def test_a_comparison_on_the_cluster(dask_cluster: LocalCluster, tmp_path: Path) -> None:
    """The field is in-process (module = ...): each worker loads its own copy."""
    done = _hearts(
        tmp_path,
        *("compare", "a=python -m clients.bots.lowest --port {port}", "b=clients.bots.heuristic:HeuristicBot"),
        *("--rules", "standard,target=30", "--max-deals", "1", "--cluster", dask_cluster.scheduler_address),
        *("--db", str(tmp_path / "c.db")),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "inconclusive after 1 deals" in done.stdout and "8 matches" in done.stdout


def test_ctrl_c_on_the_cluster_names_a_resume_on_the_cluster(dask_cluster: LocalCluster, tmp_path: Path) -> None:
    """The hint a Ctrl-C prints plays the rest where the run played, not on this machine."""
    (tmp_path / "bots.toml").write_text(BOTS_TOML)
    address = dask_cluster.scheduler_address
    run = subprocess.Popen(
        [HEARTS, "tournament", "run", "--bots", "bots.toml", "--rules", "standard,target=30", "--deals", "2"]
        + ["--seed", "3", "--concurrency", "1", "--cluster", address, "--db", "t.db"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and run.poll() is None:
        try:
            with sqlite3.connect(tmp_path / "t.db", timeout=5) as c:
                if c.execute("SELECT COUNT(match_id) FROM tournament_matches").fetchone()[0] >= 1:
                    break
        except sqlite3.OperationalError:
            pass  # not created yet
        time.sleep(0.1)
    run.send_signal(signal.SIGINT)
    out, _ = run.communicate(timeout=60)
    assert run.returncode == 128 + signal.SIGINT, out
    hint = f"resume with: hearts tournament resume 1 --cluster {address} --db t.db"
    assert hint in out, out
    done = _hearts(tmp_path, *shlex.split(hint.removeprefix("resume with: hearts ")))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"on the Dask cluster at {address}" in done.stdout
    with Store(tmp_path / "t.db") as store:
        assert get_tournament(store, 1).status == "finished"
