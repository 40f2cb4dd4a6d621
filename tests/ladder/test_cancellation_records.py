"""Cancellation Hearts (002: two packs, 6 to 10 players) through the record's whole life: a real 10-seat
match of the sample bots (in-process seats, one of them breaking the rules now and then), saved in a real
SQLite file, read back, exported to JSON and back, replayed as text (``hearts replay``) and for the web,
and rated: a card dealt twice stays listed twice, a trick without a winner is shown as one."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from pathlib import Path

import pytest
from cheat import Cheat
from rich.console import Console

from clients.bots import make_bot
from ladder.export import match_from_json, match_to_json
from ladder.ratings.fit import MatchResult, fit
from ladder.site.render import replay_steps
from ladder.store import Store
from referee.match import MatchSettings, play_match
from referee.record import MatchRecord
from referee.report import _tricks_by_hand, replay, replay_hands, summary
from referee.rules import Card, Match, Rules
from referee.rules.cards import DECK
from referee.seats import InProcessSeat

RULES = "cancellation,players=10,pass_cycle=left-right-hold,target=40"
KINDS = ("lowest", "heuristic", "random", "montecarlo")


def _play(seed: int) -> MatchRecord:
    names = ["cheat"] + [f"{KINDS[i % 4]}-{i}" for i in range(9)]
    seats = [InProcessSeat(Cheat(5), "cheat")] + [
        InProcessSeat(make_bot(KINDS[i % 4], seed=i), names[i + 1]) for i in range(9)
    ]
    return asyncio.run(play_match(seats, Rules.parse(RULES), seed, settings=MatchSettings(), names=names))


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[MatchRecord, MatchRecord]:
    """A match with at least one trick without a winner, saved and loaded back."""
    db: Path = tmp_path_factory.mktemp("cancellation") / "arena.db"
    for seed in range(1, 40):
        record = _play(seed)
        if any(t.winner is None for _, tricks, _ in _tricks_by_hand(record) for t in tricks):
            break
    else:
        raise AssertionError("no match with a winnerless trick in 39 seeds")
    with Store(db) as store:
        mid = store.save_match(record)
        loaded = store.load_match(mid)
    return record, loaded


def _tricks_won(record: MatchRecord) -> list[tuple[int, ...]]:
    """Each hand's tricks taken by seat, as the engine scores the record's decisions."""
    m = Match(Rules.parse(RULES), record.seed)
    plays = iter(record.plays)
    for h in record.hands:
        for p in h.passes:
            m.pass_cards(p.seat, [Card.parse(c) for c in p.cards])
        while not m.over and len(m.results) <= h.hand:
            play = next(plays)
            m.play(Card.parse(play.card), play.seat)
    return [r.tricks_won for r in m.results]


def test_the_record_keeps_both_copies_and_reads_back(saved: tuple[MatchRecord, MatchRecord]) -> None:
    """002: 'This is a version of Hearts for 6 to 10 players using two 52-card packs shuffled together.'"""
    record, loaded = saved
    assert loaded == record and len(record.seats) == 10
    assert sorted(s.place for s in record.seats)[0] == 1 and record.faults  # the cheat's faults, substitutes
    for h in record.hands:
        dealt = Counter(c for d in h.deal for c in d) + Counter(h.kitty)
        assert dealt == Counter({str(c): 2 for c in DECK})  # each card of both packs, once
    assert match_from_json(match_to_json(record)) == record


def test_the_replays_show_a_trick_without_a_winner(saved: tuple[MatchRecord, MatchRecord]) -> None:
    """002: 'If all the cards played of the suit led are in cancelling pairs, the trick remains on the
    table, the same player leads again, and the cards go to the winner of the next trick.'"""
    record, _ = saved
    console = Console(width=400, record=True)
    console.print(replay(record))
    assert "none: on the table" in console.export_text()
    steps = replay_steps(match_to_json(record), list(replay_hands(record)))
    scored = [s for s in steps if s["kind"] == "score"]
    assert len(scored) == len(record.hands)
    for s, won in zip(scored, _tricks_won(record), strict=True):
        # the web replay's tricks taken are the engine's: a winnerless trick counts for its cards' taker
        assert s["tricks"] == list(won)
    for s in steps:  # a hand never shows more cards than it was dealt
        assert all(len(hand) <= 10 for hand in s["hands"])


def test_ratings_rank_ten_seat_tables_with_ties() -> None:
    """Places over 6 to 10 seats (competition ranking, ties shared) feed the ratings: a bot that scores
    less comes out ahead of one that scores more."""
    rng = random.Random(1)
    bots = [f"b{i}" for i in range(12)]
    results = []
    for _ in range(1500):
        n = rng.choice((6, 8, 10))
        table = rng.sample(bots, n)
        results.append(MatchResult.from_scores(table, [int(b[1:]) * 3 + rng.choice((0, 5, 10, 15)) for b in table]))
    assert any(len(set(r.places)) < len(r.places) for r in results)  # ties occur
    ratings = fit(results)
    elo = {r.name: r.elo for r in ratings.bots}
    assert elo["b0"] > elo["b5"] > elo["b11"]


def test_the_text_replay_of_ten_seats_names_each_seat_in_a_terminal_s_width(
    saved: tuple[MatchRecord, MatchRecord],
) -> None:
    """Ten seats narrow the trick table's columns until names are cut ('heuris…', any of several bots):
    its columns, leaders and winners are seat numbers (the header says whose each is), one line a trick;
    the ruleset is named as played ('cancellation,players=10,…', not 'custom')."""
    record, _ = saved
    console = Console(width=120, record=True)
    console.print(replay(record))
    text = console.export_text()
    assert f"rules {Rules.parse(RULES)}  seed" in text and "rules custom" not in text
    rows = [line.split() for line in text.splitlines() if line.split()[:1] and line.split()[0].isdigit()]
    tricks = [r for r in rows if len(r) > 12 and r[2][-1] in "♣♦♠♥*"]  # number, leader, ten cards, winner...
    assert len(tricks) == sum(len(t) for _, t, _ in _tricks_by_hand(record))  # each on one line
    for r in tricks:
        assert r[1].isdigit() and int(r[1]) < 10 and r[12] in [*map(str, range(10)), "none:"], r
    assert any("0 1 2 3 4 5 6 7 8 9 winner points" in " ".join(line.split()) for line in text.splitlines())


def test_the_summary_names_the_ruleset_as_played(saved: tuple[MatchRecord, MatchRecord]) -> None:
    """hearts match's summary of a 10-seat Cancellation match: 'cancellation,players=10,…', not 'custom'."""
    record, _ = saved
    console = Console(width=200, record=True)
    console.print(summary(record))
    text = console.export_text()
    assert f"rules {Rules.parse(RULES)}  seed" in text and "rules custom" not in text


def test_the_web_replay_of_ten_seats_labels_each_card_on_the_table(saved: tuple[MatchRecord, MatchRecord]) -> None:
    """Ten cards on the felt, placed by the page's grid for three to five seats only, said nothing of
    whose each was: at more than five seats each slot carries its seat's label beside its card."""
    import re

    from ladder.site.pages import VISITOR
    from ladder.site.render import env, seat_names

    record, _ = saved
    data = match_to_json(record)
    steps = replay_steps(data, list(replay_hands(record)))
    step = next(i for i, s in enumerate(steps) if s["kind"] == "play" and sum(c is not None for c in s["table"]) > 1)
    html = (
        env()
        .get_template("match.html")
        .render(
            m=data,
            names=seat_names(data),
            steps=steps,
            step=step,
            s=steps[step],
            seat_view=None,
            hands=data["hands"],
            title="t",
            me=VISITOR,
            csrf="",
            arena_name="a",
            u=lambda p: p,
            static=lambda p: p,
            static_site=True,
            path="/",
        )  # fmt: skip
    )
    slots = re.findall(
        r'data-slot="(\d)"><span class="slot-seat">Seat (\d+)</span><span class="slot-card">(.*?)</span></div>', html
    )
    assert [(int(a), int(b)) for a, b, _ in slots] == [(s, s + 1) for s in range(10)]
    assert [bool(card) for *_, card in slots] == [c is not None for c in steps[step]["table"]]
    assert 'class="felt many"' in html
