"""A bot that misbehaves at the bytes of its replies, on cue: shared by the hostile-bytes and re-ask tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc

from tests.support.proxy import marked_note
from waraq.bots import codec
from waraq.bots.server import PlayerBot, builtin_players
from waraq.referee.match.seats import REPLY_LIMIT
from waraq.v1 import bot_pb2 as pb

AT = 3


class ByteFaultBot(PlayerBot):
    """Plays as the random sample bot (either game) until the ``at``-th decision of a Play stream,
    where it misbehaves as ``mode``: one of BOT_MODES, or a proxy corruption, asked for in the note."""

    def __init__(self, mode: str, at: int = AT) -> None:
        super().__init__("hostile", builtin_players()["random"])
        self.mode = mode
        self.at = at

    async def Play(self, requests: AsyncIterator[pb.RefereeMessage], context: Any) -> AsyncIterator[pb.BotMessage]:
        player, asked = None, 0
        async for message in requests:
            body = message.WhichOneof("body")
            if body == "start":
                player = self.make_player(message.start.match_id, message.start.seat, message.start.game)
            elif body == "decision" and player is not None:
                request = message.decision
                asked += 1
                action = codec.action_to_message(codec.kind_of(request), player(codec.message_to_view(request)))
                reply = pb.DecisionReply(seq=request.seq, action=action)
                if asked == self.at:
                    bad = await self._misbehave(reply, context)
                    if bad is None:
                        return  # hang_up: the stream ends, status OK, with no reply
                    yield bad
                    continue
                yield pb.BotMessage(reply=reply)

    async def _misbehave(self, reply: pb.DecisionReply, context: Any) -> pb.BotMessage | None:
        mode = self.mode
        if mode == "oversize":
            reply.note = "x" * (5 << 20)  # over gRPC's own default of 4 MiB too
        elif mode == "over_limit":
            reply.note = "x" * REPLY_LIMIT
        elif mode == "not_a_reply":
            return pb.BotMessage()
        elif mode == "think_nan":
            reply.think_ms = float("nan")
        elif mode == "think_negative":
            reply.think_ms = -5.0
        elif mode == "hang_up":
            return None
        elif mode == "abort":
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "no more")
        elif mode == "resource_exhausted":
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "out of memory")
        else:
            reply.note = marked_note(mode)
        return pb.BotMessage(reply=reply)
