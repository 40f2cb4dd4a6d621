"""Old bots and new RPCs, through the real ``hearts`` command and real gRPC bot processes.

A bot written before Turbo Hearts (generated code that leaves ChargeCards out, so gRPC answers
UNIMPLEMENTED; a handshake of protocol 1 naming no presets) plays a turbo match without a fault: it
charges nothing, and the match says so in one note, which ``hearts replay`` shows; ``hearts validate``
checks it on what protocol 1 knew, as its handshake claims, not on every preset played today.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_procs import BOTS_DIR, SAMPLE, hearts, query

from hearts.v1 import codec
from referee.rules import Rules

BEFORE_TURBO = f"python {BOTS_DIR / 'before_turbo.py'} {{port}}"


def test_a_bot_written_before_turbo_plays_a_turbo_match_without_a_fault_and_one_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: ChargeCards UNIMPLEMENTED was an error_status fault every hand, and three of them forfeited
    the match. Now it charges nothing each hand: 0 faults, no substitute, no forfeit, one note."""
    monkeypatch.setenv("COLUMNS", "240")  # the tables unwrapped
    (tmp_path / "bots.toml").write_text(SAMPLE)
    db = tmp_path / "arena.db"
    played = hearts(
        tmp_path,
        "match",
        "--seat",
        f"old={BEFORE_TURBO}",
        *("--seat", "random", "--seat", "lowest", "--seat", "heuristic"),
        *("--bots", "bots.toml", "--rules", "turbo,target=40", "--seed", "3", "--db", str(db)),
    )
    assert played.returncode == 0, played.stdout + played.stderr
    assert "Faults" not in played.stdout and "Notes (1)" in played.stdout
    [(match_id,)] = query(db, "SELECT id FROM matches")
    shown = hearts(tmp_path, "replay", match_id, "--db", str(db))
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "Notes (1)" in shown.stdout and "does not implement ChargeCards: charged nothing" in shown.stdout
    record = json.loads(hearts(tmp_path, "replay", match_id, "--db", str(db), "--json").stdout)
    old = record["seats"][0]
    assert (old["bot"], old["faults"], old["forfeit"]) == ("old", 0, False) and record["faults"] == []
    [note] = record["notes"]
    assert (note["hand"], note["seat"], note["kind"]) == (0, 0, "unimplemented")
    charges = [c for h in record["hands"] for c in h["charges"] if c["seat"] == 0]
    assert len(charges) == len(record["hands"]) > 1
    assert all(c["cards"] == [] and not c["substituted"] for c in charges)


def test_validate_checks_a_protocol_1_bot_naming_no_presets_on_protocol_1s_rulesets_alone(tmp_path: Path) -> None:
    """Before: a handshake naming no presets claimed every preset, so the bot written before Turbo Hearts was
    checked on turbo, booster-nines, partnership and cancellation too. Now it claims protocol 1's presets
    and options: those it was written for. It passes them."""
    result = hearts(tmp_path, "validate", "--command", BEFORE_TURBO, "--json")
    report = json.loads(result.stdout)
    checked = [Rules.parse(r) for r in report["rules"]]
    assert {str(r).split(",")[0] for r in checked} == set(codec.presets_of(1)) == set(codec.VERSIONS[0].presets)
    assert not any(r.turbo_charging or r.booster_nines or r.packs > 1 or r.partnership != "none" for r in checked)
    assert result.returncode == 0 and report["ok"], result.stdout[-3000:] + result.stderr
    presets = next(c for c in report["checks"] if c["name"] == "presets")
    assert presets["detail"].startswith("none listed: those of protocol 1, standard, omnibus")
