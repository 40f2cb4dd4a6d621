"""Every sample bot answers every kind of request legally, over real gRPC, under every ruleset.

Real engine matches are driven to their end through the bots (bot_harness.play_match): every
request comes from hearts.v1.codec and every answer goes through the engine's checked methods.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bot_harness import SAMPLE_BOTS, Tally, play_match, request_view, step

from clients.bots import make_bot
from clients.view import view_from_wire
from hearts.v1 import bot_pb2 as pb
from hearts.v1.codec import PROTOCOL_VERSION
from referee.rules import PRESETS, Match, Phase, Rules, cards_of

# Option mixes beyond the presets: other table sizes, scatter and mix passes, a kitty, the
# shooter's moon choice, the sun, and the play options that change what is legal.
MIXES: dict[str, Rules] = {
    "3p-scatter": Rules(players=3, pass_cycle=("left", "right", "scatter"), pass_count=4),
    "5p-cycle": Rules(players=5, pass_cycle="five-player"),
    "5p-scatter-kitty": Rules(players=5, removed_cards=(), kitty="first-trick", pass_cycle=("scatter",), pass_count=4),
    "4p-scatter-mix": Rules(pass_cycle=("scatter", "mix", "hold"), pass_count=3),
    "kitty-first-points": Rules(kitty="first-points", hand_size=12, points_on_first_trick=True),
    "shooter-chooses-sun": Rules(moon="shooter-chooses", sun_points=52, queen_breaks_hearts=True),
    "free-play": Rules(
        first_lead="left-of-dealer",
        hearts_lead="any-time",
        queen_at_first_safe_chance=True,
        lead_hearts_with_queen=True,
        no_tricks_bonus=-5,
        exact_target_reset=50,
    ),
    "omnibus-3p-black-maria": Rules.preset("black-maria", players=3, bonus_card="JD", pass_cycle="left-right"),
    "kitty-discard-pass-on": Rules(kitty="first-points", kitty_discard=True, hand_size=12, pass_on=True),
    "booster-3p-kitty-discard": Rules(booster_nines=True, players=3, kitty="first-trick", kitty_discard=True),
    "omnibus-ten-of-clubs": Rules.preset("omnibus", ten_of_clubs_doubles=True, moon="add-unless-win"),
    "turbo-any-slough-3p": Rules.preset(
        "turbo", players=3, turbo_charges="any", charged_singleton="may-slough", pass_cycle="left-right-hold"
    ),
    # 002 'Some prefer to play this game passing three cards to partner on every deal.'
    "partnership-across": Rules.parse("partnership,pass_cycle=across"),
    "partnership-individual-across": Rules.parse("partnership-individual,pass_cycle=across,moon=add-unless-win"),
    # 002 Cancellation Hearts at the most seats, with a pass: hands holding a card twice give both away.
    "cancellation-10p-pass": Rules.preset("cancellation", players=10, pass_cycle="left-right-hold"),
}
RULESETS: dict[str, Rules] = {**PRESETS, **MIXES}


def test_the_rulesets_cover_every_pass_direction() -> None:
    directions = {d for r in RULESETS.values() for d in r.pass_cycle}
    assert directions == {"left", "right", "across", "left2", "right2", "scatter", "mix", "hold", "call"}


@pytest.mark.parametrize("ruleset", list(RULESETS))
@pytest.mark.slow
def test_a_table_of_sample_bots_plays_a_whole_match(ruleset: str, wire_stubs: dict) -> None:
    """Each sample bot sits at the table (seats rotate by seed); the match is played to its end. Each
    request and answer crosses as the bytes of a gRPC call, without the socket: the tests below and
    the turbo match through the referee run the same bots over real gRPC."""
    rules = RULESETS[ruleset]
    tally = Tally()
    for seed in (1, 2):
        names = [SAMPLE_BOTS[(seed + s) % len(SAMPLE_BOTS)] for s in range(rules.players)]
        match = play_match(rules, seed, [wire_stubs[n] for n in names], tally)
        assert match.over and match.winners
    assert tally.requests["play"] > 100
    if rules.pass_cycle != ("hold",):
        assert tally.requests["pass"] > 0
    if rules.turbo_charging:  # 002 Turbo: every seat is asked every hand; the heuristic charges a guarded Q♠
        assert tally.requests["charge"] == tally.requests["play"] // rules.cards_per_player
        assert tally.charged > 0


@pytest.mark.slow
def test_the_sample_bots_play_turbo_through_the_referee_without_a_fault() -> None:
    """002 Turbo Hearts, end to end through the real referee (clocks, judging, records) over gRPC: every
    sample bot answers ChargeCards and plays legally around the charged cards (the Monte Carlo bot's
    worlds keep each charged card with its charger)."""
    import asyncio

    from clients.sdk import BotServer
    from referee.match import MatchSettings, play_match
    from referee.seats import GrpcSeat

    names = ["heuristic", "montecarlo", "random", "lowest"]
    # The Monte Carlo bot thinks half the budget it is told; the grace forgives a loaded machine.
    settings = MatchSettings(budget_ms=30, grace_ms=10_000)

    async def main() -> list:
        servers = [BotServer(make_bot(n, seed=2)) for n in names]
        for srv in servers:
            await srv.start()
        seats = [GrpcSeat(srv.address, n) for srv, n in zip(servers, names)]
        try:
            return [await play_match(seats, Rules.preset("turbo", target=50), seed=s, settings=settings) for s in (5,)]
        finally:
            for seat in seats:
                await seat.close()
            for srv in servers:
                await srv.stop()

    for record in asyncio.run(main()):
        assert record.faults == [], record.faults
        assert all(len(h.charges) == 4 and not any(c.substituted for c in h.charges) for h in record.hands)


@pytest.mark.parametrize("bot", SAMPLE_BOTS)
@pytest.mark.parametrize("direction", ["left", "right", "across", "left2", "right2", "scatter", "mix"])
def test_each_bot_passes_in_each_direction_then_plays_the_hand(bot: str, direction: str, bot_stubs: dict) -> None:
    """The bot holds every seat: it is asked every seat's pass, then every play of the hand."""
    players = {"across": 4, "left2": 5, "right2": 5}.get(direction, 3 if bot in ("random", "heuristic") else 4)
    count = players - 1 if direction == "scatter" else 2
    rules = Rules(players=players, pass_cycle=(direction,), pass_count=count)
    match = Match(rules, seed=len(bot) + len(direction))
    tally = Tally()
    stub = bot_stubs[bot]
    while match.hand_number == 0 and not match.over:
        step(match, lambda s: stub, tally)
    assert tally.requests["pass"] == players
    assert tally.requests["play"] == rules.cards_per_player * players


def _rigged_moon(rules: Rules, max_seed: int = 400) -> Match:
    """A match at a moon choice: seat 0 keeps high cards and always plays its highest, the others
    duck and dump their penalty cards on it (found by seed, deterministically)."""
    pts = rules.card_points
    for seed in range(max_seed):
        m = Match(rules, seed)
        while m.hand_number < 3 and not m.over:
            if m.phase is Phase.MOON:
                return m
            if m.phase is Phase.PASS:
                for s in m.to_move:
                    hand = sorted(cards_of(m.hand.hands[s]), key=lambda c: c.rank)
                    k = rules.pass_count
                    m.pass_cards(s, hand[:k] if s == 0 else hand[-k:])
                continue
            s = m.turn
            legal = sorted(m.legal_plays(), key=lambda c: (c.rank, c.suit))
            trick = m.hand.trick_cards
            void = trick and all(c.suit is not trick[0].suit for c in legal)
            m.play(
                legal[-1] if s == 0 else max(legal, key=lambda c: (pts[c.index] > 0, -c.rank)) if void else legal[0], s
            )
    raise AssertionError("no moon found")


@pytest.mark.parametrize("ruleset", ["standard", "3p", "5p", "sun", "spot", "partnership", "partnership-individual"])
def test_every_bot_chooses_how_the_moon_scores(ruleset: str, bot_stubs: dict) -> None:
    rules = {
        "partnership": Rules.preset("partnership"),  # a team's slam: the partner who took Q♠ is asked
        "partnership-individual": Rules.preset("partnership-individual", moon="shooter-chooses"),
        "standard": Rules(moon="shooter-chooses"),
        "3p": Rules(players=3, moon="shooter-chooses", pass_cycle="left-right"),
        "5p": Rules(players=5, moon="shooter-chooses", pass_cycle="five-player"),
        "sun": Rules(moon="shooter-chooses", sun_points=52),
        "spot": Rules.preset("spot", moon="shooter-chooses"),
    }[ruleset]
    base = _rigged_moon(rules)
    for bot in SAMPLE_BOTS:
        match = base.clone()
        tally = Tally()
        step(match, lambda s, bot=bot: bot_stubs[bot], tally)  # the moon choice, applied by the engine
        assert tally.requests == {"moon": 1}
        assert match.phase is not Phase.MOON and match.results[-1].moon_choice is not None


def test_the_heuristic_bot_beats_the_baselines() -> None:
    """Not a legality check: a guard that the heuristic is a real opponent. In-process (the views
    still go through the wire encoding) because strength, not transport, is under test here."""
    wins = 0
    for seed in range(8):
        names = ["heuristic", "random", "lowest", "random"]
        rot = names[seed % 4 :] + names[: seed % 4]
        bots = [make_bot(n, seed=seed) for n in rot]
        match = Match(Rules(), seed)
        while not match.over:
            s = match.to_move[0]
            view = view_from_wire(request_view(match, s), match.phase, match.observation(s).moon_points)
            if match.phase is Phase.PASS:
                match.pass_cards(s, bots[s].pass_cards(view))
            elif match.phase is Phase.PLAY:
                match.play(bots[s].play_card(view), s)
            else:
                match.choose_moon(s, bots[s].choose_moon(view))
        wins += any(rot[s] == "heuristic" for s in match.winners)
    assert wins >= 6


@pytest.mark.parametrize("bot", SAMPLE_BOTS)
def test_handshake_introduces_the_bot(bot: str, bot_stubs: dict) -> None:
    reply = bot_stubs[bot].Handshake(pb.HandshakeRequest(protocol_version=1, referee="test"), timeout=5)
    assert reply.protocol_version == PROTOCOL_VERSION == 2  # the SDK's bots know every RPC and preset
    assert reply.language == "python"
    assert reply.name == {"minimal": "Lowest"}.get(bot, bot)
    assert not reply.wants_notifications


def test_random_bot_is_reproducible_from_its_seed() -> None:
    match = Match(Rules(), seed=3)
    view = view_from_wire(request_view(match, 0), Phase.PASS)
    a, b, c = (make_bot("random", seed=s) for s in (5, 5, 6))
    assert [a.pass_cards(view) for _ in range(5)] == [b.pass_cards(view) for _ in range(5)]
    assert [a.pass_cards(view) for _ in range(5)] != [c.pass_cards(view) for _ in range(5)]


def test_hearts_bot_serve_offers_every_sample_bot() -> None:
    from click.testing import CliRunner

    from clients.bots import BOTS
    from ladder.cli import main

    out = CliRunner().invoke(main, ["bot", "serve", "--help"]).output
    assert all(name in out for name in BOTS)


def test_the_minimal_bot_in_docs_is_the_example_file_verbatim() -> None:
    root = Path(__file__).resolve().parents[2]
    example = (root / "clients/examples/minimal.py").read_text()
    assert len(example.splitlines()) <= 15
    assert f"```python\n{example}```" in (root / "docs/sdk.md").read_text()


@pytest.mark.parametrize("ruleset", [*RULESETS, "pass-on"])
def test_a_bot_reads_back_the_very_rules_the_referee_sent(ruleset: str) -> None:
    """Every option crosses the wire: the view's rules equal the referee's (so a bot may rely on any of them)."""
    from clients.view import rules_from_wire
    from hearts.v1.codec import rules_to_wire

    rules = RULESETS.get(ruleset) or Rules(pass_on=True, pass_cycle="left right across")
    assert rules_from_wire(pb.Rules.FromString(rules_to_wire(rules).SerializeToString())) == rules


def _partnership_trick(rules: Rules, hands: dict[int, str], played: str) -> Match:
    """A match past its first trick (so penalty cards may go), seat 1 leading ``played`` to seat 0."""
    from referee.rules import Trick
    from referee.rules.cards import parse_cards

    m = Match(rules, 0)
    h = m.hand
    for s, text in hands.items():
        h.hands[s] = sum(c.mask for c in parse_cards(text))
    h.phase, h.tricks, h.hearts_broken, h.opening, h._legal = Phase.PLAY, [Trick(1, (), 1)], True, 0, -1
    h.trick_cards, h.trick_mask, h.leader, h.turn = [], 0, 1, 1
    for card in played.split():
        m.play(card)
    assert m.turn == 0
    return m


def test_the_heuristic_bot_sheds_nothing_on_its_partners_trick() -> None:
    """002 Partnership Hearts ('On each hand your team scores the total number of penalty points you have
    taken in your tricks'): void in the led suit while its partner is winning the trick, the heuristic bot
    throws a card that scores nothing, not Q♠ or a heart; an opponent's trick still gets Q♠. Passing to
    the partner, it passes no penalty card while it has others."""
    from clients.bots.heuristic import HeuristicBot
    from clients.view import view_of
    from referee.rules import Card

    names = ("a", "b", "c", "d")
    for rules in (Rules.preset("partnership"), Rules.preset("partnership-individual")):
        # Seat 1 leads 5♦, seat 2 (seat 0's partner) covers it with K♦, seat 3 follows low; seat 0 is void.
        m = _partnership_trick(rules, {0: "QS 2H 3H 9C", 1: "5D", 2: "KD", 3: "2D"}, "5D KD 2D")
        view = view_of(m.observation(0), "m", names, 100, 0)
        assert view.partner == 2 and Card.parse("QS") in view.legal
        assert HeuristicBot().play_card(view) == Card.parse("9C")
        # Following suit under the partner's K♦, it keeps its own penalty cards out of the trick too.
        m = _partnership_trick(rules, {0: "QS 3S 2H", 1: "5S", 2: "KS", 3: "2S"}, "5S KS 2S")
        assert HeuristicBot().play_card(view_of(m.observation(0), "m", names, 100, 0)) == Card.parse("3S")
        # The same trick won by an opponent (seat 1's A♦): Q♠ goes, as without partners.
        m = _partnership_trick(rules, {0: "QS 2H 3H 9C", 1: "AD", 2: "KD", 3: "2D"}, "AD KD 2D")
        assert HeuristicBot().play_card(view_of(m.observation(0), "m", names, 100, 0)) == Card.parse("QS")
    across = Match(Rules.parse("partnership,pass_cycle=across"), 1)
    view = view_of(across.observation(0), "m", names, 100, 0)
    passed = HeuristicBot().pass_cards(view)
    pts = across.rules.card_points
    assert len(passed) == 3 and not any(pts[c.index] for c in passed)
    assert any(pts[c.index] for c in view.hand)  # it had penalty cards to pass


def test_the_heuristic_bot_ducks_under_the_card_that_stands_when_two_cancel() -> None:
    """002 Cancellation Hearts: 'The trick is taken by the highest card of the suit led which is not
    duplicated.' — after K♠ K♠ 5♠ the trick is the 5♠'s: the bot ducks with 2♠, not 9♠ (which would win)."""
    from clients.view import view_of
    from referee.rules.cards import CardMultiset, parse_cards
    from referee.rules.state import Deal, Hand

    rules = Rules.preset("cancellation")
    hands = ("KS 2C", "KS 3C", "5S 4C", "9S 2S", "3S 5C", "4S 6C")
    m = Match(rules, 0)
    m.hand = Hand(rules, Deal(0, tuple(CardMultiset(parse_cards(h)) for h in hands), CardMultiset()), "hold", 5)
    for card in ("KS", "KS", "5S"):
        m.play(card)
    view = view_of(m.observation(3), "m", tuple("abcdef"), 100, 0)
    assert str(make_bot("heuristic").play_card(view)) == "2S"
