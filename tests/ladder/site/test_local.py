"""A plain tournament database's pages without a browser (tests/ladder/site/plain_db.py makes the file):
the views read it without an arena (its own rules: every name, nothing withheld, the owner sees
everything, a published page no address), ``hearts site build`` writes its site and leaves the file
as it was, the local viewer's page and its JSON come from one data function, bot text stays text,
and the viewer's options go together."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from cli_runner import ok, run
from plain_db import ADDRESS, IMG, SCRIPT, digest, make_plain_db
from starlette.testclient import TestClient

from ladder.arena import views
from ladder.arena.errors import NotFound
from ladder.arena.local import OWNER, LocalState
from ladder.arena.store import has_arena_tables
from ladder.export import match_to_json
from ladder.ratings.leaderboard import load_leaderboard
from ladder.site.local import local_app
from ladder.site.render import replay_steps
from ladder.store import Store
from referee.report import replay_hands

VISITOR = views.VISITOR
PORT = 8123  # the test client's: the app checks the Host it is sent, nothing listens


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return make_plain_db(tmp_path_factory.mktemp("plain"))


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_the_views_read_a_plain_database_as_its_owner(plain: dict[str, Any]) -> None:
    db: Path = plain["db"]
    before = digest(db)
    state = LocalState(db)
    listed = _run(views.matches(state, OWNER, limit=50))
    ids = [m["id"] for m in listed["matches"]]
    assert sorted(ids) == sorted([*plain["tournament"], plain["single"], plain["marked"]])
    assert ids[-1] == plain["marked"], "newest first by their start: the match of 2001 last"
    assert not any(m["withheld"] for m in listed["matches"]) and listed["next"] is None
    one = _run(views.matches(state, OWNER, limit=2))
    rest = _run(views.matches(state, OWNER, limit=50, after=one["next"]))
    assert [m["id"] for m in one["matches"] + rest["matches"]] == ids, "paged by the same order"
    of_t1 = _run(views.matches(state, OWNER, tournament=1))["matches"]
    assert sorted(m["id"] for m in of_t1) == plain["tournament"]
    # The board is hearts ladder's: the same fit of the same matches.
    with Store(db, readonly=True) as store:
        expected = load_leaderboard(store)
        record = store.load_match(plain["tournament"][0])
    board = _run(views.leaderboard(state, OWNER))
    assert [(r["bot"], r["elo"], r["games"]) for r in board["rows"]] == [(r.bot, r.elo, r.games) for r in expected.rows]
    assert board["rules"] == expected.rules == "standard,target=30"
    t1 = _run(views.leaderboard(state, OWNER, tournament=1))
    assert {r["bot"] for r in t1["rows"]} == {"random", "lowest", "heuristic", "low-2"}
    assert [t["id"] for t in _run(views.tournaments(state, OWNER))] == [1]
    assert _run(views.tournament(state, OWNER, 1))["matches"] == 4
    # Every bot by its name, a description as registered.
    names = _run(views.bot_names(state, VISITOR))
    assert {"random", "lowest", "heuristic", "low-2", "r", IMG} <= set(names)
    assert _run(views.bot(state, VISITOR, "random"))["description"] == f"{SCRIPT} picks at random"
    page = _run(views.bot_page(state, VISITOR, IMG))
    assert [m["id"] for m in page.recent] == [plain["marked"]] and page.faults == [("error_status", 1)]
    # The replay's steps are the engine's replay of the record, as the site draws them.
    shown = _run(views.replay(state, OWNER, plain["tournament"][0]))
    assert replay_steps(shown.match, shown.hands) == replay_steps(match_to_json(record), list(replay_hands(record)))
    # An arena's alone: no final, no other board; nothing by a name it does not hold.
    for call in (views.final(state, OWNER), views.leaderboard(state, OWNER, board="final"),
                 views.bot(state, OWNER, "nobody"), views.tournament(state, OWNER, 9),
                 views.leaderboard(state, OWNER, rules="spot")):  # fmt: skip
        with pytest.raises(NotFound):
            _run(call)
    assert views.final_tournament(state) is None
    assert digest(db) == before and not has_arena_tables(db), "only read, never given an arena's tables"


def test_the_owner_sees_where_a_bot_listened_and_a_published_page_does_not(plain: dict[str, Any]) -> None:
    state = LocalState(plain["db"])
    mine = _run(views.match(state, OWNER, plain["marked"]))
    published = _run(views.match(state, VISITOR, plain["marked"]))
    assert mine["seats"][1]["address"] == ADDRESS and ADDRESS in mine["faults"][-1]["detail"]
    assert published["seats"][1]["address"] is None
    assert ADDRESS not in json.dumps(published) and "(address hidden)" in published["faults"][-1]["detail"]
    assert published["faults"][-1]["received"] == SCRIPT  # the rest of a fault as recorded: text


def _links(html: str) -> list[str]:
    return re.findall(r'(?:href|src)="([^"]+)"', html)


def test_hearts_site_build_writes_a_plain_databases_site_and_leaves_the_file(
    plain: dict[str, Any], tmp_path: Path
) -> None:
    db: Path = plain["db"]
    before = digest(db)
    out = tmp_path / "public"
    said = ok("site", "build", "--db", str(db), str(out))
    assert f"written, 0 unchanged, 0 removed in {out}/" in said
    assert digest(db) == before and not has_arena_tables(db)
    for page in ["index.html", "tournaments.html", "tournaments/1.html", "matches.html", "bots/random.html"]:
        assert (out / page).is_file(), page
    every = [plain["single"], plain["marked"], *plain["tournament"]]
    assert {p.stem for p in (out / "matches").glob("*.html")} == set(every)
    assert (out / "bots" / "%3Cimg%20src%3Dx%20onerror%3Dalert%282%29%3E.html").is_file()
    pages = {p.relative_to(out).as_posix(): p.read_text() for p in out.rglob("*.html")}
    for name, html in pages.items():
        # No accounts: nothing to sign in to, no form, no live page; every link leads to a file written.
        assert "signin" not in html and "<form" not in html and not any("live" in x for x in _links(html)), name
        assert SCRIPT not in html and IMG not in html, name
        for link in _links(html):
            if link.startswith(("data:", "?", "#")):
                continue
            target = (out / name).parent / unquote(urlsplit(link).path)
            assert target.resolve().is_file(), (name, link)
        assert ADDRESS not in html, name  # published: no address a bot listened at
    index = pages["index.html"]
    assert all(f'data-bot="{b}"' in index for b in ("random", "lowest", "heuristic", "low-2"))
    assert 'href="tournaments.html"' in index
    assert 'href="tournaments/1.html"' in pages["tournaments.html"]
    t1 = pages["tournaments/1.html"]
    assert all(f'href="../matches/{m}.html"' in t1 for m in plain["tournament"]) and plain["single"] not in t1
    assert "&lt;script&gt;alert(1)&lt;/script&gt; picks at random" in pages["bots/random.html"]
    marked = pages[f"matches/{plain['marked']}.html"]
    assert "&lt;img src=x onerror=alert(2)&gt;" in marked and "\\u003cimg src=x onerror=alert(2)\\u003e" in marked
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in marked  # the fault's text


@pytest.fixture(scope="module")
def client(plain: dict[str, Any]) -> Iterator[TestClient]:
    with TestClient(local_app(LocalState(plain["db"]), PORT), base_url=f"http://127.0.0.1:{PORT}") as c:
        yield c


def test_the_viewer_draws_a_match_and_its_json_from_one_data_function(
    plain: dict[str, Any], client: TestClient
) -> None:
    mid = plain["tournament"][1]
    page = client.get(f"/matches/{mid}")
    assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
    embedded = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page.text, re.S)
    assert embedded is not None
    data = client.get(f"/matches/{mid}.json").json()
    assert json.loads(embedded.group(1)) == {"steps": data["steps"], "names": data["names"]}
    assert data["match"] == _run(views.match(LocalState(plain["db"]), OWNER, mid))
    # Without JavaScript the links step: the server draws ?step=N.
    first = next(p for p in data["match"]["plays"] if p["hand"] == 0)
    at = next(i for i, s in enumerate(data["steps"]) if s["kind"] == "play")
    stepped = client.get(f"/matches/{mid}?step={at}").text
    assert f'data-slot="{first["seat"]}"><span class="card' in stepped and f'data-card="{first["card"]}"' in stepped
    # The owner's own file: every page of it, every name, the address where a bot listened.
    for path in ["/", "/tournaments", "/tournaments/1", "/matches", "/bots/random", "/static/replay.js"]:
        assert client.get(path).status_code == 200, path
    marked = client.get(f"/matches/{plain['marked']}").text
    assert IMG not in marked and "&lt;img src=x onerror=alert(2)&gt;" in marked and ADDRESS in marked
    assert "Sign in" not in client.get("/").text and 'href="/live"' not in client.get("/").text
    assert client.get("/matches/nosuch").status_code == 404 and client.get("/tournaments/x").status_code == 404


def test_the_viewer_answers_only_to_its_own_name_and_only_reads(client: TestClient) -> None:
    for path in ["/", "/matches", "/static/replay.js"]:
        r = client.get(path, headers={"Host": "rebound.example"})
        assert r.status_code == 421 and "<" not in r.text, path
        assert client.get(path, headers={"Host": f"localhost:{PORT}"}).status_code == 200
    assert client.post("/matches").status_code == 405


def test_the_viewers_options_go_with_browser(plain: dict[str, Any]) -> None:
    db, mid = str(plain["db"]), plain["single"]
    for args, why in [
        (["--no-browser"], "--no-browser goes with --browser"),
        (["--port", "8000"], "--port goes with --browser"),
        (["--browser", "--json"], "at most one of --json and --browser"),
    ]:
        r = run("replay", mid, "--db", db, *args)
        assert r.exit_code == 2 and why in r.output, r.output
    r = run("match", "--seat", "a", "--seat", "b", "--seat", "c", "--seat", "d", "--no-browser", "--db", db)
    assert r.exit_code == 2 and "--no-browser goes with --browser" in r.output
    # The terminal replay is as it was.
    assert "Match " + mid in ok("replay", mid[:8], "--db", db)


def test_a_site_built_again_writes_only_what_changed_and_renders_no_replay_twice(
    plain: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from ladder.export import match_from_json
    from ladder.site import pages, static_site

    db = tmp_path / "plain.db"
    shutil.copyfile(plain["db"], db)
    out = tmp_path / "public"
    (out / "notes").mkdir(parents=True)
    (out / "notes" / "mine.txt").write_text("the teacher's own file")
    rendered: list[str] = []
    real = pages.match_page

    async def counted(state: Any, viewer: Any, match_id: str, query: dict[str, str], **kw: Any) -> Any:
        rendered.append(match_id)
        return await real(state, viewer, match_id, query, **kw)

    monkeypatch.setattr(pages, "match_page", counted)
    first = static_site.build_local_site(db, out)
    assert first.written and not first.unchanged and not first.removed
    every = sorted(rendered)
    assert len(every) == 6

    def files() -> dict[str, int]:
        return {p.relative_to(out).as_posix(): p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}

    before = files()
    rendered.clear()
    again = static_site.build_local_site(db, out)
    assert (again.written, again.removed, rendered) == ([], [], [])  # not one replay rendered again
    assert sorted(again.unchanged) == sorted(first.written) and files() == before  # not one file written
    # A new match: its replay, the matches page, the boards and its bots' pages are written; no
    # other replay is rendered again.
    with Store(db) as store:
        obj = match_to_json(store.load_match(plain["single"]))
        obj["match_id"] = "e" * 32
        store.save_match(match_from_json(obj))
    rendered.clear()
    third = static_site.build_local_site(db, out)
    assert rendered == ["e" * 32]
    assert {"matches/" + "e" * 32 + ".html", "matches.html", "index.html"} <= set(third.written)
    assert not any(w.startswith("matches/") and "e" * 32 not in w for w in third.written)
    # A replay changed by hand is built again; --replays 1 removes the last build's other replays,
    # and never the teacher's own file; --full renders every replay again.
    (out / "matches" / f"{plain['single']}.html").write_text("edited")
    rendered.clear()
    assert f"matches/{plain['single']}.html" in static_site.build_local_site(db, out).written
    assert rendered == [plain["single"]]
    fewer = static_site.build_local_site(db, out, replays=1)
    assert len(fewer.removed) == 6 and all(r.startswith("matches/") for r in fewer.removed)
    assert len(list((out / "matches").glob("*.html"))) == 1 and (out / "notes" / "mine.txt").is_file()
    rendered.clear()
    assert static_site.build_local_site(db, out, replays=1, full=True).written == []
    assert len(rendered) == 1


def test_a_plain_databases_matches_of_one_bot_page_by_key(plain: dict[str, Any]) -> None:
    with Store(plain["db"], readonly=True) as store:
        every = store.recent_matches(limit=500)
        mine = [m["id"] for m in every if "random" in {s["bot"] for s in m["seats"]}]
        seen: list[str] = []
        after = None
        while page := store.recent_matches(limit=3, after=after, bots=["random"]):
            seen += [m["id"] for m in page]
            after = page[-1]["id"]
        assert seen == mine and 0 < len(mine) < len(every)
