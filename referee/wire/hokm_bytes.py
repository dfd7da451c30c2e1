"""A Hokm decision request serialized straight from the view, byte for byte as protobuf would.

The referee sends one ``RefereeMessage(decision=...)`` per decision, and
building it field by field in protobuf messages and then serializing it was
the largest piece of the referee's own work per decision (bench/transport.py).
Here the bytes are joined from pieces made once: every card name in every
field it can appear in, small integers, each match's id and each rules' JSON.

The output is exactly ``RefereeMessage(decision=wire.hokm.decision_request(...))
.SerializeToString()``: fields in number order, proto3 defaults left out,
repeated scalars packed (tests/wire/test_hokm_bytes.py checks it on every kind of
decision of every variant). So every protobuf library reads it as it reads
the library's own output. A Hand view is built with protobuf
(:func:`waraq.referee.wire.codec.decision_message` picks).

The wire format in brief: a field is a key ``(number << 3) | type`` as a
varint, then a varint (type 0), 8 bytes little-endian (type 1, a double) or a
varint length and that many bytes (type 2: strings, messages, packed lists).
"""

from __future__ import annotations

import struct
from typing import Any

from waraq.referee.games.cards import CARD_NAMES, SUITS
from waraq.referee.games.hokm.engine import DISCARD, DRAW, KINDS, PLAY, TRUMP, HokmView
from waraq.referee.wire import hokm as wire

_VARINTS = 1 << 14  # varints made once: every length, count and seat of a Hokm request is below this


def _varint(n: int) -> bytes:
    if n < 0:
        n += 1 << 64  # a negative int32 is sent as its 64-bit two's complement: 10 bytes
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_V = [_varint(n) for n in range(_VARINTS)]


def varint(n: int) -> bytes:
    return _V[n] if 0 <= n < _VARINTS else _varint(n)


def _key(number: int, wire_type: int) -> bytes:
    return _varint(number << 3 | wire_type)


def _field(number: int, data: bytes) -> bytes:
    """A length-delimited field: a string, a message or a packed list."""
    return _key(number, 2) + varint(len(data)) + data


def _uint(number: int, n: int) -> bytes:
    return _key(number, 0) + varint(n) if n else b""


def _string(number: int, text: str) -> bytes:
    return _field(number, text.encode()) if text else b""


def _packed(key: bytes, values: Any) -> bytes:
    """A packed list of integers under its field's ``key`` (made by :func:`_key`)."""
    if not values:
        return b""
    if 0 <= min(values) and max(values) < 0x80:  # the varint of such n is the byte n
        data = bytes(values)
    else:
        data = b"".join([varint(v) for v in values])
    return key + varint(len(data)) + data


_double = struct.Struct("<d").pack


# -- every piece that does not depend on the match --------------------------------------------

_NAMES = [name.encode() for name in CARD_NAMES]
_HAND = [_field(8, n) for n in _NAMES]  # HokmView.hand
_DISCARDED = [_field(15, n) for n in _NAMES]  # HokmView.discarded
_LEGAL_CARD = [_field(3, _field(2, n)) for n in _NAMES]  # DecisionRequest.legal: Action.card
_LEGAL_SUIT = [_field(3, _field(1, s.encode())) for s in SUITS]  # Action.suit
_LEGAL_DRAW = {choice: _field(3, _string(4, choice)) for choice in ("keep", "pass")}  # Action.draw
# Action.answer: in a oneof, false is sent too
_LEGAL_ANSWER = {True: _field(3, b"\x28\x01"), False: _field(3, b"\x28\x00")}
_TRICK = [[_field(10, _uint(1, seat) + _field(2, n)) for n in _NAMES] for seat in range(4)]  # HokmView.trick
_TRUMP = [_field(5, s.encode()) for s in SUITS]  # HokmView.trump
_REQUEST_KIND = {kind: _field(2, kind.encode()) for kind in KINDS}
_VIEW_KIND: dict[str | None, bytes] = {kind: _field(6, kind.encode()) for kind in KINDS}
_DEADLINE, _BANK = b"\x21", b"\x29"  # DecisionRequest's keys of its doubles
_HAND_SIZES, _TRICKS_WON, _SCORES = _key(9, 2), _key(12, 2), _key(13, 2)  # HokmView's packed lists
_BAM = _key(18, 0) + b"\x01"
_DECISION_KEY, _HOKM_KEY = _key(2, 2), _key(10, 2)  # RefereeMessage.decision, DecisionRequest.hokm

# Small integer fields, whole, by value; proto3 leaves a zero (and here a None) out.
_SMALL = 1024  # above every seq, round, seat and count of a Hokm match but a freak one


def _uints(number: int) -> list[bytes]:
    return [_uint(number, n) for n in range(_SMALL)]


_SEQ_FIELDS, _SEAT_FIELDS = _uints(1), _uints(7)  # DecisionRequest's
_VIEW_SEATS, _PLAYERS, _ROUNDS, _HAKEMS, _TO_ACTS = (_uints(n) for n in (1, 2, 3, 4, 7))  # HokmView's
_TRUMPS: dict[int | None, bytes] = {None: b"", **dict(enumerate(_TRUMP))}
_VIEW_KINDS: dict[str | None, bytes] = {None: b"", **_VIEW_KIND}


def _small(table: list[bytes], number: int, n: int | None) -> bytes:
    """Field ``number`` holding ``n``, from its ``table`` (made by :func:`_uints`); none for None."""
    if n is None:
        return b""
    return table[n] if 0 <= n < _SMALL else _uint(number, n)


# Fields kept by the values they are made of: a run sees few distinct ones, and each
# comes back request after request. A table is emptied when it grows large (a long
# run sees many match ids).
_match_ids: dict[str, bytes] = {}  # DecisionRequest.match_id
_clocks: dict[tuple[float, float], bytes] = {}  # DecisionRequest.deadline_ms and bank_ms
_rules_fields: dict[str, bytes] = {}  # HokmView.rules_json
# HokmView's packed lists: a round sees few of each
_hand_sizes: dict[tuple[int, ...], bytes] = {}
_tricks_won: dict[tuple[int, ...], bytes] = {}
_scores: dict[tuple[int, ...], bytes] = {}


def _keep(table: dict[Any, bytes], value: Any, data: bytes) -> bytes:
    """Keep ``data``, the field made of ``value``, in ``table``; hand it back."""
    if len(table) >= 4096:
        table.clear()
    table[value] = data
    return data


def _clock(deadline_ms: float, bank_ms: float) -> bytes:
    return (_DEADLINE + _double(deadline_ms) if deadline_ms else b"") + (_BANK + _double(bank_ms) if bank_ms else b"")


def decision_message(seq: int, view: HokmView, *, match_id: str, deadline_ms: float, bank_ms: float) -> bytes:
    """The serialized ``RefereeMessage`` asking ``view``'s seat its decision (see wire.hokm.decision_request)."""
    kind = view.kind
    assert kind is not None and view.seat == view.to_act
    body = _hokm_view(view)
    request = b"".join(
        (
            _SEQ_FIELDS[seq] if 0 <= seq < _SMALL else _uint(1, seq),
            _REQUEST_KIND[kind],
            _legal(kind, view.legal),
            _clocks.get((deadline_ms, bank_ms)) or _keep(_clocks, (deadline_ms, bank_ms), _clock(deadline_ms, bank_ms)),
            _match_ids.get(match_id) or _keep(_match_ids, match_id, _string(6, match_id)),
            _SEAT_FIELDS[view.seat],
            _HOKM_KEY,
            _V[len(body)],  # a Hokm view is a few hundred bytes: its length is in the table
            body,
        )
    )
    return _DECISION_KEY + _V[len(request)] + request


def _legal(kind: str, legal: tuple[Any, ...]) -> bytes:
    if kind == PLAY:
        return b"".join([_LEGAL_CARD[c] for c in legal])
    if kind == TRUMP:
        return b"".join([_LEGAL_SUIT[s] for s in legal])
    if kind == DISCARD:
        return b"".join([_field(3, _field(3, b"".join([_field(1, _NAMES[c]) for c in pair]))) for pair in legal])
    if kind == DRAW:
        return b"".join([_LEGAL_DRAW[choice] for choice in legal])
    return b"".join([_LEGAL_ANSWER[answer] for answer in legal])  # REDEAL, BAM


def _hokm_view(view: HokmView) -> bytes:
    parts = [
        _VIEW_SEATS[view.seat],
        _PLAYERS[view.rules.players],
        _small(_ROUNDS, 3, view.round),
        _HAKEMS[view.hakem],
        _TRUMPS[view.trump],
        _VIEW_KINDS[view.kind],
        _small(_TO_ACTS, 7, view.to_act),
        b"".join([_HAND[c] for c in view.hand]),
        _hand_sizes.get(view.hand_sizes) or _keep(_hand_sizes, view.hand_sizes, _packed(_HAND_SIZES, view.hand_sizes)),
        b"".join([_TRICK[s][c] for s, c in view.trick]),
        wire.tricks_field(view.tricks) if view.tricks else b"",
        _tricks_won.get(view.tricks_won) or _keep(_tricks_won, view.tricks_won, _packed(_TRICKS_WON, view.tricks_won)),
        _scores.get(view.scores) or _keep(_scores, view.scores, _packed(_SCORES, view.scores)),
    ]
    if view.redeals:
        for hakem, shown in view.redeals:  # HokmView.redeals: (hakem, the five cards shown)
            parts.append(_field(14, _uint(1, hakem) + b"".join([_field(2, _NAMES[c]) for c in shown])))
    if view.discarded:
        parts.append(b"".join([_DISCARDED[c] for c in view.discarded]))
    for step in view.draws:
        second = b"" if step.second is None else _field(3, _NAMES[step.second])
        parts.append(_field(16, _field(1, _NAMES[step.offered]) + _string(2, step.choice) + second))
    if view.offered is not None:
        parts.append(_field(17, _NAMES[view.offered]))
    if view.bam:
        parts.append(_BAM)
    rules = view.rules.canonical_json()
    parts.append(_rules_fields.get(rules) or _keep(_rules_fields, rules, _string(19, rules)))
    return b"".join(parts)
