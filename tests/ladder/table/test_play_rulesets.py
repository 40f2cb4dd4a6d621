"""hearts play under every kind of table the engine plays, in a real Chromium, by keyboard, one
hand each (more when a tie for lowest deals on): 3, 5, 6 and 10 seats, two packs, a kitty taken
into the hand and discarded, turbo charges, partners, the dealer's called pass. Nothing breaks,
every seat is laid out on the table, and each of the person's decisions reaches the record as theirs."""

from __future__ import annotations

import re
from typing import Any

import pytest
from play_helpers import Table, _finish, _hand, _page, _turn

pytestmark = pytest.mark.slow  # whole processes and servers

RULESETS = [
    "standard,players=3,target=1",
    "standard,players=5,target=1",
    "cancellation,target=1",
    "cancellation,players=10,target=1",
    "standard,kitty=first-trick,hand_size=12,kitty_discard=true,target=1",
    "turbo,target=1",
    "partnership,target=1",
    "nasty,target=1",
]


SEED = "3"  # a turbo deal where a heuristic bot charges Q♠


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.mark.parametrize("rules", RULESETS)
def test_one_hand_of_each_kind_of_table(table: Any, browser: Any, rules: str) -> None:
    # Turbo: heuristic bots, whose charges follow from the deal (the random bot's would not), so
    # that which charged cards lie face up at kim's turns is the same every run; a deal where one
    # charges.
    seats = [f"--seat=h{i}=clients.bots.heuristic:HeuristicBot" for i in (1, 2, 3)]
    turbo = rules.startswith("turbo")
    t: Table = table("--rules", rules, "--seed", SEED if turbo else "2", "--name", "kim", *(seats if turbo else ()))
    page = _page(browser, viewport={"width": 1280, "height": 900})
    page.goto(t.url + "&pace=0")
    page.keyboard.press("Enter")
    asked: dict[str, int] = {}
    charged_seen = 0
    last = ""
    while True:
        phase, last = _turn(page, last)
        if phase == "over":
            break
        if phase == "hold":  # a tie for lowest deals on (target 1): Space deals again
            page.keyboard.press("Space")
            continue
        asked[phase] = asked.get(phase, 0) + 1
        players = int(page.evaluate("document.querySelectorAll('.seat').length")) + 1
        felt = page.locator("#table").bounding_box()
        seats = [page.locator(".seat").nth(i).bounding_box() for i in range(players - 1)]
        for box in seats:  # laid out on the felt, none on another
            assert felt["x"] <= box["x"] and box["x"] + box["width"] <= felt["x"] + felt["width"] + 0.5
            assert felt["y"] <= box["y"] and box["y"] + box["height"] <= felt["y"] + felt["height"] + 0.5
        assert not any(_overlap(a, b) for i, a in enumerate(seats) for b in seats[i + 1 :])
        charged_seen = max(charged_seen, page.locator(".seat .charged .card").count())
        if phase in ("pass", "discard"):
            n = int(re.search(r"\((\d+)/(\d+)", page.text_content("#actions button.primary")).group(2))
            for i in range(n):
                page.keyboard.press("Space")
                if i < n - 1:
                    page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
        elif phase == "charge":
            chargeable = [i for i, c in enumerate(_hand(page)) if not c["dimmed"]]
            if chargeable:  # the first card the referee would take alone
                for _ in range(chargeable[0] - next(i for i, c in enumerate(_hand(page)) if c["focused"])):
                    page.keyboard.press("ArrowRight")
                page.keyboard.press("Space")
            page.keyboard.press("Enter")
        elif phase in ("call", "moon"):
            page.keyboard.press("Enter")  # the first choice has the focus: Enter presses it
        elif phase == "play":
            page.keyboard.press("Space")  # the focus starts on a legal card
        else:
            raise AssertionError(f"a phase the page does not know: {phase}")
    record = _finish(t, page)
    assert players == len(record.seats)
    assert record.seats[0].kind == "human" and not [f for f in record.faults if f.seat == 0]
    assert not any(p.substituted for p in record.plays if p.seat == 0) and asked.get("play")
    if rules.startswith("turbo"):
        assert "charge" in asked
        others = sum(len(c.cards) for h in record.hands for c in h.charges if c.seat != 0)
        assert others > 0, "no bot charged a card: the check below would show nothing"
        assert charged_seen == others  # every charged card shown face up by its seat
    if rules.startswith("nasty") and record.hands[0].dealer == 0:
        assert "call" in asked
    if rules.startswith("partnership"):
        assert "partner" in page.text_content(".seat[data-seat='2']")
