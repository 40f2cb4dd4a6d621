"""The table's server under attack, over real HTTP to the real ``hearts play``: whoever lacks the
table's key, names another host, posts from another origin or as a form, sends too much or no JSON,
answers out of turn or with a card not held, or opens stream after stream is refused, and the
person's match goes on and is recorded. And the options a person can get wrong say what to do."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from cli_runner import run
from play_helpers import Table

from ladder.store import Store
from ladder.table.table import KEY_HEADER, MAX_BODY, MAX_PAGES

pytestmark = pytest.mark.slow  # whole processes and servers


def _events(client: httpx.Client, t: Table, until: str, after: int = 0) -> list[dict[str, Any]]:
    """The events pushed to a page, read from the stream until one of type ``until``."""
    out: list[dict[str, Any]] = []
    with client.stream("GET", f"{t.base}/events?key={t.key}&after={after}", timeout=30) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if line.startswith("data: "):
                out.append(json.loads(line[6:]))
                if out[-1]["type"] == until:
                    return out
    raise AssertionError(f"the stream ended before a {until!r} event")


def _post(client: httpx.Client, t: Table, path: str, body: Any, **headers: str) -> httpx.Response:
    return client.post(
        f"{t.base}{path}",
        content=json.dumps(body),
        headers={"Content-Type": "application/json", KEY_HEADER: t.key, **headers},
    )


def test_whoever_lacks_the_key_names_another_host_or_posts_from_elsewhere_is_refused(table: Any) -> None:
    """Without the key (or with a wrong one) nothing but the page's own files is served; a request
    naming another host (a site that rebinds its name to 127.0.0.1) is refused even with the key; a
    POST from another origin, or not JSON (a plain form), is refused; none of them starts the match."""
    t: Table = table("--rules", "standard,target=1", "--seed", "3", "--name", "ann")
    with httpx.Client() as c:
        assert c.get(f"{t.base}/").status_code == 200  # the page itself holds nothing
        page = c.get(f"{t.base}/")
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert page.headers["referrer-policy"] == "no-referrer"
        assert c.get(f"{t.base}/static/play.js").status_code == 200
        assert c.get(f"{t.base}/static/../table.py").status_code == 404
        for path in ("/events", "/events?key=wrong"):
            r = c.get(f"{t.base}{path}")
            assert r.status_code == 403 and "the table's key" in r.json()["reason"]
        for path in ("/start", "/answer", "/deal"):
            assert _post(c, t, path, {}, **{KEY_HEADER: "wrong"}).status_code == 403
        port = t.base.rsplit(":", 1)[1]
        rebound = c.get(f"{t.base}/events?key={t.key}", headers={"Host": f"evil.example:{port}"})
        assert rebound.status_code == 421
        assert _post(c, t, "/start", {}, Host=f"evil.example:{port}").status_code == 421
        assert _post(c, t, "/start", {}, Origin="http://evil.example").status_code == 403
        form = c.post(f"{t.base}/start", content="a=1", headers={KEY_HEADER: t.key, "Content-Type": "text/plain"})
        assert form.status_code == 415
        # None of that started the match: the table still waits for its person.
        events = _events(c, t, "ready")
        assert [e["type"] for e in events] == ["ready"]
        # The person's own start, with the key, from the table's origin, does.
        assert _post(c, t, "/start", {}, Origin=t.base).json() == {"ok": True}
        assert _events(c, t, "ask", after=1)[-1]["rpc"] == "PassCards"


def test_hostile_bodies_and_answers_are_refused_and_the_match_goes_on(table: Any) -> None:
    """Bodies past the limit, bodies that are no JSON or nest without end, answers to a decision that
    is over, cards the person does not hold: each is refused with what to do, the decision stays
    open, and the person's real answers then play the match to its record."""
    t: Table = table("--rules", "standard,target=1", "--seed", "3", "--name", "ann", "--away", "60")
    json_headers = {"Content-Type": "application/json", KEY_HEADER: t.key}
    with httpx.Client(timeout=30) as c, c.stream("GET", f"{t.base}/events?key={t.key}") as stream:
        assert _post(c, t, "/start", {}).status_code == 200
        hostile = True
        for line in stream.iter_lines():
            if not line.startswith("data: "):
                continue
            e = json.loads(line[6:])
            if e["type"] == "hold":
                _post(c, t, "/deal", {})
            if e["type"] == "notify" and "match_over" in e["notify"]:
                break
            if e["type"] != "ask":
                continue
            view = e["request"]["view"]
            if hostile:
                hostile = False
                big = c.post(f"{t.base}/answer", content=b"{" + b" " * MAX_BODY + b"}", headers=json_headers)
                assert big.status_code == 400 and f"at most {MAX_BODY} bytes" in big.json()["reason"]
                deep = c.post(f"{t.base}/answer", content="[" * 5000 + "]" * 5000, headers=json_headers)
                assert deep.status_code == 400
                junk = c.post(f"{t.base}/answer", content=b"\xff\xfe", headers=json_headers)
                assert junk.status_code == 400 and "no JSON" in junk.json()["reason"]
                assert _post(c, t, "/answer", ["no"]).status_code == 400
                stale = _post(c, t, "/answer", {"id": e["id"] + 7, "answer": {"cards": []}})
                assert stale.status_code == 409 and "that decision is over" in stale.json()["reason"]
                absent = next(f"CARD_ACE_OF_{x}" for x in ("SPADES", "HEARTS", "CLUBS", "DIAMONDS")
                              if f"CARD_ACE_OF_{x}" not in view["hand"])  # fmt: skip
                wrong = _post(c, t, "/answer", {"id": e["id"], "answer": {"cards": [absent, *view["hand"][:2]]}})
                assert wrong.status_code == 409 and "not in its hand" in wrong.json()["reason"]
            answer = {"cards": view["hand"][:3]} if e["rpc"] == "PassCards" else {"card": view["legal_cards"][0]}
            assert _post(c, t, "/answer", {"id": e["id"], "answer": answer}).json() == {"ok": True}
    assert t.run.wait(60) == 0, t.run.output()
    with Store(t.db, readonly=True) as store:
        (mid,) = list(store.match_ids())
        record = store.load_match(mid)
    assert record.seats[0].kind == "human" and not record.faults


def test_stream_after_stream_is_refused_past_the_limit(table: Any) -> None:
    """A program with the key that opens stream after stream holds at most ``MAX_PAGES`` of them."""
    t: Table = table("--rules", "standard,target=1", "--seed", "3", "--name", "ann")

    async def flood() -> tuple[list[int], int, str]:
        async with httpx.AsyncClient(timeout=30) as c:
            streams = [c.stream("GET", f"{t.base}/events?key={t.key}") for _ in range(MAX_PAGES)]
            opened = [await s.__aenter__() for s in streams]
            try:
                extra = await c.get(f"{t.base}/events?key={t.key}")
                return [r.status_code for r in opened], extra.status_code, extra.json()["reason"]
            finally:
                for s in streams:
                    await s.__aexit__(None, None, None)

    codes, extra, reason = asyncio.run(flood())
    assert codes == [200] * MAX_PAGES and extra == 429 and "close one" in reason


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--seat", "heuristic"], "seat 4 players: you and 3 bots; give --seat 3 times"),
        (["--name", "a b<i>"], "bot name 'a b<i>' is not allowed"),
        (["--name", "lowest"], "'lowest' is a bot at this table: give yourself another name"),
        (["--seat", "nobody", "--seat", "lowest", "--seat", "random"], "seat 'nobody': no bot of that name"),
        (["--clock", "0"], "--clock"),
        (["--tui"], "--tui needs a terminal"),
        (["--people", "2", "--seat", "heuristic"], "seat 4 players: 2 people and 2 bots; give --seat 2 times"),
        (["--people", "5"], "seat 4 players: --people 5 is too many"),
        (["--people", "2", "--name", "ann", "--name", "ann"], "'ann' sits at this table twice"),
        (["--name", "ann", "--name", "bob"], "--name given 2 times for 1 person"),
        (["--people", "2", "--tui"], "--tui seats one person"),
    ],
)
def test_options_a_person_gets_wrong_say_what_to_do(table: Any, tmp_path: Any, args: list[str], says: str) -> None:
    r = run("play", "--no-browser", "--db", str(tmp_path / "arena.db"), *args)
    assert r.exit_code == 2 and says in " ".join(r.output.split()), r.output


def test_the_terminal_shows_both_of_a_seats_cards_in_a_boosted_trick() -> None:
    """002 Booster Nines: a trick that goes round twice holds two cards of each seat; the terminal's table
    shows both beside the seat (one card a seat, the second would hide the first)."""
    import io

    from rich.console import Console

    from ladder.table.tui import Terminal

    out = io.StringIO()
    t = Terminal(None, None, Console(file=out, width=100, force_terminal=False), -1)  # type: ignore[arg-type]
    t.names, t.rules, t.scores = ["me", "b", "c", "d"], {"players": 4}, [0, 0, 0, 0]
    # Seat 1 led the nine of clubs; every seat played once, then seat 1 again, then seat 2.
    names = ["NINE_OF_CLUBS", "TWO_OF_CLUBS", "KING_OF_CLUBS", "FOUR_OF_CLUBS", "ACE_OF_CLUBS", "THREE_OF_CLUBS"]
    t.trick = (1, [f"CARD_{n}" for n in names])
    t.draw()
    rows = {line.split()[0]: line.split()[3:] for line in out.getvalue().splitlines() if "points" in line}
    assert rows == {"you": ["4♣"], "b": ["9♣", "A♣"], "c": ["2♣", "3♣"], "d": ["K♣"]}, rows
