"""The site's drawing without a browser: the replay's steps against real match records (played by
in-process bots, replayed by the engine), the templates' escaping, the plots."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from cheat import Cheat

from clients.bots import make_bot
from ladder.export import match_to_json
from ladder.site.render import card, env, points_svg, rating_svg, replay_steps, sort_cards
from referee.match import MatchSettings, play_match
from referee.report import ReplayedHand, replay_hands
from referee.rules import Rules
from referee.seats import InProcessSeat

pytestmark = pytest.mark.slow  # whole processes and servers

XSS = "<img src=x onerror=alert(1)>"
NAMES = [XSS, "b.v1", "c.v1", "d.v1"]


def _played(
    rules: str, bots: Sequence[Any], names: Sequence[str], seed: int = 1
) -> tuple[dict[str, Any], list[ReplayedHand]]:
    """A match of ``bots`` in this process: its record in the export format and the engine's replay of it."""
    seats = [InProcessSeat(b, n) for b, n in zip(bots, names)]
    record = asyncio.run(play_match(seats, Rules.parse(rules), seed, settings=MatchSettings(), names=list(names)))
    return match_to_json(record), list(replay_hands(record))


def _match() -> tuple[dict[str, Any], list[ReplayedHand]]:
    """A short match of four seats: seat 0 breaks the rules now and then (faults, substituted plays)."""
    bots = [Cheat(3), make_bot("lowest"), make_bot("heuristic"), make_bot("random", seed=2)]
    return _played("standard,target=20", bots, NAMES)


def test_the_steps_play_every_card_once_and_mark_what_happened() -> None:
    m, replayed = _match()
    steps = replay_steps(m, replayed)
    for h in m["hands"]:
        of_hand = [s for s in steps if s["hand"] == h["hand"] + 1]
        plays = [s for s in of_hand if s["kind"] == "play"]
        kinds = ["deal"] + (["pass"] if h["passes"] else []) + ["play"] * len(plays) + ["score"]
        assert [s["kind"] for s in of_hand] == kinds
        assert of_hand[0]["hands"] == [sort_cards(d) for d in h["deal"]]
        played = Counter(s["card"] for s in plays)
        assert len(played) == 52 and set(played.values()) == {1}, "every card of the pack once"
        for t, first in enumerate(plays[:: len(NAMES)]):
            # A new trick clears the table; the tricks taken so far are the engine's, one a trick.
            assert sum(c is not None for c in first["table"]) == 1 and sum(first["tricks"]) == t
        assert of_hand[-1]["hands"] == [[], [], [], []] and of_hand[-1]["totals"] == list(h["totals"])
        assert of_hand[-1]["tricks"] == list(next(r.taken for r in replayed if r.hand == h["hand"]))
    substituted = {(p["hand"], p["trick"], p["seat"]) for p in m["plays"] if p["substituted"]}
    assert substituted and m["faults"], "the cheat was caught"
    marked = [s for s in steps if s["kind"] == "play" and s["mark"] and "substituted" in s["mark"]]
    assert len(marked) == len(substituted)
    kinds = {f["kind"] for f in m["faults"] if f["trick"] is not None}
    assert all(any(f"fault: {k}" in s["mark"] for s in marked) for k in kinds)


def test_the_steps_count_the_engines_tricks_of_every_hand() -> None:
    """Who took each trick is the engine's word: the score step's tricks are its count, and each play
    step's are those of the tricks completed before it."""
    m, replayed = _match()
    steps = replay_steps(m, replayed)
    for r in replayed:
        plays = [s for s in steps if s["hand"] == r.hand + 1 and s["kind"] == "play"]
        assert [s["tricks"] for s in plays] == [list(p.taken) for p in r.plays]
        won = Counter(t.winner for t in r.tricks)
        assert tuple(won.get(seat, 0) for seat in range(4)) == r.taken


def _render(m: dict[str, Any], replayed: list[ReplayedHand], step: int, arena_name: str = "a") -> str:
    """The match page of ``m`` at ``step`` of its replay."""
    steps = replay_steps(m, replayed)
    return (
        env()
        .get_template("match.html")
        .render(
            m=m,
            names=[s["bot"] for s in m["seats"]],
            steps=steps,
            step=step,
            s=steps[step],
            seat_view=None,
            hands=m["hands"],
            title="t",
            me=type("V", (), {"id": 0, "organiser": False, "name": ""})(),
            csrf="",
            arena_name=arena_name,
            u=lambda p: "/" + p,
            static=lambda p: "/static/" + p,
            static_site=False,
            path="/",
        )
    )


def test_a_boosted_trick_shows_each_seats_first_card_under_its_second() -> None:
    """002 Booster Nines: a nine played on the trick sends it round again, so a seat plays twice into one
    trick. The table keeps the seat's first card (``under``) when its second lands, until the trick ends;
    what lies on the table is, card for card, the engine's trick so far."""
    bots = [make_bot("heuristic"), make_bot("lowest"), make_bot("lowest"), make_bot("heuristic")]
    m, replayed = _played("booster-nines", bots, ["a", "b", "c", "d"], seed=11)
    steps = [s for s in replay_steps(m, replayed) if s["kind"] == "play"]
    engine = [(r, t) for r in replayed for t in r.tricks]
    boosted = [t for _, t in engine if len(t.cards) > 4]
    assert boosted, "the seed deals a boosted trick"
    shown = [s for s in steps if s.get("under")]
    assert shown and all(sum(c is not None for c in s["under"]) >= 1 for s in shown)
    i = 0
    for _, trick in engine:
        for k in range(len(trick.cards)):
            s = steps[i + k]
            on_table = sorted(c for c in s["table"] + (s.get("under") or [None] * 4) if c is not None)
            assert on_table == sorted(str(c) for c in trick.cards[: k + 1]), (s["caption"], on_table)
        i += len(trick.cards)
    assert all("under" not in s for s in replay_steps(*_match()) if s["kind"] == "play"), "only a boosted trick"


def test_templates_escape_bot_text_in_text_attributes_and_json() -> None:
    m, replayed = _match()
    m["faults"][0].update(detail=XSS, received=XSS)  # what a bot sent back is shown as it sent it
    html = _render(m, replayed, 3, arena_name=XSS)
    assert XSS not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "\\u003cimg src=x onerror=alert(1)\\u003e" in html  # the replay's JSON
    assert 'href="/bots/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E"' in html


def test_cards_read_in_text_and_plots_hold_numbers_only() -> None:
    c = card("QS")
    assert (c.rank, c.symbol, c.colour, c.label) == ("Q", "♠", "black", "queen of spades")
    assert card("10H").colour == "red" and card("TD").rank == "10"
    svg = rating_svg([(1, 1500.0), (2, 1520.0), (3, 1490.0)])
    assert svg.startswith("<svg") and "<path" in svg
    assert "<rect" in points_svg({0: 2, 1: 1, 13: 1, 26: 1})
    assert "<title>0 points: 3 hands</title>" in points_svg({-10: 1, 0: 2}) and points_svg({}) == ""
    assert rating_svg([(1, 1500.0)]) == ""


def test_tables_of_three_and_five_are_drawn() -> None:
    for n, where in [(3, "East"), (5, "Northeast")]:
        names = [f"b{i}.v1" for i in range(n)]
        m, replayed = _played(f"standard,players={n},target=20", [make_bot("lowest") for _ in range(n)], names)
        html = _render(m, replayed, 1)
        assert f"table-grid n{n}" in html and where in html
        assert html.count('class="seat-area') == n


class Charger:
    """The lowest bot, charging the first chargeable card it holds (turbo_charging); ``wrong``: the
    2♣, which no rule lets a seat charge."""

    def __init__(self, *, wrong: bool = False) -> None:
        self.bot = make_bot("lowest")
        self.wrong = wrong

    def pass_cards(self, obs: Any) -> Any:
        return self.bot.pass_cards(obs)

    def play_card(self, obs: Any) -> Any:
        return self.bot.play_card(obs)

    def charge_cards(self, obs: Any) -> Any:
        if self.wrong:
            return ["2C"]
        return [c for c in obs.hand if str(c) in ("AH", "QS", "JD", "10C")][:1]


def test_turbo_charged_cards_lie_face_up_until_played() -> None:
    """002 Turbo Hearts: 'They do this by placing the card face up in front of them.' A charge step shows
    each seat's charged cards; each stays shown until its charger plays it; a substituted charge is marked."""
    # Seat 1 charges a card that cannot be charged: the referee stands in for it (a substituted charge).
    m, replayed = _played("turbo,target=20", [Charger(), Charger(wrong=True), Charger(), Charger()], NAMES, seed=3)
    steps = replay_steps(m, replayed)
    charges = m["hands"][0]["charges"]
    charged = [[str(x) for x in c["cards"]] for c in sorted(charges, key=lambda c: c["seat"])]
    assert sum(map(len, charged)) >= 2, "a deal where two seats or more charge"
    at = next(i for i, s in enumerate(steps) if s["kind"] == "charge")
    assert steps[at - 1]["kind"] in ("deal", "pass") and steps[at]["charged"] == charged
    assert "b.v1's charge was substituted" in steps[at]["mark"]
    first_hand = [s for s in steps[at + 1 :] if s["hand"] == 1 and s["kind"] == "play"]
    played: list[set[str]] = [set() for _ in range(4)]
    for s in first_hand:
        played[s["seat"]].add(s["card"])
        left = [[c for c in charged[seat] if c not in played[seat]] for seat in range(4)]
        assert s["charged"] == (left if any(left) else None)
    assert first_hand[-1]["charged"] is None  # nothing charged is left in front of anyone
    html = _render(m, replayed, at, arena_name=XSS)
    assert html.count('<div class="charged">') == sum(1 for c in charged if c) and XSS not in html


def test_a_partnership_match_shows_the_teams_and_their_totals() -> None:
    """002 Partnership Hearts: the match page names the partners (each seat's recorded team), each hand's
    team totals and the team's share of the place; a match without teams shows none, and a bot's name
    in the teams line is escaped like everywhere else."""
    from ladder.site.render import team_totals, teams

    bots = [make_bot("lowest"), make_bot("heuristic"), make_bot("lowest"), make_bot("random", seed=1)]
    m, replayed = _played("partnership-individual,target=30", bots, NAMES)
    assert teams(m) == [[0, 2], [1, 3]] and team_totals(m, [2, 0, 13, 0]) == [15, 0]
    html = _render(m, replayed, 0)
    assert "Partners: &lt;img src=x onerror=alert(1)&gt; &amp; c.v1 (team 0) against b.v1 &amp; d.v1 (team 1)" in html
    final = [s["final_score"] for s in sorted(m["seats"], key=lambda s: s["seat"])]
    assert " : ".join(map(str, team_totals(m, final))) in html and XSS not in html
    for s in m["seats"]:
        assert f"place {s['place']} · team {s['team']}" in html
    plain, plain_replayed = _match()
    html = _render(plain, plain_replayed, 0)
    assert teams(plain) == [] and "Partners:" not in html and "Teams" not in html


def test_the_match_page_shows_each_seats_isolation_as_data() -> None:
    """What guarded each seat's bot, in words, as its text and with what each feature in force
    guarantees; unknown for a seat recorded without it; a text this version cannot read is shown
    as it is, escaped."""
    from referee.isolation import FEATURE_DOCS

    m, replayed = _match()
    for s, iso in zip(m["seats"], ["sandbox:net-ns,pid-ns", None, XSS, "in-process"]):
        s["isolation"] = iso
    html = _render(m, replayed, 0)
    rows = dict(re.findall(r'<tr data-seat="(\d)">(.*?)</tr>', html, re.S))
    assert "sandboxed (net-ns, pid-ns)" in rows["0"] and "<code>sandbox:net-ns,pid-ns</code>" in rows["0"]
    assert f"<code>pid-ns</code>: {FEATURE_DOCS['pid-ns']}" in rows["0"]
    assert "unknown (not recorded)" in rows["1"] and "<code>" not in rows["1"]
    assert XSS not in html and "&lt;img src=x onerror=alert(1)&gt;" in rows["2"]
    assert "in the referee&#39;s process (trusted code)" in rows["3"]


def test_the_match_page_shows_each_seats_clock_and_marks_a_bots_own() -> None:
    """The clock each seat played under, in words; a seat whose clock differs from the one most seats had
    (a bot's own, a handicap) is marked; unknown for a seat recorded without one, or with one that is no
    number (a hostile export is data)."""
    m, replayed = _match()
    for s in m["seats"]:
        s["budget_ms"], s["bank_ms"], s["grace_ms"] = 1000.0, 10_000.0, 50.0
    m["seats"][0]["budget_ms"], m["seats"][0]["bank_ms"] = 100.0, 0.0
    m["seats"][3]["grace_ms"] = XSS
    html = _render(m, replayed, 0)
    rows = dict(re.findall(r'<tr data-seat="(\d)">(.*?)</tr>', html, re.S))
    assert "budget 100 ms, bank 0 ms, grace 50 ms" in rows["0"] and "its own" in rows["0"]
    assert "budget 1000 ms, bank 10000 ms, grace 50 ms" in rows["1"] and "its own" not in rows["1"]
    assert "unknown (not recorded)" in rows["3"] and XSS not in html
    for s in m["seats"]:
        del s["budget_ms"], s["bank_ms"], s["grace_ms"]  # as an export of version 3 has them
    rows = dict(re.findall(r'<tr data-seat="(\d)">(.*?)</tr>', _render(m, replayed, 0), re.S))
    assert all("unknown (not recorded)" in r and "its own" not in r for r in rows.values())


def test_the_finals_standings_and_bracket_show_bot_names_as_text() -> None:
    """A staged final's standings (views.final's data, as /api/final gives it) drawn with a name of
    markup: escaped in the text, the link and the row's attribute, never an element."""
    row = {"bot": XSS, "mine": False, "points": 3.0, "margin": 1.25, "rounds_played": 2, "tables": 1, "byes": 1}
    swiss = {
        "status": "running",
        "swiss": {
            "rounds": 3,
            "rounds_played": 2,
            "round_under_way": 3,
            "standings": [{**row, "rank": 1, "seed": 1}],
            "drawn": [{"round": 3, "complete": False, "tables": [[XSS, "b.v1", "c.v1", "d.v1"]], "byes": [XSS]}],
        },
        "knockout": None,
    }
    seat = {"bot": XSS, "mine": True, "place": 1, "points": 12, "forfeits": 0, "outcome": "on"}
    table = {"table": 1, "state": "decided", "sudden_deaths": 2, "rows": [seat]}
    knockout = {
        "status": "finished",
        "swiss": None,
        "knockout": {
            "advance": 2,
            "round_under_way": None,
            "winner": XSS,
            "placings": [XSS],
            "rounds": [
                {
                    "round": 1,
                    "final": False,
                    "field": [XSS],
                    "byes": [XSS],
                    "advance": 2,
                    "decided": True,
                    "tables": [table],
                }
            ],
        },
    }
    for final, marks in [
        (swiss, ("round 3 of 3 under way", "(1 bye)")),
        (knockout, ("goes on", "after 2 sudden deaths")),
    ]:
        html = env().get_template("final_standings.html").render(final=final, u=lambda p: "/" + p)
        assert XSS not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
        assert 'href="/bots/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E"' in html
        assert all(m in html for m in marks), html
