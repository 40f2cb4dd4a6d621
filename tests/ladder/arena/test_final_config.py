"""arena.toml's keys of the final's format (final_format, final_rounds, final_advance), and the final
tournament each makes, without playing it: fast, no process, no bot started."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from ladder.arena.accounts import add_user
from ladder.arena.config import TEMPLATE, ArenaConfig, ArenaConfigError, HouseBot, Limits, parse_config
from ladder.arena.store import ArenaStore, VersionStatus
from ladder.arena.worker import bot_entry, final_versions, settings_of, start_final, sync_house
from ladder.tournament.run import TournamentSpec, create_tournament
from ladder.tournament.stages import swiss_state


def _cfg(classroom: str, rules: str = "standard") -> ArenaConfig:
    return parse_config(tomllib.loads(f"[ladder]\nrules = {rules!r}\n[classroom]\n{classroom}\n"), "arena.toml")


def test_the_template_writes_the_keys_at_their_defaults() -> None:
    cfg = parse_config(tomllib.loads(TEMPLATE))
    assert (cfg.final_format, cfg.final_rounds, cfg.final_advance) == ("round-robin", 1, None)
    assert (cfg.final_format, cfg.final_rounds, cfg.final_advance) == (
        ArenaConfig.final_format,
        ArenaConfig.final_rounds,
        ArenaConfig.final_advance,
    )
    for key in ('final_format = "round-robin"', "final_rounds = 1", "# final_advance = 2"):
        assert key in TEMPLATE
    # The commented final_advance, once uncommented, needs a knockout: the template says so.
    knockout = TEMPLATE.replace('final_format = "round-robin"', 'final_format = "knockout"')
    assert parse_config(tomllib.loads(knockout.replace("# final_advance = 2", "final_advance = 2"))).final_advance == 2


@pytest.mark.parametrize(
    ("classroom", "rules", "expected"),
    [
        ('final_format = "swiss"\nfinal_rounds = 5', "standard", ("swiss", 5, None)),
        ('final_format = "knockout"', "standard", ("knockout", 1, None)),
        ('final_format = "knockout"\nfinal_advance = 1', "standard", ("knockout", 1, 1)),
        ('final_format = "knockout"\nfinal_advance = 3', "standard", ("knockout", 1, 3)),
        ('final_format = "knockout"\nfinal_advance = 2', "standard,players=3", ("knockout", 1, 2)),
        ('final_format = "knockout"\nfinal_rounds = 4', "standard", ("knockout", 4, None)),  # a knockout's follow
        ('final_format = "round-robin"', "partnership", ("round-robin", 1, None)),
    ],
)
def test_good_values_are_read(classroom: str, rules: str, expected: tuple[str, int, int | None]) -> None:
    cfg = _cfg(classroom, rules)
    assert (cfg.final_format, cfg.final_rounds, cfg.final_advance) == expected


@pytest.mark.parametrize(
    ("classroom", "rules", "message"),
    [
        (
            'final_format = "league"',
            "standard",
            "[classroom] final_format: 'league' is not a format of the final: give one of "
            '"round-robin", "swiss", "knockout"',
        ),
        ('final_format = "Swiss"', "standard", "'Swiss' is not a format of the final"),
        ("final_format = 2", "standard", "[classroom] final_format: expected str, not 2"),
        ("final_rounds = 0", "standard", "[classroom] final_rounds: must be at least 1, not 0"),
        ('final_rounds = "3"', "standard", "[classroom] final_rounds: expected int, not '3'"),
        ("final_rounds = 2.5", "standard", "[classroom] final_rounds: expected int, not 2.5"),
        (
            'final_format = "swiss"\nfinal_advance = 2',
            "standard",
            "[classroom] final_advance: a knockout's (the places of each table that go on): "
            'give final_format = "knockout", or leave final_advance out',
        ),
        ("final_advance = 2", "standard", 'give final_format = "knockout"'),  # round robin, the default
        ('final_format = "knockout"\nfinal_advance = 0', "standard", "[classroom] final_advance: must be at least 1"),
        (
            'final_format = "knockout"\nfinal_advance = 4',
            "standard",
            "[classroom] final_advance: give 1 to 3 (tables of 4), not 4",
        ),
        ('final_format = "knockout"\nfinal_advance = 3', "standard,players=3", "give 1 to 2 (tables of 3), not 3"),
        ('final_format = "knockout"\nfinal_advance = true', "standard", "[classroom] final_advance: expected int"),
        ('final_format = "swiss"', "partnership", "[classroom] final_format: a swiss ranks each bot by its own points"),
        ('final_format = "knockout"', "partnership-individual", 'give final_format = "round-robin"'),
        ("final_round = 3", "standard", "[classroom] unknown key(s) final_round"),
    ],
)
def test_a_bad_value_is_refused_naming_the_key_and_what_to_give(classroom: str, rules: str, message: str) -> None:
    with pytest.raises(ArenaConfigError) as e:
        _cfg(classroom, rules)
    assert message in str(e.value) and str(e.value).startswith("arena.toml: ")


HOUSE = (
    HouseBot("lowest", command="python -m clients.bots.lowest --port {port}"),
    HouseBot("random", command="python -m clients.bots.random --port {port}"),
)


def _arena(root: Path, cfg: ArenaConfig, participants: int) -> ArenaStore:
    """An arena's store with the house bots and ``participants`` hosted bots, every version valid."""
    store = ArenaStore(root / "arena.db")
    add_user(store, "organiser", organiser=True)
    sync_house(store, cfg)
    for i in range(participants):
        user, _token = add_user(store, f"p{i}")
        bot_id = store.add_bot(f"p{i}-bot", user.id, f"alias-{i}")
        store.add_version(bot_id, user.id, status=VersionStatus.VALID, kind="address", address=f"127.0.0.1:{2000 + i}")
    return store


def _stored(store: ArenaStore, tid: int) -> tuple[tuple[object, ...], list[object]]:
    row = store.ladder.tournaments.get(tid)
    assert row is not None
    kept = (row.format, row.rules, row.seed, row.rounds, row.deals, row.gauntlet, row.bots, row.settings)
    return kept, [(m.to_dict(), recorded) for m, recorded in store.ladder.tournaments.schedule(tid)]


def test_the_round_robin_final_is_the_one_made_before_final_format(tmp_path: Path) -> None:
    """The default makes the final as it was made before the key existed, byte for byte: the same row,
    the same schedule."""
    cfg = ArenaConfig(
        rules="standard,target=20", house=HOUSE, final_deals=2, final_seed=11, limits=Limits(allow_local_addresses=True)
    )
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    store = _arena(tmp_path / "a", cfg, participants=5)
    tid = start_final(store, cfg)
    # As _start_final made it before: a balanced round robin of the same entries.
    before = _arena(tmp_path / "b", cfg, participants=5)
    spec = TournamentSpec(
        format="round-robin",
        rules=cfg.rules,
        rounds=1,
        deals=cfg.final_deals,
        seed=cfg.final_seed,
        duplicate=True,
        settings=settings_of(cfg),
    )
    old = create_tournament(before.ladder, [bot_entry(v, cfg) for v in final_versions(before, cfg)], spec)
    assert _stored(store, tid) == _stored(before, old)
    store.close()
    before.close()


@pytest.mark.parametrize("fmt", ["swiss", "knockout"])
def test_a_staged_final_is_made_with_the_finals_fields_and_its_first_round(tmp_path: Path, fmt: str) -> None:
    extra = {"final_rounds": 3} if fmt == "swiss" else {"final_advance": 1}
    cfg = ArenaConfig(
        rules="standard,target=20",
        house=HOUSE,
        final_deals=2,
        final_seed=11,
        final_format=fmt,
        limits=Limits(allow_local_addresses=True),
        **extra,  # type: ignore[arg-type]
    )
    store = _arena(tmp_path, cfg, participants=6)
    tid = start_final(store, cfg)
    assert start_final(store, cfg) == tid, "made once"
    row = store.ladder.tournaments.get(tid)
    assert row is not None
    assert (row.format, row.rules, row.seed, row.deals) == (fmt, "standard,target=20", 11, 2)
    settings = json.loads(row.settings)
    names = [f"p{i}-bot.v1" for i in range(6)]  # six participants: no house bot fills a table
    # No ladder match yet: seeded by name, as hearts tournament run seeds bots without ratings.
    assert settings["seeding"] == names
    assert {k: settings[k] for k in ("budget_ms", "bank_ms", "grace_ms", "max_faults")} == {
        "budget_ms": cfg.budget_ms,
        "bank_ms": cfg.bank_ms,
        "grace_ms": cfg.grace_ms,
        "max_faults": cfg.max_faults,
    }
    schedule = store.ladder.tournaments.schedule(tid)
    assert schedule and all(m.round == 0 for m, _ in schedule), "the first round only: the worker draws the rest"
    if fmt == "swiss":
        assert row.rounds == 3 and settings["advance"] == 2
        assert swiss_state(store.ladder, tid).byes[0] == ["p4-bot.v1", "p5-bot.v1"]  # the lowest seeds
    else:
        # 6 bots at 4 seats, one going on from each table: 6 -> 4 (two byes and the table's winner, and
        # the best of the others to fill the final table).
        assert settings["advance"] == 1 and row.rounds == 2
        seated = {m.seats for m, _ in schedule if m.rotation == 0}
        assert seated == {("p2-bot.v1", "p3-bot.v1", "p4-bot.v1", "p5-bot.v1")}
    store.close()
