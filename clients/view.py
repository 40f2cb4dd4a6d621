"""The bot's view: a hearts.v1 GameView turned into plain Python values on the engine's types
(decoded by ``hearts.v1.codec``, the codec the referee encodes with).

Bots never touch protobuf: they receive a ``View`` (an engine ``Observation`` plus the match id,
the players' names and the clock) and answer with engine ``Card`` values.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from clients.sampling import World, sample_worlds
from hearts.v1 import bot_pb2 as pb
from hearts.v1.codec import DIRECTIONS_FROM_WIRE, cards_from_wire, charges_from_wire, rules_from_wire, trick_from_wire
from referee.rules import Observation, Phase, Suit
from referee.rules.cards import DECK


@dataclass(frozen=True)
class View(Observation):
    """What the bot's seat may know at a decision, with the match context and its clock."""

    match_id: str = ""
    player_names: tuple[str, ...] = ()
    budget_ms: int = 0
    time_bank_ms: int = 0

    # Observation's own properties, restated: compiled by mypyc (make engine), they check that
    # ``self`` is exactly an Observation and raise TypeError on a View, so a bot must never reach them.
    @property
    def trick_number(self) -> int:
        """How many tricks of this hand are complete (0 during the first)."""
        return len(self.tricks)

    @property
    def is_leading(self) -> bool:
        """Whether the trick in progress has no card yet (this seat leads it, when asked to play)."""
        return not self.current_trick.cards

    @property
    def led_suit(self) -> Suit | None:
        """The suit of the trick in progress, None before its first card."""
        cards = self.current_trick.cards
        return cards[0].suit if cards else None

    @property
    def players(self) -> int:
        """The number of seats at the table."""
        return self.rules.players

    @property
    def trick_size(self) -> int:
        """The cards the trick in progress takes: ``players``, or twice as many once a nine has boosted it
        (``rules.booster_nines``: then ``boosted`` is set and every seat plays a second card to it)."""
        return 2 * self.rules.players if self.boosted else self.rules.players

    @property
    def partner(self) -> int | None:
        """Under ``rules.partnership``, the partner's seat (opposite: ``(seat + 2) % 4``); else None."""
        return self.rules.partner(self.seat)

    @property
    def team_scores(self) -> tuple[int, ...]:
        """Under ``rules.partnership``, the teams' totals before this hand, team 0 (seats 0 and 2) first:
        under ``team`` the one total both partners carry, under ``individual`` the partners' sum. Empty
        otherwise. The request's GameView carries both (``partner``, ``team_scores``)."""
        return self.rules.team_totals(self.scores)

    @property
    def team(self) -> int | None:
        """Under ``rules.partnership``, this seat's team: 0 (seats 0 and 2) or 1 (seats 1 and 3); else None."""
        return self.seat % 2 if self.rules.partnership != "none" else None

    def sample_worlds(self, n: int, rng: random.Random | None = None) -> list[World]:
        """``n`` deals of the unseen cards consistent with this view, uniform (``clients.sampling``);
        ``world.to_hand()`` / ``world.to_match()`` give the engine state to simulate from."""
        return sample_worlds(self, n, rng)


def view_from_wire(v: pb.GameView, phase: Phase, moon_points: int = 0) -> View:
    """Build the bot's View from a request's GameView (``phase`` says which decision is asked)."""
    return View(
        seat=v.seat,
        rules=rules_from_wire(v.rules),
        hand_number=v.hand_number,
        dealer=v.dealer,
        phase=phase,
        scores=tuple(v.scores),
        pass_direction=DIRECTIONS_FROM_WIRE.get(v.pass_direction, "hold"),
        hand=cards_from_wire(v.hand),
        passed=tuple(DECK[c - 1] for c in v.passed_cards),
        received=cards_from_wire(v.received_cards),
        tricks=tuple(trick_from_wire(t) for t in v.tricks),
        current_trick=trick_from_wire(v.current_trick),
        hearts_broken=v.hearts_broken,
        legal=cards_from_wire(v.legal_cards),
        to_move=(v.seat,),
        kitty_taker=v.kitty_taker if v.HasField("kitty_taker") else None,
        kitty=cards_from_wire(v.kitty),
        moon_points=moon_points,
        discarded=tuple(DECK[c - 1] for c in v.discarded),
        pass_offsets=tuple(v.pass_offsets),
        boosted=v.current_trick.boosted,
        charges=charges_from_wire(v),
        table=cards_from_wire(v.table),
        match_id=v.match_id,
        player_names=tuple(v.player_names),
        budget_ms=v.budget_ms,
        time_bank_ms=v.time_bank_ms,
    )


def view_of(obs: Observation, match_id: str, player_names: tuple[str, ...], budget_ms: int, time_bank_ms: int) -> View:
    """The View of ``obs`` for a bot played in-process: equal to what ``view_from_wire`` makes of the
    request a bot served over gRPC receives for it (tested), so a bot sees no more one way than the other.

    Built by copying the observation's fields (both are plain frozen dataclasses), not through the
    dataclass's ``__init__``: its per-field ``object.__setattr__`` would cost more than the referee's
    own work on a decision.
    """
    view = _new(View)
    fields = view.__dict__
    fields.update(obs.__dict__)
    fields["to_move"] = (obs.seat,)  # the wire tells a seat only that it owes a decision
    fields["match_id"] = match_id
    fields["player_names"] = player_names
    fields["budget_ms"] = budget_ms
    fields["time_bank_ms"] = time_bank_ms
    return view


_new = object.__new__
_set = object.__setattr__


def view_of_play(
    obs: Observation, match_id: str, player_names: tuple[str, ...], budget_ms: int, time_bank_ms: int
) -> View:
    """``view_of`` for a play, sharing the observation's fields instead of copying them: the
    observation is the referee's one use, and in the play phase it already says that this seat, and
    only this one, is to move. The observation gains the View's four fields, which it has no use for."""
    fields = obs.__dict__
    fields["match_id"] = match_id
    fields["player_names"] = player_names
    fields["budget_ms"] = budget_ms
    fields["time_bank_ms"] = time_bank_ms
    view = _new(View)
    _set(view, "__dict__", fields)
    return view
