"""A record's HTML in a notebook (ladder.notebook.record_html) in a real Chromium: the replay viewer runs in
its sandboxed iframe, steps with its buttons and the keyboard through the site's steps, and a bot whose
name is markup is shown as text, with no script of its run."""

from __future__ import annotations

from typing import Any

import pytest

from clients.sdk import Bot, View
from ladder.export import match_to_json
from ladder.notebook import play, record_html
from ladder.site.render import replay_steps
from referee.report import replay_hands
from referee.rules import Card

pytestmark = pytest.mark.slow  # a browser

XSS = "<img src=x onerror=alert(1)>"


class Hostile(Bot):
    name = XSS

    def pass_cards(self, view: View) -> list[Card]:
        return sorted(view.hand, key=lambda c: (c.rank, c.suit))[-view.rules.pass_count :]

    def play_card(self, view: View) -> Card:
        return max(view.legal, key=lambda c: (c.rank, c.suit))


def test_the_inline_replay_viewer_steps_and_shows_a_hostile_name_as_text(browser: Any) -> None:
    record = play([Hostile(), "random", "heuristic", "lowest"], rules="standard,target=30", seed=7)
    steps = replay_steps(match_to_json(record), list(replay_hands(record)))
    page = browser.new_page(viewport={"width": 1100, "height": 1000})
    dialogs: list[str] = []
    errors: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: errors.append(str(e)))
    # As a notebook shows it: the HTML inside the page's own markup (no network, nothing to load).
    page.set_content(f"<!doctype html><html><body><div class='output'>{record_html(record)}</div></body></html>")
    frame = page.frame_locator("iframe.hearts-replay")
    assert frame.locator("#caption").text_content() == steps[0]["caption"]
    assert frame.locator("#replay.js").count() == 1  # its script ran
    frame.locator("#next").click()
    frame.locator("#next").click()
    assert frame.locator("#stepno").text_content() == "3"
    assert frame.locator("#caption").text_content() == steps[2]["caption"]
    frame.locator("#replay").click(position={"x": 5, "y": 5})
    frame.locator("body").press("End")
    assert frame.locator("#caption").text_content() == steps[-1]["caption"]
    south = frame.locator(".seat-area.south .bot")
    assert south.text_content() == XSS  # the name as text, not an element
    assert frame.locator(".seat-area img").count() == 0 and page.locator("img").count() == 0
    cells = page.locator("table.hearts-match td.bot")
    assert [cells.nth(i).text_content() for i in range(4)] == record.bots
    page.wait_for_timeout(200)
    assert not dialogs and not errors
    page.close()
