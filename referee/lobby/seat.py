"""A dial-in bot's seat: a :class:`~waraq.referee.match.seats.RemoteSeat` over a line the lobby gives it.

Opening the seat takes one of the bot's waiting Dial streams (within the
start-up time: ``not_dialled_in`` if none comes) and checks the Hello that
stream came with against the match, as a launched bot's is checked; from
there on the seat is a :class:`RemoteSeat` like any other, with one more
fault (``connection_lost``) and the record's ``connection`` lines.
"""

from __future__ import annotations

from waraq.referee.lobby.line import SeatLine, Tell
from waraq.referee.lobby.lobby import Lobby
from waraq.referee.match.faults import Fault, FaultCode
from waraq.referee.match.seats import Answer, Question, RemoteSeat, Via
from waraq.v1 import bot_pb2 as pb


class DialInSeat(RemoteSeat):
    def __init__(self, lobby: Lobby, key: str, bot: str, version: str, *, wait_s: float) -> None:
        super().__init__(None, bot, version)
        self.via = Via.DIAL_IN
        self._lobby = lobby
        self._key = key  # the bot's name in the lobby: whose token it dialled with
        self._wait_s = wait_s
        self._line: SeatLine | None = None
        self.tell: Tell | None = None  # set by the match (TellsConnections)

    async def open(self, start: pb.MatchStart) -> None:
        taken = await self._lobby.take(self._key, start.match_id, start.seat, self._wait_s)
        if taken is None:
            presence = self._lobby.presence(self._key)
            why = (
                "it is not connected"
                if presence is None
                else f"it holds {presence.streams} stream(s), all in use: it opens one more for each seat it takes"
            )
            raise self._lose(
                Fault(
                    FaultCode.NOT_DIALLED_IN,
                    f"dial-in bot {self._key} had no Dial stream open for seat {start.seat} within "
                    f"{self._wait_s * 1000:.0f} ms: {why}",
                )
            )
        line, self.hello = taken
        line.tell = self.tell
        self._line = line
        self._play = lambda: line
        try:
            await super().open(start)
        except Fault:
            line.cancel()  # its Hello does not declare the match: the stream goes back with the reason
            self._lobby.release(self._key, line)
            raise

    async def ask(self, question: Question) -> Answer:
        line = self._line
        if line is not None:
            line.asking = question.seq
        return await super().ask(question)

    async def finish(self, end: pb.MatchEnd | None) -> None:
        try:
            await super().finish(end)
        finally:
            if self._line is not None:
                self._lobby.release(self._key, self._line)
