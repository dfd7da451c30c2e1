"""The cases of a conformance run: their numbers, names and verdicts.

A case passes when the bot was put in its situation and did it right, fails
when it did it wrong (the verdict names the record and the ``waraq replay``
command that show it), and is skipped, with the reason, when its situation
never arose: a bot that never opens in Hand is never asked a TURN in which it
could add to a meld, since only an opened seat may add.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from waraq.referee.conformance.situations import Situation
from waraq.referee.conformance.stages import EMPTY_BANK, SHORT_DEADLINE


class Status(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    SKIP = "skipped"


@dataclass(frozen=True)
class Case:
    id: str  # stable, for scripts: "hello.name", "hokm-4.play-void", "timing.deadline"
    title: str


@dataclass(frozen=True)
class Verdict:
    number: int
    case: Case
    status: Status
    detail: str
    record: str | None = None  # the record that shows a failure
    replay: str | None = None  # the command that shows it

    def to_json(self) -> dict[str, object]:
        return {
            "number": self.number,
            "id": self.case.id,
            "title": self.case.title,
            "status": str(self.status),
            "detail": self.detail,
            "record": self.record,
            "replay": self.replay,
        }


STARTUP_READY = Case("startup.ready", "starts and becomes ready within the start-up deadline")
STARTUP_HEALTH = Case("startup.health", "serves grpc.health.v1 (optional)")
HELLO_NAME = Case("hello.name", "Hello gives a name")
HELLO_PROTOCOL = Case("hello.protocol", "Hello says protocol_version 1")
HELLO_GAMES = Case("hello.games", "Hello declares games it plays, with player counts")
STREAMS = Case("streams.concurrent", "plays several matches at once, several seats in one process")
END = Case("end.close", "closes each stream after MatchEnd")
TIMING_DEADLINE = Case(
    "timing.deadline",
    f"keeps a short clock ({SHORT_DEADLINE.decision_ms:.0f} ms a decision, a {SHORT_DEADLINE.bank_ms:.0f} ms bank)",
)
TIMING_BANK = Case(
    "timing.bank",
    f"answers within its deadline ({EMPTY_BANK.decision_ms:.0f} ms) with a {EMPTY_BANK.bank_ms:g} ms bank",
)
COMPAT = Case("compat.unknown-fields", "answers requests carrying fields it does not know")
NOTES = Case("notes.size", "keeps each note within 1 KiB")
SIGTERM = Case("end.sigterm", "exits on SIGTERM within the referee's grace")
# Judged from the probe of the first process: no stage feeds them (check.case_ids lists the others from the stages).
PROBED = (STARTUP_READY, STARTUP_HEALTH, HELLO_NAME, HELLO_PROTOCOL, HELLO_GAMES, SIGTERM)

SLUGS = {
    Situation.TRUMP: "trump",
    Situation.LEAD: "play-lead",
    Situation.FOLLOW: "play-follow",
    Situation.VOID: "play-void",
    Situation.MUST_TRUMP: "play-must-trump",
    Situation.DISCARD: "discard",
    Situation.DRAW_UNSEEN: "draw-unseen",
    Situation.DRAW_VISIBLE: "draw-visible",
    Situation.REDEAL: "redeal",
    Situation.BAM: "bam",
    Situation.TAKE: "take",
    Situation.TURN_FIRST: "turn-first",
    Situation.TURN_OPEN: "turn-open",
    Situation.TURN_ADD: "turn-add",
    Situation.TURN_SWAP: "turn-swap",
    Situation.TURN_OUT: "turn-out",
}
assert set(SLUGS) == set(Situation), "every situation has its case id"


def situation_case(game: str, players: int, situation: Situation) -> Case:
    title = f"{game.capitalize()} {players}p: {situation}, answered legally"
    return Case(f"{game}-{players}.{SLUGS[situation]}", title)
