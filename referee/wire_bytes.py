"""A Hokm decision request serialized straight from the view, byte for byte as protobuf would.

The referee sends one ``RefereeMessage(decision=...)`` per decision, and
building it field by field in protobuf messages and then serializing it was
the largest piece of the referee's own work per decision (bench/grpc.py).
Here the bytes are joined from pieces made once: every card name in every
field it can appear in, small integers, each match's id and each rules' JSON.

The output is exactly ``RefereeMessage(decision=wire.decision_request(...))
.SerializeToString()``: fields in number order, proto3 defaults left out,
repeated scalars packed (tests/test_wire_bytes.py checks it on every kind of
decision of every variant). So every protobuf library reads it as it reads
the library's own output. A Hand view is built with protobuf as before.

The wire format in brief: a field is a key ``(number << 3) | type`` as a
varint, then a varint (type 0), 8 bytes little-endian (type 1, a double) or a
varint length and that many bytes (type 2: strings, messages, packed lists).
"""

from __future__ import annotations

import struct
from typing import Any

from waraq.v1 import bot_pb2 as pb

from referee import wire
from referee.cards import CARD_NAMES, SUITS
from referee.games.hokm import DISCARD, DRAW, KINDS, PLAY, TRUMP, HokmView

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
_LEGAL_ANSWER = {True: _field(3, b"\x28\x01"), False: _field(3, b"\x28\x00")}  # Action.answer: in a oneof, false is sent
_TRICK = [[_field(10, _uint(1, seat) + _field(2, n)) for n in _NAMES] for seat in range(4)]  # HokmView.trick
_TRUMP = [_field(5, s.encode()) for s in SUITS]  # HokmView.trump
_REQUEST_KIND = {kind: _field(2, kind.encode()) for kind in KINDS}
_VIEW_KIND = {kind: _field(6, kind.encode()) for kind in KINDS}
_SEQ, _DEADLINE, _BANK, _SEAT = b"\x08", b"\x21", b"\x29", b"\x38"  # DecisionRequest's keys
_HAND_SIZES, _TRICKS_WON, _SCORES = _key(9, 2), _key(12, 2), _key(13, 2)  # HokmView's packed lists
_BAM = _key(18, 0) + b"\x01"
_DECISION_KEY, _HOKM_KEY = _key(2, 2), _key(10, 2)  # RefereeMessage.decision, DecisionRequest.hokm

# Each match's id and each rules' JSON, as their fields: few distinct values, each on every request.
_match_ids: dict[str, bytes] = {}
_rules_fields: dict[str, bytes] = {}


def _remembered(table: dict[str, bytes], number: int, text: str) -> bytes:
    """``text`` as the string field ``number``, kept in ``table`` (emptied when it grows large:
    a long run sees many match ids)."""
    data = table.get(text)
    if data is None:
        if len(table) >= 4096:
            table.clear()
        data = table[text] = _string(number, text)
    return data


def decision_message(seq: int, view: Any, *, match_id: str, deadline_ms: float, bank_ms: float) -> bytes:
    """The serialized ``RefereeMessage`` asking ``view``'s seat its decision (see wire.decision_request)."""
    if type(view) is not HokmView:
        message = pb.RefereeMessage()
        wire.decision_request(
            seq, view, match_id=match_id, deadline_ms=deadline_ms, bank_ms=bank_ms, into=message.decision
        )
        return message.SerializeToString()
    kind = view.kind
    assert kind is not None and view.seat == view.to_act
    body = _hokm_view(view)
    request = b"".join(
        (
            _SEQ + varint(seq) if seq else b"",
            _REQUEST_KIND[kind],
            _legal(kind, view.legal),
            _DEADLINE + _double(deadline_ms) if deadline_ms else b"",
            _BANK + _double(bank_ms) if bank_ms else b"",
            _remembered(_match_ids, 6, match_id),
            _SEAT + _V[view.seat] if view.seat else b"",
            _HOKM_KEY,
            _V[len(body)],  # a Hokm view is a few hundred bytes: its length is in the table
            body,
        )
    )
    return _DECISION_KEY + _V[len(request)] + request


def _legal(kind: str, legal: tuple[Any, ...]) -> bytes:
    if kind is PLAY:
        return b"".join([_LEGAL_CARD[c] for c in legal])
    if kind is TRUMP:
        return b"".join([_LEGAL_SUIT[s] for s in legal])
    if kind is DISCARD:
        return b"".join([_field(3, _field(3, b"".join([_field(1, _NAMES[c]) for c in pair]))) for pair in legal])
    if kind is DRAW:
        return b"".join([_LEGAL_DRAW[choice] for choice in legal])
    return b"".join([_LEGAL_ANSWER[answer] for answer in legal])  # REDEAL, BAM


def _hokm_view(view: HokmView) -> bytes:
    seat, hakem, to_act = view.seat, view.hakem, view.to_act
    parts = [
        b"\x08" + _V[seat] if seat else b"",
        b"\x10" + _V[view.rules.players],
        b"\x18" + varint(view.round) if view.round else b"",
        b"\x20" + _V[hakem] if hakem else b"",
        b"" if view.trump is None else _TRUMP[view.trump],
        b"" if view.kind is None else _VIEW_KIND[view.kind],
        b"\x38" + _V[to_act] if to_act else b"",
        b"".join([_HAND[c] for c in view.hand]),
        # Counts of cards and tricks, at most 17: each one's varint is the byte itself.
        _HAND_SIZES + _V[len(view.hand_sizes)] + bytes(view.hand_sizes),
        b"".join([_TRICK[s][c] for s, c in view.trick]),
        wire.tricks_field(view.tricks) if view.tricks else b"",
        _TRICKS_WON + _V[len(view.tricks_won)] + bytes(view.tricks_won),
        _packed(_SCORES, view.scores),
    ]
    if view.redeals:
        parts.append(b"".join([_field(14, _uint(1, h) + b"".join([_field(2, _NAMES[c]) for c in shown])) for h, shown in view.redeals]))
    if view.discarded:
        parts.append(b"".join([_DISCARDED[c] for c in view.discarded]))
    for step in view.draws:
        second = b"" if step.second is None else _field(3, _NAMES[step.second])
        parts.append(_field(16, _field(1, _NAMES[step.offered]) + _string(2, step.choice) + second))
    if view.offered is not None:
        parts.append(_field(17, _NAMES[view.offered]))
    if view.bam:
        parts.append(_BAM)
    parts.append(_remembered(_rules_fields, 19, view.rules.canonical_json()))
    return b"".join(parts)

