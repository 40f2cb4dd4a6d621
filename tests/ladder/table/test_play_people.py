"""Two people at one table (``hearts play --people 2``): each person's key is their seat, so one
person's page can neither act for nor see another's. First the table's app itself, in this process,
with two people and two bots mid-match; then the real command in Chromium, two browser contexts (two
people) and two sample bots playing a whole match, checked against the store's record."""

from __future__ import annotations

import asyncio
import json
import random
import re
from typing import Any

import httpx
import pytest
from play_helpers import Table, _enum, _go_to, _hand, _page, _record, _wait, check_no_other_seats_card

from clients.bots.lowest import LowestBot
from ladder.bots.inprocess import SdkSeat
from ladder.table.table import KEY_HEADER, table_app
from ladder.table.table import Table as PeopleTable
from referee.human import HumanSeat
from referee.match import play_match
from referee.rules import Rules
from referee.seats import Seat

PORT = 8123  # the app is called in this process: no socket is opened


async def _first_ask(seat: HumanSeat) -> dict[str, Any]:
    while True:
        for e in await seat.next_events(0):
            if e["type"] == "ask":
                return e
        await asyncio.sleep(0.01)


def _stream(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def test_one_persons_key_neither_answers_for_nor_sees_the_others_seat() -> None:
    """Ann and Bob are both asked to pass. Ann's key posting Bob's very answer (the same decision
    number: each seat counts its own) is judged against Ann's seat and refused, and Bob's decision stays
    open; Bob's key then passes for Bob. Ann's start is Ann's only; a key that is neither is refused.
    And each key's stream is that seat's events alone: Ann's never carries Bob's hand, nor Bob's Ann's."""

    async def go() -> None:
        ann, bob = HumanSeat("ann", away_s=60), HumanSeat("bob", away_s=60)
        table = PeopleTable(ann, bob)
        table.port = PORT
        a_key, b_key = table.keys
        seats: list[Seat] = [ann, bob, SdkSeat(LowestBot(), "low0"), SdkSeat(LowestBot(), "low1")]
        ann.join()
        bob.join()
        transport = httpx.ASGITransport(app=table_app(table))
        async with httpx.AsyncClient(transport=transport, base_url=f"http://127.0.0.1:{PORT}") as c:

            async def post(key: str, path: str, body: Any) -> httpx.Response:
                return await c.post(path, json=body, headers={KEY_HEADER: key})

            assert (await post("neither", "/start", {})).status_code == 403
            assert (await post(a_key, "/start", {})).json() == {"ok": True}
            assert table.started == {0} and not table.start.is_set()  # Ann's start is not Bob's
            assert bob.events[-1] == {"seq": len(bob.events), "type": "awaiting", "people": 2, "started": False,
                                      "others": []}  # fmt: skip
            assert ann.events[-1]["others"] == ["bob"] and ann.events[-1]["started"]
            assert (await post(b_key, "/start", {})).json() == {"ok": True}
            assert table.start.is_set()

            match = asyncio.create_task(
                play_match(seats, Rules.parse("standard,target=1"), 3, names=["ann", "bob", "low0", "low1"])
            )
            try:
                a_ask, b_ask = await asyncio.wait_for(asyncio.gather(_first_ask(ann), _first_ask(bob)), 10)
                assert a_ask["rpc"] == b_ask["rpc"] == "PassCards" and a_ask["id"] == b_ask["id"]
                b_hand = b_ask["request"]["view"]["hand"]
                assert not set(b_hand) & set(a_ask["request"]["view"]["hand"])
                bobs_answer = {"id": b_ask["id"], "answer": {"cards": b_hand[:3]}, "seat": 1}  # no body names a seat
                r = await post(a_key, "/answer", bobs_answer)
                assert r.status_code == 409 and "not in its hand" in r.json()["reason"]
                assert not any(e["type"] == "done" for e in bob.events)  # Bob's decision is still open
                assert not any(e["type"] == "done" for e in ann.events)  # and Ann's, refused, too
                assert (await post(b_key, "/answer", bobs_answer)).json() == {"ok": True}
                await asyncio.sleep(0.05)
                assert [e["how"] for e in bob.events if e["type"] == "done"] == ["answered"]
                assert not any(e["type"] == "done" for e in ann.events)  # Bob's answer was not Ann's
                # Bob's deal is Bob's: Ann's key asks for a deal Ann's seat does not hold.
                assert (await post(a_key, "/deal", {})).json() == {"ok": False}
            finally:
                match.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await match
            table.close()  # each stream ends once it has sent its seat's every event
            a_text = (await c.get(f"/events?key={a_key}")).text
            b_text = (await c.get(f"/events?key={b_key}")).text
        a_events, b_events = _stream(a_text), _stream(b_text)
        assert a_events == ann.events and b_events == bob.events
        assert all(e["request"]["view"].get("seat", 0) == 0 for e in a_events if e["type"] == "ask")
        assert all(e["request"]["view"]["seat"] == 1 for e in b_events if e["type"] == "ask")
        assert not set(b_hand) & set(re.findall(r"CARD_[A-Z]+_OF_[A-Z]+", a_text))
        a_hand = a_ask["request"]["view"]["hand"]
        assert not set(a_hand) & set(re.findall(r"CARD_[A-Z]+_OF_[A-Z]+", b_text))

    asyncio.run(go())


def _act(page: Any, rng: random.Random, by_keys: bool, chosen: dict[str, list[Any]]) -> str:
    """Answer the page's open decision (or deal again): by the keyboard alone, or by clicks. What was
    chosen is kept; returns the page's phase."""
    phase = page.evaluate("document.body.dataset.phase")
    if phase == "hold":
        if by_keys:
            page.keyboard.press("Space")
        else:
            page.click("#overlay-go")
        return phase
    if phase not in ("pass", "play"):
        return phase
    ask = page.evaluate("document.body.dataset.ask")  # before answering: the next ask may come at once
    hand = _hand(page)
    if phase == "pass":
        picks = rng.sample(range(len(hand)), 3)
        for i in picks:
            if by_keys:
                _go_to(page, i)
                page.keyboard.press("Space")
            else:
                page.locator("#hand .card").nth(i).click()
        chosen["passes"].append([hand[i]["card"] for i in picks])
        if by_keys:
            page.keyboard.press("Enter")
        else:
            page.click("#actions button.primary")
    else:
        i = rng.choice([i for i, c in enumerate(hand) if not c["dimmed"]])
        chosen["plays"].append(hand[i]["card"])
        if by_keys:
            _go_to(page, i)
            page.keyboard.press("Space")
        else:
            page.locator("#hand .card").nth(i).click()
    b = "document.body.dataset"
    _wait(page, f"{b}.ask !== {json.dumps(ask)} || {b}.phase !== {json.dumps(phase)}")  # taken
    return phase


@pytest.mark.slow  # a whole process and a browser
def test_two_people_and_two_bots_play_a_match_each_seeing_only_their_own_seat(table: Any, browser: Any) -> None:
    """``--people 2``: two addresses, one a person. Each page says who is still awaited until both have
    pressed start; then Ann plays by the keyboard alone, Bob by clicks, against two sample bots, to the
    end of the match. No message pushed to either page names a card of another seat's hand before it
    was played; the record has both people, kind human, and each person's passes and plays are the
    ones that person chose."""
    t: Table = table(
        "--people", "2", "--name", "ann", "--name", "bob", "--rules", "standard,target=1", "--seed", "7", people=2
    )
    assert len(set(t.urls)) == 2 and "seat 1 bob: " + t.urls[1] in " ".join(t.run.output().split())
    ann = _page(browser, viewport={"width": 1100, "height": 850})
    bob = _page(browser, viewport={"width": 1100, "height": 850})
    ann.goto(t.urls[0] + "&pace=0")
    bob.goto(t.urls[1] + "&pace=0")
    _wait(ann, "document.getElementById('overlay-awaiting').textContent === 'Still awaited: you, bob.'")
    ann.keyboard.press("Enter")
    _wait(ann, "document.getElementById('overlay-hint').textContent === 'Waiting for bob to press start...'")
    _wait(bob, "document.getElementById('overlay-awaiting').textContent.startsWith('Everyone else is ready')")
    assert ann.evaluate("document.querySelector('#hand .card') === null")  # nothing dealt for one of two
    bob.click("#overlay-go")
    rng = random.Random(3)
    chosen: dict[str, dict[str, list[Any]]] = {p: {"passes": [], "plays": []} for p in ("ann", "bob")}
    pages = {"ann": ann, "bob": bob}
    over: set[str] = set()
    while over != {"ann", "bob"}:
        for who, page in pages.items():
            if who not in over and _act(page, rng, who == "ann", chosen[who]) == "over":
                over.add(who)
        ann.wait_for_timeout(20)
    for page in (ann, bob):
        _wait(page, "document.querySelector('.recorded') !== null")
    assert t.run.wait(60) == 0, t.run.output()
    assert not ann.errors and not bob.errors, (ann.errors, bob.errors)
    record = _record(t.db)
    assert [(s.bot, s.kind) for s in record.seats] == [
        ("ann", "human"), ("bob", "human"), ("heuristic", "bot"), ("lowest", "bot")
    ]  # fmt: skip
    for seat, who in enumerate(("ann", "bob")):
        passes = [[_enum(c) for c in p.cards] for h in record.hands for p in h.passes if p.seat == seat]
        assert passes == chosen[who]["passes"] and passes
        plays = [_enum(p.card) for p in record.plays if p.seat == seat]
        assert plays == chosen[who]["plays"] and len(plays) == 13 * len(record.hands)
        assert not any(p.substituted for p in record.plays if p.seat == seat)
        pushed = pages[who].evaluate("window.__pushed")
        assert check_no_other_seats_card(pushed, record, seat=seat) > 20
        asks = [json.loads(m) for m in pushed if '"type":"ask"' in m]
        assert asks and all(a["request"]["view"].get("seat", 0) == seat for a in asks)
    assert not record.faults
