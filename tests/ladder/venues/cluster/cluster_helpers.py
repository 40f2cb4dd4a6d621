"""Helpers of the cluster's tests: a Dask LocalCluster of worker processes on loopback (port 0, no
dashboard), and the deterministic sample bots as commands."""

from __future__ import annotations

import logging

import dask
from distributed import LocalCluster

from ladder.bots.registry import BotEntry
from ladder.venues.cluster.client import LOCAL_WORKERS_CONFIG


def deterministic_bots() -> list[BotEntry]:
    """Four bots started by command whose every decision follows from the deal: a record depends
    only on its seed, whichever machine plays it."""
    return [
        BotEntry(n, command=f"python -m clients.bots.{kind} --port {{port}}")
        for n, kind in (
            ("lowest", "lowest"),
            ("heuristic", "heuristic"),
            ("lowest-2", "lowest"),
            ("heuristic-2", "heuristic"),
        )
    ]


def local_cluster(workers: int = 2) -> LocalCluster:
    with dask.config.set(LOCAL_WORKERS_CONFIG):  # as the venue starts its own
        return LocalCluster(
            n_workers=workers,
            processes=True,
            threads_per_worker=1,
            dashboard_address=None,
            scheduler_port=0,
            silence_logs=logging.ERROR,
        )
