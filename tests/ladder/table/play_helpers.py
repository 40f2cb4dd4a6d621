"""Helpers of hearts play's tests (the fixtures are in conftest.py): the process and its address,
and the page driven in Chromium (waits, the hand, the keys)."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from cli_procs import Run

from hearts.v1 import bot_pb2 as pb
from ladder.store import Store
from referee.record import MatchRecord
from referee.rules import Card

HEARTS = str(Path(sys.executable).with_name("hearts"))


class Table:
    """A ``hearts play`` process and the address of its page (read from its output)."""

    def __init__(self, run: Run, url: str, db: Path, started: float, urls: list[str] | None = None) -> None:
        self.run, self.url, self.db, self.started = run, url, db, started
        self.urls = urls or [url]  # one a person, in seat order

    @property
    def base(self) -> str:
        return self.url.split("/?", 1)[0]

    @property
    def key(self) -> str:
        return self.url.split("key=", 1)[1]


# Every message the page's EventSource receives, kept as it came (the test reads them afterwards).
CAPTURE = """
(() => {
  const Real = window.EventSource;
  window.__pushed = [];
  window.EventSource = function (url, opts) {
    const es = new Real(url, opts);
    es.addEventListener("message", (m) => window.__pushed.push(m.data));
    return es;
  };
  window.EventSource.prototype = Real.prototype;
})();
"""


def _page(browser: Any, **kw: Any) -> Any:
    context = browser.new_context(**kw)
    context.add_init_script(CAPTURE)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("dialog", lambda d: (page.errors.append("dialog: " + d.message), d.dismiss()))
    return page


def _wait(page: Any, test: str, timeout: float = 60) -> None:
    """Poll ``test`` (a JavaScript expression) in the page until it is true: evaluated by the browser
    itself, as the page's policy forbids a script to evaluate text."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(test):
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s: {test}\n{page.text_content('#status')}")
        page.wait_for_timeout(20)


def _turn(page: Any, last: str) -> tuple[str, str]:
    """Wait for the next decision (a new ask), a held deal, or the end: (phase, ask id)."""
    _wait(
        page,
        f"""(() => {{ const b = document.body.dataset;
            return (b.ask && b.ask !== {json.dumps(last)}) || b.phase === "hold" || b.phase === "over"; }})()""",
    )
    return page.evaluate("document.body.dataset.phase"), page.evaluate("document.body.dataset.ask || ''")


def _hand(page: Any) -> list[dict[str, Any]]:
    return page.eval_on_selector_all(
        "#hand .card",
        """cs => cs.map(c => ({card: c.dataset.card, dimmed: c.classList.contains("dimmed"),
            focused: document.activeElement === c, label: c.getAttribute("aria-label")}))""",
    )


def _go_to(page: Any, target: int) -> None:
    """Move the focus to card ``target`` of the hand with the arrow keys alone."""
    hand = _hand(page)
    here = next(i for i, c in enumerate(hand) if c["focused"])
    key = "ArrowRight" if target > here else "ArrowLeft"
    for _ in range(abs(target - here)):
        page.keyboard.press(key)
    assert _hand(page)[target]["focused"]


def _enum(card: str) -> str:
    """A record's card ("QS") as the wire names it (CARD_QUEEN_OF_SPADES)."""
    return pb.Card.Name(Card.parse(card).index + 1)


def _record(db: Path) -> MatchRecord:
    with Store(db, readonly=True) as store:
        (mid,) = list(store.match_ids())
        return store.load_match(mid)


def _finish(t: Table, page: Any) -> MatchRecord:
    code = t.run.wait(60)
    assert code == 0, t.run.output()
    assert not page.errors, page.errors
    return _record(t.db)


def check_no_other_seats_card(pushed: list[str], record: MatchRecord, seat: int = 0) -> int:
    """Every card named in any message pushed to the page is the person's own (dealt to them, or held
    after the pass: what they played that hand) or one already played in public when it was sent;
    returns how many messages were read. Both sets come from the store's record, not the messages."""
    n = len(record.seats)
    plays: dict[int, list[str]] = {}
    for p in record.plays:
        plays.setdefault(p.hand, []).append(_enum(p.card))
    mine = {
        h.hand: {_enum(c) for c in h.deal[seat]}
        | {_enum(p.card) for p in record.plays if p.hand == h.hand and p.seat == seat}
        for h in record.hands
    }
    tricks_done: dict[int, int] = {}
    hand = 0
    for raw in pushed:
        e = json.loads(raw)
        before = 0  # how many of the hand's cards were in public play when the message was sent
        if e["type"] == "ask":
            view = e["request"]["view"]
            hand = view.get("hand_number", 0)
            before = len(view.get("tricks", [])) * n + len(view.get("current_trick", {}).get("cards", []))
        elif e["type"] == "notify" and "trick_completed" in e["notify"]:
            hand = e["notify"]["trick_completed"].get("hand_number", 0)
            tricks_done[hand] = tricks_done.get(hand, 0) + 1
            before = tricks_done[hand] * n
        named = set(re.findall(r"CARD_[A-Z]+_OF_[A-Z]+", raw))
        stray = named - mine.get(hand, set()) - set(plays.get(hand, [])[:before])
        assert not stray, f"a message to the page names another seat's unplayed cards {sorted(stray)}: {raw[:300]}"
    return len(pushed)
