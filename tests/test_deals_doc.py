"""docs/deals.md says enough to reproduce any deal: this test does it again from the text alone.

``third_party_deal`` is written from the page's prose (hashlib only, no engine code), and checked
against the engine for several seeds, hands, player counts and kitties; the page's own Python block
and its worked examples are checked too, as are the tournament seed formula and the seating of
rotations.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from ladder.tournament.schedule import build_schedule, match_seed, rotations
from referee.rules import Match, MixRedeal, Rules, deal
from referee.rules.cards import cards_of

DOC = (Path(__file__).resolve().parents[1] / "docs" / "deals.md").read_text()


def third_party_shuffle(items: list[int], key: str) -> list[int]:
    """'Take 8 · n bytes of the SHAKE-256 output ... n unsigned 64-bit integers, little-endian ...
    For i from n − 1 down to 1: let j = w[i] mod (i + 1), and swap'."""
    n = len(items)
    out = hashlib.shake_256(key.encode("ascii")).digest(8 * n)
    w = [int.from_bytes(out[8 * i : 8 * i + 8], "little") for i in range(n)]
    items = list(items)
    for i in range(n - 1, 0, -1):
        j = w[i] % (i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def third_party_deal(rules: Rules, seed: int, hand: int) -> tuple[list[set[int]], set[int]]:
    """'the cards in play in increasing index' shuffled with '{S}:deal:{h}'; seat s holds positions
    s · per .. (s + 1) · per − 1; the kitty is the rest."""
    removed = {c.index for c in rules.removed}
    deck = [i for i in range(52) if i not in removed]
    per = rules.cards_per_player
    cards = third_party_shuffle(deck, f"{seed}:deal:{hand}")
    p = rules.players
    return [set(cards[s * per : (s + 1) * per]) for s in range(p)], set(cards[p * per :])


def indices(cardset: object) -> set[int]:
    return {c.index for c in cardset}  # type: ignore[attr-defined]


RULESETS = [
    "standard",
    "standard,players=3",
    "standard,players=5",
    "standard,kitty=first-trick,hand_size=12",
    "standard,players=5,removed_cards=2C,kitty=first-trick",
    "standard,players=3,removed_cards=,kitty=first-points",
    "black-maria",
]
SEEDS = [0, 7, -3, 2**61 + 12345, match_seed(1, 0, 0, 0)]


@pytest.mark.parametrize("spec", RULESETS)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_documented_deal_is_the_engines(spec: str, seed: int) -> None:
    rules = Rules.parse(spec)
    for hand in (0, 1, 5):
        d = deal(rules, seed, hand)
        hands, kitty = third_party_deal(rules, seed, hand)
        assert [indices(h) for h in d.hands] == hands, (spec, seed, hand)
        assert indices(d.kitty) == kitty


def _python_block() -> dict[str, object]:
    code = re.search(r"```python\n(.*?)```", DOC, re.S)
    assert code, "docs/deals.md lost its Python block"
    namespace: dict[str, object] = {}
    exec(code.group(1), namespace)  # the page's own reference code
    return namespace


@pytest.mark.parametrize("spec", RULESETS)
def test_the_pages_python_block_deals_as_the_engine(spec: str) -> None:
    rules = Rules.parse(spec)
    doc_deal = _python_block()["deal"]
    removed = tuple(c.index for c in rules.removed)
    for seed in SEEDS:
        hands, kitty = doc_deal(seed, 3, rules.players, removed, rules.cards_per_player)  # type: ignore[operator]
        d = deal(rules, seed, 3)
        assert hands == [sorted(indices(h)) for h in d.hands]
        assert kitty == sorted(indices(d.kitty))


def test_the_worked_example_is_the_deal_of_seed_7() -> None:
    table = DOC[DOC.index("the match seeded 7 deals") :]
    rows = re.findall(r"^\| (\d)[^|]* \| ([^|]+) \|$", table, re.M)[:4]
    d = deal(Rules(), 7, 0)
    assert [set(cards.split()) for _, cards in rows] == [{c.symbol for c in h} for h in d.hands]
    assert [int(s) for s, _ in rows] == [0, 1, 2, 3] and Match(Rules(), 7).hand.dealer == 0


def test_the_tournament_seed_formula_and_its_example() -> None:
    for t, r, tb, d in [(1, 0, 0, 0), (0, 2, 5, 1), (-9, 1, 0, 3), (2**62, 0, 1, 0)]:
        key = f"hearts-arena:{t}:{r}:{tb}:{d}".encode()
        assert match_seed(t, r, tb, d) == int.from_bytes(hashlib.sha256(key).digest()[:8], "little") >> 2
    example = int(re.search(r"tournament seed 1 gives .*? seed\s+(\d+)", DOC, re.S).group(1))  # type: ignore[union-attr]
    assert example == match_seed(1, 0, 0, 0)
    schedule = build_schedule(["a", "b", "c", "d", "e"], rules="standard", deals=2, seed=1)
    for m in schedule:
        assert m.seed == match_seed(1, m.round, m.table, m.deal)


def test_rotation_k_seats_bot_s_minus_k() -> None:
    """'rotation k of a table of bots (b₀, …) seats bot b₍(s − k) mod p₎ at seat s'."""
    table = ("b0", "b1", "b2", "b3")
    for k, seats in enumerate(rotations(table)):
        assert seats == tuple(table[(s - k) % 4] for s in range(4))


def test_a_mix_redeal_follows_the_page() -> None:
    """'the pool is the indices of every card passed, in increasing order, followed by the kitty's
    cards in increasing order; it is shuffled with the key "{S}:mix:{h}"'."""
    for spec in ("standard,pass_cycle=mix hold", "standard,pass_cycle=mix hold,kitty=first-points,hand_size=12"):
        rules = Rules.parse(spec)
        for seed in (3, 11):
            m = Match(rules, seed)
            kitty = sorted(c.index for c in cards_of(m.hand.kitty))
            passed: list[int] = []
            for s in range(rules.players):
                cards = cards_of(m.hand.hands[s])[-3:]
                passed += [c.index for c in cards]
                m.pass_cards(s, cards)
            redeal = next(e for e in m.history if isinstance(e, MixRedeal))
            pool = third_party_shuffle(sorted(passed) + kitty, f"{seed}:mix:0")
            assert [indices(r) for r in redeal.received] == [set(pool[s * 3 : s * 3 + 3]) for s in range(4)]
            assert indices(redeal.kitty) == set(pool[12:])


@pytest.mark.parametrize("players", [6, 7, 10])
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_a_two_pack_deal_follows_the_page(players: int, seed: int) -> None:
    """'the deck is the 104 numbers 0 … 103, number i standing for card i mod 52', 'each player gets
    104 div players cards' and the rest is the kitty; the same shuffle."""
    rules = Rules.parse(f"cancellation,players={players}")
    per = 104 // players
    cards = third_party_shuffle(list(range(104)), f"{seed}:deal:2")
    d = deal(rules, seed, 2)
    for s in range(players):
        assert sorted(c.index for c in d.hands[s]) == sorted(i % 52 for i in cards[s * per : (s + 1) * per])
    assert sorted(c.index for c in d.kitty) == sorted(i % 52 for i in cards[players * per :])
