"""The web site in a real Chromium against a real arena (tests/ladder/site/conftest.py): the leaderboard
against the store, a bot's page, a replay stepped with the keyboard against the match record, a
bot submitted through the form until its first match, one participant failing to see another's
logs, anonymity, and a bot whose name and fault text are markup shown as text."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from site_helpers import playing, shot, zip_bot

from ladder.arena.store import ArenaStore
from ladder.arena.worker import Ratings, ladder_tournament
from ladder.export import match_from_json, match_to_json
from referee.record import FaultKind, FaultRecord

pytestmark = pytest.mark.slow  # whole processes and servers

XSS = "<img src=x onerror=alert(1)>"


def _page(browser: Any) -> Any:
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.dialogs = []  # any alert() would land here: none may
    page.errors = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def _signin(page: Any, url: str, token: str) -> None:
    page.goto(url + "/signin")
    page.fill("input[name=token]", token)
    page.click("form.stack button[type=submit]")
    page.wait_for_load_state()
    assert token not in page.url


def test_the_leaderboard_shows_the_stores_rows(site: dict[str, Any], browser: Any, tmp_path: Path) -> None:
    a = site["arena"]
    store = ArenaStore(a.dir / "arena.db")
    from ladder.arena.config import load_config

    cfg = load_config(a.dir)
    board = Ratings().get(store, ladder_tournament(store, cfg), cfg.rules)
    page = _page(browser)
    # The server's fit may be up to 5 s old (it serves that rather than wait for a refit): reload
    # until it has caught up with the paused ladder, then compare row by row.
    rows = page.locator("#board-ladder tbody tr")
    expected = [(f"{r.elo:.0f}", str(r.games)) for r in board.rows]

    def shown() -> list[tuple[str, str]]:
        cells = page.eval_on_selector_all(
            "#board-ladder tbody tr", "trs => trs.map(tr => [...tr.cells].map(td => td.textContent.trim()))"
        )
        return [(c[2].split()[0], c[3]) for c in cells if len(c) > 3 and c[2]]

    deadline = time.monotonic() + 20
    while True:  # a fit older than the pause shows the same bots with other figures: wait for the new one
        page.goto(a.url + "/")
        if shown() == expected or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert rows.count() == len(board.rows) == 4
    for i, r in enumerate(board.rows):
        cells = rows.nth(i).locator("td")
        assert cells.nth(0).text_content().strip() == str(i + 1)
        assert cells.nth(1).locator("a.bot").text_content() == r.bot
        assert cells.nth(2).text_content().split()[0] == f"{r.elo:.0f}"
        assert cells.nth(3).text_content().strip() == str(r.games)
        assert cells.nth(4).text_content().strip() == f"{r.score_pct:.1f}%"
        assert cells.nth(5).text_content().strip() == f"{r.win_pct:.1f}%"
        assert cells.nth(6).text_content().strip() == f"{r.points_per_hand:.2f}"
        assert cells.nth(7).text_content().strip() == str(r.faults)
    shot(page, "leaderboard", tmp_path)
    # Sorted by a column: by games played fewest to most is not offered; by faults, fewest first.
    page.click("#board-ladder th >> text=Pts/hand")
    ppm = [float(x) for x in page.locator("#board-ladder tbody tr td:nth-child(7)").all_text_contents()]
    assert ppm == sorted(ppm, reverse=True)
    # A bot's page: its versions, plots, recent matches.
    page.goto(a.url + "/")
    page.click("#board-ladder tbody tr >> nth=0 >> a.bot")
    assert page.locator("h1").first.text_content().startswith(board.rows[0].bot.rsplit(".v", 1)[0])
    assert page.locator("svg.plot").count() >= 1
    assert page.locator("table.matches tbody tr").count() >= 1
    shot(page, "bot", tmp_path)
    assert not page.dialogs and not page.errors


def _expected_hand(record: dict[str, Any], hand: int, seat: int, played: int) -> set[str]:
    """What ``seat`` holds in ``hand`` after the hand's first ``played`` cards (post-pass)."""
    plays = [p for p in record["plays"] if p["hand"] == hand]
    return {p["card"] for p in plays if p["seat"] == seat} - {p["card"] for p in plays[:played]}


def test_a_replay_steps_with_the_keyboard_and_shows_the_recorded_cards(
    site: dict[str, Any], browser: Any, tmp_path: Path
) -> None:
    a = site["arena"]
    with a.client(site["alice"]) as c:  # the newest shown (one whose deal is still in play answers 409)
        answers = [c.get(f"/api/matches/{m['id']}") for m in c.get("/api/matches?limit=50").json()["matches"]]
        record = next(r.json() for r in answers if r.status_code == 200)
        mid = record["match_id"]
    page = _page(browser)
    page.goto(f"{a.url}/matches/{mid}")
    page.wait_for_selector("#replay.js")
    seats = len(record["seats"])

    def hand_shown(seat: int) -> set[str]:
        return set(page.locator(f".seat-area[data-seat='{seat}'] .hand .card").evaluate_all(
            "els => els.map(e => e.getAttribute('data-card'))"))  # fmt: skip

    def table_shown(seat: int) -> str | None:
        c = page.locator(f".felt .slot[data-slot='{seat}'] .card")
        return c.get_attribute("data-card") if c.count() else None

    # The deal, all face up.
    h0 = record["hands"][0]
    for s in range(seats):
        assert hand_shown(s) == set(h0["deal"][s])
    passes = 1 if h0["passes"] else 0
    plays0 = [p for p in record["plays"] if p["hand"] == 0]
    for _ in range(passes + 1):
        page.keyboard.press("ArrowRight")
    assert page.locator("#replay").get_attribute("data-step") == str(passes + 1)
    first = plays0[0]
    assert table_shown(first["seat"]) == first["card"]
    for s in range(seats):
        assert hand_shown(s) == _expected_hand(record, 0, s, 1)
    for _ in range(10):
        page.keyboard.press("ArrowRight")
    p11 = plays0[10]
    assert table_shown(p11["seat"]) == p11["card"]
    for s in range(seats):
        assert hand_shown(s) == _expected_hand(record, 0, s, 11)
    assert page.locator("#caption").text_content().endswith({"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[p11["card"][-1]])
    shot(page, "replay", tmp_path)
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    p8 = plays0[7]
    assert table_shown(p8["seat"]) == p8["card"]
    for s in range(seats):
        assert hand_shown(s) == _expected_hand(record, 0, s, 8)
    # One seat's view: the others' cards face down.
    page.click(".views a[data-view='1']")
    assert page.locator(".seat-area[data-seat='0'] .hand .card.back").count() == len(_expected_hand(record, 0, 0, 8))
    assert hand_shown(1) == _expected_hand(record, 0, 1, 8)
    # Space plays, space pauses.
    before = int(page.locator("#replay").get_attribute("data-step"))
    page.keyboard.press(" ")
    page.wait_for_timeout(1600)
    page.keyboard.press(" ")
    after = int(page.locator("#replay").get_attribute("data-step"))
    assert after > before
    page.wait_for_timeout(900)
    assert int(page.locator("#replay").get_attribute("data-step")) == after
    # The points per hand and the totals, as recorded.
    rows = page.locator("table.scores tbody tr")
    assert rows.count() == len(record["hands"])
    assert not page.dialogs and not page.errors
    # Without JavaScript the links step: the server draws ?step=N.
    html = httpx.get(f"{a.url}/matches/{mid}?step={passes + 1}").text
    assert f'data-slot="{first["seat"]}"><span class="card' in html and f'data-card="{first["card"]}"' in html
    # Phone width: the table still fits.
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 400
    shot(page, "replay-phone", tmp_path)


def test_a_participant_submits_through_the_form_and_watches_the_first_match(
    site: dict[str, Any], browser: Any, tmp_path: Path
) -> None:
    a = site["arena"]
    with playing(a):
        archive = tmp_path / "alicebot.zip"
        archive.write_bytes(zip_bot())
        page = _page(browser)
        _signin(page, a.url, site["alice"])
        assert page.url.endswith("/me")
        page.fill("input[name=bot]", "alice-secretbot")
        page.set_input_files("input[name=archive]", str(archive))
        page.click("form.submit button[type=submit]")
        page.wait_for_load_state()
        # The page looks again while the version is checked; the report is there once it is valid.
        page.wait_for_selector("#bot-alice-secretbot .pill.status-valid", timeout=120_000)
        # No check failed; a loaded machine may add a warning (a latency close to the budget).
        report = page.locator("#bot-alice-secretbot details.report").first.text_content()
        assert "fail 0" in report or "checks passed" in report, report
        shot(page, "participant", tmp_path)
        # Its first match: the matches list filtered by its bot, then its replay. A match whose deal
        # other seatings still play is withheld from participants (409): the first one shown will do.
        deadline = time.monotonic() + 120
        shown = False
        while not shown:
            page.goto(a.url + "/matches?bot=alice-secretbot")
            hrefs = page.locator("table.matches tbody tr a[href^='/matches/']").evaluate_all(
                "els => els.map(e => e.getAttribute('href'))"
            )
            for href in reversed(hrefs):  # the oldest first
                if page.goto(a.url + href).status == 200:
                    shown = True
                    break
            assert time.monotonic() < deadline, "no match of alice's bot was shown to her in 120 s"
            if not shown:
                page.wait_for_timeout(1000)
        page.wait_for_selector("#replay.js")
        assert "alice-secretbot.v1" in page.locator(".table-grid").text_content()
        # Ask her bot again: stepping the replay chooses the decision it shows (or her next one).
        for _ in range(9):
            page.keyboard.press("ArrowRight")
        at = int(page.get_attribute("#replay", "data-step") or "0")
        assert page.input_value("#ask-at") == str(at)
        chosen = page.locator("#ask-step option:checked")
        assert int(chosen.get_attribute("data-replay") or "-1") >= at, chosen.text_content()
        step = chosen.get_attribute("value")
        page.click("form.ask-form button[type=submit]")
        page.wait_for_selector("#asked", timeout=60_000)
        assert page.input_value("#ask-step") == step, "the page answers the decision asked"
        asked = page.locator("#asked").text_content()
        assert "alice-secretbot.v1" in asked and "legal" in asked and "Differs" in asked, asked
        page.goto(a.url + "/me/bots/alice-secretbot/versions/1/log")
        assert page.locator("h1").text_content().startswith("alice-secretbot v1")
        assert not page.dialogs and not page.errors


def test_another_participant_sees_no_logs_and_no_names(site: dict[str, Any], browser: Any) -> None:
    a = site["arena"]
    page = _page(browser)
    _signin(page, a.url, site["bob"])
    r = page.goto(a.url + "/me/bots/alice-secretbot/versions/1/log")
    assert r.status in (403, 404)
    assert "== logs" not in page.content()
    page.goto(a.url + "/me")
    assert "alice-secretbot" not in page.content()
    # Anonymous: alice's name and her bot's nowhere in what bob is shown.
    seen = []
    for path in ["/", "/matches", "/live", "/live.json"]:
        page.goto(a.url + path)
        seen.append(page.content())
    page.goto(a.url + "/matches?bot=")
    for href in page.locator("table.matches tbody tr a[href^='/matches/']").evaluate_all(
        "els => els.slice(0, 5).map(e => e.getAttribute('href'))"
    ):
        page.goto(a.url + href)
        seen.append(page.content())
    for href in set(page.locator("a.bot").evaluate_all("els => els.map(e => e.getAttribute('href'))")):
        page.goto(a.url + href)
        seen.append(page.content())
    for html in seen:
        assert "alice" not in html


def test_the_live_page_updates_without_a_reload(site: dict[str, Any], browser: Any) -> None:
    a = site["arena"]
    with playing(a):
        page = _page(browser)
        page.goto(a.url + "/live")
        page.evaluate("window.__same_document = true")  # gone if the page were reloaded
        first = page.locator("#match-count").text_content()
        page.wait_for_function(
            "first => document.getElementById('match-count').textContent !== first", arg=first, timeout=90_000
        )
        assert page.evaluate("window.__same_document") is True
        assert page.locator("#newest-list li a").count() >= 1
        assert not page.errors


def test_forms_need_their_csrf_token_and_cookies_are_httponly(site: dict[str, Any]) -> None:
    a = site["arena"]
    with httpx.Client(base_url=a.url) as c:
        r = c.get("/signin")
        cookie = r.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
        assert c.post("/signin", data={"token": site["bob"]}).status_code == 403  # no csrf field
        assert c.post("/signin", data={"token": site["bob"], "csrf": "forged"}).status_code == 403
        csrf = c.cookies["hearts_csrf"]
        r = c.post("/signin", data={"token": site["bob"], "csrf": csrf})
        assert r.status_code == 303
        session = [h for h in r.headers.get_list("set-cookie") if h.startswith("hearts_session=")][0]
        assert "HttpOnly" in session and "SameSite=lax" in session.replace("Lax", "lax")
        assert site["bob"] not in session and site["bob"] not in r.headers["location"]
        # Signed in, a POST without the form's token is still refused, and one from another site too.
        assert c.post("/signout").status_code == 403
        assert c.post("/signout", data={"csrf": csrf}, headers={"Origin": "http://evil.example"}).status_code == 403
        # A participant is no organiser.
        assert c.post("/admin/pause", data={"csrf": csrf}).status_code == 403
        assert c.get("/admin").status_code == 403
    # A session cookie forged without the arena's key is nobody's.
    with httpx.Client(base_url=a.url, cookies={"hearts_session": "eyJ1IjoxfQ.00", "hearts_csrf": "x"}) as c:
        assert "Sign in" in c.get("/").text


def test_the_organiser_pauses_and_resumes_from_the_page(site: dict[str, Any], browser: Any) -> None:
    a = site["arena"]
    with playing(a):
        page = _page(browser)
        _signin(page, a.url, a.organiser)
        assert page.url.endswith("/admin")
        assert "alice" in page.content()  # the organiser sees the names
        with page.expect_navigation():
            page.click("#admin-pause")
        assert page.locator("#admin-resume").count() == 1
        with a.client(a.organiser) as c:
            assert c.get("/api/status").json()["paused"] is True
        with page.expect_navigation():
            page.click("#admin-resume")
        with a.client(a.organiser) as c:
            assert c.get("/api/status").json()["paused"] is False
        # The final tournament: started from the page, its board beside the live ladder's.
        with page.expect_navigation():
            page.click("#admin-final")
        assert page.locator("#admin-final").count() == 0 and "Final tournament:" in page.content()
        deadline = time.monotonic() + 120
        while True:
            page.goto(a.url + "/")
            if page.locator("#board-final tbody tr[data-bot]").count() >= 4:
                break
            assert time.monotonic() < deadline, "the final tournament's board stayed empty for 120 s"
            page.wait_for_timeout(1000)
        assert page.locator("#board-ladder tbody tr[data-bot]").count() >= 4


def test_markup_in_a_bot_name_and_a_fault_text_is_shown_as_text(
    site: dict[str, Any], browser: Any, tmp_path: Path
) -> None:
    a = site["arena"]
    store = ArenaStore(a.dir / "arena.db")
    # A bot whose name is markup (past the name check, straight into the store), with a report of markup.
    alice = store.user_by_name("alice")
    assert alice is not None
    bid = store.add_bot(XSS, alice.id, "xss-alias-1", house=True)
    v = store.add_version(bid, alice.id, status="failed", kind="address", address="127.0.0.1:1")
    store.set_status(v.id, "failed", validation_report={"error": "<script>alert(2)</script>"})
    # A recorded match with that bot in a seat and a fault whose text is markup.
    mid = list(store.ladder.match_ids())[-1]
    obj = match_to_json(store.ladder.load_match(mid))
    obj["match_id"] = mid + "-xss"
    obj["seats"][0]["bot"] = f"{XSS}.v1"
    obj["faults"].append(
        {"hand": 0, "trick": 0, "seat": 0, "kind": FaultKind.ERROR_STATUS.value, "detail": XSS,
         "sent": "PlayCard", "received": "<svg onload=alert(3)>", "action": "played the lowest legal card"}
    )  # fmt: skip
    record = match_from_json(obj)
    assert isinstance(record.faults[-1], FaultRecord)
    store.ladder.save_match(record)
    page = _page(browser)
    page.goto(f"{a.url}/matches/{mid}-xss")
    assert XSS in page.locator(".seat-area[data-seat='0'] .who").text_content()
    assert XSS in page.locator("table.faults").text_content()
    assert page.locator("img[src=x], svg[onload]").count() == 0
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert page.locator("img[src=x]").count() == 0
    page.goto(a.url + "/matches")
    assert XSS in page.locator("table.matches").text_content()
    page.goto(a.url + "/bots/" + XSS.replace("<", "%3C").replace(">", "%3E").replace(" ", "%20"))
    assert page.locator("h1").first.text_content().startswith(XSS)
    _signin(page, a.url, site["alice"])
    page.goto(a.url + "/me")
    page.wait_for_timeout(300)
    assert page.locator("img[src=x], script:not([src])").count() == 0
    assert not page.dialogs, page.dialogs
    assert not page.errors
    # The same bytes in the served HTML: escaped, never markup.
    html = httpx.get(f"{a.url}/matches/{mid}-xss").text
    assert XSS not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert json.dumps(XSS)[1:-1].replace("<", "\\u003c").replace(">", "\\u003e") in html


def test_hearts_site_build_writes_a_static_site_that_reads_alike(
    site: dict[str, Any], browser: Any, tmp_path: Path
) -> None:
    import subprocess
    import sys

    a = site["arena"]
    out = tmp_path / "public"
    r = subprocess.run(
        [sys.executable, "-m", "ladder.cli", "site", "build", "--db", str(a.dir / "arena.db"), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert (out / "index.html").is_file() and (out / "static" / "replay.js").is_file()
    assert any((out / "matches").glob("*.html")) and any((out / "bots").glob("*.html"))
    page = _page(browser)
    page.goto((out / "index.html").as_uri())
    assert page.locator("#board-ladder tbody tr").count() >= 4
    assert page.locator("a[href*='signin'], form").count() == 0  # nothing to sign in to
    page.click("#board-ladder tbody tr >> nth=0 >> a.bot")
    assert page.locator("svg.plot").count() >= 1
    page.click("table.matches a >> nth=0")
    page.wait_for_selector("#replay.js")  # the viewer's script has run
    page.keyboard.press("ArrowRight")
    assert page.locator("#replay").get_attribute("data-step") == "1"
    # The markup-named bot of the test above: its page is a file, its name text.
    html = "".join(p.read_text() for p in (out / "bots").glob("*.html"))
    assert XSS not in html
    assert not page.dialogs and not page.errors
