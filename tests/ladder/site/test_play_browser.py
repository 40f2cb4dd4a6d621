"""/play in Chromium against a real arena (`hearts arena serve`, its house bots started as the ladder
starts them): a participant signs in, sits down against the default house bots, plays the match (to
one point: a hand or two) by keyboard alone; the match is stored with her `human` seat under her
name, outside the ladder (its ratings unchanged, not listed among the ladder's matches), and no
message pushed to her page names another seat's card."""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # cli_procs, for play_helpers
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "table"))
from arena_helpers import HOUSE4, Arena, make_arena  # noqa: E402
from play_helpers import _enum, _go_to, _hand, _page, _turn, _wait, check_no_other_seats_card  # noqa: E402

from ladder.arena.views import STALE_S  # noqa: E402
from ladder.ratings.leaderboard import load_leaderboard  # noqa: E402
from ladder.store import Store  # noqa: E402
from referee.rules import Rules  # noqa: E402

pytestmark = pytest.mark.slow  # a real arena and a browser


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """An arena of four house bots whose tables play to one point (a hand, or two), and alice."""
    a = make_arena(tmp_path_factory.mktemp("play"), house=HOUSE4)
    with open(a.dir / "arena.toml", "a") as f:
        f.write("\n[play]\ntarget = 1\n")
    alice = a.add_user("alice")
    a.serve()
    try:
        yield {"arena": a, "alice": alice}
    finally:
        a.stop()


def _ratings(a: Arena) -> list[tuple[str, float, int]]:
    """The board once it is fitted to what is recorded: a reader is shown the board there is, and one
    older than STALE_S is fitted again behind it, so two readings apart agree once it is current."""
    seen: list[list[tuple[str, float, int]]] = []
    while len(seen) < 2 or seen[-1] != seen[-2]:
        assert len(seen) < 30, seen
        time.sleep(STALE_S + 1)
        with a.client(a.organiser) as c:
            rows = c.get("/api/leaderboard").json()["rows"]
        seen.append(sorted((r["bot"], r["elo"], r["games"]) for r in rows))
    return seen[-1]


def test_a_participant_plays_the_house_bots_by_keyboard_unrated_and_sees_no_other_seats_card(
    arena: dict[str, Any], browser: Any
) -> None:
    a: Arena = arena["arena"]
    # The ladder still: a table on its board (a deal counts once all its seatings are played), then
    # paused with nothing in play, so that its ratings can only change by the table's match.
    a.wait_for(a.organiser, lambda board: bool(board["rows"]), timeout=180, path="/api/leaderboard")
    with a.client(a.organiser) as c:
        assert c.post("/api/admin/pause").status_code == 200
    a.wait_for(a.organiser, lambda s: s["live"] == 0, timeout=120)
    before = _ratings(a)
    with a.client(a.organiser) as c:
        ladder_matches = [m["id"] for m in c.get("/api/matches?limit=200").json()["matches"]]

    page = _page(browser, viewport={"width": 1200, "height": 900})
    page.goto(a.url + "/signin")
    page.fill("input[name=token]", arena["alice"])
    page.click("button[type=submit]")
    page.wait_for_url("**/me")
    page.goto(a.url + "/play")
    assert "target=1" in (page.text_content("#play-rules") or "")
    page.click("#play-form button[type=submit]")
    page.wait_for_url("**/play/tables/*")
    page.goto(page.url + "?pace=0")
    page.keyboard.press("Enter")  # Space or Enter to start
    _wait(page, "document.querySelector('#hand .card') !== null", timeout=90)
    rng = random.Random(3)
    chosen_passes: list[list[str]] = []
    chosen_plays: list[str] = []
    last = ""
    while True:
        phase, last = _turn(page, last)
        if phase == "over":
            break
        if phase == "hold":
            page.keyboard.press("Space")
            _wait(page, "document.body.dataset.phase !== 'hold'")
            continue
        hand = _hand(page)
        if phase == "pass":
            picks = rng.sample(range(len(hand)), 3)
            for i in picks:
                _go_to(page, i)
                page.keyboard.press("Space")
            chosen_passes.append([hand[i]["card"] for i in picks])
            page.keyboard.press("Enter")
        elif phase == "play":
            legal = [i for i, c in enumerate(hand) if not c["dimmed"]]
            i = rng.choice(legal)
            _go_to(page, i)
            chosen_plays.append(hand[i]["card"])
            page.keyboard.press("Space")
        else:
            raise AssertionError(f"not asked under these rules: {phase}")
    _wait(page, "document.querySelector('.recorded a') !== null")
    href = page.get_attribute(".recorded a", "href")
    assert href is not None and href.startswith("/matches/")
    match_id = href.rsplit("/", 1)[1]
    assert not page.errors, page.errors

    deadline = time.monotonic() + 10
    while True:  # stored before the page is told; read from the arena's own file
        with Store(a.dir / "arena.db", readonly=True) as store:
            if match_id in set(store.match_ids()):
                record = store.load_match(match_id)
                break
        assert time.monotonic() < deadline, "the table's match is not in the store"
        time.sleep(0.2)
    seat = record.seats[0]
    assert (seat.bot, seat.kind) == ("alice", "human")
    assert [s.bot.split(".v")[0] for s in record.seats[1:]] == ["random", "random-2", "lowest"]
    assert record.hands and record.tournament_id is None  # one hand, or more while the lowest is tied
    assert [[_enum(c) for c in p.cards] for h in record.hands for p in h.passes if p.seat == 0] == chosen_passes
    assert [_enum(p.card) for p in record.plays if p.seat == 0] == chosen_plays
    assert check_no_other_seats_card(page.evaluate("window.__pushed"), record) > 13
    # Not the ladder's: its ratings as they were, not among its matches; the page of it opens.
    assert _ratings(a) == before and before
    with Store(a.dir / "arena.db", readonly=True) as store:  # even a board of its own ruleset leaves it out
        own = load_leaderboard(store, rules=Rules.from_dict(record.rules))
    assert own.with_people == 1 and not own.rows
    with a.client(a.organiser) as c:
        now = [m["id"] for m in c.get("/api/matches?limit=200").json()["matches"]]
    assert match_id not in now and now == ladder_matches
    page.goto(a.url + href)
    assert "alice" in page.text_content("main")
    # The table is gone with its match: /play offers a new one.
    page.goto(a.url + "/play")
    assert page.locator("#play-form").count() == 1
    page.context.close()
