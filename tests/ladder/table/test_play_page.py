"""hearts play in a real Chromium against the real command: a whole match played by keyboard alone and
checked card by card against the store's record, with every pushed message inspected for another
seat's card; one hand by taps on a 390 x 844 phone; an illegal card refused with the rule the engine
names; a person who closes the tab mid-hand substituted while the match completes."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from play_helpers import (
    HEARTS,
    Table,
    _enum,
    _finish,
    _go_to,
    _hand,
    _page,
    _record,
    _turn,
    _wait,
    check_no_other_seats_card,
)

from referee.record import FaultKind, MatchRecord

pytestmark = pytest.mark.slow  # whole processes and servers

RANK_WORDS = "two|three|four|five|six|seven|eight|nine|ten|jack|queen|king|ace"
LABEL = re.compile(rf"^({RANK_WORDS}) of (clubs|diamonds|spades|hearts)(, cannot be played: .+)?$")


def _tricks_by_hand(record: MatchRecord) -> dict[int, list[list[str]]]:
    n = len(record.seats)
    out: dict[int, list[list[str]]] = {}
    for p in record.plays:
        tricks = out.setdefault(p.hand, [])
        if len(tricks) <= p.trick:
            tricks.append([])
        tricks[p.trick].append(_enum(p.card))
    assert all(len(t) == n for ts in out.values() for t in ts)
    return out


def test_a_whole_match_by_keyboard_alone_against_the_record_and_no_message_carries_another_seats_card(
    table: Any, browser: Any, tmp_path: Path
) -> None:
    """Start with Enter; each pass chosen with ←/→ and Space and sent with Enter; each card chosen with
    ←/→ and played with Space; each next deal with Space. The store's record holds exactly the cards
    the keys chose, the page's trick log is the record's tricks card by card, and no message pushed
    to the page names another seat's card before it was played."""
    rng = random.Random(5)
    t: Table = table("--rules", "standard,target=30", "--seed", "11", "--name", "alice")
    page = _page(browser, viewport={"width": 1200, "height": 900})
    page.goto(t.url + "&pace=0")
    page.keyboard.press("Enter")  # Space or Enter to start
    _wait(page, "document.querySelector('#hand .card') !== null")
    first_card_s = time.monotonic() - t.started
    chosen_passes: list[list[str]] = []
    chosen_plays: list[str] = []
    last, plays, shot = "", 0, False
    while True:
        phase, last = _turn(page, last)
        if phase == "over":
            break
        if phase == "hold":
            page.keyboard.press("Space")  # deal again
            _wait(page, "document.body.dataset.phase !== 'hold'")
            continue
        hand = _hand(page)
        if phase == "pass":
            picks = rng.sample(range(len(hand)), 3)
            for i in picks:
                _go_to(page, i)
                page.keyboard.press("Space")
            assert page.locator("#hand .card[aria-pressed='true']").count() == 3
            chosen_passes.append([hand[i]["card"] for i in picks])
            page.keyboard.press("Enter")
        elif phase == "play":
            legal = [i for i, c in enumerate(hand) if not c["dimmed"]]
            assert legal and all(LABEL.match(c["label"]) for c in hand)  # "queen of spades", for a screen reader
            i = rng.choice(legal)
            _go_to(page, i)
            plays += 1
            if plays >= 6 and not shot and page.locator("#trick .card").count() >= 2:
                shot = True  # a hand in progress, a trick on the felt: docs/play.png
                clip = {"x": 0, "y": 0, "width": 1200, "height": 680}
                page.screenshot(path=str(tmp_path / "play.png"), clip=clip)
                if os.environ.get("HEARTS_PLAY_SCREENSHOT"):
                    page.screenshot(path=os.environ["HEARTS_PLAY_SCREENSHOT"], clip=clip)
            chosen_plays.append(hand[i]["card"])
            page.keyboard.press("Space")
        else:
            raise AssertionError(f"not asked under these rules: {phase}")
    _wait(page, "document.querySelector('.recorded') !== null")
    record = _finish(t, page)
    # The person's seat, recorded like any other: their name, kind human, every card the keys chose.
    seat = record.seats[0]
    assert (seat.bot, seat.kind, seat.faults, seat.forfeit) == ("alice", "human", 0, False)
    assert [[_enum(c) for c in p.cards] for h in record.hands for p in h.passes if p.seat == 0] == chosen_passes
    assert [_enum(p.card) for p in record.plays if p.seat == 0] == chosen_plays
    assert not any(p.substituted for p in record.plays if p.seat == 0)
    # The page showed every trick as the record has it, card by card, and every hand's score.
    shown = page.eval_on_selector_all(
        "#log li[data-kind='trick']", "ls => ls.map(l => [Number(l.dataset.hand), l.dataset.cards.split(' ')])"
    )
    by_hand = _tricks_by_hand(record)
    assert [(h, cards) for h, cards in shown] == [(h, t) for h in sorted(by_hand) for t in by_hand[h]]
    scores = page.eval_on_selector_all("#log li[data-kind='hand']", "ls => ls.map(l => l.dataset.score)")
    assert scores == [" ".join(map(str, h.score)) for h in record.hands]
    # What was pushed: no other seat's card, ever; and how many bytes a decision cost.
    pushed = page.evaluate("window.__pushed")
    assert check_no_other_seats_card(pushed, record) > 50
    asks = [json.loads(m) for m in pushed if json.loads(m)["type"] == "ask"]
    assert len(asks) == len(chosen_passes) + len(chosen_plays)
    total = sum(len(m.encode()) for m in pushed)
    print(f"\nFIGURES first card shown {first_card_s:.2f} s after hearts play started; "
          f"{total} bytes pushed for {len(asks)} decisions: {total / len(asks):.0f} bytes a decision")  # fmt: skip
    # Replayable, exported, never rated.
    replay = subprocess.run([HEARTS, "replay", record.match_id, "--db", str(t.db)], capture_output=True, text=True)
    assert replay.returncode == 0 and "seats: 0 alice (a person), 1 heuristic" in replay.stdout
    export = subprocess.run([HEARTS, "export", "--db", str(t.db)], capture_output=True, text=True)
    assert json.loads(export.stdout)["seats"][0]["kind"] == "human"
    ladder = subprocess.run([HEARTS, "ladder", "--db", str(t.db)], capture_output=True, text=True)
    said = " ".join(ladder.stdout.split())
    assert "no matches to rate" in said and "a person at the table is left out: people are not rated" in said


def test_one_hand_by_taps_on_a_phone(table: Any, browser: Any) -> None:
    """On a 390 x 844 touch screen: tap Start, tap three cards and Pass cards, tap a legal card each
    turn (and Deal again when a tie for lowest deals on). Nothing is wider than the screen, every card
    is a target of at least 44 x 44 CSS pixels, and the record holds the tapped cards."""
    t: Table = table("--rules", "standard,target=1", "--seed", "4", "--name", "pat")
    page = _page(browser, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page.goto(t.url + "&pace=40")  # the cards come to the trick one by one, briefly
    page.tap("#overlay-go")
    tapped_pass: list[str] = []
    tapped_passes: list[list[str]] = []
    tapped: list[str] = []
    last = ""
    while True:
        phase, last = _turn(page, last)
        if phase == "over":
            break
        if phase == "hold":  # a tie for lowest deals on: tap to deal again
            page.tap("#overlay-go")
            continue
        cards = page.locator("#hand .card")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width} px wide on a 390 px screen"
        for i in range(cards.count()):
            box = cards.nth(i).bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44 and box["x"] >= 0 and box["x"] + box["width"] <= 390
        hand = _hand(page)
        if phase == "pass":
            for i in (0, 1, 2):
                cards.nth(i).tap()
                tapped_pass.append(hand[i]["card"])
            tapped_passes.append(tapped_pass)
            tapped_pass = []
            page.tap("#actions button.primary")
        else:
            i = next(i for i, c in enumerate(hand) if not c["dimmed"])
            tapped.append(hand[i]["card"])
            cards.nth(i).tap()
    _wait(page, "document.querySelector('.recorded') !== null")
    record = _finish(t, page)
    assert [[_enum(c) for c in p.cards] for h in record.hands for p in h.passes if p.seat == 0] == tapped_passes
    assert [_enum(p.card) for p in record.plays if p.seat == 0] == tapped
    for name in ("heuristic", "lowest", "random"):  # every seat laid out on the small screen
        box = page.locator(f".seat:has-text('{name}')").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390


def test_an_illegal_card_is_refused_with_the_rule_the_engine_names(table: Any, browser: Any) -> None:
    """Space on a dimmed card asks the referee: it is refused, the status names the rule (the engine's
    refusal, as the pushed request's refusals have it), the decision stays open, and a legal card
    then plays. Nothing of the refused card reaches the record. On a clock (--clock), the page counts it
    down."""
    t: Table = table("--rules", "standard,target=1", "--seed", "4", "--name", "pat", "--clock", "600")
    page = _page(browser, viewport={"width": 1000, "height": 800})
    page.goto(t.url + "&pace=0")
    page.keyboard.press("Space")
    _wait(page, "/^\\d+\\.\\d s$/.test(document.getElementById('clock').textContent)")  # your clock, counting down
    refused: list[tuple[str, str]] = []
    last = ""
    while True:
        phase, last = _turn(page, last)
        if phase == "over":
            break
        if phase == "hold":  # a tie for lowest deals on
            page.keyboard.press("Space")
            continue
        hand = _hand(page)
        if phase == "pass":
            for i in range(3):
                _go_to(page, i)
                page.keyboard.press("Space")
            page.keyboard.press("Enter")
            continue
        dimmed = [i for i, c in enumerate(hand) if c["dimmed"]]
        if dimmed and len(refused) < 3:
            _go_to(page, dimmed[0])
            page.keyboard.press("Space")
            _wait(page, "document.getElementById('status').textContent.includes('cannot be played')")
            status = page.text_content("#status")
            ask = next(json.loads(m) for m in reversed(page.evaluate("window.__pushed")) if '"type":"ask"' in m)
            rule = ask["refusals"][hand[dimmed[0]]["card"]]
            assert rule in status and page.evaluate("document.body.dataset.ask") == last
            assert rule in hand[dimmed[0]]["label"]  # a screen reader hears why too
            refused.append((hand[dimmed[0]]["card"], rule))
        _go_to(page, next(i for i, c in enumerate(hand) if not c["dimmed"]))
        page.keyboard.press("Space")
    record = _finish(t, page)
    assert refused and any(r.startswith(("must follow suit", "2♣ must lead", "hearts are not broken", "no points"))
                           for _, r in refused)  # fmt: skip
    assert not record.faults


def _play_cards(page: Any, n: int, last: str) -> str:
    """Play ``n`` cards by keyboard (passing, and dealing again, as asked), or to the match's end."""
    mine = 0
    while mine < n:
        phase, last = _turn(page, last)
        if phase == "over":
            break
        if phase == "hold":
            page.keyboard.press("Space")
            _wait(page, "document.body.dataset.phase !== 'hold'")
        elif phase == "pass":
            for _ in range(3):
                page.keyboard.press("Space")
                page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
        elif phase == "play":
            page.keyboard.press("Space")
            mine += 1
    return last


def test_a_person_who_closes_the_tab_mid_hand_is_substituted_and_the_match_completes(table: Any, browser: Any) -> None:
    """The tab closes after three plays: every decision from then on is the referee's seeded substitute
    (a timeout fault, "nobody at the table"), the person never forfeits, the deals are not held for
    nobody, and the match is played to its end and recorded."""
    t: Table = table("--rules", "standard,target=30", "--seed", "9", "--name", "sam", "--away", "0")
    page = _page(browser, viewport={"width": 1000, "height": 800})
    page.goto(t.url + "&pace=0")
    page.keyboard.press("Enter")
    last = _play_cards(page, 3, "")
    _wait(page, f"document.body.dataset.ask !== {json.dumps(last)}")  # the third card was taken
    page.context.close()  # the tab (and its browser window) closes mid-hand
    code = t.run.wait(60)
    assert code == 0, t.run.output()
    record = _record(t.db)
    seat = record.seats[0]
    assert seat.kind == "human" and not seat.forfeit and seat.faults > 3
    faults = [f for f in record.faults if f.seat == 0]
    assert faults and all(f.kind is FaultKind.TIMEOUT and "nobody at the table" in f.detail for f in faults)
    played = [p for p in record.plays if p.seat == 0]
    assert [p.substituted for p in played[:3]] == [False] * 3 and all(p.substituted for p in played[3:])
    assert len(record.hands) > 1 and record.hands[-1].totals


def test_a_person_who_closes_the_tab_and_opens_it_again_takes_the_seat_again(table: Any, browser: Any) -> None:
    """The tab closes after two plays and the substitutes play for the person; the same address opened
    again shows the table as it is, and the person plays on:
    the record holds their own cards before, substitutes while away, their own cards again after."""
    # Bots that think 40 ms a decision: the match outlasts the time the tab is closed.
    slow = f"{sys.executable} {Path(__file__).parents[1] / 'bots' / 'synchronous.py'} {{port}} 40"
    seats = [arg for n in range(3) for arg in ("--seat", f"slow{n}={slow}")]
    t: Table = table("--rules", "standard,target=60", "--seed", "9", "--name", "sam", "--away", "0.2", *seats)

    page = _page(browser, viewport={"width": 1000, "height": 800})
    page.goto(t.url + "&pace=0")
    page.keyboard.press("Enter")
    last = _play_cards(page, 2, "")
    _wait(page, f"document.body.dataset.ask !== {json.dumps(last)}")
    page.context.close()
    time.sleep(1.0)  # away: the substitutes play a few of the person's decisions meanwhile
    again = _page(browser, viewport={"width": 1000, "height": 800})
    again.goto(t.url + "&pace=0")
    _play_cards(again, 10_000, "")  # to the match's end
    record = _finish(t, again)
    flags = [p.substituted for p in record.plays if p.seat == 0]
    assert flags[:2] == [False, False], flags
    away = flags.index(True)  # substituted while away...
    assert not all(flags[away:]), flags  # ...and their own cards again once back
    assert record.seats[0].kind == "human" and not record.seats[0].forfeit
