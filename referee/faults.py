"""The fault policy: what counts as a fault, how answers are decoded, what is played instead.

A faulty decision is replaced by a substitute drawn from the match's own seeded generator
(``SeededRandom(seed, "substitute", ...)``), so a match with faults replays exactly. The judge
(``referee.judge``) puts these parts together for every answer; the policy (how many faults before a
forfeit) is applied by the match runner.
"""

from __future__ import annotations

from collections.abc import Sequence

from hearts.v1.codec import moon_choice_from_wire
from referee.record import FaultKind, ForfeitReason
from referee.rules import (
    Card,
    CardNotHeldError,
    CardNotLegalError,
    CardSet,
    IllegalPlayError,
    MoonChoice,
    Observation,
    RepeatedCardError,
    SeededRandom,
    WrongCallError,
    WrongCountError,
)
from referee.rules.cards import DECK
from referee.seats import (
    BotErrorStatus,
    BotTimeout,
    BotUnimplemented,
    BotUnreachable,
    Impersonation,
    MalformedReply,
    OversizedReply,
    ResourceLimitHit,
    SeatError,
)
from referee.settings import MAX_FAULTS as MAX_FAULTS  # the forfeit's count, offered with the rest of the policy

FORFEIT_AT_ONCE = frozenset({FaultKind.TRANSPORT, FaultKind.RESOURCE_LIMIT, FaultKind.IMPERSONATION})
"""Kinds that end a bot's match at the first occurrence: an unreachable bot cannot come back, nor
one its sandbox stopped at a limit (it is restarted for its next match), nor a seat that another
process was serving (its answers are not its own)."""

FORFEIT_REASONS = {
    FaultKind.TRANSPORT: ForfeitReason.UNREACHABLE,
    FaultKind.RESOURCE_LIMIT: ForfeitReason.RESOURCE_LIMIT,
    FaultKind.IMPERSONATION: ForfeitReason.IMPERSONATION,
}
"""The forfeit each kind of ``FORFEIT_AT_ONCE`` records."""

MAX_ANSWER_CARDS = 52
"""No answer of several cards (a pass, a discard) ever needs more than a hand holds; a hand never
holds more than the deck. An answer longer than the seat's hand is refused before any card is read."""


class Fault(Exception):
    """A judged fault: its kind, a one-line detail and what came back. ``unimplemented``: the bot does
    not implement the RPC (``BotUnimplemented``), which the referee's judge reads (``referee.judge.judge``)."""

    def __init__(self, kind: FaultKind, detail: str, received: str, *, unimplemented: bool = False) -> None:
        super().__init__(f"{kind.value}: {detail}")
        self.kind = kind
        self.detail = detail
        self.received = received
        self.unimplemented = unimplemented


# The kind of each failure a seat observed. Order matters: a subclass before its base.
_SEAT_FAULTS: tuple[tuple[type[SeatError], FaultKind], ...] = (
    (BotTimeout, FaultKind.TIMEOUT),
    (ResourceLimitHit, FaultKind.RESOURCE_LIMIT),  # before its base, BotUnreachable
    (Impersonation, FaultKind.IMPERSONATION),
    (BotUnreachable, FaultKind.TRANSPORT),
    (OversizedReply, FaultKind.OVERSIZED),
    (MalformedReply, FaultKind.MALFORMED),
    (BotErrorStatus, FaultKind.ERROR_STATUS),
)


def fault_from_error(error: BaseException) -> Fault:
    """The fault of a call that brought no answer: the kind its seat observed (a ``SeatError``).

    Any other exception is a seat implementation's own failure: judged as the bot's error status,
    never allowed to stop the match.
    """
    if isinstance(error, SeatError):
        for cls, kind in _SEAT_FAULTS:
            if isinstance(error, cls):
                return Fault(kind, error.detail, error.received, unimplemented=isinstance(error, BotUnimplemented))
    return Fault(FaultKind.ERROR_STATUS, f"the seat failed: {type(error).__name__}", repr(error)[:300])


# The fault kind of each of the engine's rejections, per decision.
_REJECTIONS: dict[str, tuple[tuple[type[IllegalPlayError], FaultKind], ...]] = {
    "play": ((CardNotHeldError, FaultKind.CARD_NOT_HELD), (CardNotLegalError, FaultKind.ILLEGAL_CARD)),
    "pass": (
        (CardNotHeldError, FaultKind.CARD_NOT_HELD),
        (WrongCountError, FaultKind.WRONG_PASS_COUNT),
        (RepeatedCardError, FaultKind.REPEATED_PASS_CARD),
    ),
    "discard": (
        (CardNotHeldError, FaultKind.CARD_NOT_HELD),
        (WrongCountError, FaultKind.WRONG_DISCARD),
        (RepeatedCardError, FaultKind.WRONG_DISCARD),
    ),
    "call": ((WrongCallError, FaultKind.WRONG_CALL),),
    "charge": (
        (CardNotHeldError, FaultKind.CARD_NOT_HELD),
        (CardNotLegalError, FaultKind.WRONG_CHARGE),
        (WrongCountError, FaultKind.WRONG_CHARGE),
        (RepeatedCardError, FaultKind.WRONG_CHARGE),
    ),
    "moon": (),  # the engine refuses a moon choice only when none is owed: never the bot's doing
}


def fault_from_rejection(error: IllegalPlayError, decision: str, received: str) -> Fault:
    """The fault of an answer the engine refused, of the kind the engine's own check names.

    A rejection no decision of a bot can cause (another seat's turn, the wrong phase) is the
    referee's own error and is raised as it is.
    """
    for cls, kind in _REJECTIONS[decision]:
        if isinstance(error, cls):
            return Fault(kind, str(error), received)
    raise error


def card_text(value: int) -> str:
    """A card enum value as the record shows it: the card, or what the value is instead."""
    if 1 <= value <= 52:
        return str(DECK[value - 1])
    if value == 0:
        return "CARD_UNSPECIFIED"
    return f"unknown card {value}"


def card_of_answer(answer: int) -> Card:
    """The card a PlayCard answer names; a ``Fault`` (malformed) for no card or an unknown value."""
    if not 1 <= answer <= 52:
        what = "no card (CARD_UNSPECIFIED or missing)" if answer == 0 else f"unknown card enum value {answer}"
        raise Fault(FaultKind.MALFORMED, what, f"card={answer}")
    return DECK[answer - 1]


def answer_text(answer: Sequence[int]) -> str:
    """A pass or discard answer for the record: its first 20 cards and how many there were."""
    received = "cards=" + (" ".join(card_text(v) for v in answer[:20]) or "none")
    if len(answer) > 20:
        received += f" ... ({len(answer)} in all)"
    return received


def cards_of_answer(answer: Sequence[int], what: str, obs: Observation, too_many: FaultKind) -> tuple[Card, ...]:
    """The cards a pass or discard answer names.

    Linear in the answer, and bounded before that: an answer of more cards than the seat holds is
    a ``too_many`` fault at once, whatever it holds. A non-card value is a malformed fault. Whether
    the cards make a valid decision is the engine's to judge.
    """
    held = len(obs.hand)
    if len(answer) > held:
        raise Fault(too_many, f"{what} of {len(answer)} cards; the hand holds {held}", answer_text(answer))
    cards = []
    for v in answer:
        if not 1 <= v <= 52:
            name = "no card (CARD_UNSPECIFIED)" if v == 0 else f"unknown card enum value {v}"
            raise Fault(FaultKind.MALFORMED, f"{what} holds {name}", answer_text(answer))
        cards.append(DECK[v - 1])
    return tuple(cards)


def safe_repr(answer: object) -> str:
    """An in-process bot's answer for the record, capped; an object whose ``__repr__`` fails is still named."""
    try:
        return repr(answer)[:300]
    except Exception:
        return f"<{type(answer).__name__}>"


def call_of_answer(answer: object, obs: Observation) -> str | tuple[int, ...]:
    """What a dealer's call answer says, for the engine to judge (``Match.call_pass``): a text or
    offsets, bounded by the pass it could name; a ``Fault`` for no call or an unreadable object."""
    k = obs.rules.pass_count
    if isinstance(answer, str):
        if not answer.strip():
            raise Fault(FaultKind.MALFORMED, "no call (neither offsets nor mix)", repr(answer)[:300])
        if len(answer) > 200:  # no call is that long: refused before it is read
            raise Fault(FaultKind.WRONG_CALL, f"a call of {len(answer)} characters is no pass", repr(answer[:100]))
        return answer
    if isinstance(answer, (tuple, list)):
        if not answer:
            raise Fault(FaultKind.MALFORMED, "no call (neither offsets nor mix)", repr(answer))
        if len(answer) > k:
            raise Fault(
                FaultKind.WRONG_CALL,
                f"called {len(answer)} offsets; a pass of {k} cards takes {k}",
                safe_repr(answer[:20]) + (f" ... ({len(answer)} in all)" if len(answer) > 20 else ""),
            )
        return tuple(answer)
    raise Fault(FaultKind.MALFORMED, f"the call could not be read ({type(answer).__name__})", safe_repr(answer))


def moon_of_answer(answer: int) -> MoonChoice:
    """The moon choice a ChooseMoon answer names; a ``Fault`` (malformed) for none or an unknown value."""
    try:
        return moon_choice_from_wire(answer)  # the wire boundary decodes; the referee judges
    except ValueError:
        what = "no choice (MOON_CHOICE_UNSPECIFIED)" if answer == 0 else f"unknown moon choice enum value {answer}"
        raise Fault(FaultKind.MALFORMED, what, f"choice={answer}") from None


# -- substitutes: deterministic, from the match seed -----------------------------------------------


def substitute_play(seed: int, obs: Observation) -> Card:
    rng = SeededRandom(seed, "substitute", "play", obs.hand_number, obs.trick_number, obs.seat)
    return rng.choice(obs.legal.cards)


def substitute_pass(seed: int, obs: Observation) -> tuple[Card, ...]:
    rng = SeededRandom(seed, "substitute", "pass", obs.hand_number, obs.seat)
    cards = list(obs.hand.cards)
    rng.shuffle(cards)
    return tuple(cards[: obs.rules.pass_count])


def substitute_discard(seed: int, obs: Observation) -> tuple[Card, ...]:
    rng = SeededRandom(seed, "substitute", "discard", obs.hand_number, obs.seat)
    cards = list(obs.hand.cards)
    rng.shuffle(cards)
    return tuple(cards[: len(obs.kitty)])


def substitute_charge(seed: int, obs: Observation) -> tuple[Card, ...]:
    """turbo_charging: the substitute charges nothing (charging is a choice: 002 'each player may')."""
    return ()


def substitute_call(seed: int, obs: Observation) -> str:
    rng = SeededRandom(seed, "substitute", "call", obs.hand_number, obs.seat)
    return rng.choice(("left", "right", "mix") + (("across",) if obs.rules.players == 4 else ()))


def substitute_moon(seed: int, obs: Observation) -> MoonChoice:
    rng = SeededRandom(seed, "substitute", "moon", obs.hand_number, obs.seat)
    return rng.choice((MoonChoice.ADD_TO_OTHERS, MoonChoice.SUBTRACT_FROM_SHOOTER))


# -- compact text of a request, for the fault record -----------------------------------------------


def describe(kind: str, obs: Observation) -> str:
    """What the bot was asked, in one line: enough to see why its answer was wrong."""
    head = f"{kind} hand {obs.hand_number}"
    if kind == "PlayCard":
        trick = " ".join(map(str, obs.current_trick.cards)) or "(leading)"
        return f"{head} trick {obs.trick_number}: hand {obs.hand}; trick {trick}; legal {obs.legal}"
    if kind == "PassCards":
        return f"{head} pass {obs.rules.pass_count} {obs.pass_direction}: hand {obs.hand}"
    if kind == "CallPass":
        return f"{head}: call the pass of {obs.rules.pass_count} cards; hand {obs.hand}"
    if kind == "DiscardCards":
        return f"{head} discard {len(obs.kitty)} (kitty {obs.kitty}): hand {obs.hand}"
    if kind == "ChooseMoon":
        return f"{head}: moon points {obs.moon_points}"
    if kind == "ChargeCards":
        return f"{head} charge {obs.rules.turbo_charges} of A♥ Q♠ J♦ 10♣: hand {obs.hand}"
    return head


def cards_text(cards: Sequence[Card] | CardSet) -> str:
    return " ".join(map(str, cards))
