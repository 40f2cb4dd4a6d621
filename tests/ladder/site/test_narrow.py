"""Every page of the site on a phone (390 x 844, touch) and on a desktop (1280 wide), in Chromium
against a real arena (tests/ladder/site/conftest.py): on the phone no page scrolls sideways and the
header's links are a finger high; on the desktop every table shows all its columns, none scrolled
out of its box. The arena has a participant's version with its reports and log, and a final
tournament (a knockout: its bracket above its board), so the leaderboard shows two boards side by
side."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from arena_helpers import Arena
from site_helpers import quiet, resume, shot, zip_bot

pytestmark = pytest.mark.slow  # whole processes, servers and a browser

FINAL_FORMAT = "knockout"  # the final's board shows its bracket (tests/ladder/site/conftest.py)

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}

# Each table on the page: its class, its columns shown, and whether its box (.scroll) hides some.
TABLES = """sel => [...document.querySelectorAll(sel)].map(t => {
  const box = t.closest('.scroll');
  return {
    table: t.className,
    shown: [...(t.tHead ? t.tHead.rows[0].cells : [])].filter(c => c.getClientRects().length).length,
    columns: t.tHead ? t.tHead.rows[0].cells.length : 0,
    clipped: box ? box.scrollWidth > box.clientWidth : false,
  };
})"""


def _context(browser: Any, options: dict[str, Any], url: str, token: str | None) -> Any:
    page = browser.new_context(**options).new_page()
    if token is not None:
        page.goto(url + "/signin")
        page.fill("input[name=token]", token)
        page.click("form.stack button[type=submit]")
        page.wait_for_load_state()
    return page


def _shown_match(a: Arena, page: Any) -> str:
    """The address of a match the visitor is shown (one whose deal is still played elsewhere is not)."""
    page.goto(a.url + "/matches")
    for href in page.locator("table.matches tbody tr a[href^='/matches/']").evaluate_all(
        "els => els.map(e => e.getAttribute('href'))"
    ):
        if page.goto(a.url + href).status == 200:
            return str(href)
    raise AssertionError("no match shown to a visitor")


@pytest.fixture(scope="module")
def pages(site: dict[str, Any], browser: Any) -> Iterator[dict[str | None, list[str]]]:
    """The arena with alice's version valid and the final tournament's board filled, held still; the
    pages to look at, by whose token opens them (None: a visitor)."""
    a: Arena = site["arena"]
    with a.client(site["alice"]) as c:
        r = c.post("/api/bots/alice-narrow/versions", content=zip_bot(), headers={"Content-Type": "application/zip"})
        r.raise_for_status()
    with a.client(a.organiser) as c:
        c.post("/api/admin/final").raise_for_status()
    a.wait_for(
        site["alice"],
        lambda d: d["versions"] and d["versions"][0]["status"] == "valid",
        timeout=120,
        path="/api/bots/alice-narrow/versions",
    )
    a.wait_for(a.organiser, lambda d: len(d["rows"]) >= 4, timeout=120, path="/api/leaderboard?board=final")
    # A table of the bracket decided: its places, points and who goes on are on the page too.
    a.wait_for(
        a.organiser,
        lambda d: any(t["state"] == "decided" for r in d["knockout"]["rounds"] for t in r["tables"]),
        timeout=120,
        path="/api/final",
    )
    quiet(a)
    page = browser.new_page()
    match = _shown_match(a, page)
    page.close()
    yield {
        None: [
            "/",
            "/bots/heuristic",
            "/matches",
            match,
            match + "?step=30",
            "/live",
            "/signin",
            "/bots/nosuch",
            "/play",
        ],
        site["alice"]: [
            "/me",
            "/me/bots/alice-narrow/versions/1/log",
            "/bots/alice-narrow",
            "/matches?bot=alice-narrow",
            "/play",
        ],
        a.organiser: ["/admin", "/"],
    }
    resume(a)


def test_every_page_fits_a_phone(
    site: dict[str, Any], browser: Any, pages: dict[Any, list[str]], tmp_path: Path
) -> None:
    a = site["arena"]
    widths, taps, boards, bracket = {}, {}, [], []
    for token, paths in pages.items():
        page = _context(browser, PHONE, a.url, token)
        for path in paths:
            page.goto(a.url + path)
            seen = path if token is None else f"{path} (signed in)"
            widths[seen] = page.evaluate("document.documentElement.scrollWidth")
            taps[seen] = min(
                page.locator("header.top a, header.top button").evaluate_all(
                    "els => els.map(e => e.getBoundingClientRect().height)"
                )
            )
            if path == "/" and token is None:
                boards = page.evaluate(TABLES, ".board table.leaderboard")
                bracket = page.evaluate(TABLES, ".board #final-bracket table")
                shot(page, "phone-leaderboard", tmp_path)
            if path == "/bots/heuristic":
                assert page.locator("svg.plot").first.evaluate("e => e.getBoundingClientRect().right") <= 390
                shot(page, "phone-bot", tmp_path)
        page.context.close()
    assert all(w <= 390 for w in widths.values()), widths
    assert all(h >= 40 for h in taps.values()), taps  # the header's links and buttons a finger high
    # The boards' main figures in sight, each table within its box: nothing to scroll there either.
    assert len(boards) == 2 and all(b["shown"] >= 6 and not b["clipped"] for b in boards), boards
    # The final's bracket whole: every round's table, every column in sight, none scrolled.
    assert bracket and all(b["shown"] == b["columns"] == 5 and not b["clipped"] for b in bracket), bracket


def test_the_desktop_shows_every_column(site: dict[str, Any], browser: Any, pages: dict[Any, list[str]]) -> None:
    a = site["arena"]
    for token, paths in pages.items():
        page = _context(browser, DESKTOP, a.url, token)
        for path in paths:
            page.goto(a.url + path)
            assert page.evaluate("document.documentElement.scrollWidth") <= 1280, path
            for t in page.evaluate(TABLES, "main table"):
                assert t["shown"] == t["columns"] and not t["clipped"], (path, t)
            if path == "/":  # both boards, side by side
                assert page.locator("#board-final tbody tr[data-bot]").count() >= 4
                tops = page.locator(".board").evaluate_all("els => els.map(e => e.getBoundingClientRect().top)")
                assert len(tops) == 2 and len(set(tops)) == 1, tops
        page.context.close()
