"""The arena's ``[ladder] cluster`` key: the continuous ladder's matches played on a Dask cluster."""

from __future__ import annotations

import pytest

from arena.config import TEMPLATE, ArenaConfigError, parse_config


def test_the_cluster_key_names_a_scheduler_and_is_unset_by_default() -> None:
    assert parse_config({}).cluster is None
    assert parse_config({"ladder": {"cluster": ""}}).cluster is None
    assert parse_config({"ladder": {"cluster": "tcp://10.0.0.2:8786"}}).cluster == "tcp://10.0.0.2:8786"
    with pytest.raises(ArenaConfigError, match=r"\[ladder\] cluster: expected str"):
        parse_config({"ladder": {"cluster": 8786}})
    assert '# cluster = "tcp://' in TEMPLATE  # shown, commented out, in a new arena's file
