"""Hearts in a notebook: ``play`` one match synchronously, and records and ladders that draw themselves.

    from ladder.notebook import play, leaderboard

    record = play([MyBot(), "random", "heuristic", "lowest"], rules="spot", seed=7)
    record                       # in Jupyter: the results table and the replay viewer
    leaderboard([record, ...])   # the ladder table

``play`` seats bot objects, sample bots by name, ``HOST:PORT`` addresses and ``pkg.mod:Class``
specs, and plays them through the referee (``referee.match.play_match``: the one judge, its clocks,
its record), also where an event loop is already running (Jupyter's). Importing this package makes
every ``MatchRecord`` draw itself as HTML in a notebook (``referee.record.show_html_with``); a
``Leaderboard`` always does (``ladder.ratings.leaderboard.to_html``). docs/notebook.md tells the rest.
"""

from __future__ import annotations

from ladder.notebook.html import record_html
from ladder.notebook.play import SeatSpec, leaderboard, play
from referee.record import show_html_with

__all__ = ["SeatSpec", "leaderboard", "play", "record_html"]

show_html_with(record_html)
