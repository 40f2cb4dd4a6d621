"""Rule options, the table that documents them, and named presets.

Every variant of the rule sources is an option of one frozen ``Rules`` value or a named preset:
the engine reads options, it is never forked. The sources (docs/rules.md):

- ``000`` 000_93466bf2ef5d25de.txt (equal lowest totals share the win)
- ``001`` 001_7c47ddaca2398b03.txt (the default ruleset)
- ``002`` 002_9f11e0823e382118.txt (a rulebook of variations)
- ``004`` 004_f34b613fe02b4aea.txt (Omnibus, Spot, Black Maria, No Passing)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .cards import DECK, PACK_BITS, SUIT_MASKS, Card, Suit, parse_cards

PASS_DIRECTIONS: Final = ("left", "right", "across", "left2", "right2", "scatter", "mix", "hold", "call")
"""``left2``/``right2``: the second player to the left/right (5 players, 002). ``call``: the dealer
calls the pass of the hand (002 Da Nasty Fix); the call is then one of the others but hold, or a
split such as two cards to the left and one to the right."""
DIRECTIONAL_PASSES: Final = ("left", "right", "across", "left2", "right2")
"""The passes that send every player's cards to one seat: the ones a player may pass on (pass_on)."""

PASS_CYCLES: Final[dict[str, tuple[str, ...]]] = {
    "standard": ("left", "right", "across", "hold"),
    "no-hold": ("left", "right", "across"),
    "always-right": ("right",),
    "always-left": ("left",),
    "none": ("hold",),
    "scatter": ("left", "right", "across", "scatter"),
    "scatter-hold": ("left", "right", "across", "scatter", "hold"),
    "mix": ("left", "right", "across", "mix"),
    "left-right-hold": ("left", "right", "hold"),
    "left-right": ("left", "right"),
    "five-player": ("left", "right", "left2", "right2", "hold"),
    "five-player-long": ("left", "right", "left2", "hold", "left", "right", "right2", "hold"),
}
"""Named passing cycles (002 "Passing" and "Other Numbers of Players")."""


def pass_call(players: int, pass_count: int, call: str | Sequence[int]) -> tuple[str, tuple[int, ...]]:
    """A dealer's call of the pass (002 Da Nasty Fix) as (direction, offsets); ``ValueError`` if it is none.

    ``call`` is ``"mix"`` ("Shittin' in the Kitty"), a direction of this table (left, right,
    across, left2, right2, scatter), or ``pass_count`` offsets: the k-th card passed goes to the
    player that many seats to the left (1 .. players - 1), e.g. ``(1, 1, 3)``, two to the left and
    one to the right with four players. Offsets that make a named pass get its name; others are a
    ``"split"``. Every player passes the same way, so each passes and receives ``pass_count``.
    """
    n, k = players, pass_count
    named = {"left": (1,) * k, "right": (n - 1,) * k}
    if n == 4:
        named["across"] = (2,) * k
    if n == 5:
        named["left2"], named["right2"] = (2,) * k, (3,) * k
    if k % (n - 1) == 0:
        named["scatter"] = tuple(i % (n - 1) + 1 for i in range(k))
    if isinstance(call, str):
        text = call.strip().lower()
        if text == "mix":
            return "mix", ()
        if text in named:
            return text, named[text]
        parts = text.replace(",", " ").split()
        if not parts or not all(p.lstrip("-").isdigit() for p in parts):
            raise ValueError(
                f"not a pass call: {call!r}: expected mix, {', '.join(named)}, "
                f"or {k} offsets from 1 to {n - 1} (seats to the left), e.g. "
                f"{' '.join(map(str, named['left'][:-1] + (n - 1,)))}"
            )
        call = tuple(int(p) for p in parts)
    offsets: tuple[int, ...] = tuple(call)
    if len(offsets) != k or not all(type(o) is int and 1 <= o < n for o in offsets):
        raise ValueError(
            f"not a pass call: {offsets!r}: expected {k} offsets from 1 to {n - 1} (seats to the "
            f"left, one per card passed), mix, or one of {', '.join(named)}"
        )
    for name, value in named.items():
        if value == offsets:
            return name, offsets
    return "split", offsets


def _standard_points(card: Card) -> int:
    if card.suit is Suit.HEARTS:
        return 1
    return 13 if card.suit is Suit.SPADES and card.rank == 12 else 0


def _spot_points(card: Card) -> int:
    if card.suit is Suit.HEARTS:
        return card.rank  # pip value: J 11, Q 12, K 13, A 14
    return 25 if card.suit is Suit.SPADES and card.rank == 12 else 0


def _spot_flat_points(card: Card) -> int:
    if card.suit is Suit.HEARTS:
        return 15 if card.rank == 14 else min(card.rank, 10)
    return 25 if card.suit is Suit.SPADES and card.rank == 12 else 0


def _black_maria_points(card: Card) -> int:
    if card.suit is Suit.SPADES:
        return {12: 13, 13: 10, 14: 7}.get(card.rank, 0)
    return 1 if card.suit is Suit.HEARTS else 0


def _nasty_points(card: Card) -> int:
    if card.rank == 12:  # 002 Da Nasty Fix: Q♠ 26, the other three queens 13 apiece (Q♥ included)
        return 26 if card.suit is Suit.SPADES else 13
    return 1 if card.suit is Suit.HEARTS else 0


POINT_SCHEMES: Final = {
    "standard": _standard_points,  # 001: hearts 1, Q♠ 13
    "spot": _spot_points,  # 004/002 Spot Hearts: hearts at pip value, Q♠ 25
    "spot-flat": _spot_flat_points,  # 002: 2–10 face value, pictures 10, A♥ 15, Q♠ 25
    "black-maria": _black_maria_points,  # 004: hearts 1, Q♠ 13, K♠ 10, A♠ 7
    "nasty": _nasty_points,  # 002 Dirty Nasty Filthy Hearts: hearts 1, Q♠ 26, Q♣ Q♦ Q♥ 13 (77 a hand)
}

MOON_SCORING: Final = ("add-to-others", "subtract-from-shooter", "shooter-chooses", "add-unless-win", "wins-match")
FIRST_LEADS: Final = ("lowest-club", "left-of-dealer")
KITTY_TAKERS: Final = ("none", "first-trick", "first-points")
TIED_LOWEST: Final = ("play-on", "share")
TURBO_CHARGES: Final = ("one", "any")
CHARGED_SINGLETON: Final = ("must-play", "may-slough")
TURBO_CARDS: Final = parse_cards("AH QS JD TC")
"""002 Turbo Hearts: the cards a player 'may turbo-charge': ace of hearts, queen of spades, jack of
diamonds, ten of clubs."""
PARTNERSHIPS: Final = ("none", "team", "individual")
"""002 Partnership Hearts: no partners; partners keep their tricks together (``team``); or each player
keeps an individual score and the partners' totals are added at the end (``individual``)."""


@dataclass(frozen=True)
class Option:
    """One documented rule option: its name, default, allowed values and the sentence it comes from."""

    name: str
    default: object
    values: str
    source: str
    help: str


OPTIONS: Final[tuple[Option, ...]] = (
    Option(
        "players",
        4,
        "3, 4 or 5 (6 to 10 with packs=2)",
        "002 Players and Cards; 002 Cancellation Hearts",
        "Seats at the table. 3 players remove 2♦ (17 cards each); 5 remove 2♣ and 2♦ (10 each, 3♣ leads).",
    ),
    Option(
        "removed_cards",
        None,
        "cards, e.g. 2D or 2C,2D",
        "002 The Deal / Other Numbers of Players",
        "Cards taken out of the pack; default none for 4 players, 2D for 3, 2C and 2D for 5, none with a kitty.",
    ),
    Option(
        "kitty",
        "none",
        " | ".join(KITTY_TAKERS),
        "002 Kitty / Other Numbers of Players",
        "Undealt cards form a kitty taken with the first trick, or with the first penalty card.",
    ),
    Option(
        "kitty_discard",
        False,
        "true | false",
        "002 Other Numbers of Players",
        "The kitty's taker adds it to their hand, then discards as many cards face down into their "
        "tricks (their points count for the taker); default: the kitty goes straight to the tricks.",
    ),
    Option(
        "hand_size",
        None,
        "cards per player",
        "002 Kitty",
        "Default: as many as deal out evenly; with a kitty, e.g. 12 for 4 players leaves a 4-card kitty.",
    ),
    Option(
        "pass_cycle",
        None,
        "a named cycle or directions: " + " ".join(PASS_DIRECTIONS),
        "001 Passing cards; 002 Passing, Other Numbers of Players",
        "Pass direction by hand number, repeating (default left right across hold; for 3 or 5 players "
        "left right hold); call: the dealer calls each hand's pass (002 Da Nasty Fix). Named cycles: "
        + ", ".join(PASS_CYCLES),
    ),
    Option(
        "pass_count",
        3,
        "1 or more",
        "001 Passing cards; 002 Other Numbers of Players",
        "Cards each player passes (scatter with 3 players needs 4: two to each).",
    ),
    Option(
        "pass_on",
        False,
        "true | false",
        "002 Passing",
        "Instead of passing, a player may pass on, unseen, the cards passed to them (left, right, across "
        "and two-seat passes; cards can come back to their owner).",
    ),
    Option(
        "first_lead",
        "lowest-club",
        " | ".join(FIRST_LEADS),
        "001 Trick play; 002 Play of the Hand",
        "Holder of 2♣ (lowest club in play) must lead it, or the player left of the dealer leads (002 'may "
        "lead any card'): any card the other options allow on a lead, so no heart while hearts are unbroken "
        "(002 'the opening lead can be anything but a heart') and, unless points_on_first_trick, no penalty "
        "card (Q♠ included) while the hand holds another card (002 'it is illegal to play points on the very "
        "first trick').",
    ),
    Option(
        "hearts_lead",
        "broken",
        "broken | any-time",
        "001 Trick play; 002 Play of the Hand",
        "Hearts may be led only once broken (or when holding only hearts), or at any time.",
    ),
    Option(
        "queen_breaks_hearts",
        False,
        "true | false",
        "002 Play of the Hand",
        "Playing Q♠ breaks hearts too. Default: only a heart breaks hearts (001).",
    ),
    Option(
        "lead_hearts_with_queen",
        False,
        "true | false",
        "002 Play of the Hand",
        "A leader holding only hearts and Q♠ may lead a heart while hearts are unbroken.",
    ),
    Option(
        "points_on_first_trick",
        False,
        "true | false",
        "001 First-trick safety rule; 002 Play of the Hand",
        "Penalty cards may be played on the first trick.",
    ),
    Option(
        "queen_at_first_safe_chance",
        False,
        "true | false",
        "002 Play of the Hand",
        "Q♠ must be played as soon as it is safe: when void in the suit led, or on a spade trick "
        "that already holds A♠ or K♠.",
    ),
    Option(
        "booster_nines",
        False,
        "true | false",
        "002 Booster Nines",
        "A nine led, or played while following suit, boosts the trick: one more round in the same suit, a "
        "further card from each player in rotation (must follow the led suit if able); the highest card of "
        "the first card's suit takes all 2 × players cards. A sloughed nine, or one played in the last trick "
        "(each player's last card), does not boost.",
    ),
    Option(
        "points",
        "standard",
        " | ".join(POINT_SCHEMES),
        "001 Scoring; 002 Spot Hearts, Black Maria, Dirty Nasty Filthy Hearts; 004",
        "Penalty points of each card.",
    ),
    Option(
        "bonus_card",
        None,
        "JD | TD | none (any card that is not a penalty card)",
        "002 Scoring; 004 Omnibus Hearts",
        "A bonus card scored by whoever captures it (Omnibus: J♦).",
    ),
    Option("bonus_points", -10, "an integer", "002 Scoring; 004 Omnibus Hearts", "The bonus card's value."),
    Option(
        "ten_of_clubs_doubles",
        False,
        "true | false",
        "002 Turbo Hearts",
        "Whoever captures 10♣ 'doubles their score for that hand': everything the hand adds to their total "
        "(penalty cards, the bonus card, a moon or sun, a no-tricks bonus) counts twice, gains and losses alike.",
    ),
    Option(
        "turbo_charging",
        False,
        "true | false",
        "002 Turbo Hearts",
        "After the pass (or on a hold hand, after the deal) and before the first lead, every player at once "
        "may turbo-charge A♥, Q♠, J♦ or 10♣ from their hand, face up (public; charging nothing is legal). A "
        "charged Q♠ or J♦ counts double, a charged A♥ doubles every heart, a charged 10♣ quadruples its "
        "captor's score for the hand; a moon still needs every penalty card and is worth what they are worth "
        "that hand. A charged card may not be played, nor led, the first time its suit is led (see "
        "charged_singleton), unless nothing else is legal.",
    ),
    Option(
        "turbo_charges",
        "one",
        " | ".join(TURBO_CHARGES),
        "002 Turbo Hearts",
        "How many cards a player may charge: 'one of the following cards' (one, or none), or any of the four "
        "they hold.",
    ),
    Option(
        "charged_singleton",
        "must-play",
        " | ".join(CHARGED_SINGLETON),
        "002 Turbo Hearts; 002 The Play of the Hand",
        "A player whose only card of the led suit is charged, the first time that suit is led: must play it "
        "(they 'must follow suit ... if possible', and the restriction never leaves a player without a legal "
        "card), or may play any other card as if void (the charged card 'may not' be played, so following is "
        "not possible).",
    ),
    Option(
        "moon",
        "add-to-others",
        " | ".join(MOON_SCORING),
        "001 Shooting the moon; 002 Shooting the Moon, Dirty Nasty Filthy Hearts",
        "Capturing every penalty card: add the total to each other player, subtract it from the shooter, "
        "the shooter's choice, add unless that hands another player the win (then subtract; 002 'unless this "
        "would cause one of them to win': with tied_lowest=share, a share of the win counts), or the shooter "
        "wins the match at once (Da Nasty Fix).",
    ),
    Option(
        "sun_points",
        0,
        "0 (off) or points, e.g. 52",
        "002 Scoring",
        "Shooting the sun (taking every trick) scores this many, handled like the moon.",
    ),
    Option(
        "no_tricks_bonus",
        0,
        "an integer, e.g. -5",
        "001 Variants",
        "Added to the score of a player who takes no trick in a hand.",
    ),
    Option(
        "exact_target_reset",
        None,
        "none | 50 | 0 | an integer",
        "002 Scoring",
        "A total of exactly exact_reset_at points at the end of a hand is reset to this value.",
    ),
    Option(
        "exact_reset_at",
        100,
        "an integer, e.g. 100 or the target",
        "002 Scoring",
        "The total that exact_target_reset resets: 100, as 002 reads ('if your score is exactly 100 points at "
        "the end of a hand, it is reduced to 50 (or zero)'), whatever the target; set it to the target to "
        "reset there instead (e.g. spot,exact_target_reset=250,exact_reset_at=500). Before this option the "
        "reset happened at the target: only rulesets with a target other than 100 play differently.",
    ),
    Option(
        "target",
        100,
        "an integer",
        "001 Winning the game; 004 Spot (500)",
        "The match ends when a total reaches the target at the end of a hand.",
    ),
    Option(
        "tied_lowest",
        "play-on",
        " | ".join(TIED_LOWEST),
        "001 Winning the game; 000 End of game",
        "A tie for the lowest total keeps dealing (001), or the tied players share the win (000).",
    ),
    Option(
        "partnership",
        "none",
        " | ".join(PARTNERSHIPS),
        "002 Partnership Hearts",
        "4 players only: partners sit opposite (seats 0 & 2 against 1 & 3). team: partners keep their tricks "
        "together and the team scores every penalty point in them, both partners carrying the team's total; "
        "a slam is one team taking every penalty card (the moon option scores it; shooter-chooses asks the "
        "partner who took Q♠); the match ends when a team total reaches the target, the lower team winning. "
        "individual: each player scores and shoots the moon alone; when a player's total reaches the target "
        "the partners' totals are added and the lower team wins. Partners share their team's place; a tie "
        "of the team totals follows tied_lowest (play-on keeps dealing, share: all four share the win); "
        "add-unless-win subtracts when adding would make the other team win.",
    ),
    Option(
        "packs",
        1,
        "1 | 2",
        "002 Cancellation Hearts",
        "Two 52-card packs shuffled together, for 6 to 10 players: identical cards played to one trick "
        "cancel (the highest card of the suit led not duplicated wins; if every card of the suit led is "
        "in a cancelling pair the trick stays on the table for the next trick's winner, the same player "
        "leading again; a winnerless last trick goes to the previous trick's winner, and trailing "
        "winnerless tricks to the last trick that had one). Cards dealt as far as they go, the rest a kitty "
        "(kitty=first-trick: whoever takes the first trick's cards). Needs first_lead=left-of-dealer; "
        "passes left, right, scatter or hold only; no removed_cards, hand_size, booster_nines, kitty_discard "
        "or bonus_card. The moon is every penalty card of both packs (26 hearts and both Q♠: 52 points). "
        "The first trick (points_on_first_trick) is the first played, with a winner or not.",
    ),
)
OPTION_NAMES: Final = tuple(o.name for o in OPTIONS)
_DEFAULTS: Final[dict[str, object]] = {o.name: o.default for o in OPTIONS}
"""Each option's default, as the table declares it (``Rules``' field defaults must equal these: tested)."""


@dataclass(frozen=True)
class Rules:
    """One complete ruleset. The defaults are the standard ruleset of 001.

    Build with ``Rules()``, ``Rules.preset("omnibus")``, ``Rules.parse("spot,target=300")`` or
    ``dataclasses.replace``. Invalid values and unplayable combinations raise ``ValueError``.
    """

    players: int = 4
    removed_cards: tuple[Card, ...] | None = None
    kitty: str = "none"
    kitty_discard: bool = False
    hand_size: int | None = None
    pass_cycle: tuple[str, ...] | None = None  # None: the default cycle for the number of players
    pass_count: int = 3
    pass_on: bool = False
    first_lead: str = "lowest-club"
    hearts_lead: str = "broken"
    queen_breaks_hearts: bool = False
    lead_hearts_with_queen: bool = False
    points_on_first_trick: bool = False
    queen_at_first_safe_chance: bool = False
    booster_nines: bool = False
    points: str = "standard"
    bonus_card: Card | None = None
    bonus_points: int = -10
    ten_of_clubs_doubles: bool = False
    turbo_charging: bool = False
    turbo_charges: str = "one"
    charged_singleton: str = "must-play"
    moon: str = "add-to-others"
    sun_points: int = 0
    no_tricks_bonus: int = 0
    exact_target_reset: int | None = None
    exact_reset_at: int = 100
    target: int = 100
    tied_lowest: str = "play-on"
    partnership: str = "none"
    packs: int = 1
    # Derived tables, computed once so the hot paths only index them.
    deck_mask: int = field(init=False, repr=False, compare=False)
    card_points: tuple[int, ...] = field(init=False, repr=False, compare=False)
    penalty_mask: int = field(init=False, repr=False, compare=False)
    # (points, mask of the cards worth that much) for each non-zero value: scoring a set of
    # captured cards is then one bit count per value instead of a loop over the cards.
    point_groups: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)
    moon_total: int = field(init=False, repr=False, compare=False)
    cards_per_player: int = field(init=False, repr=False, compare=False)
    kitty_size: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        s = object.__setattr__
        if self.pass_cycle is None:
            s(self, "pass_cycle", default_pass_cycle(self.players))
        elif isinstance(self.pass_cycle, str):
            s(self, "pass_cycle", _parse_cycle(self.pass_cycle))
        elif not isinstance(self.pass_cycle, tuple):
            s(self, "pass_cycle", tuple(self.pass_cycle))
        if isinstance(self.removed_cards, str):
            s(self, "removed_cards", parse_cards(self.removed_cards))
        elif self.removed_cards is not None and not isinstance(self.removed_cards, tuple):
            s(self, "removed_cards", parse_cards(self.removed_cards))
        if isinstance(self.bonus_card, str):
            s(self, "bonus_card", None if self.bonus_card.lower() == "none" else Card.parse(self.bonus_card))
        self._validate()
        # Canonical form: an explicit value equal to the default is stored as the default (None),
        # so rules that play the same compare equal however they were written.
        if self.removed_cards is not None and self.removed_cards == self._default_removed():
            s(self, "removed_cards", None)
        if self.exact_target_reset is None:
            s(self, "exact_reset_at", 100)  # no reset: where it would happen does not matter
        if not self.turbo_charging:  # no charging: how many, and the singleton's reading, do not matter
            s(self, "turbo_charges", "one")
            s(self, "charged_singleton", "must-play")
        removed = self.removed
        deck_mask = 0
        for c in DECK:
            if c not in removed:
                deck_mask |= c.mask
        scheme = POINT_SCHEMES[self.points]
        points = [scheme(c) if deck_mask & c.mask else 0 for c in DECK]
        penalty = 0
        for c in DECK:
            if points[c.index] > 0:
                penalty |= c.mask
        if self.bonus_card is not None:
            points[self.bonus_card.index] += self.bonus_points
            penalty &= ~self.bonus_card.mask
        n_cards = deck_mask.bit_count() * self.packs
        if self.hand_size == n_cards // self.players:
            s(self, "hand_size", None)
        per = self.hand_size if self.hand_size is not None else n_cards // self.players
        s(self, "deck_mask", deck_mask)
        s(self, "card_points", tuple(points))
        s(self, "penalty_mask", penalty)
        groups: dict[int, int] = {}
        for c in DECK:
            if points[c.index]:
                groups[points[c.index]] = groups.get(points[c.index], 0) | c.mask
        s(self, "point_groups", tuple(groups.items()))
        s(self, "moon_total", sum(points[c.index] for c in DECK if penalty & c.mask))
        s(self, "cards_per_player", per)
        s(self, "kitty_size", n_cards - per * self.players)
        if self.packs == 2:
            # Both copies of each card: the penalty cards and the point groups hold both (bit 52 + i).
            s(self, "penalty_mask", penalty | penalty << PACK_BITS)
            s(self, "point_groups", tuple((v, g | g << PACK_BITS) for v, g in groups.items()))
            s(self, "moon_total", 2 * self.moon_total)
        self._validate_deal()

    @property
    def removed(self) -> tuple[Card, ...]:
        """The cards out of play: the option, or the default for the number of players."""
        if self.removed_cards is not None:
            return self.removed_cards
        return self._default_removed()

    def _default_removed(self) -> tuple[Card, ...]:
        if self.kitty != "none":
            return ()
        # 002: three players remove 2♦ (17 each); five remove 2♣ "so that each player gets 10 cards",
        # which 51 cards cannot do: the 2♦ goes too (or keep it with removed_cards=2C and a kitty).
        return {3: (Card.parse("2D"),), 5: (Card.parse("2C"), Card.parse("2D"))}.get(self.players, ())

    def _validate(self) -> None:
        def bad(name: str, value: object, valid: str) -> ValueError:
            return ValueError(f"rule option {name}={value!r} is not valid: expected {valid}")

        if self.packs not in (1, 2):
            raise bad("packs", self.packs, "1 or 2")
        if self.packs == 2:
            self._validate_two_packs()
        elif self.players not in (3, 4, 5):
            raise bad("players", self.players, "3, 4 or 5 (6 to 10 with packs=2)")
        for name, value, valid in (
            ("kitty", self.kitty, KITTY_TAKERS),
            ("first_lead", self.first_lead, FIRST_LEADS),
            ("hearts_lead", self.hearts_lead, ("broken", "any-time")),
            ("points", self.points, tuple(POINT_SCHEMES)),
            ("moon", self.moon, MOON_SCORING),
            ("tied_lowest", self.tied_lowest, TIED_LOWEST),
            ("turbo_charges", self.turbo_charges, TURBO_CHARGES),
            ("charged_singleton", self.charged_singleton, CHARGED_SINGLETON),
            ("partnership", self.partnership, PARTNERSHIPS),
        ):
            if value not in valid:
                raise bad(name, value, " | ".join(valid))
        if not self.pass_cycle:
            raise bad("pass_cycle", self.pass_cycle, "at least one direction")
        for d in self.pass_cycle:
            if d not in PASS_DIRECTIONS:
                raise bad(
                    "pass_cycle",
                    d,
                    "a named cycle (" + ", ".join(PASS_CYCLES) + ") or directions " + " ".join(PASS_DIRECTIONS),
                )
            if d == "across" and self.players != 4:
                raise ValueError(
                    f"pass direction 'across' needs 4 players, not {self.players}: use a cycle such as left-right-hold"
                )
            if d in ("left2", "right2") and self.players != 5:
                raise ValueError(f"pass direction {d!r} (the second player over) needs 5 players, not {self.players}")
            if d == "scatter" and self.pass_count % (self.players - 1):
                raise ValueError(
                    f"a scatter pass gives each other player the same number of cards: "
                    f"pass_count={self.pass_count} does not divide among {self.players - 1} players "
                    f"(use pass_count={self.players - 1} or a multiple)"
                )
        if self.pass_count < 1:
            raise bad("pass_count", self.pass_count, "1 or more")
        if self.target < 1:
            raise bad("target", self.target, "a positive number of points")
        if self.exact_reset_at < 1:
            raise bad("exact_reset_at", self.exact_reset_at, "a positive number of points")
        if self.exact_target_reset is not None and not 0 <= self.exact_target_reset < self.exact_reset_at:
            raise bad(
                "exact_target_reset",
                self.exact_target_reset,
                f"none or 0..{self.exact_reset_at - 1} (below exact_reset_at={self.exact_reset_at})",
            )
        if self.sun_points < 0:
            raise bad("sun_points", self.sun_points, "0 (off) or a positive number")
        if self.partnership != "none" and self.players != 4:
            raise ValueError(
                f"rule option partnership={self.partnership} needs 4 players (partners sit opposite: seats 0 & 2 "
                f"against 1 & 3), not players={self.players}"
            )
        if self.partnership != "none" and self.moon == "wins-match":
            raise ValueError(
                f"rule option partnership={self.partnership} does not combine with moon=wins-match "
                "(002 gives no partnership reading of a shot that wins the game)"
            )

    def _validate_two_packs(self) -> None:
        """002 Cancellation Hearts: 'for 6 to 10 players using two 52-card packs shuffled together'; the
        options this engine plays with two packs (the others name themselves here)."""
        if not 6 <= self.players <= 10:
            raise ValueError(
                f"rule option players={self.players!r} is not valid with packs=2: expected 6 to 10 "
                "(002 Cancellation Hearts: 'for 6 to 10 players'; 3 to 5 play with packs=1)"
            )
        if self.first_lead != "left-of-dealer":
            raise ValueError(
                f"packs=2 needs first_lead=left-of-dealer, not {self.first_lead}: two packs hold two 2♣ "
                "(002: 'The player to the dealer's left leads first')"
            )
        if self.removed_cards:
            raise ValueError("packs=2 deals every card ('as far as they will go'): removed_cards must be none")
        if self.hand_size is not None and self.hand_size != 104 // self.players:
            raise ValueError(
                f"packs=2 deals 'as far as they will go': hand_size={self.hand_size} is not valid "
                f"(leave it unset: {104 // self.players} cards each for {self.players} players)"
            )
        for name in ("booster_nines", "kitty_discard"):
            if getattr(self, name):
                raise ValueError(f"{name}=true is not played with packs=2")
        if self.bonus_card is not None:
            raise ValueError(f"bonus_card={self.bonus_card} is not played with packs=2: set bonus_card=none")
        for d in self.pass_cycle or ():
            if d not in ("left", "right", "scatter", "hold"):
                raise ValueError(f"pass direction {d!r} is not played with packs=2: use left, right, scatter or hold")

    def _validate_deal(self) -> None:
        removed = self.removed
        if len(set(removed)) != len(removed):
            raise ValueError(f"removed_cards lists a card twice: {' '.join(map(str, removed))}")
        n_cards = self.deck_mask.bit_count() * self.packs
        if self.hand_size is not None and not 1 <= self.hand_size <= n_cards // self.players:
            raise ValueError(
                f"hand_size={self.hand_size} does not fit: {n_cards} cards among "
                f"{self.players} players allow at most {n_cards // self.players}"
            )
        if self.kitty == "none" and self.kitty_size:
            raise ValueError(
                f"{n_cards} cards do not deal evenly to {self.players} players "
                f"({self.kitty_size} left over): remove cards (removed_cards=...) or use a kitty "
                f"(kitty=first-trick or kitty=first-points)"
            )
        if self.kitty_discard and self.kitty == "none":
            raise ValueError(
                "kitty_discard=true needs a kitty: set kitty=first-trick or kitty=first-points "
                "(with undealt cards: hand_size, or 3 or 5 players with removed_cards)"
            )
        if self.kitty != "none" and not self.kitty_size and self.packs == 1:
            raise ValueError(
                f"kitty={self.kitty} needs undealt cards, but {n_cards} cards deal evenly to "
                f"{self.players} players: set hand_size smaller (e.g. {n_cards // self.players - 1})"
            )
        if self.pass_count >= self.cards_per_player:
            raise ValueError(
                f"pass_count={self.pass_count} must be smaller than the hand ({self.cards_per_player} cards)"
            )
        if self.ten_of_clubs_doubles and not self.deck_mask & Card.parse("TC").mask:
            raise ValueError("ten_of_clubs_doubles=true needs 10♣, which has been removed from the pack")
        if self.bonus_card is not None and not self.deck_mask & self.bonus_card.mask:
            raise ValueError(f"bonus_card {self.bonus_card} has been removed from the pack")
        if self.bonus_card is not None and POINT_SCHEMES[self.points](self.bonus_card):
            raise ValueError(
                f"bonus_card {self.bonus_card} is a penalty card under points={self.points}: "
                "choose a card that scores nothing, such as JD or TD"
            )
        clubs = (self.deck_mask & SUIT_MASKS[Suit.CLUBS]).bit_count()
        if self.first_lead == "lowest-club" and clubs <= self.kitty_size:
            raise ValueError(
                f"first_lead=lowest-club needs a club outside the kitty, but only {clubs} clubs are "
                f"in play and the kitty holds {self.kitty_size} cards: use first_lead=left-of-dealer "
                "or a smaller kitty"
            )
        penalty_cards = self.penalty_mask.bit_count()
        if self.kitty == "first-points" and penalty_cards <= self.kitty_size:
            raise ValueError(
                f"kitty=first-points needs a penalty card outside the kitty, but the kitty holds "
                f"{self.kitty_size} cards and only {penalty_cards} penalty cards are in play: "
                "use kitty=first-trick or a smaller kitty"
            )
        if self.moon_total <= 0:
            raise ValueError("no penalty card is left in the pack: nothing to score")

    # -- construction -----------------------------------------------------------------------

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """A named preset, optionally with options changed: ``Rules.preset("spot", target=300)``."""
        try:
            base = PRESETS[name]
        except KeyError:
            raise ValueError(f"unknown preset {name!r}: expected one of {', '.join(PRESETS)}") from None
        return base.replace(**overrides) if overrides else base

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (names checked, values parsed from text if needed).

        A pass cycle left at its default follows a change of ``players`` to that count's default.
        """
        changes = _coerce_options(changes)
        if "pass_cycle" not in changes and self.pass_cycle == default_pass_cycle(self.players):
            changes["pass_cycle"] = None
        return dataclasses.replace(self, **changes)

    @classmethod
    def parse(cls, spec: str) -> Rules:
        """Parse ``"PRESET"``, ``"PRESET,opt=value,..."`` or ``"opt=value,..."`` (on the standard preset)."""
        parts = [p.strip() for p in spec.split(",") if p.strip()] if spec else []
        name = "standard"
        if parts and "=" not in parts[0]:
            name = parts.pop(0)
        opts: dict[str, str] = {}
        for p in parts:
            if "=" not in p:
                raise ValueError(f"rules {spec!r}: {p!r} is not option=value; options: {', '.join(OPTION_NAMES)}")
            k, v = p.split("=", 1)
            opts[k.strip().replace("-", "_")] = v.strip()
        return cls.preset(name, **opts)

    def to_dict(self) -> dict[str, Any]:
        """The options as plain JSON values (cards as text). ``Rules.from_dict`` inverts it."""
        out: dict[str, Any] = {}
        for o in OPTIONS:
            v = getattr(self, o.name)
            if isinstance(v, Card):
                v = str(v)
            elif isinstance(v, tuple):
                v = [str(x) for x in v]
            out[o.name] = v
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        return cls().replace(**dict(data))

    def changes(self) -> dict[str, Any]:
        """The options that differ from the standard ruleset."""
        base = Rules().to_dict()
        return {k: v for k, v in self.to_dict().items() if base[k] != v}

    def __str__(self) -> str:
        """The canonical text of this ruleset: ``Rules.parse(str(rules)) == rules``, and rules that play
        the same have the same text, so it is what every table keeps and compares. The shortest of a
        preset and the options that differ from it (an option implied by the others, such as the pass
        cycle of the number of players, left out), e.g. ``spot,target=300``; on a tie, the first preset."""
        text = _TEXTS.get(self)
        if text is None:
            if len(_TEXTS) > 1000:  # a bound, not a policy: a store holds a handful of rulesets
                _TEXTS.clear()
            text = _TEXTS[self] = _canonical_text(self)
        return text

    @property
    def name(self) -> str:
        """The preset this ruleset equals, or ``"custom"``."""
        for name, preset in PRESETS.items():
            if preset == self:
                return name
        return "custom"

    def pass_direction(self, hand_number: int) -> str:
        return self.pass_cycle[hand_number % len(self.pass_cycle)]  # type: ignore[index,arg-type]  # set by __post_init__

    def may_pass_on(self, direction: str) -> bool:
        """Whether a player may pass on (pass no cards) on a hand passing this way (option pass_on)."""
        return self.pass_on and direction in DIRECTIONAL_PASSES

    def points_of(self, card: Card) -> int:
        return self.card_points[card.index]

    def partner(self, seat: int) -> int | None:
        """The seat opposite ``seat``, its partner under ``partnership``; None without partnership."""
        return (seat + 2) % 4 if self.partnership != "none" else None

    def team_totals(self, totals: Sequence[int]) -> tuple[int, ...]:
        """Each team's total from the seats' totals: team 0 is seats 0 & 2, team 1 seats 1 & 3.

        ``team``: both partners carry the team's one total; ``individual``: the partners' totals added
        (002 'the scores of the partners are totalled'). Empty without partnership.
        """
        if self.partnership == "team":
            return (totals[0], totals[1])
        if self.partnership == "individual":
            return (totals[0] + totals[2], totals[1] + totals[3])
        return ()


def default_pass_cycle(players: int) -> tuple[str, ...]:
    """001's left, right, across, hold for four; 002's "left, right, hold, repeat" for 3 and 5."""
    return PASS_CYCLES["standard"] if players == 4 else PASS_CYCLES["left-right-hold"]


def _parse_cycle(text: str) -> tuple[str, ...]:
    if text in PASS_CYCLES:
        return PASS_CYCLES[text]
    return tuple(p for p in text.replace("+", " ").replace("/", " ").split() if p)


_BOOL = {"true": True, "yes": True, "1": True, "on": True, "false": False, "no": False, "0": False, "off": False}


def _coerce_options(changes: Mapping[str, Any]) -> dict[str, Any]:
    """Check option names and turn text values (from a CLI or JSON) into option values."""
    out: dict[str, Any] = {}
    for key, value in changes.items():
        if key not in OPTION_NAMES:
            raise ValueError(f"unknown rule option {key!r}: expected one of {', '.join(OPTION_NAMES)}")
        default = _DEFAULTS[key]
        if isinstance(value, str):
            text = value.strip()
            if key in ("removed_cards",):
                value = None if text.lower() in ("", "default") else parse_cards(text)
            elif key == "pass_cycle":
                value = _parse_cycle(text)
            elif key == "bonus_card":
                value = None if text.lower() in ("", "none") else Card.parse(text)
            elif isinstance(default, bool):
                if text.lower() not in _BOOL:
                    raise ValueError(f"rule option {key}={text!r} is not valid: expected true or false")
                value = _BOOL[text.lower()]
            elif isinstance(default, int) or key in ("hand_size", "exact_target_reset"):
                if text.lower() in ("none", "") and default is None:
                    value = None
                else:
                    try:
                        value = int(text)
                    except ValueError:
                        raise ValueError(f"rule option {key}={text!r} is not valid: expected an integer") from None
        elif isinstance(value, list):
            value = tuple(value)
            if key == "removed_cards":
                value = parse_cards(value)
        out[key] = value
    return out


PRESETS: Final[dict[str, Rules]] = {
    # 001: the default, every edge case of it.
    "standard": Rules(),
    # 004 Omnibus: J♦ scores −10; moon still needs every heart and Q♠, the shooter keeps the −10.
    "omnibus": Rules(bonus_card=Card.parse("JD"), bonus_points=-10),
    # 004 Spot: hearts at pip value, Q♠ 25, 129 a hand, game to 500.
    "spot": Rules(points="spot", target=500),
    # 004 Black Maria: A♠ 7, K♠ 10, Q♠ 13 (43 a hand), always pass three to the right, game to 100.
    "black-maria": Rules(points="black-maria", pass_cycle=("right",)),
    # 004 No Passing mode: every hand played exactly as dealt.
    "no-passing": Rules(pass_cycle=("hold",)),
    # 002 Dirty Nasty Filthy Hearts (Da Nasty Fix): J♦ −10, Q♠ 26, the other queens 13, game to 300, a
    # successful shoot wins the game, and the dealer calls each hand's pass.
    "nasty": Rules(
        points="nasty",
        bonus_card=Card.parse("JD"),
        bonus_points=-10,
        moon="wins-match",
        target=300,
        pass_cycle=("call",),
    ),
    # 002 Booster Nines (Richard Garfield): a nine led or followed in suit adds one more round in that suit.
    "booster-nines": Rules(booster_nines=True),
    # 002 Turbo Hearts (Richard Garfield): J♦ −10 'as in the scoring variations above', 10♣ doubles its
    # captor's score, and each player may turbo-charge one of A♥ Q♠ J♦ 10♣ before the first lead.
    "turbo": Rules(bonus_card=Card.parse("JD"), bonus_points=-10, ten_of_clubs_doubles=True, turbo_charging=True),
    # 002 Partnership Hearts, first way: partners keep their tricks together; a slam (one team taking
    # every penalty card) gives the opponents 26 or takes 26 off the team's score, the team's choice.
    "partnership": Rules(partnership="team", moon="shooter-chooses"),
    # 002 Partnership Hearts, second way: individual scores and moons, the partners' totals decide.
    "partnership-individual": Rules(partnership="individual"),
    # 002 Cancellation Hearts: two packs, 6 players (the fewest the section names: 17 cards each and a
    # two-card kitty, so every sentence of it plays; players=7..10 overrides), the kitty with the first
    # trick, left of the dealer 'can lead anything': no 2♣ and no first-trick restriction, but hearts
    # still wait to be broken (002's Black Maria needs a sentence more for that: 'There is no restriction
    # on leading hearts'); no pass (002 says nothing of passing in this game: the deal, then the lead).
    "cancellation": Rules(
        packs=2,
        players=6,
        kitty="first-trick",
        first_lead="left-of-dealer",
        points_on_first_trick=True,
        pass_cycle=("hold",),
    ),
}


_TEXTS: dict[Rules, str] = {}


def _option_text(name: str, value: object) -> str:
    """An option's value as ``Rules.parse`` reads it back (a ``to_dict`` value)."""
    if name == "pass_cycle" and isinstance(value, (list, tuple)):
        named = [n for n, cycle in PASS_CYCLES.items() if list(cycle) == list(value)]
        if named:
            return min(named, key=len)
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return str(value)


def _text_of(preset: str, opts: Mapping[str, str]) -> str:
    return ",".join([preset, *(f"{k}={v}" for k, v in opts.items())])


def _reads_as(text: str, rules: Rules) -> bool:
    try:
        return Rules.parse(text) == rules
    except ValueError:
        return False


def _canonical_text(rules: Rules) -> str:
    target = rules.to_dict()
    best: str | None = None
    for preset, base_rules in PRESETS.items():
        if base_rules.partnership != rules.partnership:
            # "partnership,partnership=none" would be the shortest text of every shooter-chooses ruleset:
            # a ruleset reads as a preset of its own form, so that no text a store keeps changes.
            continue
        base = base_rules.to_dict()
        opts = {k: _option_text(k, v) for k, v in target.items() if base[k] != v}
        for k in list(opts):  # drop what the others imply
            trial = {o: t for o, t in opts.items() if o != k}
            if _reads_as(_text_of(preset, trial), rules):
                opts = trial
        text = _text_of(preset, opts)
        if _reads_as(text, rules) and (best is None or len(text) < len(best)):
            best = text
    if best is None:  # every ruleset is some preset's options: a failure here is the engine's own bug
        raise ValueError(f"no text reads back as {rules!r}")
    return best
