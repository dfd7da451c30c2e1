# Made by protocol/generate.py from waraq/v1/bot.proto. DO NOT EDIT: change the .proto and run it.
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class HelloRequest(_message.Message):
    __slots__ = ("protocol_version", "referee")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    REFEREE_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    referee: str
    def __init__(self, protocol_version: _Optional[int] = ..., referee: _Optional[str] = ...) -> None: ...

class HelloReply(_message.Message):
    __slots__ = ("name", "version", "author", "games", "protocol_version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    author: str
    games: _containers.RepeatedCompositeFieldContainer[GameSupport]
    protocol_version: int
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., author: _Optional[str] = ..., games: _Optional[_Iterable[_Union[GameSupport, _Mapping]]] = ..., protocol_version: _Optional[int] = ...) -> None: ...

class GameSupport(_message.Message):
    __slots__ = ("game", "players")
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    game: str
    players: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, game: _Optional[str] = ..., players: _Optional[_Iterable[int]] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("start", "decision", "end")
    START_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    start: MatchStart
    decision: DecisionRequest
    end: MatchEnd
    def __init__(self, start: _Optional[_Union[MatchStart, _Mapping]] = ..., decision: _Optional[_Union[DecisionRequest, _Mapping]] = ..., end: _Optional[_Union[MatchEnd, _Mapping]] = ...) -> None: ...

class BotMessage(_message.Message):
    __slots__ = ("reply", "dial")
    REPLY_FIELD_NUMBER: _ClassVar[int]
    DIAL_FIELD_NUMBER: _ClassVar[int]
    reply: DecisionReply
    dial: Dial
    def __init__(self, reply: _Optional[_Union[DecisionReply, _Mapping]] = ..., dial: _Optional[_Union[Dial, _Mapping]] = ...) -> None: ...

class Dial(_message.Message):
    __slots__ = ("token", "hello", "match_id", "seat")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    HELLO_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    token: str
    hello: HelloReply
    match_id: str
    seat: int
    def __init__(self, token: _Optional[str] = ..., hello: _Optional[_Union[HelloReply, _Mapping]] = ..., match_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "game", "rules_json", "rules_hash", "seat", "players", "partners", "time_control")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    RULES_JSON_FIELD_NUMBER: _ClassVar[int]
    RULES_HASH_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PARTNERS_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    rules_json: str
    rules_hash: str
    seat: int
    players: int
    partners: _containers.RepeatedScalarFieldContainer[int]
    time_control: TimeControl
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., rules_json: _Optional[str] = ..., rules_hash: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., partners: _Optional[_Iterable[int]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("decision_ms", "bank_ms", "startup_ms")
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    STARTUP_MS_FIELD_NUMBER: _ClassVar[int]
    decision_ms: float
    bank_ms: float
    startup_ms: float
    def __init__(self, decision_ms: _Optional[float] = ..., bank_ms: _Optional[float] = ..., startup_ms: _Optional[float] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("seq", "kind", "legal", "deadline_ms", "bank_ms", "match_id", "seat", "hokm", "hand", "view_json")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HOKM_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    VIEW_JSON_FIELD_NUMBER: _ClassVar[int]
    seq: int
    kind: str
    legal: _containers.RepeatedCompositeFieldContainer[Action]
    deadline_ms: float
    bank_ms: float
    match_id: str
    seat: int
    hokm: HokmView
    hand: HandView
    view_json: str
    def __init__(self, seq: _Optional[int] = ..., kind: _Optional[str] = ..., legal: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., deadline_ms: _Optional[float] = ..., bank_ms: _Optional[float] = ..., match_id: _Optional[str] = ..., seat: _Optional[int] = ..., hokm: _Optional[_Union[HokmView, _Mapping]] = ..., hand: _Optional[_Union[HandView, _Mapping]] = ..., view_json: _Optional[str] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("suit", "card", "discard", "draw", "answer", "take", "turn", "json")
    SUIT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    TAKE_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    JSON_FIELD_NUMBER: _ClassVar[int]
    suit: str
    card: str
    discard: Cards
    draw: str
    answer: bool
    take: str
    turn: Turn
    json: str
    def __init__(self, suit: _Optional[str] = ..., card: _Optional[str] = ..., discard: _Optional[_Union[Cards, _Mapping]] = ..., draw: _Optional[str] = ..., answer: _Optional[bool] = ..., take: _Optional[str] = ..., turn: _Optional[_Union[Turn, _Mapping]] = ..., json: _Optional[str] = ...) -> None: ...

class Cards(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class DecisionReply(_message.Message):
    __slots__ = ("seq", "action", "note", "think_ms")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    THINK_MS_FIELD_NUMBER: _ClassVar[int]
    seq: int
    action: Action
    note: str
    think_ms: float
    def __init__(self, seq: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., note: _Optional[str] = ..., think_ms: _Optional[float] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("winners", "reason", "score", "faulty")
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    FAULTY_FIELD_NUMBER: _ClassVar[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    score: _containers.RepeatedScalarFieldContainer[int]
    faulty: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, winners: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ..., score: _Optional[_Iterable[int]] = ..., faulty: _Optional[_Iterable[int]] = ...) -> None: ...

class HokmView(_message.Message):
    __slots__ = ("seat", "players", "round", "hakem", "trump", "kind", "to_act", "hand", "hand_sizes", "trick", "tricks", "tricks_won", "scores", "redeals", "discarded", "draws", "offered", "bam", "rules_json")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    HAKEM_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    REDEALS_FIELD_NUMBER: _ClassVar[int]
    DISCARDED_FIELD_NUMBER: _ClassVar[int]
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    OFFERED_FIELD_NUMBER: _ClassVar[int]
    BAM_FIELD_NUMBER: _ClassVar[int]
    RULES_JSON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    players: int
    round: int
    hakem: int
    trump: str
    kind: str
    to_act: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    trick: _containers.RepeatedCompositeFieldContainer[PlayedCard]
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    tricks_won: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    redeals: _containers.RepeatedCompositeFieldContainer[Redeal]
    discarded: _containers.RepeatedScalarFieldContainer[str]
    draws: _containers.RepeatedCompositeFieldContainer[DrawStep]
    offered: str
    bam: bool
    rules_json: str
    def __init__(self, seat: _Optional[int] = ..., players: _Optional[int] = ..., round: _Optional[int] = ..., hakem: _Optional[int] = ..., trump: _Optional[str] = ..., kind: _Optional[str] = ..., to_act: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., trick: _Optional[_Iterable[_Union[PlayedCard, _Mapping]]] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ..., tricks_won: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ..., redeals: _Optional[_Iterable[_Union[Redeal, _Mapping]]] = ..., discarded: _Optional[_Iterable[str]] = ..., draws: _Optional[_Iterable[_Union[DrawStep, _Mapping]]] = ..., offered: _Optional[str] = ..., bam: _Optional[bool] = ..., rules_json: _Optional[str] = ...) -> None: ...

class PlayedCard(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class Trick(_message.Message):
    __slots__ = ("leader", "cards", "winner")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    leader: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    winner: int
    def __init__(self, leader: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., winner: _Optional[int] = ...) -> None: ...

class Redeal(_message.Message):
    __slots__ = ("hakem", "cards")
    HAKEM_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    hakem: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, hakem: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class DrawStep(_message.Message):
    __slots__ = ("offered", "choice", "second")
    OFFERED_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    offered: str
    choice: str
    second: str
    def __init__(self, offered: _Optional[str] = ..., choice: _Optional[str] = ..., second: _Optional[str] = ...) -> None: ...

class Turn(_message.Message):
    __slots__ = ("steps", "discard")
    STEPS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    steps: _containers.RepeatedCompositeFieldContainer[Step]
    discard: str
    def __init__(self, steps: _Optional[_Iterable[_Union[Step, _Mapping]]] = ..., discard: _Optional[str] = ...) -> None: ...

class Step(_message.Message):
    __slots__ = ("meld", "add", "swap")
    MELD_FIELD_NUMBER: _ClassVar[int]
    ADD_FIELD_NUMBER: _ClassVar[int]
    SWAP_FIELD_NUMBER: _ClassVar[int]
    meld: Cards
    add: Addition
    swap: JokerSwap
    def __init__(self, meld: _Optional[_Union[Cards, _Mapping]] = ..., add: _Optional[_Union[Addition, _Mapping]] = ..., swap: _Optional[_Union[JokerSwap, _Mapping]] = ...) -> None: ...

class Addition(_message.Message):
    __slots__ = ("meld", "cards", "at")
    MELD_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    meld: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    at: str
    def __init__(self, meld: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., at: _Optional[str] = ...) -> None: ...

class JokerSwap(_message.Message):
    __slots__ = ("meld", "card")
    MELD_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    meld: int
    card: str
    def __init__(self, meld: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class Use(_message.Message):
    __slots__ = ("steps",)
    STEPS_FIELD_NUMBER: _ClassVar[int]
    steps: _containers.RepeatedCompositeFieldContainer[Step]
    def __init__(self, steps: _Optional[_Iterable[_Union[Step, _Mapping]]] = ...) -> None: ...

class HandView(_message.Message):
    __slots__ = ("seat", "players", "round", "first", "kind", "to_act", "hand", "hand_sizes", "opened", "melds", "pile", "taken", "stock_size", "drawn", "took", "uses", "scores", "rules_json", "partnership")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    OPENED_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    PILE_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    TOOK_FIELD_NUMBER: _ClassVar[int]
    USES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RULES_JSON_FIELD_NUMBER: _ClassVar[int]
    PARTNERSHIP_FIELD_NUMBER: _ClassVar[int]
    seat: int
    players: int
    round: int
    first: int
    kind: str
    to_act: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    opened: _containers.RepeatedScalarFieldContainer[bool]
    melds: _containers.RepeatedCompositeFieldContainer[TableMeld]
    pile: _containers.RepeatedScalarFieldContainer[str]
    taken: _containers.RepeatedCompositeFieldContainer[TakenCard]
    stock_size: int
    drawn: str
    took: str
    uses: _containers.RepeatedCompositeFieldContainer[Use]
    scores: _containers.RepeatedScalarFieldContainer[int]
    rules_json: str
    partnership: bool
    def __init__(self, seat: _Optional[int] = ..., players: _Optional[int] = ..., round: _Optional[int] = ..., first: _Optional[int] = ..., kind: _Optional[str] = ..., to_act: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., opened: _Optional[_Iterable[bool]] = ..., melds: _Optional[_Iterable[_Union[TableMeld, _Mapping]]] = ..., pile: _Optional[_Iterable[str]] = ..., taken: _Optional[_Iterable[_Union[TakenCard, _Mapping]]] = ..., stock_size: _Optional[int] = ..., drawn: _Optional[str] = ..., took: _Optional[str] = ..., uses: _Optional[_Iterable[_Union[Use, _Mapping]]] = ..., scores: _Optional[_Iterable[int]] = ..., rules_json: _Optional[str] = ..., partnership: _Optional[bool] = ...) -> None: ...

class TableMeld(_message.Message):
    __slots__ = ("owner", "kind", "cards", "joker_as")
    OWNER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    JOKER_AS_FIELD_NUMBER: _ClassVar[int]
    owner: int
    kind: str
    cards: _containers.RepeatedScalarFieldContainer[str]
    joker_as: str
    def __init__(self, owner: _Optional[int] = ..., kind: _Optional[str] = ..., cards: _Optional[_Iterable[str]] = ..., joker_as: _Optional[str] = ...) -> None: ...

class TakenCard(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...
