"""What a seat can do wrong: a fault's kind, its code, and the exception that carries them.

Every fault the referee raises is one :class:`FaultCode`: a stable snake_case
name of one situation (``no_reply``, ``bank_spent``, ``wrong_seq``..), written
as the record's ``fault`` line's ``code`` beside the ``detail`` a person reads
(docs/records.md "### Fault codes"). A code decides the rest: its
:class:`FaultKind` (the five classes records have always had) and whether the
seat is *lost*, i.e. cannot be asked again. So a program tells faults apart by
their code, and nothing reads a detail's words (only replay's legacy reading
of records written before codes, :func:`waraq.referee.replay.walk.code_before_codes`).

Nothing here does I/O.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple


class FaultKind(StrEnum):
    TIMEOUT = "TIMEOUT"
    ILLEGAL = "ILLEGAL"
    MALFORMED = "MALFORMED"
    CRASH = "CRASH"
    STARTUP = "STARTUP"


class FaultCode(StrEnum):
    """One situation in which the referee faults a seat; its spelling is part of the record format."""

    # At opening, before the first question: the bot was never ready (waraq.referee.launch.bots) ..
    NOT_READY = "not_ready"
    COULD_NOT_LAUNCH = "could_not_launch"
    EXITED_AT_STARTUP = "exited_at_startup"
    CANNOT_CONFINE = "cannot_confine"
    BAD_SOCKET = "bad_socket"  # a launched bot's socket path holds a link or another file, not its socket
    HELLO_FAILED = "hello_failed"
    HELLO_UNREADABLE = "hello_unreadable"
    NOT_STARTED = "not_started"
    NOT_RUNNING = "not_running"  # a ladder's bot, suspended or not started again (waraq.ladder.play.scheduler)
    NOT_DIALLED_IN = "not_dialled_in"  # a dial-in bot had no Dial stream open for the seat (waraq.referee.lobby)
    # .. its Hello does not declare the match (waraq.referee.match.hello) ..
    WRONG_PROTOCOL = "wrong_protocol"
    NO_GAMES = "no_games"
    GAME_NOT_DECLARED = "game_not_declared"
    # .. or its Play stream does not open.
    OPEN_TIMED_OUT = "open_timed_out"
    OPEN_FAILED = "open_failed"
    # On a question: the stream is gone or out of step (the seat is lost) ..
    NO_REPLY = "no_reply"
    STREAM_BROKEN = "stream_broken"
    STREAM_CLOSED = "stream_closed"
    NOT_A_MESSAGE = "not_a_message"
    REPLY_TOO_BIG = "reply_too_big"
    SEAT_ALREADY_LOST = "seat_already_lost"
    CONNECTION_LOST = "connection_lost"  # a dial-in bot's connection was lost, and not back within the grace
    # .. or the reply is wrong, and the stream still in step.
    NOT_A_REPLY = "not_a_reply"
    WRONG_SEQ = "wrong_seq"
    NOTE_TOO_LONG = "note_too_long"
    BAD_ACTION = "bad_action"
    BAD_THINK_MS = "bad_think_ms"
    ILLEGAL_ACTION = "illegal_action"
    BANK_SPENT = "bank_spent"
    # An in-process player (tests, benchmarks: waraq.referee.match.seats.InProcessSeat).
    PLAYER_RAISED = "player_raised"
    PLAYER_TOO_SLOW = "player_too_slow"

    @property
    def kind(self) -> FaultKind | None:
        """The code's kind; None for ``seat_already_lost``, whose kind is the fault that lost the seat."""
        return NATURES[self].kind

    @property
    def lost(self) -> bool:
        """Whether the seat cannot be asked again: its stream is gone, or what comes next on it
        would be taken for the next answer. The match forfeits a lost seat under either policy."""
        return NATURES[self].lost

    @property
    def at_opening(self) -> bool:
        """Raised when the seat is opened, before any question: no decision is pending."""
        return self.kind is FaultKind.STARTUP or self in (FaultCode.OPEN_TIMED_OUT, FaultCode.OPEN_FAILED)


class Nature(NamedTuple):
    kind: FaultKind | None
    lost: bool


_STARTUP = Nature(FaultKind.STARTUP, True)
NATURES: dict[FaultCode, Nature] = {
    FaultCode.NOT_READY: _STARTUP,
    FaultCode.COULD_NOT_LAUNCH: _STARTUP,
    FaultCode.EXITED_AT_STARTUP: _STARTUP,
    FaultCode.CANNOT_CONFINE: _STARTUP,
    FaultCode.BAD_SOCKET: _STARTUP,
    FaultCode.HELLO_FAILED: _STARTUP,
    FaultCode.HELLO_UNREADABLE: _STARTUP,
    FaultCode.NOT_STARTED: _STARTUP,
    FaultCode.NOT_RUNNING: _STARTUP,
    FaultCode.NOT_DIALLED_IN: _STARTUP,
    FaultCode.WRONG_PROTOCOL: _STARTUP,
    FaultCode.NO_GAMES: _STARTUP,
    FaultCode.GAME_NOT_DECLARED: _STARTUP,
    FaultCode.OPEN_TIMED_OUT: Nature(FaultKind.TIMEOUT, True),
    FaultCode.OPEN_FAILED: Nature(FaultKind.CRASH, True),
    FaultCode.NO_REPLY: Nature(FaultKind.TIMEOUT, True),
    FaultCode.STREAM_BROKEN: Nature(FaultKind.CRASH, True),
    FaultCode.STREAM_CLOSED: Nature(FaultKind.CRASH, True),
    FaultCode.NOT_A_MESSAGE: Nature(FaultKind.MALFORMED, True),
    FaultCode.REPLY_TOO_BIG: Nature(FaultKind.MALFORMED, True),
    FaultCode.SEAT_ALREADY_LOST: Nature(None, True),
    FaultCode.CONNECTION_LOST: Nature(FaultKind.CRASH, True),
    FaultCode.NOT_A_REPLY: Nature(FaultKind.MALFORMED, False),
    FaultCode.WRONG_SEQ: Nature(FaultKind.MALFORMED, False),
    FaultCode.NOTE_TOO_LONG: Nature(FaultKind.MALFORMED, False),
    FaultCode.BAD_ACTION: Nature(FaultKind.MALFORMED, False),
    FaultCode.BAD_THINK_MS: Nature(FaultKind.MALFORMED, False),
    FaultCode.ILLEGAL_ACTION: Nature(FaultKind.ILLEGAL, False),
    FaultCode.BANK_SPENT: Nature(FaultKind.TIMEOUT, False),
    FaultCode.PLAYER_RAISED: Nature(FaultKind.CRASH, False),
    FaultCode.PLAYER_TOO_SLOW: Nature(FaultKind.TIMEOUT, False),
}
assert set(NATURES) == set(FaultCode), "every code has its kind and says whether the seat is lost"


class Fault(Exception):
    """A seat misbehaved: ``code`` says how for a program, ``detail`` for a person reading the record.

    Its :attr:`kind` and :attr:`lost` follow from the code (:data:`NATURES`);
    only :meth:`again` gives a kind of its own, the lost seat's first fault's.
    """

    def __init__(self, code: FaultCode, detail: str, *, kind: FaultKind | None = None) -> None:
        kind = code.kind or kind
        if kind is None:
            raise ValueError(f"fault code {code!r} takes the kind of the fault that lost the seat: none was given")
        super().__init__(f"{kind}: {detail}")
        self.code = code
        self.kind = kind
        self.detail = detail
        self.lost = code.lost

    @classmethod
    def again(cls, first: Fault) -> Fault:
        """What asking a lost seat once more raises: its first fault, again, without asking the bot."""
        return cls(FaultCode.SEAT_ALREADY_LOST, f"seat already lost: {first.detail}", kind=first.kind)
