"""The fixture of the cluster's tests: one LocalCluster of two worker processes per module
(cluster_helpers.py makes it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from cluster_helpers import local_cluster
from distributed import LocalCluster


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[LocalCluster]:
    """Two worker processes with one match at a time each, for the whole module."""
    cluster = local_cluster()
    yield cluster
    cluster.close()
