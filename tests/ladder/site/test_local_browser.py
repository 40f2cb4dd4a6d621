"""A plain tournament database in a real Chromium, no arena (tests/ladder/site/plain_db.py makes the
file): ``hearts replay MATCH_ID --browser --no-browser`` and ``hearts match ... --browser --no-browser``
through the real command serve a replay viewer that steps through the match with the keyboard and
shows the recorded cards, that fits a phone, and that stops at Ctrl-C; ``hearts site build`` of the
file writes pages that open from the disk, bot text shown as text."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from plain_db import IMG, RULES, SCRIPT, SINGLE, expected_hand, make_plain_db

from ladder.export import match_to_json
from ladder.store import Store

pytestmark = pytest.mark.slow  # whole processes, servers and a browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return make_plain_db(tmp_path_factory.mktemp("plain"))


def _record(db: Path, match_id: str) -> dict[str, Any]:
    with Store(db, readonly=True) as store:
        return match_to_json(store.load_match(match_id))


def _page(browser: Any, **options: Any) -> Any:
    page = browser.new_context(**(options or {"viewport": {"width": 1200, "height": 900}})).new_page()
    page.dialogs = []  # any alert() would land here: none may
    page.errors = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


class Viewer:
    """A ``hearts`` command serving the replay viewer: its process and the address it printed.

    Its output is read by one thread from the start to the end, line by line: reading some lines in
    this thread and the rest with ``communicate`` would lose what the first reads had buffered."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ladder.cli", *args, "--browser", "--no-browser"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        self.said: list[str] = []
        self._address: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        url = self._address.get(timeout=60)
        if url is None:
            pytest.fail(f"no address printed:\n{''.join(self.said)}")
        self.url = url

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.said.append(line)
            if line.strip().startswith("http://127.0.0.1:"):
                self._address.put(line.strip())
        self._address.put(None)  # the end: no (further) address

    def stop(self) -> tuple[int, str]:
        """Ctrl-C, as a person stops it: its exit code and everything it printed."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(timeout=60)
        self._reader.join(timeout=30)
        return code, "".join(self.said)


@pytest.fixture()
def viewers() -> Iterator[list[Viewer]]:
    started: list[Viewer] = []
    yield started
    for v in started:
        if v.proc.poll() is None:
            v.proc.kill()
            v.proc.wait(30)


def _hand_shown(page: Any, seat: int) -> set[str]:
    return set(page.locator(f".seat-area[data-seat='{seat}'] .hand .card").evaluate_all(
        "els => els.map(e => e.getAttribute('data-card'))"))  # fmt: skip


def _table_shown(page: Any, seat: int) -> str | None:
    c = page.locator(f".felt .slot[data-slot='{seat}'] .card")
    return c.get_attribute("data-card") if c.count() else None


def _steps_through(page: Any, record: dict[str, Any]) -> None:
    """The replay on ``page`` shows ``record``'s deal, then each card as played, stepped by the keyboard."""
    page.wait_for_selector("#replay.js")  # the viewer's script has run
    seats = len(record["seats"])
    h0 = record["hands"][0]
    for s in range(seats):
        assert _hand_shown(page, s) == set(h0["deal"][s])
    passes = 1 if h0["passes"] else 0
    plays0 = [p for p in record["plays"] if p["hand"] == 0]
    for _ in range(passes + 1):
        page.keyboard.press("ArrowRight")
    assert page.locator("#replay").get_attribute("data-step") == str(passes + 1)
    assert _table_shown(page, plays0[0]["seat"]) == plays0[0]["card"]
    for s in range(seats):
        assert _hand_shown(page, s) == expected_hand(record, 0, s, 1)
    for _ in range(10):
        page.keyboard.press("ArrowRight")
    p11 = plays0[10]
    assert _table_shown(page, p11["seat"]) == p11["card"]
    for s in range(seats):
        assert _hand_shown(page, s) == expected_hand(record, 0, s, 11)
    assert page.locator("#caption").text_content().endswith({"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[p11["card"][-1]])
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    assert _table_shown(page, plays0[7]["seat"]) == plays0[7]["card"]
    for s in range(seats):
        assert _hand_shown(page, s) == expected_hand(record, 0, s, 8)
    # One seat's view: the others' cards face down.
    page.click(".views a[data-view='1']")
    assert page.locator(".seat-area[data-seat='0'] .hand .card.back").count() == len(expected_hand(record, 0, 0, 8))
    assert _hand_shown(page, 1) == expected_hand(record, 0, 1, 8)
    # End: the last hand scored, as recorded; Home: the deal again.
    steps = int(page.locator("#replay").get_attribute("data-steps"))
    page.keyboard.press("End")
    assert page.locator("#replay").get_attribute("data-step") == str(steps - 1)
    last = record["hands"][-1]
    totals = [int(t) for t in page.locator(".seat-area .total").all_text_contents()]
    assert totals == list(last["totals"])
    page.keyboard.press("Home")
    assert page.locator("#replay").get_attribute("data-step") == "0"
    # Space plays: the next step comes without a key (waited for, not slept on); space pauses.
    page.keyboard.press(" ")
    page.wait_for_function("() => document.getElementById('replay').getAttribute('data-step') !== '0'")
    page.keyboard.press(" ")
    assert page.locator("#play").text_content().strip() == "▶ play"
    rows = page.locator("table.scores tbody tr")
    assert rows.count() == len(record["hands"])


def test_hearts_replay_browser_serves_a_viewer_that_steps_through_the_match(
    plain: dict[str, Any], browser: Any, viewers: list[Viewer]
) -> None:
    db, mid = plain["db"], plain["tournament"][2]
    viewer = Viewer("replay", mid, "--db", str(db))
    viewers.append(viewer)
    assert viewer.url.endswith(f"/matches/{mid}")
    page = _page(browser)
    page.goto(viewer.url)
    _steps_through(page, _record(db, mid))
    # A click away: the bot, the tournament, the file's ladder, as the owner's pages.
    page.click(".seat-area[data-seat='0'] .who a.bot")
    assert page.locator("h1").first.text_content().strip() == _record(db, mid)["seats"][0]["bot"]
    page.click("header.top a >> text=Tournaments")
    page.click("table.tournaments tr[data-tournament='1'] a")
    assert page.locator("#board-tournament tbody tr[data-bot]").count() == 4
    assert not page.dialogs and not page.errors
    # A phone: the page fits, the replay's buttons a finger high.
    phone = _page(browser, **PHONE)
    phone.goto(viewer.url)
    phone.wait_for_selector("#replay.js")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    heights = phone.locator(".controls .btn").evaluate_all("els => els.map(e => e.getBoundingClientRect().height)")
    assert heights and min(heights) >= 40, heights
    phone.keyboard.press("ArrowRight")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    code, said = viewer.stop()
    assert code == 0 and said.rstrip().endswith("stopped"), said


def test_a_bots_text_of_markup_is_text_in_the_viewer(
    plain: dict[str, Any], browser: Any, viewers: list[Viewer]
) -> None:
    viewer = Viewer("replay", plain["marked"][:8], "--db", str(plain["db"]))  # a unique prefix will do
    viewers.append(viewer)
    page = _page(browser)
    page.goto(viewer.url)
    page.wait_for_selector("#replay.js")
    assert IMG in page.locator(".seat-area[data-seat='1'] .who").text_content()
    assert SCRIPT in page.locator("table.faults").text_content()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.goto(viewer.url.rsplit("/matches/", 1)[0] + "/bots/random")
    assert SCRIPT in page.locator("p.description").text_content()
    assert page.locator("img[src=x], script:not([src])").count() == 0
    assert not page.dialogs and not page.errors
    viewer.stop()


def test_hearts_match_browser_opens_the_match_it_recorded(tmp_path: Path, browser: Any, viewers: list[Viewer]) -> None:
    db = tmp_path / "mine.db"
    viewer = Viewer("match", *SINGLE, "--rules", RULES, "--seed", "11", "--db", str(db))
    viewers.append(viewer)
    said = "".join(viewer.said)
    assert "recorded in" in said and "hearts replay" in said
    mid = viewer.url.rsplit("/", 1)[1]
    record = _record(db, mid)
    assert [s["bot"] for s in record["seats"]] == ["r", "l", "h", "l2"]
    page = _page(browser)
    page.goto(viewer.url)
    _steps_through(page, record)
    assert not page.dialogs and not page.errors
    code, said = viewer.stop()
    assert code == 0, said


def test_hearts_site_build_of_a_plain_database_opens_from_the_disk(
    plain: dict[str, Any], browser: Any, tmp_path: Path
) -> None:
    out = tmp_path / "public"
    r = subprocess.run(
        [sys.executable, "-m", "ladder.cli", "site", "build", "--db", str(plain["db"]), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert r.returncode == 0, r.stderr
    page = _page(browser)
    page.goto((out / "index.html").as_uri())
    # The ladder of the file's ruleset over every match: the tournament's four bots and the single matches'.
    shown = page.locator("#board-ladder tbody tr[data-bot]").evaluate_all("els => els.map(e => e.dataset.bot)")
    assert set(shown) == {"random", "lowest", "heuristic", "low-2", "r", "l", "h", "l2", IMG}
    assert page.locator("a[href*='signin'], form, a[href*='live']").count() == 0  # nothing to sign in to
    page.click("header.top a >> text=Tournaments")
    page.click("table.tournaments tr[data-tournament='1'] a")
    assert page.locator("#board-tournament tbody tr[data-bot]").count() == 4
    page.click("table.matches a >> nth=0")
    mid = Path(page.url).stem
    _steps_through(page, _record(plain["db"], mid))
    page.goto((out / "matches.html").as_uri())
    page.click(f"table.matches a >> text={plain['marked']}")
    page.wait_for_selector("#replay.js")
    assert IMG in page.locator(".seat-area[data-seat='1'] .who").text_content()
    page.click(".seat-area[data-seat='1'] .who a.bot")  # the bot of markup has its page too
    assert page.locator("h1").first.text_content().strip() == IMG
    page.goto((out / "bots" / "random.html").as_uri())
    assert SCRIPT in page.locator("p.description").text_content()
    assert page.locator("img[src=x], script:not([src])").count() == 0
    assert not page.dialogs and not page.errors
    phone = _page(browser, **PHONE)
    for name in ["index.html", "tournaments.html", "tournaments/1.html", f"matches/{mid}.html"]:
        phone.goto((out / name).as_uri())
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390, name
