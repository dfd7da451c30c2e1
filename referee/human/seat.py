"""A human seat: a :class:`~waraq.referee.match.seats.RemoteSeat` over a line to a person's page.

Opening, asking and finishing are :class:`RemoteSeat`'s own, with its clock
and its faults; the line (:class:`~waraq.referee.human.desk.PageLine`) carries
the messages to the page and the page's replies back. The seat also leaves the
question's view on the line while it is out, for the page's Hand turn builder
(:mod:`.turn_steps`), which asks the engine's turn rules what may come next.
"""

from __future__ import annotations

import importlib.metadata

from waraq.referee.games import registry
from waraq.referee.human.desk import PageLine, Person
from waraq.referee.match.seats import Answer, Question, RemoteSeat, Via
from waraq.referee.wire import common as wire
from waraq.v1 import bot_pb2 as pb

PLAYERS = (2, 3, 4)  # a person sits at any table: what a Hello would declare for them


class HumanSeat(RemoteSeat):
    def __init__(self, person: Person, hello: pb.HelloReply) -> None:
        super().__init__(None, hello.name, hello.version, hello=hello)
        self.via = Via.HUMAN
        self._line: PageLine = person.line()
        self._play = lambda: self._line

    async def ask(self, question: Question) -> Answer:
        self._line.view = question.view
        return await super().ask(question)


def person_hello(name: str) -> pb.HelloReply:
    """What a person "declares": every game this referee plays, at any number of players. The seat checks
    it against each match as it checks a bot's, so a person is seated wherever a bot could be."""
    try:
        version = importlib.metadata.version("waraq")
    except importlib.metadata.PackageNotFoundError:
        version = "dev"
    return pb.HelloReply(
        name=name,
        version=version,
        author="a person",
        games=[pb.GameSupport(game=game, players=PLAYERS) for game in registry.GAMES],
        protocol_version=wire.PROTOCOL_VERSION,
    )
