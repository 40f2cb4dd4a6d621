"""A tournament's matches played on a Dask distributed cluster (issue 17; docs/cluster.md).

``DaskVenue`` is a ``ladder.venues.venue.Venue``: ``play_tournament(venue=DaskVenue("tcp://HOST:8786"))``
plays every match on the cluster's workers, each of which starts the tournament's bots itself
(``ladder.venues.cluster.bots``), while this process keeps deciding which match starts when and stays the one
SQLite writer. ``DaskVenue(local_workers=N)`` starts a cluster of N worker processes here.

Dask is an optional extra (``pip install hearts-arena[cluster]``): importing this package needs
nothing of it; ``venue()`` says which extra to install when it is missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ladder.venues.venue import VenueError

if TYPE_CHECKING:
    from ladder.venues.cluster.client import DaskVenue

__all__ = ["ClusterUnavailable", "venue"]


class ClusterUnavailable(VenueError):
    """Dask's distributed scheduler is not installed here: the message names the extra."""


def venue(
    address: str | None = None,
    *,
    local_workers: int | None = None,
    slots_per_worker: int = 1,
    connect_timeout: float = 5.0,
) -> DaskVenue:
    """A venue on the Dask cluster at ``address`` (``tcp://HOST:8786``, ``tls://...``), or on a new
    cluster of ``local_workers`` processes on this machine, each playing ``slots_per_worker``
    matches at once. ``ClusterUnavailable`` when Dask is not installed."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ClusterUnavailable(
            "playing on a Dask cluster needs Dask's distributed scheduler, an optional extra: "
            "pip install 'hearts-arena[cluster]' (or pip install 'dask[distributed]')"
        ) from None
    from ladder.venues.cluster.client import DaskVenue

    return DaskVenue(
        address, local_workers=local_workers, slots_per_worker=slots_per_worker, connect_timeout=connect_timeout
    )
