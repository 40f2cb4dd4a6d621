from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Card(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CARD_UNSPECIFIED: _ClassVar[Card]
    CARD_TWO_OF_CLUBS: _ClassVar[Card]
    CARD_THREE_OF_CLUBS: _ClassVar[Card]
    CARD_FOUR_OF_CLUBS: _ClassVar[Card]
    CARD_FIVE_OF_CLUBS: _ClassVar[Card]
    CARD_SIX_OF_CLUBS: _ClassVar[Card]
    CARD_SEVEN_OF_CLUBS: _ClassVar[Card]
    CARD_EIGHT_OF_CLUBS: _ClassVar[Card]
    CARD_NINE_OF_CLUBS: _ClassVar[Card]
    CARD_TEN_OF_CLUBS: _ClassVar[Card]
    CARD_JACK_OF_CLUBS: _ClassVar[Card]
    CARD_QUEEN_OF_CLUBS: _ClassVar[Card]
    CARD_KING_OF_CLUBS: _ClassVar[Card]
    CARD_ACE_OF_CLUBS: _ClassVar[Card]
    CARD_TWO_OF_DIAMONDS: _ClassVar[Card]
    CARD_THREE_OF_DIAMONDS: _ClassVar[Card]
    CARD_FOUR_OF_DIAMONDS: _ClassVar[Card]
    CARD_FIVE_OF_DIAMONDS: _ClassVar[Card]
    CARD_SIX_OF_DIAMONDS: _ClassVar[Card]
    CARD_SEVEN_OF_DIAMONDS: _ClassVar[Card]
    CARD_EIGHT_OF_DIAMONDS: _ClassVar[Card]
    CARD_NINE_OF_DIAMONDS: _ClassVar[Card]
    CARD_TEN_OF_DIAMONDS: _ClassVar[Card]
    CARD_JACK_OF_DIAMONDS: _ClassVar[Card]
    CARD_QUEEN_OF_DIAMONDS: _ClassVar[Card]
    CARD_KING_OF_DIAMONDS: _ClassVar[Card]
    CARD_ACE_OF_DIAMONDS: _ClassVar[Card]
    CARD_TWO_OF_SPADES: _ClassVar[Card]
    CARD_THREE_OF_SPADES: _ClassVar[Card]
    CARD_FOUR_OF_SPADES: _ClassVar[Card]
    CARD_FIVE_OF_SPADES: _ClassVar[Card]
    CARD_SIX_OF_SPADES: _ClassVar[Card]
    CARD_SEVEN_OF_SPADES: _ClassVar[Card]
    CARD_EIGHT_OF_SPADES: _ClassVar[Card]
    CARD_NINE_OF_SPADES: _ClassVar[Card]
    CARD_TEN_OF_SPADES: _ClassVar[Card]
    CARD_JACK_OF_SPADES: _ClassVar[Card]
    CARD_QUEEN_OF_SPADES: _ClassVar[Card]
    CARD_KING_OF_SPADES: _ClassVar[Card]
    CARD_ACE_OF_SPADES: _ClassVar[Card]
    CARD_TWO_OF_HEARTS: _ClassVar[Card]
    CARD_THREE_OF_HEARTS: _ClassVar[Card]
    CARD_FOUR_OF_HEARTS: _ClassVar[Card]
    CARD_FIVE_OF_HEARTS: _ClassVar[Card]
    CARD_SIX_OF_HEARTS: _ClassVar[Card]
    CARD_SEVEN_OF_HEARTS: _ClassVar[Card]
    CARD_EIGHT_OF_HEARTS: _ClassVar[Card]
    CARD_NINE_OF_HEARTS: _ClassVar[Card]
    CARD_TEN_OF_HEARTS: _ClassVar[Card]
    CARD_JACK_OF_HEARTS: _ClassVar[Card]
    CARD_QUEEN_OF_HEARTS: _ClassVar[Card]
    CARD_KING_OF_HEARTS: _ClassVar[Card]
    CARD_ACE_OF_HEARTS: _ClassVar[Card]

class Suit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUIT_UNSPECIFIED: _ClassVar[Suit]
    SUIT_CLUBS: _ClassVar[Suit]
    SUIT_DIAMONDS: _ClassVar[Suit]
    SUIT_SPADES: _ClassVar[Suit]
    SUIT_HEARTS: _ClassVar[Suit]

class PassDirection(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PASS_DIRECTION_UNSPECIFIED: _ClassVar[PassDirection]
    PASS_DIRECTION_LEFT: _ClassVar[PassDirection]
    PASS_DIRECTION_RIGHT: _ClassVar[PassDirection]
    PASS_DIRECTION_ACROSS: _ClassVar[PassDirection]
    PASS_DIRECTION_HOLD: _ClassVar[PassDirection]
    PASS_DIRECTION_SCATTER: _ClassVar[PassDirection]
    PASS_DIRECTION_MIX: _ClassVar[PassDirection]
    PASS_DIRECTION_LEFT_TWO: _ClassVar[PassDirection]
    PASS_DIRECTION_RIGHT_TWO: _ClassVar[PassDirection]
    PASS_DIRECTION_CALL: _ClassVar[PassDirection]
    PASS_DIRECTION_SPLIT: _ClassVar[PassDirection]

class MoonChoice(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MOON_CHOICE_UNSPECIFIED: _ClassVar[MoonChoice]
    MOON_CHOICE_ADD_TO_OTHERS: _ClassVar[MoonChoice]
    MOON_CHOICE_SUBTRACT_FROM_SHOOTER: _ClassVar[MoonChoice]
CARD_UNSPECIFIED: Card
CARD_TWO_OF_CLUBS: Card
CARD_THREE_OF_CLUBS: Card
CARD_FOUR_OF_CLUBS: Card
CARD_FIVE_OF_CLUBS: Card
CARD_SIX_OF_CLUBS: Card
CARD_SEVEN_OF_CLUBS: Card
CARD_EIGHT_OF_CLUBS: Card
CARD_NINE_OF_CLUBS: Card
CARD_TEN_OF_CLUBS: Card
CARD_JACK_OF_CLUBS: Card
CARD_QUEEN_OF_CLUBS: Card
CARD_KING_OF_CLUBS: Card
CARD_ACE_OF_CLUBS: Card
CARD_TWO_OF_DIAMONDS: Card
CARD_THREE_OF_DIAMONDS: Card
CARD_FOUR_OF_DIAMONDS: Card
CARD_FIVE_OF_DIAMONDS: Card
CARD_SIX_OF_DIAMONDS: Card
CARD_SEVEN_OF_DIAMONDS: Card
CARD_EIGHT_OF_DIAMONDS: Card
CARD_NINE_OF_DIAMONDS: Card
CARD_TEN_OF_DIAMONDS: Card
CARD_JACK_OF_DIAMONDS: Card
CARD_QUEEN_OF_DIAMONDS: Card
CARD_KING_OF_DIAMONDS: Card
CARD_ACE_OF_DIAMONDS: Card
CARD_TWO_OF_SPADES: Card
CARD_THREE_OF_SPADES: Card
CARD_FOUR_OF_SPADES: Card
CARD_FIVE_OF_SPADES: Card
CARD_SIX_OF_SPADES: Card
CARD_SEVEN_OF_SPADES: Card
CARD_EIGHT_OF_SPADES: Card
CARD_NINE_OF_SPADES: Card
CARD_TEN_OF_SPADES: Card
CARD_JACK_OF_SPADES: Card
CARD_QUEEN_OF_SPADES: Card
CARD_KING_OF_SPADES: Card
CARD_ACE_OF_SPADES: Card
CARD_TWO_OF_HEARTS: Card
CARD_THREE_OF_HEARTS: Card
CARD_FOUR_OF_HEARTS: Card
CARD_FIVE_OF_HEARTS: Card
CARD_SIX_OF_HEARTS: Card
CARD_SEVEN_OF_HEARTS: Card
CARD_EIGHT_OF_HEARTS: Card
CARD_NINE_OF_HEARTS: Card
CARD_TEN_OF_HEARTS: Card
CARD_JACK_OF_HEARTS: Card
CARD_QUEEN_OF_HEARTS: Card
CARD_KING_OF_HEARTS: Card
CARD_ACE_OF_HEARTS: Card
SUIT_UNSPECIFIED: Suit
SUIT_CLUBS: Suit
SUIT_DIAMONDS: Suit
SUIT_SPADES: Suit
SUIT_HEARTS: Suit
PASS_DIRECTION_UNSPECIFIED: PassDirection
PASS_DIRECTION_LEFT: PassDirection
PASS_DIRECTION_RIGHT: PassDirection
PASS_DIRECTION_ACROSS: PassDirection
PASS_DIRECTION_HOLD: PassDirection
PASS_DIRECTION_SCATTER: PassDirection
PASS_DIRECTION_MIX: PassDirection
PASS_DIRECTION_LEFT_TWO: PassDirection
PASS_DIRECTION_RIGHT_TWO: PassDirection
PASS_DIRECTION_CALL: PassDirection
PASS_DIRECTION_SPLIT: PassDirection
MOON_CHOICE_UNSPECIFIED: MoonChoice
MOON_CHOICE_ADD_TO_OTHERS: MoonChoice
MOON_CHOICE_SUBTRACT_FROM_SHOOTER: MoonChoice

class Rules(_message.Message):
    __slots__ = ("preset", "players", "removed_cards", "kitty", "cards_per_player", "kitty_size", "pass_cycle", "pass_count", "first_lead", "hearts_lead", "queen_breaks_hearts", "lead_hearts_with_queen", "points_on_first_trick", "queen_at_first_safe_chance", "points", "card_points", "bonus_card", "bonus_points", "moon", "moon_points", "sun_points", "no_tricks_bonus", "exact_target_reset", "target", "tied_lowest", "pass_on", "kitty_discard", "exact_reset_at", "booster_nines", "ten_of_clubs_doubles", "turbo_charging", "turbo_charges", "charged_singleton", "partnership", "packs")
    PRESET_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    REMOVED_CARDS_FIELD_NUMBER: _ClassVar[int]
    KITTY_FIELD_NUMBER: _ClassVar[int]
    CARDS_PER_PLAYER_FIELD_NUMBER: _ClassVar[int]
    KITTY_SIZE_FIELD_NUMBER: _ClassVar[int]
    PASS_CYCLE_FIELD_NUMBER: _ClassVar[int]
    PASS_COUNT_FIELD_NUMBER: _ClassVar[int]
    FIRST_LEAD_FIELD_NUMBER: _ClassVar[int]
    HEARTS_LEAD_FIELD_NUMBER: _ClassVar[int]
    QUEEN_BREAKS_HEARTS_FIELD_NUMBER: _ClassVar[int]
    LEAD_HEARTS_WITH_QUEEN_FIELD_NUMBER: _ClassVar[int]
    POINTS_ON_FIRST_TRICK_FIELD_NUMBER: _ClassVar[int]
    QUEEN_AT_FIRST_SAFE_CHANCE_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    CARD_POINTS_FIELD_NUMBER: _ClassVar[int]
    BONUS_CARD_FIELD_NUMBER: _ClassVar[int]
    BONUS_POINTS_FIELD_NUMBER: _ClassVar[int]
    MOON_FIELD_NUMBER: _ClassVar[int]
    MOON_POINTS_FIELD_NUMBER: _ClassVar[int]
    SUN_POINTS_FIELD_NUMBER: _ClassVar[int]
    NO_TRICKS_BONUS_FIELD_NUMBER: _ClassVar[int]
    EXACT_TARGET_RESET_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TIED_LOWEST_FIELD_NUMBER: _ClassVar[int]
    PASS_ON_FIELD_NUMBER: _ClassVar[int]
    KITTY_DISCARD_FIELD_NUMBER: _ClassVar[int]
    EXACT_RESET_AT_FIELD_NUMBER: _ClassVar[int]
    BOOSTER_NINES_FIELD_NUMBER: _ClassVar[int]
    TEN_OF_CLUBS_DOUBLES_FIELD_NUMBER: _ClassVar[int]
    TURBO_CHARGING_FIELD_NUMBER: _ClassVar[int]
    TURBO_CHARGES_FIELD_NUMBER: _ClassVar[int]
    CHARGED_SINGLETON_FIELD_NUMBER: _ClassVar[int]
    PARTNERSHIP_FIELD_NUMBER: _ClassVar[int]
    PACKS_FIELD_NUMBER: _ClassVar[int]
    preset: str
    players: int
    removed_cards: _containers.RepeatedScalarFieldContainer[Card]
    kitty: str
    cards_per_player: int
    kitty_size: int
    pass_cycle: _containers.RepeatedScalarFieldContainer[PassDirection]
    pass_count: int
    first_lead: str
    hearts_lead: str
    queen_breaks_hearts: bool
    lead_hearts_with_queen: bool
    points_on_first_trick: bool
    queen_at_first_safe_chance: bool
    points: str
    card_points: _containers.RepeatedScalarFieldContainer[int]
    bonus_card: Card
    bonus_points: int
    moon: str
    moon_points: int
    sun_points: int
    no_tricks_bonus: int
    exact_target_reset: int
    target: int
    tied_lowest: str
    pass_on: bool
    kitty_discard: bool
    exact_reset_at: int
    booster_nines: bool
    ten_of_clubs_doubles: bool
    turbo_charging: bool
    turbo_charges: str
    charged_singleton: str
    partnership: str
    packs: int
    def __init__(self, preset: _Optional[str] = ..., players: _Optional[int] = ..., removed_cards: _Optional[_Iterable[_Union[Card, str]]] = ..., kitty: _Optional[str] = ..., cards_per_player: _Optional[int] = ..., kitty_size: _Optional[int] = ..., pass_cycle: _Optional[_Iterable[_Union[PassDirection, str]]] = ..., pass_count: _Optional[int] = ..., first_lead: _Optional[str] = ..., hearts_lead: _Optional[str] = ..., queen_breaks_hearts: _Optional[bool] = ..., lead_hearts_with_queen: _Optional[bool] = ..., points_on_first_trick: _Optional[bool] = ..., queen_at_first_safe_chance: _Optional[bool] = ..., points: _Optional[str] = ..., card_points: _Optional[_Iterable[int]] = ..., bonus_card: _Optional[_Union[Card, str]] = ..., bonus_points: _Optional[int] = ..., moon: _Optional[str] = ..., moon_points: _Optional[int] = ..., sun_points: _Optional[int] = ..., no_tricks_bonus: _Optional[int] = ..., exact_target_reset: _Optional[int] = ..., target: _Optional[int] = ..., tied_lowest: _Optional[str] = ..., pass_on: _Optional[bool] = ..., kitty_discard: _Optional[bool] = ..., exact_reset_at: _Optional[int] = ..., booster_nines: _Optional[bool] = ..., ten_of_clubs_doubles: _Optional[bool] = ..., turbo_charging: _Optional[bool] = ..., turbo_charges: _Optional[str] = ..., charged_singleton: _Optional[str] = ..., partnership: _Optional[str] = ..., packs: _Optional[int] = ...) -> None: ...

class Trick(_message.Message):
    __slots__ = ("leader", "cards", "winner", "boosted", "cancelled", "no_winner")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    BOOSTED_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    NO_WINNER_FIELD_NUMBER: _ClassVar[int]
    leader: int
    cards: _containers.RepeatedScalarFieldContainer[Card]
    winner: int
    boosted: bool
    cancelled: _containers.RepeatedScalarFieldContainer[Card]
    no_winner: bool
    def __init__(self, leader: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, str]]] = ..., winner: _Optional[int] = ..., boosted: _Optional[bool] = ..., cancelled: _Optional[_Iterable[_Union[Card, str]]] = ..., no_winner: _Optional[bool] = ...) -> None: ...

class GameView(_message.Message):
    __slots__ = ("match_id", "hand_number", "seat", "player_names", "rules", "scores", "pass_direction", "hand", "passed_cards", "received_cards", "tricks", "current_trick", "hearts_broken", "legal_cards", "budget_ms", "time_bank_ms", "dealer", "kitty_taker", "kitty", "discarded", "pass_offsets", "charges", "partner", "team_scores", "table")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAMES_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    PASS_DIRECTION_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    PASSED_CARDS_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_CARDS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_TRICK_FIELD_NUMBER: _ClassVar[int]
    HEARTS_BROKEN_FIELD_NUMBER: _ClassVar[int]
    LEGAL_CARDS_FIELD_NUMBER: _ClassVar[int]
    BUDGET_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    KITTY_TAKER_FIELD_NUMBER: _ClassVar[int]
    KITTY_FIELD_NUMBER: _ClassVar[int]
    DISCARDED_FIELD_NUMBER: _ClassVar[int]
    PASS_OFFSETS_FIELD_NUMBER: _ClassVar[int]
    CHARGES_FIELD_NUMBER: _ClassVar[int]
    PARTNER_FIELD_NUMBER: _ClassVar[int]
    TEAM_SCORES_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    hand_number: int
    seat: int
    player_names: _containers.RepeatedScalarFieldContainer[str]
    rules: Rules
    scores: _containers.RepeatedScalarFieldContainer[int]
    pass_direction: PassDirection
    hand: _containers.RepeatedScalarFieldContainer[Card]
    passed_cards: _containers.RepeatedScalarFieldContainer[Card]
    received_cards: _containers.RepeatedScalarFieldContainer[Card]
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    current_trick: Trick
    hearts_broken: bool
    legal_cards: _containers.RepeatedScalarFieldContainer[Card]
    budget_ms: int
    time_bank_ms: int
    dealer: int
    kitty_taker: int
    kitty: _containers.RepeatedScalarFieldContainer[Card]
    discarded: _containers.RepeatedScalarFieldContainer[Card]
    pass_offsets: _containers.RepeatedScalarFieldContainer[int]
    charges: _containers.RepeatedCompositeFieldContainer[Charge]
    partner: int
    team_scores: _containers.RepeatedScalarFieldContainer[int]
    table: _containers.RepeatedScalarFieldContainer[Card]
    def __init__(self, match_id: _Optional[str] = ..., hand_number: _Optional[int] = ..., seat: _Optional[int] = ..., player_names: _Optional[_Iterable[str]] = ..., rules: _Optional[_Union[Rules, _Mapping]] = ..., scores: _Optional[_Iterable[int]] = ..., pass_direction: _Optional[_Union[PassDirection, str]] = ..., hand: _Optional[_Iterable[_Union[Card, str]]] = ..., passed_cards: _Optional[_Iterable[_Union[Card, str]]] = ..., received_cards: _Optional[_Iterable[_Union[Card, str]]] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ..., current_trick: _Optional[_Union[Trick, _Mapping]] = ..., hearts_broken: _Optional[bool] = ..., legal_cards: _Optional[_Iterable[_Union[Card, str]]] = ..., budget_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., dealer: _Optional[int] = ..., kitty_taker: _Optional[int] = ..., kitty: _Optional[_Iterable[_Union[Card, str]]] = ..., discarded: _Optional[_Iterable[_Union[Card, str]]] = ..., pass_offsets: _Optional[_Iterable[int]] = ..., charges: _Optional[_Iterable[_Union[Charge, _Mapping]]] = ..., partner: _Optional[int] = ..., team_scores: _Optional[_Iterable[int]] = ..., table: _Optional[_Iterable[_Union[Card, str]]] = ...) -> None: ...

class Charge(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: Card
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[Card, str]] = ...) -> None: ...

class HandshakeRequest(_message.Message):
    __slots__ = ("protocol_version", "referee")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    REFEREE_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    referee: str
    def __init__(self, protocol_version: _Optional[int] = ..., referee: _Optional[str] = ...) -> None: ...

class HandshakeResponse(_message.Message):
    __slots__ = ("protocol_version", "name", "version", "author", "language", "presets", "options", "max_concurrent_games", "wants_notifications")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    PRESETS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENT_GAMES_FIELD_NUMBER: _ClassVar[int]
    WANTS_NOTIFICATIONS_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    name: str
    version: str
    author: str
    language: str
    presets: _containers.RepeatedScalarFieldContainer[str]
    options: _containers.RepeatedScalarFieldContainer[str]
    max_concurrent_games: int
    wants_notifications: bool
    def __init__(self, protocol_version: _Optional[int] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., author: _Optional[str] = ..., language: _Optional[str] = ..., presets: _Optional[_Iterable[str]] = ..., options: _Optional[_Iterable[str]] = ..., max_concurrent_games: _Optional[int] = ..., wants_notifications: _Optional[bool] = ...) -> None: ...

class PassCardsRequest(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: GameView
    def __init__(self, view: _Optional[_Union[GameView, _Mapping]] = ...) -> None: ...

class PassCardsResponse(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, str]]] = ...) -> None: ...

class PlayCardRequest(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: GameView
    def __init__(self, view: _Optional[_Union[GameView, _Mapping]] = ...) -> None: ...

class PlayCardResponse(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: Card
    def __init__(self, card: _Optional[_Union[Card, str]] = ...) -> None: ...

class CallPassRequest(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: GameView
    def __init__(self, view: _Optional[_Union[GameView, _Mapping]] = ...) -> None: ...

class CallPassResponse(_message.Message):
    __slots__ = ("offsets", "mix")
    OFFSETS_FIELD_NUMBER: _ClassVar[int]
    MIX_FIELD_NUMBER: _ClassVar[int]
    offsets: _containers.RepeatedScalarFieldContainer[int]
    mix: bool
    def __init__(self, offsets: _Optional[_Iterable[int]] = ..., mix: _Optional[bool] = ...) -> None: ...

class DiscardCardsRequest(_message.Message):
    __slots__ = ("view", "count")
    VIEW_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    view: GameView
    count: int
    def __init__(self, view: _Optional[_Union[GameView, _Mapping]] = ..., count: _Optional[int] = ...) -> None: ...

class DiscardCardsResponse(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, str]]] = ...) -> None: ...

class ChargeCardsRequest(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: GameView
    def __init__(self, view: _Optional[_Union[GameView, _Mapping]] = ...) -> None: ...

class ChargeCardsResponse(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, str]]] = ...) -> None: ...

class ChooseMoonRequest(_message.Message):
    __slots__ = ("view", "moon_points", "sun")
    VIEW_FIELD_NUMBER: _ClassVar[int]
    MOON_POINTS_FIELD_NUMBER: _ClassVar[int]
    SUN_FIELD_NUMBER: _ClassVar[int]
    view: GameView
    moon_points: int
    sun: bool
    def __init__(self, view: _Optional[_Union[GameView, _Mapping]] = ..., moon_points: _Optional[int] = ..., sun: _Optional[bool] = ...) -> None: ...

class ChooseMoonResponse(_message.Message):
    __slots__ = ("choice",)
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    choice: MoonChoice
    def __init__(self, choice: _Optional[_Union[MoonChoice, str]] = ...) -> None: ...

class NotifyRequest(_message.Message):
    __slots__ = ("match_id", "seat", "trick_completed", "hand_scored", "match_over")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TRICK_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    HAND_SCORED_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    trick_completed: TrickCompleted
    hand_scored: HandScored
    match_over: MatchOver
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., trick_completed: _Optional[_Union[TrickCompleted, _Mapping]] = ..., hand_scored: _Optional[_Union[HandScored, _Mapping]] = ..., match_over: _Optional[_Union[MatchOver, _Mapping]] = ...) -> None: ...

class TrickCompleted(_message.Message):
    __slots__ = ("hand_number", "trick")
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    hand_number: int
    trick: Trick
    def __init__(self, hand_number: _Optional[int] = ..., trick: _Optional[_Union[Trick, _Mapping]] = ...) -> None: ...

class HandScored(_message.Message):
    __slots__ = ("hand_number", "points_taken", "hand_score", "totals", "moon_shooter", "sun_shooter", "team_hand_score", "team_totals")
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    POINTS_TAKEN_FIELD_NUMBER: _ClassVar[int]
    HAND_SCORE_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    MOON_SHOOTER_FIELD_NUMBER: _ClassVar[int]
    SUN_SHOOTER_FIELD_NUMBER: _ClassVar[int]
    TEAM_HAND_SCORE_FIELD_NUMBER: _ClassVar[int]
    TEAM_TOTALS_FIELD_NUMBER: _ClassVar[int]
    hand_number: int
    points_taken: _containers.RepeatedScalarFieldContainer[int]
    hand_score: _containers.RepeatedScalarFieldContainer[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    moon_shooter: int
    sun_shooter: int
    team_hand_score: _containers.RepeatedScalarFieldContainer[int]
    team_totals: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, hand_number: _Optional[int] = ..., points_taken: _Optional[_Iterable[int]] = ..., hand_score: _Optional[_Iterable[int]] = ..., totals: _Optional[_Iterable[int]] = ..., moon_shooter: _Optional[int] = ..., sun_shooter: _Optional[int] = ..., team_hand_score: _Optional[_Iterable[int]] = ..., team_totals: _Optional[_Iterable[int]] = ...) -> None: ...

class MatchOver(_message.Message):
    __slots__ = ("totals", "places", "forfeited", "teams", "team_totals")
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    PLACES_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    TEAM_TOTALS_FIELD_NUMBER: _ClassVar[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    places: _containers.RepeatedScalarFieldContainer[int]
    forfeited: _containers.RepeatedScalarFieldContainer[int]
    teams: _containers.RepeatedScalarFieldContainer[int]
    team_totals: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, totals: _Optional[_Iterable[int]] = ..., places: _Optional[_Iterable[int]] = ..., forfeited: _Optional[_Iterable[int]] = ..., teams: _Optional[_Iterable[int]] = ..., team_totals: _Optional[_Iterable[int]] = ...) -> None: ...

class NotifyResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
