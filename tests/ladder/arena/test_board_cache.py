"""The arena keeps each fitted board in its database: a restarted arena answers its first reader from
it without fitting, a reader never waits for a fit another thread is making, and the board is fitted
again as soon as matches come in (for the worker, which takes no board older than the matches)."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
import ladder.arena.worker as worker_module  # noqa: E402
from bench.arena import build  # noqa: E402  (a database of synthetic recorded matches, in a second)
from ladder.arena.store import ArenaStore  # noqa: E402
from ladder.arena.worker import BOARD_KEY, Ratings, ladder_tournament, saved_board  # noqa: E402


@pytest.fixture()
def arena(tmp_path: Path) -> tuple[ArenaStore, int, str]:
    cfg, _token, _s = build(tmp_path, 300, 12, seed=3)
    store = ArenaStore(tmp_path / "arena.db")
    yield store, ladder_tournament(store, cfg), cfg.rules
    store.close()


def _no_fit(*_a: object, **_k: object) -> None:
    raise AssertionError("fitted, where the saved board was to be shown")


def test_a_restarted_arena_shows_the_saved_board_without_fitting(
    arena: tuple[ArenaStore, int, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, tid, rules = arena
    first = Ratings().get(store, tid, rules)
    assert first.matches == 300 and len(first.rows) == 12
    assert store.get_meta(f"{BOARD_KEY}{tid}") is not None
    monkeypatch.setattr(worker_module, "load_leaderboard", _no_fit)
    again = Ratings().get(store, tid, rules)  # a new process's cache: empty
    assert [(r.bot, r.elo, r.ci95, r.games) for r in again.rows] == [
        (r.bot, r.elo, r.ci95, r.games) for r in first.rows
    ]
    assert again.matches == first.matches and again.rules == first.rules


def test_a_reader_is_shown_the_board_before_while_a_fit_is_made_and_the_worker_fits(
    arena: tuple[ArenaStore, int, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, tid, rules = arena
    Ratings().get(store, tid, rules)
    # The recorded matches change (one taken out of the tournament): the saved board no longer fits.
    gone = f"t{tid}-000299"
    store.db.execute("UPDATE matches SET tournament_id = NULL WHERE id = ?", [gone])
    store.db.execute("UPDATE tournament_matches SET match_id = NULL WHERE match_id = ?", [gone])
    store.db.conn.commit()
    ratings = Ratings()
    fitting = ratings._fitting.setdefault(tid, threading.Lock())
    with fitting:  # another thread is fitting
        stale = ratings.get(store, tid, rules, max_age=1e9)
        assert stale.matches == 300
        shown = ratings.get(store, tid, rules, max_age=1e-9)  # older than the reader takes, and still shown
        assert shown.matches == 300
    fitted = ratings.get(store, tid, rules)  # the worker's: no board older than the matches
    assert fitted.matches == 299
    monkeypatch.setattr(worker_module, "load_leaderboard", _no_fit)
    assert Ratings().get(store, tid, rules).matches == 299, "the new fit is the one saved"


def test_a_saved_board_of_another_shape_is_fitted_again(arena: tuple[ArenaStore, int, str]) -> None:
    store, tid, rules = arena
    store.set_meta(f"{BOARD_KEY}{tid}", '{"rows": [{"bot": 1}]}')
    assert saved_board(store, tid) is None
    assert Ratings().get(store, tid, rules).matches == 300


def test_a_reader_of_a_stale_board_is_answered_at_once_and_the_board_is_fitted_behind_it_from_its_ratings(
    arena: tuple[ArenaStore, int, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, tid, rules = arena
    ratings = Ratings(behind_from=0)  # every board counts as big (fitted in this process all the same)
    before = ratings.get(store, tid, rules)
    gone = f"t{tid}-000299"  # the recorded matches change: the board no longer fits them
    store.db.execute("UPDATE matches SET tournament_id = NULL WHERE id = ?", [gone])
    store.db.execute("UPDATE tournament_matches SET match_id = NULL WHERE match_id = ?", [gone])
    store.db.conn.commit()
    real = worker_module.load_leaderboard
    may_fit, starts = threading.Event(), []

    def held_fit(*args: object, **kwargs: object) -> object:
        starts.append(kwargs["start"])
        assert may_fit.wait(60), "the test never let the fit go on"
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(worker_module, "load_leaderboard", held_fit)
    answered: list[object] = []

    def read() -> None:  # a web reader: its own thread, its own connection
        own = ArenaStore(store.ladder.path)
        answered.append(ratings.get(own, tid, rules, max_age=1e-9))
        own.close()

    reader = threading.Thread(target=read)
    reader.start()
    reader.join(60)  # the fit behind it is held: a reader that waited for it would still be waiting
    assert not reader.is_alive() and answered == [before]
    for _ in range(6000):  # until the fit behind it has begun (holding the board's lock)
        if starts:
            break
        time.sleep(0.01)
    may_fit.set()
    with ratings._fitting[tid]:  # waits for that fit's end
        pass
    assert starts == [{r.bot: r.elo for r in before.rows}], "the refit searched from the board before's ratings"
    monkeypatch.setattr(worker_module, "load_leaderboard", _no_fit)
    assert ratings.get(store, tid, rules, max_age=1e9).matches == 299
    assert Ratings().get(store, tid, rules).matches == 299, "and saved"


def test_a_big_board_is_fitted_in_a_process_apart_and_is_the_same_board(arena: tuple[ArenaStore, int, str]) -> None:
    store, tid, rules = arena
    here = Ratings().get(store, tid, rules)
    store.set_meta(f"{BOARD_KEY}{tid}", "{}")  # no saved board: the next one fits
    apart = Ratings(apart_from=0)  # every board counts as big
    try:
        board = apart.get(store, tid, rules)
        assert apart._pool is not None, "fitted in the pool's process"
        assert [(r.bot, r.elo, r.ci95, r.games) for r in board.rows] == [
            (r.bot, r.elo, r.ci95, r.games) for r in here.rows
        ]
    finally:
        apart.close()
    assert apart._pool is None


def test_a_reader_of_a_small_stale_board_is_shown_it_fitted_again(arena: tuple[ArenaStore, int, str]) -> None:
    store, tid, rules = arena
    ratings = Ratings()
    assert ratings.get(store, tid, rules).matches == 300
    gone = f"t{tid}-000299"
    store.db.execute("UPDATE matches SET tournament_id = NULL WHERE id = ?", [gone])
    store.db.execute("UPDATE tournament_matches SET match_id = NULL WHERE match_id = ?", [gone])
    store.db.conn.commit()
    assert ratings.get(store, tid, rules, max_age=1e-9).matches == 299  # fitted for this reader
