"""The fault policy: what counts as a fault, how answers are judged, what is played instead.

A faulty decision is replaced by a substitute drawn from the match's own seeded generator
(``SeededRandom(seed, "substitute", ...)``), so a match with faults replays exactly. The
policy (how many faults before a forfeit) is applied by the match runner.
"""

from __future__ import annotations

from collections.abc import Sequence

import grpc

from referee.record import FaultKind
from referee.rules import Card, CardSet, MoonChoice, Observation, SeededRandom, pass_call
from referee.rules.cards import DECK
from referee.seats import SeatClosed, UndecodableReply
from referee.wire import moon_choice_from_wire

MAX_FAULTS = 3
"""Faults after which a bot forfeits the match."""

FORFEIT_AT_ONCE = frozenset({FaultKind.TRANSPORT})
"""Kinds that end a bot's match at the first occurrence: an unreachable bot cannot come back."""


class Fault(Exception):
    """A judged fault: its kind, a one-line detail and what came back."""

    def __init__(self, kind: FaultKind, detail: str, received: str) -> None:
        super().__init__(f"{kind.value}: {detail}")
        self.kind = kind
        self.detail = detail
        self.received = received


def fault_from_error(error: BaseException) -> Fault:
    """Classify an exception raised while asking a bot."""
    if isinstance(error, grpc.aio.AioRpcError):
        code = error.code()
        details = error.details() or ""
        received = f"status {code.name}: {details}"[:300]
        if code is grpc.StatusCode.DEADLINE_EXCEEDED:
            return Fault(FaultKind.TIMEOUT, "no answer before the deadline", received)
        if code is grpc.StatusCode.UNAVAILABLE:
            return Fault(FaultKind.TRANSPORT, "bot unreachable (is it running?)", received)
        if code is grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in details.lower():
            return Fault(FaultKind.OVERSIZED, "reply larger than the referee's receive limit", received)
        if code is grpc.StatusCode.INTERNAL and "deserializ" in details.lower():
            return Fault(FaultKind.MALFORMED, "reply could not be decoded", received)
        if code is grpc.StatusCode.CANCELLED and "locally" not in details.lower():
            return Fault(FaultKind.TRANSPORT, "the call was cut off", received)
        return Fault(FaultKind.ERROR_STATUS, f"bot answered with status {code.name}", received)
    if isinstance(error, SeatClosed):
        return Fault(FaultKind.TRANSPORT, "the seat was closed (its bot replaced or gone)", str(error)[:300])
    if isinstance(error, UndecodableReply):
        return Fault(FaultKind.MALFORMED, "reply could not be decoded", str(error))
    if isinstance(error, TimeoutError):  # asyncio.TimeoutError is TimeoutError (3.11)
        return Fault(FaultKind.TIMEOUT, "no answer before the deadline", "nothing")
    return Fault(FaultKind.ERROR_STATUS, f"bot raised {type(error).__name__}", repr(error)[:300])


def _card_text(value: int) -> str:
    if 1 <= value <= 52:
        return str(DECK[value - 1])
    if value == 0:
        return "CARD_UNSPECIFIED"
    return f"unknown card {value}"


def judge_play(answer: int, obs: Observation) -> Card:
    """The card a PlayCard answer names, if the seat may play it; else a ``Fault``."""
    if not 1 <= answer <= 52:
        what = "no card (CARD_UNSPECIFIED or missing)" if answer == 0 else f"unknown card enum value {answer}"
        raise Fault(FaultKind.MALFORMED, what, f"card={answer}")
    card = DECK[answer - 1]
    if not obs.hand.mask & card.mask:  # card not in obs.hand, without two calls on every decision
        raise Fault(FaultKind.CARD_NOT_HELD, f"played {card}, which it does not hold", f"card={card}")
    if not obs.legal.mask & card.mask:
        raise Fault(FaultKind.ILLEGAL_CARD, f"played {card}; legal: {obs.legal}", f"card={card}")
    return card


def _cards_of_answer(answer: Sequence[int], what: str) -> tuple[tuple[Card, ...], str]:
    """The cards a pass or discard answer names and its text for the record; a ``Fault`` for a non-card."""
    received = "cards=" + (" ".join(_card_text(v) for v in answer[:20]) or "none")
    if len(answer) > 20:
        received += f" ... ({len(answer)} in all)"
    bad = [v for v in answer if not 1 <= v <= 52]
    if bad:
        name = "no card (CARD_UNSPECIFIED)" if bad[0] == 0 else f"unknown card enum value {bad[0]}"
        raise Fault(FaultKind.MALFORMED, f"{what} holds {name}", received)
    return tuple(DECK[v - 1] for v in answer), received


def judge_pass(answer: Sequence[int], obs: Observation) -> tuple[Card, ...]:
    """The cards a PassCards answer names, if they make a valid pass; else a ``Fault``."""
    cards, received = _cards_of_answer(answer, "pass")
    if not cards and obs.rules.may_pass_on(obs.pass_direction):
        return cards  # 002 pass_on: it passes on, unseen, the cards passed to it
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise Fault(FaultKind.REPEATED_PASS_CARD, f"passed {c} twice", received)
        seen.add(c)
    need = obs.rules.pass_count
    if len(cards) != need:
        may = " (or none, to pass on)" if obs.rules.may_pass_on(obs.pass_direction) else ""
        raise Fault(FaultKind.WRONG_PASS_COUNT, f"passed {len(cards)} cards, not {need}{may}", received)
    missing = [c for c in cards if c not in obs.hand]
    if missing:
        raise Fault(FaultKind.CARD_NOT_HELD, f"passed {' '.join(map(str, missing))}, not in its hand", received)
    return cards


def judge_discard(answer: Sequence[int], obs: Observation) -> tuple[Card, ...]:
    """The cards a DiscardCards answer names, if they make a valid discard; else a ``Fault``."""
    cards, received = _cards_of_answer(answer, "discard")
    need = len(obs.kitty)
    if len(set(cards)) != len(cards) or len(cards) != need:
        again = [c for i, c in enumerate(cards) if c in cards[:i]]
        twice = f"; {again[0]} twice" if again else ""
        raise Fault(FaultKind.WRONG_DISCARD, f"discarded {len(cards)} cards{twice}: {need} distinct cards wanted "
                    "(as many as the kitty held)", received)
    missing = [c for c in cards if c not in obs.hand]
    if missing:
        raise Fault(FaultKind.CARD_NOT_HELD, f"discarded {' '.join(map(str, missing))}, not in its hand", received)
    return cards


def _safe_repr(answer: object) -> str:
    try:
        return repr(answer)[:300]
    except Exception:  # noqa: BLE001
        return f"<{type(answer).__name__}>"


def judge_call(answer: object, obs: Observation) -> str:
    """The dealer's call as text ``pass_call`` takes ("left", "mix", "1 1 3"), if it is a pass; else a ``Fault``."""
    rules = obs.rules
    if answer is None or answer == "" or answer == ():
        raise Fault(FaultKind.MALFORMED, "no call (neither offsets nor mix)", repr(answer)[:300])
    try:
        direction, offsets = pass_call(rules.players, rules.pass_count, answer)  # type: ignore[arg-type]
    except (TypeError, ValueError) as e:
        raise Fault(FaultKind.WRONG_CALL, str(e)[:200], _safe_repr(answer)) from None
    except Exception as e:  # noqa: BLE001 - an in-process bot's odd object: judged, never trusted
        raise Fault(FaultKind.MALFORMED, f"the call could not be read ({type(e).__name__})",
                    _safe_repr(answer)) from None
    return " ".join(map(str, offsets)) if direction == "split" else direction


def judge_moon(answer: int) -> MoonChoice:
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
    return tuple(cards[:obs.rules.pass_count])


def substitute_discard(seed: int, obs: Observation) -> tuple[Card, ...]:
    rng = SeededRandom(seed, "substitute", "discard", obs.hand_number, obs.seat)
    cards = list(obs.hand.cards)
    rng.shuffle(cards)
    return tuple(cards[:len(obs.kitty)])


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
    return head


def cards_text(cards: Sequence[Card] | CardSet) -> str:
    return " ".join(map(str, cards))
