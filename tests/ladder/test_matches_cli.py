"""``hearts matches`` lists the recorded matches by the ids ``hearts replay`` takes, and every way to
a replay (a finished match, a replay error) names them. Real sample bots on loopback, real SQLite
files in tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_procs import FAST
from cli_runner import ok, run

from clients.sdk import ThreadedBotServer
from ladder.store import Store


@pytest.mark.slow
def test_matches_lists_ids_seats_scores_and_winners(self_play_db: Path) -> None:
    out = ok("matches", "--db", str(self_play_db))
    with Store(self_play_db) as store:
        recorded = store.list_matches()
    assert len(recorded) == 3
    for m in recorded:
        assert m.match_id in out  # whole, never wrapped: it is what hearts replay takes
        assert f"{m.bots[0]} {m.scores[0]} ({m.places[0]})" in out
    assert "target=30" in out and "replay one with: hearts replay ID" in out
    assert "rnd" in out and "heur" in out
    one = ok("matches", "--db", str(self_play_db), "--limit", "1")
    assert recorded[0].match_id in one and recorded[2].match_id not in one and "--limit N shows more" in one
    result = run("matches", "--db", str(self_play_db), "--tournament", "9")
    assert result.exit_code == 1
    assert f"no tournament 9 in {self_play_db} (hearts tournament list --db {self_play_db})" in result.output
    missing = run("matches", "--db", str(self_play_db.with_name("none.db")))
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_replay_errors_point_to_hearts_matches(self_play_db: Path) -> None:
    result = run("replay", "zzz", "--db", str(self_play_db))
    assert result.exit_code == 1
    assert f"no match 'zzz' in {self_play_db}: list them with hearts matches --db {self_play_db}" in result.output
    empty = run("replay", " ", "--db", str(self_play_db))  # a blank id names no match, even in a one-match file
    assert empty.exit_code == 1
    assert "no match id given" in empty.output and f"hearts matches --db {self_play_db}" in empty.output


def test_the_replay_command_after_a_match_is_one_unwrapped_line(
    sample_servers: dict[str, ThreadedBotServer], tmp_path: Path
) -> None:
    db = tmp_path / "a-rather-long-directory-name-to-pass-eighty-columns" / "arena.db"
    db.parent.mkdir()
    seats = [
        f"rnd={sample_servers['random'].address}",
        f"low={sample_servers['lowest'].address}",
        f"heur={sample_servers['heuristic'].address}",
        f"low-2={sample_servers['lowest'].address}",
    ]
    out = ok("match", *[x for s in seats for x in ("--seat", s)], "--rules", FAST, "--seed", "4", "--db", str(db))
    with Store(db) as store:
        (m,) = store.list_matches()
    line = f"  hearts replay {m.match_id} --db {db}"
    assert len(line) > 80 and line in out.splitlines()
