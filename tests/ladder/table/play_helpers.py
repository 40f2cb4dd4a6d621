"""Helpers of hearts play's tests (the fixtures are in conftest.py): the process and its address,
and the page driven in Chromium (waits, the hand, the keys)."""

from __future__ import annotations

import json
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

    def __init__(self, run: Run, url: str, db: Path, started: float) -> None:
        self.run, self.url, self.db, self.started = run, url, db, started

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
