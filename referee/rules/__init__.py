"""The pure Hearts engine: cards, rules and presets, hand and match state, legal moves, scoring.

No I/O, no asyncio, no protobuf; it imports nothing else of this project.

The modules may run compiled by mypyc (``make engine``) or as plain Python: ``ENGINE`` says which
(``"compiled"`` or ``"pure"``) and ``ENGINE_REASON`` why. A build whose sources have changed since is
never used; ``HEARTS_PURE_PYTHON=1`` forces the source. See ``_loader``.
"""

from ._loader import load_engine

ENGINE, ENGINE_REASON = load_engine()  # imports .cards, .options and .state, compiled or not

from .cards import DECK, QUEEN_OF_SPADES, TWO_OF_CLUBS, Card, CardSet, Suit, cards_of, mask_of, parse_cards
from .options import (
    OPTIONS,
    PASS_CYCLES,
    PASS_DIRECTIONS,
    POINT_SCHEMES,
    PRESETS,
    TURBO_CARDS,
    Option,
    Rules,
    pass_call,
)
from .state import (
    CallPass,
    CardNotHeldError,
    CardNotLegalError,
    ChargeCards,
    ChooseMoon,
    Deal,
    Discard,
    Event,
    Hand,
    HandResult,
    IllegalPlayError,
    Match,
    MixRedeal,
    MoonChoice,
    NotYourTurnError,
    Observation,
    PassCards,
    Phase,
    Play,
    RepeatedCardError,
    SeededRandom,
    Trick,
    WrongCallError,
    WrongCountError,
    deal,
    places_of,
)

__all__ = [
    "DECK",
    "QUEEN_OF_SPADES",
    "TWO_OF_CLUBS",
    "Card",
    "CardSet",
    "Suit",
    "cards_of",
    "mask_of",
    "parse_cards",
    "OPTIONS",
    "PASS_CYCLES",
    "PASS_DIRECTIONS",
    "POINT_SCHEMES",
    "PRESETS",
    "TURBO_CARDS",
    "Option",
    "Rules",
    "pass_call",
    "CallPass",
    "CardNotHeldError",
    "CardNotLegalError",
    "ChargeCards",
    "ChooseMoon",
    "Deal",
    "Discard",
    "Event",
    "Hand",
    "HandResult",
    "IllegalPlayError",
    "Match",
    "MixRedeal",
    "MoonChoice",
    "NotYourTurnError",
    "Observation",
    "PassCards",
    "Phase",
    "Play",
    "RepeatedCardError",
    "SeededRandom",
    "Trick",
    "WrongCallError",
    "WrongCountError",
    "deal",
    "places_of",
]
