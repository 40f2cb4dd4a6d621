"""The live page's push channel against a real arena (`hearts arena serve`, four house bots playing
duplicate deals): the plays of a match in progress come in order over /live/events and are the
stored record's card by card; a match whose deal other seatings still play shows a visitor and a
participant none of its cards, live or on the board; and in Chromium the page follows the matches
without a reload and without asking /live.json."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.slow  # a whole arena, its bots and a browser
LADDER_PLAYS = True  # every test here follows matches as they are played

Message = tuple[float, str | None, dict[str, Any]]  # when it came (time.time()), its id, its data


@contextlib.contextmanager
def _client(url: str, token: str | None) -> Iterator[httpx.Client]:
    """A site client: a visitor, or signed in through the form as a browser is."""
    with httpx.Client(base_url=url, timeout=httpx.Timeout(30, read=25)) as c:
        if token is not None:
            c.get("/signin")
            r = c.post("/signin", data={"token": token, "csrf": c.cookies["hearts_csrf"]}, follow_redirects=False)
            assert r.status_code == 303, r.text
        yield c


def _read(
    c: httpx.Client,
    seconds: float,
    until: Callable[[list[Message]], bool] = lambda _: False,
    path: str = "/live/events",
) -> list[Message]:
    """The stream's messages for ``seconds`` at most, or until ``until`` says so."""
    out: list[Message] = []
    deadline = time.monotonic() + seconds
    with c.stream("GET", path) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        event_id = None
        for line in r.iter_lines():
            if line.startswith("id: "):
                event_id = line[4:]
            elif line.startswith("data: "):
                out.append((time.time(), event_id, json.loads(line[6:])))
                if until(out):
                    break
            if time.monotonic() > deadline:
                break
    return out


@dataclass
class Follower:
    """The matches in play as a page following the stream holds them; fails on a play out of order."""

    plays: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    hands: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    from_start: set[str] = field(default_factory=set)  # first seen by its play n=0, as it was played
    ended: set[str] = field(default_factory=set)
    listed: set[str] = field(default_factory=set)

    def take(self, d: dict[str, Any]) -> None:
        if d["type"] == "board":
            now = {m["id"] for m in d["live"]}
            self.ended |= self.listed - now
            self.listed = now
            for m in d["live"]:
                held = self.plays.setdefault(m["id"], [])
                assert m["plays"][: len(held)] == held[: len(m["plays"])], "the board disagrees with the plays sent"
                if len(m["plays"]) > len(held):
                    self.plays[m["id"]] = list(m["plays"])
                self.hands[m["id"]] = list(m["hands"])
        elif d["type"] == "play":
            held = self.plays.setdefault(d["match"], [])
            n = d["play"]["n"]
            assert n <= len(held), f"play {n} of {d['match']} came before play {len(held)}"
            if n == len(held):
                if n == 0:
                    self.from_start.add(d["match"])
                held.append(d["play"])
            else:
                assert held[n] == d["play"]
        elif d["type"] == "hand":
            hands = self.hands.setdefault(d["match"], [])
            if all(h["hand"] != d["hand"]["hand"] for h in hands):
                hands.append(d["hand"])
        elif d["type"] == "shown":
            self.plays[d["match"]] = list(d["plays"])
            self.hands[d["match"]] = list(d["hands"])

    def whole(self) -> set[str]:
        """The matches followed from their first card to their record."""
        return {m for m in self.from_start & self.ended if self.plays.get(m)}


def test_the_stream_sends_each_play_in_order_and_it_is_the_record(site: dict[str, Any]) -> None:
    a = site["arena"]
    follower = Follower()

    def done(out: list[Message]) -> bool:
        follower.take(out[-1][2])
        return bool(follower.whole())

    with _client(a.url, a.organiser) as c:
        _read(c, 150, done)
    mid = sorted(follower.whole())[0]
    with a.client(a.organiser) as api:
        record = api.get(f"/api/matches/{mid}").json()
    sent = [(p["hand"], p["trick"], p["seat"], p["card"], p["substituted"]) for p in follower.plays[mid]]
    kept = [(p["hand"], p["trick"], p["seat"], p["card"], p["substituted"]) for p in record["plays"]]
    assert sent == kept
    assert [p["n"] for p in follower.plays[mid]] == list(range(len(kept)))
    # The trick's winner is the engine's: the seat that leads the next trick of the hand.
    for p, nxt in zip(follower.plays[mid], follower.plays[mid][1:]):
        if p["won_by"] is not None and nxt["hand"] == p["hand"]:
            assert nxt["seat"] == p["won_by"] and nxt["trick"] == p["trick"] + 1
    scored = [(h["hand"], h["points_taken"], h["totals"]) for h in follower.hands[mid]]
    assert scored == [(h["hand"], h["points_taken"], h["totals"]) for h in record["hands"]]


def _siblings(db: sqlite3.Connection, mid: str) -> list[tuple[str | None, str | None]]:
    """The other seatings of ``mid``'s deal: each one's match id and when it finished (None: unrecorded)."""
    tid, idx = int(mid[1:].split("-")[0]), int(mid.split("-")[1])
    query = "SELECT seed FROM tournament_matches WHERE tournament_id = ? AND idx = ?"
    (seed,) = db.execute(query, [tid, idx]).fetchone()
    return db.execute(
        "SELECT tm.match_id, m.finished_at FROM tournament_matches tm LEFT JOIN matches m ON m.id = tm.match_id "
        "WHERE tm.tournament_id = ? AND tm.seed = ? AND tm.idx != ?",
        [tid, seed, idx],
    ).fetchall()


def test_a_withheld_match_s_cards_never_reach_a_visitor_or_a_participant(site: dict[str, Any]) -> None:
    a = site["arena"]
    got: dict[str, list[Message]] = {}

    def shown_to_all(out: list[Message]) -> bool:
        # A match's cards sent once, and a match listed as withheld at least once: whatever the
        # moment the stream began (the tail of a batch plays its deal's last seating, shown to all).
        sent = any(d["type"] in ("play", "shown") for _, _, d in out)
        held = any(m["withheld"] for _, _, d in out if d["type"] == "board" for m in d["live"])
        return sent and held

    def follow(who: str, token: str | None, until: Callable[[list[Message]], bool]) -> None:
        with _client(a.url, token) as c:
            got[who] = _read(c, 120, until)

    readers = [
        threading.Thread(target=follow, args=("visitor", None, shown_to_all)),
        threading.Thread(target=follow, args=("bob", site["bob"], shown_to_all)),
    ]
    for t in readers:
        t.start()

    def readers_done(out: list[Message]) -> bool:  # and the organiser has been sent a card
        return not any(t.is_alive() for t in readers) and any(d["type"] == "play" for _, _, d in out[-200:])

    with _client(a.url, a.organiser) as c:
        organiser = _read(c, 150, readers_done)
    for t in readers:
        t.join(150)
    db = sqlite3.connect(f"file:{a.dir / 'arena.db'}?mode=ro", uri=True)
    try:
        withheld_seen: set[str] = set()
        for who in ("visitor", "bob"):
            cards_of: list[tuple[float, str]] = []
            for at, _id, d in got[who]:
                if d["type"] == "board":
                    for m in d["live"]:
                        if m["withheld"]:
                            withheld_seen.add(m["id"])
                            assert m["plays"] == [] and m["hands"] == [], m
                        elif m["plays"] or m["hands"]:
                            cards_of.append((at, m["id"]))
                    assert "seed" not in json.dumps(d)
                else:
                    cards_of.append((at, d["match"]))
            assert any(d["type"] in ("play", "shown") for _, _, d in got[who]), f"{who} was sent no card at all"
            for at, mid in cards_of:
                # Every other seating of its deal was recorded before this viewer was sent its cards.
                for other, finished in _siblings(db, mid):
                    assert other is not None, f"{who} was sent {mid}'s cards while another seating was to play"
                    assert finished is not None
                    assert dt.datetime.fromisoformat(finished).timestamp() <= at, (who, mid, other)
    finally:
        db.close()
    # There was something to withhold: a match the organiser was sent cards of, live, while withheld from them.
    organiser_cards = {d["match"] for _, _, d in organiser if d["type"] == "play"}
    assert withheld_seen, "no match was withheld while these streams ran"
    assert organiser_cards, organiser


def _watched_page(browser: Any) -> tuple[Any, list[str], list[str]]:
    """A page in Chromium, with the errors it raises and the URLs it asks for as they come."""
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    asked: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: asked.append(r.url))
    return page, errors, asked


def test_the_live_page_follows_the_plays_without_polling(site: dict[str, Any], browser: Any) -> None:
    a = site["arena"]
    page, errors, asked = _watched_page(browser)
    page.goto(a.url + "/signin")
    page.fill("input[name=token]", a.organiser)
    page.click("form.stack button[type=submit]")
    page.wait_for_load_state()
    page.goto(a.url + "/live")
    page.evaluate("window.__same_document = true")  # gone if the page were reloaded
    page.wait_for_selector("#live-list .play", timeout=90_000)
    first = page.locator("#live-list").text_content()
    page.wait_for_function(
        "first => document.getElementById('live-list').textContent !== first", arg=first, timeout=30_000
    )
    page.wait_for_function(
        "first => document.getElementById('live-list').textContent !== first",
        arg=page.locator("#live-list").text_content(),
        timeout=30_000,
    )
    assert page.evaluate("window.__same_document") is True
    assert [u for u in asked if "/live.json" in u] == []
    assert [u for u in asked if u.endswith("/live/events")], asked
    assert not errors
    page.close()


def test_the_leaderboards_stream_says_each_new_count_of_matches_and_nothing_of_the_plays(site: dict[str, Any]) -> None:
    a = site["arena"]
    with _client(a.url, None) as c:
        out = _read(c, 120, lambda out: len({m[2]["matches"] for m in out}) >= 3, path="/events")
    counts = [d["matches"] for _, _, d in out]
    assert {d["type"] for _, _, d in out} == {"board"} and all(set(d) == {"type", "matches", "paused"} for *_, d in out)
    assert counts == sorted(counts) and len(set(counts)) >= 3  # each match recorded since said, none taken back
    with a.client(a.organiser) as api:  # a visitor's count is the status's, as the page shows it
        assert api.get("/api/status").json()["matches"] >= counts[-1]


def test_the_leaderboard_follows_the_recorded_matches_without_a_reload(site: dict[str, Any], browser: Any) -> None:
    a = site["arena"]
    page, errors, asked = _watched_page(browser)
    page.goto(a.url + "/")
    page.evaluate("window.__same_document = true")  # gone if the page were reloaded
    first = page.locator(".status-line").text_content()
    page.wait_for_function(
        "first => document.querySelector('.status-line').textContent !== first", arg=first, timeout=60_000
    )
    assert page.evaluate("window.__same_document") is True
    assert page.locator(".board table").count() >= 1  # the boards came with the count
    assert [u for u in asked if u.endswith("/events")], asked
    assert not errors
    page.close()
