"""The arena's match list is paged by keys: each page the newest matches before the last of the page
before, every match once, each with all its seats, and the tournaments asked for only."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from bench.arena import build  # noqa: E402  (a database of synthetic recorded matches, in a second)
from ladder.arena.store import ArenaStore  # noqa: E402
from ladder.arena.worker import ladder_tournament  # noqa: E402


def test_pages_by_key_reach_every_match_once_newest_first(tmp_path: Path) -> None:
    cfg, _token, _s = build(tmp_path, 250, 12, seed=5)
    store = ArenaStore(tmp_path / "arena.db")
    try:
        tid = ladder_tournament(store, cfg)
        seen: list[str] = []
        after = None
        while page := store.match_page([tid], after=after, limit=70):
            assert len(page) <= 70 and all(len(m["seats"]) == 4 for m in page)
            seen += [m["id"] for m in page]
            after = page[-1]["id"]
        everything = [r[0] for r in store.db.execute("SELECT id FROM matches WHERE tournament_id = ?", [tid])]
        assert seen == sorted(everything, reverse=True) and len(seen) == 250
        assert store.match_page([tid + 1], after=None, limit=70) == []  # another tournament's: none
    finally:
        store.close()


def test_a_bots_pages_by_key_reach_every_match_it_played_once(tmp_path: Path) -> None:
    cfg, _token, _s = build(tmp_path, 250, 12, seed=6)
    store = ArenaStore(tmp_path / "arena.db")
    try:
        tid = ladder_tournament(store, cfg)
        two = [r[0] for r in store.db.execute("SELECT name FROM bots ORDER BY name LIMIT 2")]
        played = {
            r[0]
            for r in store.db.execute(
                "SELECT s.match_id FROM seats s JOIN bots b ON b.id = s.bot_id WHERE b.name IN (?, ?)", two
            )
        }
        seen: list[str] = []
        after = None
        while page := store.match_page([tid], after=after, limit=30, bots=two):
            assert all(set(two) & {s["bot"] for s in m["seats"]} for m in page)
            seen += [m["id"] for m in page]
            after = page[-1]["id"]
        assert seen == sorted(played, reverse=True) and 30 < len(seen) < 250
        assert store.match_page([tid], after=None, limit=30, bots=[]) == []
    finally:
        store.close()
