"""A classroom final played as a Swiss or a knockout (``[classroom] final_format``): the arena's
worker plays it round after round to its end by itself, its rounds drawn by the documented rules
(re-derived here from the seats stored, independently of the arena's read model), its standings
on the API and the site as re-derived, with aliases in an anonymous arena; and an arena SIGKILLed
mid-final and started again finishes it, every match recorded once.

The participants' bots are sample bots served in this process (their versions hosted addresses,
stored valid: these tests are about the final, not the pipeline), at short matches."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from arena_helpers import HOUSE2, Arena, make_arena
from starlette.testclient import TestClient

from clients.bots import make_bot
from clients.sdk import ThreadedBotServer, View, start_in_thread
from ladder.arena.accounts import add_user
from ladder.arena.app import build_app
from ladder.arena.config import ArenaConfig, HouseBot, Limits, load_config
from ladder.arena.store import ArenaStore, VersionStatus
from ladder.arena.worker import ArenaWorker, Ratings, ladder_tournament, start_final, sync_house
from ladder.tournament.knockout import deal_tables, knockout_round, seeding
from ladder.tournament.run import seeding_ratings
from ladder.tournament.standings import SeatResult, standings, table_results
from ladder.tournament.swiss import met_counts, swiss_byes, swiss_tables
from referee.rules import Card

pytestmark = pytest.mark.slow  # bots served, matches played, an arena as a process

RULES = "standard,target=20"
KINDS = [("heuristic", 0), ("lowest", 0), ("random", 1), ("random", 2)]  # deterministic, and two of chance


@dataclass
class Gate:
    """Holds every hosted bot at its next card once the final ``tid`` of database ``db`` has a recorded
    match of its second round (or later): ``held`` is set, and the bot waits for ``release``."""

    db: Path | None = None
    tid: int | None = None
    held: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def check(self) -> None:
        if self.db is None or self.tid is None or self.release.is_set():
            return
        with sqlite3.connect(self.db, timeout=10) as c:
            [(n,)] = c.execute(
                "SELECT COUNT(match_id) FROM tournament_matches WHERE tournament_id = ? AND round >= 1", [self.tid]
            ).fetchall()
        if n:
            self.held.set()
            self.release.wait(120)


def _bot(kind: str, seed: int, gate: Gate) -> Any:
    base = type(make_bot(kind, seed=seed))

    class Gated(base):  # type: ignore[misc, valid-type]
        def play_card(self, view: View) -> Card:
            gate.check()
            return super().play_card(view)  # type: ignore[no-any-return]

    Gated.__name__ = base.__name__
    return Gated(seed=seed)


@pytest.fixture()
def gate() -> Iterator[Gate]:
    g = Gate()
    yield g
    g.release.set()


@pytest.fixture()
def hosted(gate: Gate) -> Iterator[Callable[[int], list[ThreadedBotServer]]]:
    """``hosted(n)``: n sample bots served here, in KINDS's order (each random bot its own seed)."""
    made: list[ThreadedBotServer] = []

    def serve(n: int) -> list[ThreadedBotServer]:
        for i in range(n):
            kind, seed = KINDS[i % len(KINDS)]
            made.append(start_in_thread(_bot(kind, seed + i, gate)))
        return made[-n:]

    yield serve
    gate.release.set()
    for s in made:
        s.stop()


def _participants(db: Path, servers: list[ThreadedBotServer]) -> dict[str, str]:
    """A participant ``pI`` for each server, with a valid version of bot ``pI-bot`` at its address;
    their tokens by name."""
    store = ArenaStore(db)
    try:
        tokens = {}
        for i, srv in enumerate(servers):
            user, tokens[f"p{i}"] = add_user(store, f"p{i}")
            bot_id = store.add_bot(f"p{i}-bot", user.id, f"alias-{i}-x")
            store.add_version(bot_id, user.id, status=VersionStatus.VALID, kind="address", address=srv.address)
        return tokens
    finally:
        store.close()


# -- what the database says, read straight from the file --------------------------------------------


def _q(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db, timeout=10) as c:
        return c.execute(sql, args).fetchall()


def _tables(db: Path, tid: int) -> dict[int, list[tuple[str, ...]]]:
    """Each round's tables as seated in the first rotation of their first deal, by table."""
    out: dict[int, list[tuple[str, ...]]] = defaultdict(list)
    for r, _t, seats in _q(
        db,
        "SELECT round, table_no, seats FROM tournament_matches WHERE tournament_id = ? AND rotation = 0 AND deal = 0 "
        "ORDER BY round, table_no",
        tid,
    ):
        out[r].append(tuple(json.loads(seats)))
    return dict(out)


def _results(db: Path, tid: int) -> list[SeatResult]:
    """Every seat of every recorded match of the final."""
    return [
        SeatResult(r, t, d, bot, score, bool(forfeit), hands)
        for r, t, d, bot, score, forfeit, hands in _q(
            db,
            "SELECT tm.round, tm.table_no, tm.deal, b.name, s.final_score, s.forfeit, "
            "(SELECT COUNT(*) FROM hands h WHERE h.match_id = tm.match_id) FROM tournament_matches tm "
            "JOIN seats s ON s.match_id = tm.match_id JOIN bots b ON b.id = s.bot_id WHERE tm.tournament_id = ?",
            tid,
        )
    ]


def _seeding(db: Path, tid: int) -> list[str]:
    [(settings,)] = _q(db, "SELECT settings FROM tournaments WHERE id = ?", tid)
    return list(json.loads(settings)["seeding"])


def _each_match_once(db: Path, tid: int) -> int:
    [(total, idx, recorded, ids)] = _q(
        db,
        "SELECT COUNT(*), COUNT(DISTINCT idx), COUNT(match_id), COUNT(DISTINCT match_id) FROM tournament_matches "
        "WHERE tournament_id = ?",
        tid,
    )
    assert total == idx == recorded == ids, (total, idx, recorded, ids)
    [(stored,)] = _q(db, "SELECT COUNT(*) FROM matches WHERE id LIKE ?", f"t{tid}-%")
    assert stored == total, "every match of the final is a scheduled one, recorded once"
    assert _q(db, "SELECT status FROM tournaments WHERE id = ?", tid) == [("finished",)]
    return int(total)


def _swiss_derived(db: Path, tid: int, rounds: int, players: int = 4) -> list[Any]:
    """Check each round's tables against the rules (docs/tournaments.md), re-derived from the stored
    seats and results; the final standings."""
    seeded = _seeding(db, tid)
    tables = _tables(db, tid)
    results = _results(db, tid)
    assert sorted(tables) == list(range(rounds)), "every round drawn, and no more"
    byes: dict[str, int] = {}
    for r in range(rounds):
        done = table_results(x for x in results if x.round < r)
        ranked = [s.bot for s in standings(seeded, done, byes, players)]
        sitting_out = swiss_byes(ranked, players, byes)
        field_ = [b for b in ranked if b not in sitting_out]
        if r == 0:
            expected = deal_tables([b for b in seeded if b not in sitting_out], len(field_) // players)
        else:
            met = met_counts([t for earlier in range(r) for t in tables[earlier]])
            expected = swiss_tables(field_, players, met)
        assert tables[r] == expected, f"round {r + 1}"
        for b in sitting_out:
            byes[b] = byes.get(b, 0) + 1
    return standings(seeded, table_results(results), byes, players)


def _knockout_derived(db: Path, tid: int, deals: int, advance: int, players: int = 4) -> list[list[str]]:
    """Check each round's tables against knockout_round of the field re-derived from the stored
    results (docs/tournaments.md: the first ``advance`` of each table by forfeits then points over
    its own deals, a tie by sudden-death points then seed; the byes go on; a short field filled by
    the best of the others, by place, margin, seed; the seeding order kept); each round's field."""
    field_ = _seeding(db, tid)
    tables = _tables(db, tid)
    results = _results(db, tid)
    fields = []
    for r in sorted(tables):
        fields.append(field_)
        plan = knockout_round(field_, players, advance)
        assert tables[r] == list(plan.tables), f"round {r + 1}"
        if plan.final:
            break
        seed_of = {b: i for i, b in enumerate(field_)}
        going = list(plan.byes)
        rest: list[tuple[int, float, int, str]] = []
        for t, seats in enumerate(plan.tables):
            own: dict[str, list[int]] = {b: [0, 0] for b in seats}
            sudden: dict[str, int] = dict.fromkeys(seats, 0)
            hands = 0
            for x in results:
                if x.round == r and x.table == t:
                    if x.deal < deals:
                        own[x.bot][0] += int(x.forfeit)
                        own[x.bot][1] += x.points
                        hands += x.hands if x.bot == seats[0] else 0
                    else:
                        sudden[x.bot] += x.points
            order = sorted(seats, key=lambda b: (own[b][0], own[b][1], sudden[b], seed_of[b]))
            going += order[:advance]
            mean = sum(p for _f, p in own.values()) / len(seats)
            rest += [(i + 1, -(mean - own[b][1]) / hands, seed_of[b], b) for i, b in enumerate(order) if i >= advance]
        going += [b for *_key, b in sorted(rest)][: max(0, players - len(going))]
        field_ = sorted(going, key=seed_of.__getitem__)
    assert knockout_round(fields[-1], players, advance).final, "played to its final table"
    return fields


# -- in this process: the worker plays the final, the API and the site read it -----------------------


def _play_final(root: Path, cfg: ArenaConfig, *, ladder_first: bool = False, events: list[str] | None = None) -> int:
    """Start the final (after the ladder has rated every participant, if ``ladder_first``) and let the
    arena's worker play it to its end; the final's id (and the worker's events in ``events``)."""
    store = ArenaStore(root / "arena.db")
    worker = ArenaWorker(root, cfg)
    try:
        if not ladder_first:
            store.set_meta("paused", "1")  # nothing but the final plays
        worker.start()
        if ladder_first:
            rules, tid = cfg.rules, ladder_tournament(store, cfg)
            # A fit of every match so far is made only once each bot has played one: each poll's fit
            # would otherwise take the CPU the ladder's matches want.
            played = (
                "SELECT COUNT(DISTINCT s.bot_id) FROM seats s JOIN matches m ON m.id = s.match_id "
                "WHERE m.tournament_id = ?"
            )
            _until(
                lambda: (
                    _q(root / "arena.db", played, tid) == [(8,)]
                    and len(seeding_ratings(Ratings().get(store, tid, rules))) == 8
                ),
                180,
                "every bot rated",
            )
            store.set_meta("paused", "1")
            _until(lambda: not worker.playing, 60, "the ladder's batch stopped")
        final = start_final(store, cfg)
        _until(lambda: store.ladder.tournaments.get(final).status == "finished", 300, "the final finished")  # type: ignore[union-attr]
        return final
    finally:
        worker.stop()
        store.close()
        if events is not None:
            events += worker.events


def _until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.1)


def _config(fmt: str, **kw: Any) -> ArenaConfig:
    settings: dict[str, Any] = {
        "rules": RULES,
        "final_format": fmt,
        "final_deals": 1,
        "final_seed": 7,
        "anonymous": True,
        "concurrency": 4,
        "limits": Limits(allow_local_addresses=True),  # the participants' bots are served here
    }
    return ArenaConfig(**{**settings, **kw})


def _arena(root: Path, cfg: ArenaConfig, servers: list[ThreadedBotServer]) -> dict[str, str]:
    """An arena in ``root`` with its organiser, its house bots and a participant for each server;
    the tokens by name ("organiser", "p0", ...)."""
    store = ArenaStore(root / "arena.db")
    try:
        _o, org = add_user(store, "organiser", organiser=True)
        sync_house(store, cfg)
    finally:
        store.close()
    return {"organiser": org, **_participants(root / "arena.db", servers)}


def _shown(root: Path, cfg: ArenaConfig, token: str) -> tuple[dict[str, Any], str]:
    """GET /api/final as the holder of ``token`` sees it, and the site's leaderboard page as a visitor does."""
    with TestClient(build_app(root, cfg, background=False)) as client:
        data = client.get("/api/final", headers={"Authorization": f"Bearer {token}"}).json()
        page = client.get("/").text
    return data, page


class _RowsOf(HTMLParser):
    """The ``data-bot`` of each table row inside the element of id ``section``, in order."""

    def __init__(self, section: str) -> None:
        super().__init__()
        self.section, self.depth = section, 0  # depth: the divs open from the section's own
        self.bots: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if self.depth == 0 and a.get("id") == self.section:
            self.depth = 1
        elif self.depth and tag == "div":
            self.depth += 1
        elif self.depth and tag == "tr" and a.get("data-bot"):
            self.bots.append(str(a["data-bot"]))

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag == "div":
            self.depth -= 1


def _rows(page: str, section: str) -> list[str]:
    parser = _RowsOf(section)
    parser.feed(page)
    return parser.bots


def _aliases(db: Path) -> dict[str, str]:
    """Each participant's ladder name -> the name others see it by."""
    return {f"{n}.v1": f"{a}.v1" for n, a in _q(db, "SELECT name, alias FROM arena_bots WHERE house = 0")}


def test_a_swiss_final_plays_every_round_by_itself_and_shows_its_standings(
    tmp_path: Path, hosted: Callable[[int], list[ThreadedBotServer]]
) -> None:
    # A house bot in the arena, left out of the final: eight participants fill two tables.
    cfg = _config(
        "swiss", final_rounds=3, house=(HouseBot("lowest", command="python -m clients.bots.lowest --port {port}"),)
    )
    tokens = _arena(tmp_path, cfg, hosted(8))
    tid = _play_final(tmp_path, cfg)
    db = tmp_path / "arena.db"
    assert _each_match_once(db, tid) == 3 * 2 * 4  # 3 rounds x 2 tables x 4 rotations of 1 deal
    expected = _swiss_derived(db, tid, rounds=3)
    assert _seeding(db, tid) == [f"p{i}-bot.v1" for i in range(8)], "no ladder ratings: by name"

    data, _page = _shown(tmp_path, cfg, tokens["organiser"])
    assert (data["format"], data["status"], data["matches"], data["scheduled"]) == ("swiss", "finished", 24, 24)
    sw = data["swiss"]
    assert (sw["rounds"], sw["rounds_played"], sw["round_under_way"]) == (3, 3, None)
    assert [
        (s["bot"], s["points"], s["margin"], s["tables"], s["byes"], s["rounds_played"]) for s in sw["standings"]
    ] == [(s.bot, s.score, s.margin, s.tables, s.byes, 3) for s in expected]
    assert [r["tables"] for r in sw["drawn"]] == [[list(t) for t in ts] for ts in _tables(db, tid).values()]

    # p0 in the anonymous arena: her own bot by its name, every other by its alias, on the API and the site.
    aliases = _aliases(db)
    seen, page = _shown(tmp_path, cfg, tokens["p0"])
    shown = {**aliases, "p0-bot.v1": "p0-bot.v1"}
    assert [s["bot"] for s in seen["swiss"]["standings"]] == [shown[s.bot] for s in expected]
    assert [s["mine"] for s in seen["swiss"]["standings"]] == [s.bot == "p0-bot.v1" for s in expected]
    text = json.dumps(seen)
    assert not any(f"p{i}-bot" in text for i in range(1, 8)), "no other participant's name before the reveal"
    # The visitor's page: the standings in order, by alias.
    assert _rows(page, "final-standings") == [aliases[s.bot] for s in expected]
    assert "p1-bot" not in page and "p0-bot" not in page


def test_a_knockout_final_is_seeded_by_the_ladder_and_played_to_its_final_table(
    tmp_path: Path, hosted: Callable[[int], list[ThreadedBotServer]]
) -> None:
    cfg = _config("knockout", final_advance=2)  # no house bot: the ladder among the participants alone
    tokens = _arena(tmp_path, cfg, hosted(8))
    db = tmp_path / "arena.db"
    # Seeded by the ladder's board as the arena shows it when the final is made (the ladder then holds still).
    tid = _play_final(tmp_path, cfg, ladder_first=True)
    store = ArenaStore(db)
    try:
        board = Ratings().get(store, ladder_tournament(store, cfg), cfg.rules)
    finally:
        store.close()
    ratings = seeding_ratings(board)
    names = [f"p{i}-bot.v1" for i in range(8)]
    assert sorted(ratings) == names
    assert _seeding(db, tid) == seeding(names, ratings)
    _each_match_once(db, tid)
    fields = _knockout_derived(db, tid, deals=1, advance=2)
    assert [len(f) for f in fields] == [8, 4]

    data, page = _shown(tmp_path, cfg, tokens["organiser"])
    ko = data["knockout"]
    assert data["status"] == "finished" and ko["round_under_way"] is None and ko["advance"] == 2
    assert data["seeding"] == _seeding(db, tid)
    first, final = ko["rounds"]
    assert first["decided"] and not first["final"] and final["final"] and final["decided"]
    assert sorted(first["going_on"]) == sorted(fields[1]) and set(first["out"]) == set(fields[0]) - set(fields[1])
    for t, table in enumerate(first["tables"]):
        assert table["state"] == "decided"
        assert [r["outcome"] for r in table["rows"]] == ["on", "on", "out", "out"]
        assert {r["bot"] for r in table["rows"]} == set(knockout_round(fields[0], 4, 2).tables[t])
    order = [r["bot"] for r in final["tables"][0]["rows"]]
    assert ko["winner"] == order[0] and ko["placings"][:4] == order
    assert set(ko["placings"]) == set(names)
    # The visitor's page: the bracket, round by round, table by table, each in its order, by alias.
    aliases = _aliases(db)
    assert _rows(page, "final-bracket") == [
        aliases[row["bot"]] for r in ko["rounds"] for table in r["tables"] for row in table["rows"]
    ]
    assert "p1-bot" not in page


def test_a_knockout_final_plays_off_a_tie_by_sudden_death_deals(
    tmp_path: Path, hosted: Callable[[int], list[ThreadedBotServer]]
) -> None:
    """Five copies of one deterministic bot: every table ties (each bot plays each seat of the same
    deal once), so every cut goes to sudden death, three deals, then the seed decides. Round 1: the
    best seed's bye, a table of four sending two on and the next of it to fill the final table."""
    cfg = _config("knockout", rules="standard,target=10")  # short: every match of it ties
    servers = [start_in_thread(_bot("lowest", 0, Gate())) for _ in range(5)]
    try:
        tokens = _arena(tmp_path, cfg, servers)
        tid = _play_final(tmp_path, cfg)
    finally:
        for srv in servers:
            srv.stop()
    db = tmp_path / "arena.db"
    assert _each_match_once(db, tid) == 2 * 4 * (1 + 3)  # two tables of four, each its deal and three more
    names = [f"p{i}-bot.v1" for i in range(5)]
    assert _knockout_derived(db, tid, deals=1, advance=2) == [names, names[:4]]
    data, _page = _shown(tmp_path, cfg, tokens["organiser"])
    first, final = data["knockout"]["rounds"]
    assert first["byes"] == ["p0-bot.v1"] and first["going_on"] == names[:4] and first["out"] == ["p4-bot.v1"]
    [table] = first["tables"]
    assert (table["state"], table["sudden_deaths"]) == ("decided", 3)
    assert [(r["bot"], r["outcome"]) for r in table["rows"]] == [
        ("p1-bot.v1", "on"),
        ("p2-bot.v1", "on"),
        ("p3-bot.v1", "on"),  # not of the table's two, but the best of the others: it fills the final table
        ("p4-bot.v1", "out"),
    ]
    assert len({r["points"] for r in table["rows"]}) == 1, "a tie"
    assert final["tables"][0]["sudden_deaths"] == 3
    assert data["knockout"]["winner"] == "p0-bot.v1" and data["knockout"]["placings"] == names


def test_a_bot_that_cannot_start_holds_the_final_back_and_loses_none_of_it(
    tmp_path: Path, hosted: Callable[[int], list[ThreadedBotServer]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A final whose bot cannot be started (a participant's server down a minute) waits for it and
    plays every match: the ladder's batch is dropped then, never the final's schedule (a round of a
    Swiss is drawn from all of it; a round robin's was lost whole, and the final called finished)."""
    from ladder.arena import worker as arena_worker
    from ladder.bots.launcher import BotStartError

    real = arena_worker.play_tournament
    calls: list[int] = []

    async def down_at_first(store: Any, tid: int, **kw: Any) -> Any:
        calls.append(tid)
        if len(calls) == 1:
            raise BotStartError("p0-bot.v1", "the remote bot did not report SERVING")
        return await real(store, tid, **kw)

    monkeypatch.setattr(arena_worker, "play_tournament", down_at_first)
    monkeypatch.setattr(arena_worker, "FINAL_RETRY_S", 0.2)
    cfg = _config("swiss", final_rounds=2)
    _arena(tmp_path, cfg, hosted(4))
    events: list[str] = []
    tid = _play_final(tmp_path, cfg, events=events)
    assert len(calls) >= 2 and set(calls) == {tid}
    assert _each_match_once(tmp_path / "arena.db", tid) == 2 * 4
    assert any("p0-bot.v1 could not be started; the final waits for it" in e for e in events), events


# -- a real arena, killed mid-final ---------------------------------------------------------------------


def test_an_arena_killed_mid_final_finishes_it_when_started_again(
    tmp_path: Path, arena_factory: list[Arena], gate: Gate, hosted: Callable[[int], list[ThreadedBotServer]]
) -> None:
    a = make_arena(
        tmp_path,
        house=HOUSE2,
        classroom='final_format = "swiss"\nfinal_rounds = 3\nfinal_deals = 1\nfinal_seed = 7\nanonymous = true',
    )
    (a.dir / "arena.toml").write_text((a.dir / "arena.toml").read_text().replace("target=30", "target=20"))
    arena_factory.append(a)
    db = a.dir / "arena.db"
    _participants(db, hosted(6))  # six: a table and two byes each round
    store = ArenaStore(db)
    try:  # made before the arena starts (as POST /api/admin/final makes it): it plays nothing else first
        tid = start_final(store, load_config(a.dir))
    finally:
        store.close()
    gate.db, gate.tid = db, tid
    a.serve()
    # The bots hold the final at their next card once a match of round 2 is recorded: killed there.
    assert gate.held.wait(120), "a match of round 2 recorded"
    a.kill()
    gate.release.set()
    [(status, done, total)] = _q(
        db, "SELECT status, (SELECT COUNT(match_id) FROM tournament_matches WHERE tournament_id = ?), "
        "(SELECT COUNT(*) FROM tournament_matches WHERE tournament_id = ?) FROM tournaments WHERE id = ?",
        tid, tid, tid,
    )  # fmt: skip
    assert status == "running" and 4 < done < total, (status, done, total)
    before = dict(
        _q(db, "SELECT idx, match_id FROM tournament_matches WHERE tournament_id = ? AND match_id IS NOT NULL", tid)
    )

    a.serve()
    a.wait_for(a.organiser, lambda f: f["status"] == "finished", timeout=180, path="/api/final")
    assert _each_match_once(db, tid) == 3 * 4
    after = dict(_q(db, "SELECT idx, match_id FROM tournament_matches WHERE tournament_id = ?", tid))
    assert all(after[i] == m for i, m in before.items()), "every match recorded before the kill is kept as it was"
    expected = _swiss_derived(db, tid, rounds=3)
    with a.client(a.organiser) as c:
        sw = c.get("/api/final").json()["swiss"]
    assert [(s["bot"], s["points"], s["margin"], s["byes"]) for s in sw["standings"]] == [
        (s.bot, s.score, s.margin, s.byes) for s in expected
    ]
    assert sum(s["byes"] for s in sw["standings"]) == 3 * 2
