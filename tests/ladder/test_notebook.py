"""ladder.notebook: ``play`` seats objects, classes, sample bots' names, module specs and addresses and plays
them through the referee, synchronously, inside a running event loop too; a record and a ladder draw
themselves as HTML with every bot's text escaped, the record with the site's replay viewer inline."""

from __future__ import annotations

import asyncio
import html
import json
import re
import socket
import threading
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path

import pytest

from clients.bots import make_bot
from clients.sdk import Bot, View, start_in_thread
from ladder.bots.inprocess import BotModuleError, SdkSeat
from ladder.export import match_to_json
from ladder.notebook import leaderboard, play, record_html
from ladder.ratings.leaderboard import to_html
from ladder.site.render import replay_steps
from ladder.store import Store
from referee.match import play_match
from referee.record import MatchRecord, MatchStatus, show_html_with
from referee.report import replay_hands
from referee.rules import Card, Rules
from referee.seats import SeatUnreachable

FAST = "standard,target=30"  # short matches: these tests are about the API, not the game
XSS = "<img src=x onerror=alert(1)>"


class Mine(Bot):
    """Passes its highest cards and plays its highest legal card: unlike every sample bot."""

    name = "mine"

    def pass_cards(self, view: View) -> Sequence[Card]:
        return sorted(view.hand, key=lambda c: (c.rank, c.suit))[-view.rules.pass_count :]

    def play_card(self, view: View) -> Card:
        return max(view.legal, key=lambda c: (c.rank, c.suit))


class Hostile(Mine):
    name = XSS


class Plain:
    """A bot that is no SDK Bot: any object with the two methods is one."""

    def pass_cards(self, view: View) -> list[Card]:
        return sorted(view.hand, key=lambda c: (c.rank, c.suit))[: view.rules.pass_count]

    def play_card(self, view: View) -> Card:
        return min(view.legal, key=lambda c: (c.rank, c.suit))


class Raiser(Mine):
    """Raises with markup in its message on every play of its first hand's first trick: a fault's text is its."""

    name = "raiser"

    def play_card(self, view: View) -> Card:
        if view.hand_number == 0 and not view.tricks:
            raise RuntimeError(XSS)
        return super().play_card(view)


# -- play ---------------------------------------------------------------------------------------------


def test_play_seats_an_object_and_sample_bots_by_name_and_returns_the_record() -> None:
    record = play([Mine(), "random", "heuristic", "lowest"], rules="spot", seed=7)
    assert isinstance(record, MatchRecord)
    assert record.bots == ["mine", "random", "heuristic", "lowest"]
    assert record.seed == 7 and Rules.from_dict(record.rules) == Rules.parse("spot")
    assert record.status is MatchStatus.FINISHED and not record.faults and record.hands
    assert sorted(s.place for s in record.seats)[0] == 1
    assert [str(s.isolation) for s in record.seats] == ["in-process"] * 4
    # The seed deals and seeds the random bot: the same seed, the same match; another, another.
    again = play([Mine(), "random", "heuristic", "lowest"], rules="spot", seed=7)
    assert again.decisions() == record.decisions() and again.match_id != record.match_id
    assert play([Mine(), "random", "heuristic", "lowest"], rules="spot", seed=8).decisions() != record.decisions()


def test_play_is_the_referees_match() -> None:
    """The same bots seated by hand on play_match make the same match: play adds nothing of its own."""
    bots = [Mine(), make_bot("lowest"), make_bot("heuristic"), Plain()]
    by_hand = asyncio.run(play_match([SdkSeat(b) for b in bots], Rules.parse(FAST), 11, names=["a", "b", "c", "d"]))
    record = play([Mine(), "lowest", "heuristic", Plain()], FAST, 11, names=["a", "b", "c", "d"])
    assert record.decisions() == by_hand.decisions()


def test_play_takes_names_classes_and_module_specs() -> None:
    record = play(
        [Mine, "clients.bots.lowest:LowestBot", Plain(), "heuristic"], rules=FAST, seed=3, names=["m", "l", "p", "h"]
    )
    assert record.bots == ["m", "l", "p", "h"]
    # Without names: a sample bot's name, an object's handshake name (Bot.name, else its class's).
    record = play([Mine, "clients.bots.lowest:LowestBot", Plain(), "heuristic"], rules=FAST, seed=3)
    assert record.bots == ["mine", "lowest", "Plain", "heuristic"]


def test_play_says_what_is_wrong_with_a_seat() -> None:
    with pytest.raises(ValueError, match=r"need 4 seats, not 3"):
        play([Mine(), "random", "lowest"])
    with pytest.raises(ValueError, match=r"3 names for 4 seats"):
        play([Mine(), "random", "lowest", "heuristic"], names=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"seat 1: 'randon' names no bot.*random, lowest, heuristic, montecarlo"):
        play([Mine(), "randon", "lowest", "heuristic"])
    with pytest.raises(BotModuleError, match=r"no module named 'no_such_module'"):
        play([Mine(), "no_such_module:Bot", "lowest", "heuristic"])
    with pytest.raises(TypeError, match=r"seat 3: object is not a bot"):
        play([Mine(), "random", "lowest", object()])


def test_play_inside_a_running_event_loop_plays_in_a_worker_thread() -> None:
    """Jupyter runs each cell in a running loop: asyncio.run cannot run there, play can."""
    where: list[str] = []

    class Where(Mine):
        def play_card(self, view: View) -> Card:
            where.append(threading.current_thread().name)
            return super().play_card(view)

    outside = play([Where(), "lowest", "heuristic", "random"], rules=FAST, seed=5)
    assert set(where) == {threading.current_thread().name}
    where.clear()

    async def cell() -> MatchRecord:
        asyncio.get_running_loop()  # as in a notebook's cell
        return play([Where(), "lowest", "heuristic", "random"], rules=FAST, seed=5)

    inside = asyncio.run(cell())
    assert inside.decisions() == outside.decisions()
    assert where and all(name.startswith("hearts-play") for name in where)


def test_play_reaches_a_served_bot_and_says_when_one_is_not_there() -> None:
    server = start_in_thread(make_bot("lowest"))
    try:
        record = play([server.address, "random", Mine(), "heuristic"], rules=FAST, seed=2)
    finally:
        server.stop()
    assert record.bots[0] == "lowest"  # its handshake's name
    assert record.seats[0].address == server.address and not record.faults
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(SeatUnreachable, match=rf"cannot reach bot '127.0.0.1:{port}'"):
        play([f"127.0.0.1:{port}", "random", Mine(), "heuristic"], rules=FAST, seed=2)


def test_play_saves_the_record_to_a_store_when_given_one(tmp_path: Path) -> None:
    db = tmp_path / "nb.db"
    records = [play([Mine(), "random", "heuristic", "lowest"], rules=FAST, seed=s, db=db) for s in (1, 2)]
    with Store(db, readonly=True) as store:
        assert store.load_match(records[0].match_id).decisions() == records[0].decisions()
    # The ladder of the records is the ladder of the store: the same matches, rated alike.
    from_records, from_store = leaderboard(records), leaderboard(db)
    assert [(r.bot, r.games, round(r.elo, 6), r.score_pct) for r in from_records.rows] == [
        (r.bot, r.games, round(r.elo, 6), r.score_pct) for r in from_store.rows
    ]
    assert from_records.rules == from_store.rules == "standard,target=30"


def test_a_ladder_rates_one_ruleset() -> None:
    seats = [Mine(), "random", "heuristic", "lowest"]
    records = [play(seats, rules=FAST, seed=1), play(seats, rules="spot,target=50", seed=1)]
    with pytest.raises(ValueError, match=r"2 rulesets.*give rules="):
        leaderboard(records)
    assert leaderboard(records, rules="spot,target=50").matches == 1


# -- the HTML -----------------------------------------------------------------------------------------


class _Srcdoc(HTMLParser):
    """The srcdoc of each iframe, as the browser reads it (attribute values unescaped once)."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "iframe":
            self.frames.append(dict(attrs))


def _frames(page: str) -> list[dict[str, str | None]]:
    parser = _Srcdoc()
    parser.feed(page)
    return parser.frames


def test_a_record_draws_its_table_and_the_replay_viewer_with_every_bots_text_escaped() -> None:
    record = play([Hostile(), "random", Raiser(), "lowest"], rules=FAST, seed=4)
    assert record.bots[0] == XSS and any(XSS in f.detail for f in record.faults)
    page = record._repr_html_()
    assert page is not None and page == record_html(record)
    assert XSS not in page and html.escape(XSS) in page
    rows = re.findall(r'<tr class="[^"]*" data-seat="(\d)">(.*?)</tr>', page)
    assert [int(seat) for seat, _ in rows] == [0, 1, 2, 3]
    for (_, row), s in zip(rows, record.seats):
        assert f"<td>{s.final_score}</td><td>{s.place}</td><td>{s.faults}</td>" in row
    assert "fault" in page and "error_status" in page
    (frame,) = _frames(page)
    assert frame["sandbox"] == "allow-scripts"  # its script runs, apart from the notebook's page
    inner = frame["srcdoc"]
    assert inner is not None and inner.startswith("<!doctype html>")
    assert XSS not in inner and html.escape(XSS) in inner
    # No network: nothing loaded from anywhere, no link out of the frame.
    assert not re.search(r"<(link|img|iframe)\b|\ssrc\s*=\s*[\"']|href=\"(?!\?)", inner), "the viewer loads nothing"
    # The viewer's steps are the site's, from the engine's replay of the record.
    data = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', inner, re.S)
    assert data is not None and "<img" not in data.group(1)
    steps = replay_steps(match_to_json(record), list(replay_hands(record)))
    assert json.loads(data.group(1)) == {"steps": steps, "names": record.bots}
    assert 'id="replay"' in inner and 'document.getElementById("replay-data")' in inner


def test_a_record_draws_no_html_until_a_view_is_registered() -> None:
    """The referee draws no HTML: ladder.notebook registers its view when imported."""
    record = play([Mine(), "random", "heuristic", "lowest"], rules=FAST, seed=1)
    show_html_with(None)
    try:
        assert record._repr_html_() is None  # Jupyter then shows the text
    finally:
        show_html_with(record_html)
    assert record._repr_html_() == record_html(record)
    assert "<iframe" not in record_html(record, replay=False)


def test_a_records_text_in_ipython_is_one_line() -> None:
    pretty = pytest.importorskip("IPython.lib.pretty").pretty  # IPython comes with ipykernel, in the test extra

    record = play([Hostile(), "random", "heuristic", "lowest"], rules=FAST, seed=1)
    text = pretty(record)
    assert "\n" not in text and text.startswith(f"<MatchRecord {record.match_id} seed 1, ")
    assert repr(XSS) in text and f"'lowest' {record.seats[3].final_score}" in text


def test_a_ladder_draws_its_table_with_the_names_escaped() -> None:
    seats = [Hostile(), "random", "heuristic", "lowest"]
    lb = leaderboard(play(seats[k:] + seats[:k], rules=FAST, seed=9) for k in range(4))
    page = lb._repr_html_()
    assert page == to_html(lb)
    assert XSS not in page and html.escape(XSS, quote=True) in page
    bots = [html.unescape(b) for b in re.findall(r'<tr data-bot="([^"]*)">', page)]
    assert bots == [r.bot for r in lb.rows] and len(bots) == 4
    assert "4 matches, rules standard,target=30" in page
    assert lb.rows[0].rank == 1 and f"{lb.rows[0].elo:.0f}" in page
