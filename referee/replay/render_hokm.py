"""A replayed match as text for a terminal (rich renderables), readable in 80 columns.

* :class:`MatchText`: the whole match, or one round (from one trick on), for
  everyone (every hand) or as one seat saw it (its own cards and what is
  public, nothing else).
* :class:`StepScreen`: one decision, for walking a match step by step.
* :class:`ReaskRecord` and :class:`ReaskSummary`: what ``waraq replay --ask``
  found (``--verify``'s lines, for any game, are :mod:`waraq.referee.replay.render_verdict`).

What every game's text shares (the header, faults, notes, sides) is
:mod:`waraq.referee.replay.render`.

Styles only colour the text (hearts and diamonds red, faults red, notes
italic); a console without colour prints the same characters. Seats are
``s0``..``s3``; ``h`` after a seat marks the hakem; a 4-player side is named by
its seats, ``s0+s2``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from waraq.referee.common.digits import ascii_digits
from waraq.referee.games.cards import CARD_NAMES, RANKS, SUIT_NAMES, SUITS
from waraq.referee.games.hokm.engine import (
    BAM,
    DISCARD,
    DRAW,
    PASS,
    PLAY,
    REDEAL,
    TRUMP,
    DrawStep,
    HokmState,
    winning_index,
)
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.games.registry import game_of_kind
from waraq.referee.replay.render import (
    NOTE_INDENT,
    RED_SUITS,
    connection_line,
    fault_text,
    header_grid,
    note_line,
    side_name,
    step_connections,
)
from waraq.referee.replay.walk import Connection, Replay, Step

# -- small pieces -------------------------------------------------------------


def suit_style(suit: int) -> str:
    return "red" if suit in RED_SUITS else ""


def card_text(card: int) -> Text:
    return Text(CARD_NAMES[card], style=suit_style(card // 13))


def play_text(seat: int, card: int) -> Text:
    """``s1 10H  `` : one card of a trick, padded so that tricks line up."""
    return Text(f"s{seat} ").append_text(card_text(card)).append(" " * (5 - len(CARD_NAMES[card])))


def cards_text(cards: Sequence[int], sep: str = " ") -> Text:
    return Text(sep).join(card_text(c) for c in cards) if cards else Text("-")


def suit_groups(hand: Sequence[int]) -> list[str]:
    """A hand as four strings of ranks, S H D C, high to low: ``["A K 9", "-", "10", "Q 2"]``."""
    groups = []
    for suit in range(4):
        ranks = [RANKS[c % 13] for c in sorted(hand, reverse=True) if c // 13 == suit]
        groups.append(" ".join(ranks) or "-")
    return groups


def hand_text(hand: Sequence[int], widths: Sequence[int] | None = None) -> Text:
    """``S: A K 9  H: -  D: 10  C: Q 2``; with ``widths``, each suit padded to line up."""
    text = Text()
    for suit, ranks in enumerate(suit_groups(hand)):
        if suit:
            text.append("  ")
        text.append(f"{SUITS[suit]}: ", style=suit_style(suit))
        text.append(ranks, style=suit_style(suit))
        if widths and suit < 3:
            text.append(" " * (widths[suit] - len(ranks)))
    return text


def hand_lines(hand: Sequence[int], width: int = 36) -> Text:
    """A hand on one line, or on two (S H, then D C) when longer than ``width``."""
    text = hand_text(hand)
    if len(text.plain) <= width:
        return text
    cut = text.plain.index("  D: ")
    return Text("\n").join([text[:cut], text[cut + 2 :]])


def hands_block(state: HokmState, seats: Sequence[int], width: int, indent: int = 2) -> list[Text]:
    """One line per seat, ``s1h S: ...``, the suits lined up when that fits in ``width``."""
    groups = {seat: suit_groups(state.hands[seat]) for seat in seats}
    widths = [max(len(groups[s][suit]) for s in seats) for suit in range(4)]
    aligned = indent + 5 + sum(widths) + 4 * 3 + 3 * 2 <= width
    return [
        Text(" " * indent + f"{seat_label(state, seat):<5}").append_text(
            hand_text(state.hands[seat], widths if aligned else None)
        )
        for seat in seats
    ]


def seat_label(state: HokmState, seat: int) -> str:
    return f"s{seat}" + ("h" if seat == state.hakem else "")


def sides(rules: HokmRules) -> str:
    return "-".join(side_name(rules, side) for side in range(rules.teams))


def side_counts(rules: HokmRules, tricks_won: Sequence[int]) -> str:
    """Tricks won so far, by side: ``3-1`` (teams with 4 players, else seats)."""
    return "-".join(str(sum(tricks_won[side :: rules.teams])) for side in range(rules.teams))


def action_text(kind: str, action: Any) -> Text:
    if action is None:
        return Text("-")
    if kind == PLAY:
        return card_text(action)
    if kind == TRUMP:
        return Text(SUITS[action], style=suit_style(action))
    if kind == DISCARD:
        return cards_text(action)
    if kind == DRAW:
        return Text(action)
    return Text("yes" if action else "no")


def draw_text(draw: DrawStep) -> Text:
    """One of a seat's own draws as it saw it: ``kept 6S`` (``, burned 7H`` if it saw the
    burned card), or ``passed 4D, took 2H``."""
    if draw.choice == PASS:
        assert draw.second is not None  # after a pass the second card joined the hand: the drawer saw it
        return (
            Text("passed ").append_text(card_text(draw.offered)).append(", took ").append_text(card_text(draw.second))
        )
    text = Text("kept ").append_text(card_text(draw.offered))
    return text.append(", burned ").append_text(card_text(draw.second)) if draw.second is not None else text


# -- the match -------------------------------------------------------------------


@dataclass
class MatchText:
    """A whole replayed match (or one round, from one trick on) as text.

    ``seat``: as that seat saw it: its own hand and decisions, what is public
    (trump, every card played, hands shown for a redeal, faults, scores, seats
    away and back), its own notes; no other hand, discard or draw.

    A connection line is said where the record has it; within a trick, with
    the trick's faults, in the record's order, above the trick's line.
    """

    replay: Replay
    seat: int | None = None
    round: int | None = None
    trick: int | None = None

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.replay.header:
            yield header_grid(self.replay, self.seat)
        if self.replay.initial is not None:
            yield from _MatchLines(self, options.max_width).lines()
        if not self.replay.ok:
            yield Text(f"{self.replay.status.capitalize()}: {self.replay.problem}", style="bold red")


class _MatchLines:
    """Walks the replay's timeline and says each line of it as text."""

    def __init__(self, match: MatchText, width: int) -> None:
        self.replay = match.replay
        self.rules = match.replay.rules
        self.seat = match.seat
        self.round = match.round
        self.trick = match.trick
        self.width = width
        self.plays: list[Step] = []  # the trick in progress
        self.asides: list[tuple[int, RenderableType]] = []  # connection lines in it, by record line
        self.started_trick: set[int] = set()  # with --trick: the rounds whose heading is said

    def shown(self, round_: int | None, trick: int | None = None) -> bool:
        if self.round is not None and round_ != self.round:
            return False
        return self.trick is None or (trick is not None and trick >= self.trick)

    def seats(self) -> list[int]:
        return list(range(self.rules.players)) if self.seat is None else [self.seat]

    def lines(self) -> Iterator[RenderableType]:
        started_trick = self.started_trick
        connections = {c.line: c for c in self.replay.connections}
        for line, event, step, state in self.replay.timeline():
            kind = event.get("type")
            if kind == "deal" and self.shown(event.get("round")):
                yield from self.deal(event, state)
            elif kind == "fault":
                if step is None and self.shown(event.get("round")):  # a seat that could not start
                    yield self.fault(event)
                elif step is not None and step.after is None and self.shown(step.round, step.trick):
                    yield from self.flush()  # the match ends on this unanswered question
                    yield self.fault(event)
            elif kind == "decision" and step is not None:
                if self.trick is not None and step.round == self.round and step.trick == self.trick:
                    if step.round not in started_trick and not step.before.trick:
                        started_trick.add(step.round)
                        yield from self.jump_hands(step)
                if self.shown(step.round, 10**6 if step.kind == BAM else step.trick):
                    yield from self.decision(step, state)
            elif kind == "connection" and line in connections:
                yield from self.connection(connections[line])
            elif kind == "round_end" and self.shown(event.get("round"), 10**6):
                yield from self.flush()
                yield self.round_end(event)
            elif kind == "result" and self.round is None:
                yield from self.flush()
                yield self.result(event)
        yield from self.flush()

    # -- events -------------------------------------------------------------

    def deal(self, event: dict[str, Any], state: HokmState) -> Iterator[RenderableType]:
        if state.redeals == 0:
            yield Text("")
            yield Text(f"=== Round {event.get('round')}: hakem s{event.get('hakem')} ===", style="bold")
        else:
            yield Text(f"Deal {state.redeals + 1} of round {event.get('round')}, after a redeal:")
        who = "each seat" if self.seat is None else f"s{self.seat}"
        yield Text(f"Deal: first five cards to {who}, from the hakem:")
        yield from hands_block(state, self.seats(), self.width)

    def jump_hands(self, step: Step) -> Iterator[RenderableType]:
        yield Text("")
        yield Text(
            f"=== Round {step.round}, from trick {step.trick}: hakem s{step.before.hakem}, "
            f"trump {SUITS[step.before.trump]} ===",
            style="bold",
        )
        yield Text(f"Hands before trick {step.trick}:")
        yield from hands_block(step.before, self.seats(), self.width)
        yield self.tricks_heading()

    def fault(self, fault: dict[str, Any], kind: str | None = None) -> Padding:
        mine = self.seat is None or fault["seat"] == self.seat
        return Padding(fault_text(fault, kind, detail=mine), (0, 0, 0, 2))

    def connection(self, connection: Connection) -> Iterator[RenderableType]:
        """A seat away or back (public: every view says it), in the round and trick of the question it falls by."""
        step = self.replay.step_of(connection)
        if step is None:
            shown = self.round is None
        else:
            shown = self.shown(step.round, 10**6 if step.kind == BAM else step.trick)
        if not shown:
            return
        waiting = step is not None and self.trick is not None and step.round not in self.started_trick
        if self.plays or waiting:  # said with the trick it falls in (after its heading, with --trick)
            where = ""  # mid-trick: the trick's line is below, so say which play it came before
            lead = self.plays[0] if self.plays else None
            if lead is not None and step is not None and (step.round, step.trick) == (lead.round, lead.trick):
                where = f"trick {step.trick}, before s{step.seat} played"
            self.asides.append((connection.line, connection_line(self.replay, connection, where)))
        else:
            yield connection_line(self.replay, connection)

    def tricks_heading(self) -> Text:
        return Text(f"Tricks (leader first; tricks won so far {sides(self.rules)}):")

    def decision(self, step: Step, after: HokmState) -> Iterator[RenderableType]:
        mine = self.seat is None or step.seat == self.seat
        before, kind = step.before, step.kind
        if step.fault is not None:
            if kind != PLAY:
                yield self.fault(step.fault, kind)
        if kind == PLAY:
            if self.trick is None and not before.trick and not before.history:
                yield self.tricks_heading()
            self.plays.append(step)
            if len(before.trick) + 1 == self.rules.players:
                yield from self.flush()
            return
        if self.seat is not None and mine and kind == BAM:
            yield Text(f"  s{step.seat} holds ").append_text(hand_text(step.hand))
        if kind == TRUMP:
            suit = step.action
            yield Text(f"Trump: s{step.seat} names ").append(
                f"{SUITS[suit]} ({SUIT_NAMES[suit]})", style=suit_style(suit)
            )
            yield from self.notes([step])
            if self.rules.players > 2:
                yield Text(
                    "Hands after the rest of the deal:" if self.seat is None else "Its hand after the rest of the deal:"
                )
                yield from hands_block(after, self.seats(), self.width)
        elif kind == REDEAL:
            if step.action:
                yield Text(f"s{step.seat} holds no A, K, Q or J and asks for a redeal, showing ").append_text(
                    cards_text(step.hand)
                )
            else:
                yield Text(f"s{step.seat} could ask for a redeal and does not")
            yield from self.notes([step])
        elif kind == BAM:
            yield Text(
                f"s{step.seat} "
                + ("calls bam: its side plays on for all 13 tricks" if step.action else "does not call bam")
            )
            yield from self.notes([step])
        elif kind == DISCARD:
            if mine:
                yield (
                    Text(f"s{step.seat} discards ")
                    .append_text(cards_text(step.action))
                    .append(", keeps: ")
                    .append_text(hand_text(after.hands[step.seat]))
                )
                yield from self.notes([step])
            else:
                yield Text(f"s{step.seat} discards two cards")
        elif kind == DRAW:
            yield from self.draw(step, after)

    def draw(self, step: Step, after: HokmState) -> Iterator[RenderableType]:
        before = step.before
        number = len(before.draw_choices) + 1
        if number == 1:
            yield Text("Draws (keep: take the card, burn the next; pass: burn the card, take the next):")
        offered, second = before.deck[before.stock], before.deck[before.stock + 1]
        mine = self.seat is None or step.seat == self.seat
        if mine:
            seen = self.seat is None or step.action == PASS or self.rules.burn_visible
            text = Text(f"  {number:>2}  s{step.seat} is offered ").append_text(card_text(offered))
            text.append(" " * (3 - len(CARD_NAMES[offered])) + f"  {step.action}: ")
            if step.action == PASS:
                text.append("burns ").append_text(card_text(offered)).append(", takes ").append_text(card_text(second))
            else:
                text.append("takes ").append_text(card_text(offered)).append(", burns ")
                text.append_text(card_text(second) if seen else Text("a card unseen"))
            yield text
            yield from self.notes([step])
        if after.kind == PLAY and after.round == step.round:
            yield Text("Hands after the draws:" if self.seat is None else "Its hand after the draws:")
            yield from hands_block(after, self.seats(), self.width)

    def flush(self) -> Iterator[RenderableType]:
        """The trick in progress as one line (a whole trick, or the plays before the record stops), under
        its faults and connection lines, in the record's order."""
        plays, self.plays = self.plays, []
        asides, self.asides = self.asides, []
        for step in plays:
            if step.fault is not None:
                asides.append((step.fault_line or step.line, self.fault(step.fault, PLAY)))
        for _, aside in sorted(asides, key=lambda aside: aside[0]):
            yield aside
        if not plays:
            return
        first = plays[0]
        before = plays[-1].before
        cards = [*before.trick, plays[-1].action]
        leader = before.leader
        text = Text(f"  {first.trick:>2}  ")
        for i, card in enumerate(cards):
            seat = (leader + i) % self.rules.players
            text.append_text(play_text(seat, card))
        if len(cards) == self.rules.players:
            winner = (leader + winning_index(cards, before.trump)) % self.rules.players
            won = list(before.tricks_won)
            won[winner] += 1
            text.append(f"  won by s{winner}  {side_counts(self.rules, won)}")
        yield text
        if self.seat is not None:
            for step in plays:
                if step.seat == self.seat:
                    yield self.held(step)
        yield from self.notes(plays, cards=True)

    def held(self, step: Step) -> Padding:
        view = step.view
        text = Text(f"s{step.seat} held ").append_text(hand_text(step.hand))
        if len(view.legal) < len(step.hand):
            text.append("; could play ").append_text(cards_text(view.legal))
        return Padding(text, (0, 0, 0, NOTE_INDENT))

    def notes(self, steps: Sequence[Step], cards: bool = False) -> Iterator[Padding]:
        for step in steps:
            if step.note and (self.seat is None or step.seat == self.seat):
                text = Text(f"s{step.seat}")
                if cards:
                    text.append(" ").append_text(card_text(step.action))
                yield note_line(text.append(f": {step.note}"))

    def round_end(self, event: dict[str, Any]) -> Text:
        """``Round 1 ends, tricks 7-0: s0+s2 win +2 (kot); score 2-0`` (tricks and score by side)."""
        rules = self.rules
        points = event.get("points") or []
        side = next((i for i, p in enumerate(points) if p), None)
        kot = {"kot": " (kot)", "hakem_kot": " (hakem-kot)"}.get(event.get("kot", ""), "")
        bam = {"won": ", bam won", "lost": ", bam lost"}.get(event.get("bam", ""), "")
        if side is None:
            won = "no points"
        else:
            won = f"{side_name(rules, side)} win{'s' if rules.players < 4 else ''} +{points[side]}{kot}{bam}"
        tricks = side_counts(rules, event.get("tricks") or [0] * rules.players)
        score = "-".join(map(str, event.get("score") or []))
        return Text(f"Round {event.get('round')} ends, tricks {tricks}: {won}; score {score}", style="bold")

    def result(self, event: dict[str, Any]) -> Text:
        return Text(result_line(event), style="bold")


def result_line(event: dict[str, Any], rules: Any = None) -> str:
    reason = event.get("reason")
    score = "-".join(map(str, event.get("score") or [])) or "none"
    if reason == "aborted":
        if "detail" in event:
            return f"Result: aborted by the referee: {event['detail']}"
        return f"Result: aborted, the match reached its bound of rounds: nobody wins; score {score}"
    winners = event.get("winners") or []
    who = "+".join(f"s{s}" for s in winners) or "nobody"
    if reason == "forfeit":
        faulty = ", ".join(f"s{s}" for s in event.get("faulty") or [])
        return f"Result: {who} win{'s' if len(winners) == 1 else ''} by the forfeit of {faulty}, score {score}"
    how = "by a bam" if reason == "bam" else "on score"
    return f"Result: {who} win{'s' if len(winners) == 1 else ''} the match {how}, {score}"


# -- one step ---------------------------------------------------------------------


@dataclass
class StepScreen:
    """One decision: the table as the seat saw it (or everyone's hands), and what it chose."""

    replay: Replay
    step: Step
    seat: int | None = None  # show only this seat's hand

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        replay, step, rules = self.replay, self.step, self.replay.rules
        state, view = step.before, step.view
        bot = replay.bots[step.seat]
        trick = f", trick {step.trick}" if step.trick else ""
        yield Text(
            f"Decision {step.number} of {len(replay.steps)}, line {step.line}: round {step.round}{trick}; "
            f"s{step.seat} ({bot}) to {step.kind}",
            style="bold",
        )
        yield from step_connections(replay, step, self.seat)
        trump = f"trump {SUITS[state.trump]}" if state.trump is not None else "no trump yet"
        score = "-".join(map(str, state.scores))
        tricks = side_counts(rules, state.tricks_won)
        yield Text(f"Hakem s{state.hakem}, {trump}; score {score}, tricks {tricks} ({sides(rules)})")
        seats = range(rules.players) if self.seat is None else [self.seat]
        yield from hands_block(state, seats, options.max_width)
        if self.seat is not None:
            others = ", ".join(f"s{s} {n}" for s, n in enumerate(view.hand_sizes) if s != self.seat)
            yield Text(f"  cards held by the others: {others}")
        for shown_by, shown in view.redeals:
            yield Text(f"  s{shown_by} showed ").append_text(cards_text(shown)).append(" for a redeal")
        if view.discarded and (self.seat is None or self.seat == step.seat):
            yield Text(f"  s{step.seat} discarded ").append_text(cards_text(view.discarded))
        if view.tricks:
            yield Text("Tricks this round:")
            for number, trick in enumerate(view.tricks, start=1):
                text = Text(f"  {number:>2}  ")
                for seat, card in trick.plays(rules.players):
                    text.append_text(play_text(seat, card))
                yield text.append(f"  won by s{trick.winner}")
        if view.trick:
            text = Text(f"Trick {step.trick} so far: ")
            yield text.append_text(Text("  ").join(Text(f"s{s} ").append_text(card_text(c)) for s, c in view.trick))
        if view.draws and (self.seat is None or self.seat == step.seat):
            draws = Text(f"s{step.seat}'s draws: ").append_text(Text("; ").join(draw_text(d) for d in view.draws))
            yield Padding(draws, (0, 0, 0, 2))
        if view.offered is not None:
            yield Text("Offered: ").append_text(card_text(view.offered))
        yield Text("Legal: ").append_text(Text(" ").join(action_text(step.kind, a) for a in view.legal))
        if step.fault is not None:
            yield fault_text(step.fault, step.kind, detail=self.seat is None or self.seat == step.seat)
        answer = Text("Played: ", style="bold").append_text(action_text(step.kind, step.action))
        details = [f"seq {step.seq}", f"bank {step.bank_ms:g} ms"]
        if step.ms is not None:
            details.insert(0, f"{step.ms:g} ms")
        if step.bot_ms is not None:
            details.insert(1, f"bot {step.bot_ms:g} ms")
        if not step.sent:
            details.append("not sent: the seat was already lost")
        yield answer.append(f"   ({', '.join(details)})")
        if step.note:
            yield Text("Note: ").append(step.note, style="italic")
        yield from step_connections(replay, step, self.seat, after=True)


STEP_HELP = "[Enter/n] next  [b] back  [j N] decision N  [r R] round R  [t T] trick T  [q] quit"


class Walker:
    """The position of a ``--step`` walk, moved by one-line commands (see :data:`STEP_HELP`)."""

    def __init__(self, steps: Sequence[Step], start: int = 0) -> None:
        self.steps = list(steps)
        self.index = max(0, min(start, len(self.steps) - 1))

    @property
    def step(self) -> Step:
        return self.steps[self.index]

    def command(self, line: str) -> str | None:
        """Move by a command; returns "quit", or a message when the command is not understood."""
        words = line.strip().lower().split()
        verb = words[0] if words else "n"
        argument = words[1] if len(words) > 1 else ""
        if verb in ("q", "quit", "exit"):
            return "quit"
        if verb in ("n", "next", ""):
            if self.index + 1 >= len(self.steps):
                return "this is the last decision"
            self.index += 1
            return None
        if verb in ("b", "back", "p"):
            if self.index == 0:
                return "this is the first decision"
            self.index -= 1
            return None
        if verb in ("j", "r", "t") and ascii_digits(argument):
            target = int(argument)
            if verb == "j":
                found = next((i for i, s in enumerate(self.steps) if s.number >= target), None)
            elif verb == "r":
                found = next((i for i, s in enumerate(self.steps) if s.round == target), None)
            else:
                found = next(
                    (i for i, s in enumerate(self.steps) if s.round == self.step.round and s.trick == target), None
                )
            if found is None:
                what = "decision" if verb == "j" else "round" if verb == "r" else "trick in this round"
                return f"no such {what}: {target}"
            self.index = found
            return None
        return f"not understood: {line.strip()!r}; {STEP_HELP}"


def start_index(steps: Sequence[Step], round_: int | None, trick: int | None) -> int:
    """Where a walk starts: the first step of that round (and trick), else the first."""
    for i, step in enumerate(steps):
        if (round_ is None or step.round == round_) and (trick is None or step.trick == trick):
            return i
    return 0


# -- re-ask and verify reports ------------------------------------------------------


class ReaskRecord:
    """What re-asking one record found: the decisions answered differently, and how often it agrees."""

    def __init__(self, result: Any, bot: str) -> None:
        self.result = result
        self.bot = bot

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        result = self.result
        name = str(result.path)
        if result.unusable:
            yield Text(f"{name}: cannot be asked: {result.unusable}", style="bold red")
            return
        if result.skipped:
            yield Text(f"{name}: not asked: {result.skipped}")
            return
        if result.differences:
            yield self.table()
        seats = ", ".join(f"s{s}" for s in result.seats)
        yield Text(
            f"{name} ({seats}): {_agreement(self.bot, result.agreed, result.asked, result.unasked)}", style="bold"
        )
        for problem in result.problems:
            yield Text(f"  {problem}", style="red")

    def table(self) -> Table:
        table = Table(
            title=f"Where {self.bot} decides differently",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
        )
        table.add_column("#", justify="right", no_wrap=True)
        table.add_column("where", no_wrap=True)
        table.add_column("hand")
        table.add_column("logged")
        table.add_column("new")
        for difference in self.result.differences:
            step = difference.step
            where = f"{step.round}/{step.trick}" if step.trick else f"{step.round} {step.kind}"
            table.add_row(
                str(step.number),
                f"{where} s{step.seat}",
                _held(step),
                _answer_cell(difference.logged, difference.logged_note),
                _answer_cell(difference.new, difference.new_note),
            )
        return table


class ReaskSummary:
    """The total over several records."""

    def __init__(self, results: Sequence[Any], bot: str) -> None:
        self.results = results
        self.bot = bot

    def __rich__(self) -> Text:
        asked = sum(r.asked for r in self.results)
        agreed = sum(r.agreed for r in self.results)
        unasked = sum(r.unasked for r in self.results)
        records = sum(1 for r in self.results if r.asked)
        text = Text(
            f"{_agreement(self.bot, agreed, asked, unasked)} in {records} record{'s' if records != 1 else ''}",
            style="bold",
        )
        unusable = sum(1 for r in self.results if r.unusable)
        if unusable:
            text.append(f"; {unusable} record{'s' if unusable != 1 else ''} could not be asked", style="red")
        return text


def _held(step: Step) -> Text:
    """What the seat held when asked, as its game's replay shows a hand (Hokm: and a card offered in the
    2-player draw). Re-asking reads records of any game: a plug-in game's hand is its card numbers."""
    if isinstance(step.before, HokmState):
        context = hand_lines(step.hand)
        if step.view.offered is not None:
            context.append("\noffered ").append_text(card_text(step.view.offered))
        return context
    if game_of_kind(step.kind) == "hand":
        from waraq.referee.replay.render_hand import hand_text  # Hand's own, loaded for a Hand record only

        return hand_text(step.hand)
    return Text(" ".join(map(str, step.hand)))


def _answer_cell(action: Text | str, note: str) -> Group | Text:
    text = action if isinstance(action, Text) else Text(action)
    return Group(text, Text(note, style="italic")) if note else text


def _agreement(bot: str, agreed: int, asked: int, unasked: int) -> str:
    """How often ``bot`` agrees, of the decisions compared; "not asked" when none could be put to it."""
    if asked and unasked == asked:
        return f"{bot} was not asked ({asked} decision{'s' if asked != 1 else ''} could not be put to it)"
    said = f"{bot} agrees on {agreed} of {asked} decisions{_percent(agreed, asked)}"
    return said + (f", {unasked} not asked" if unasked else "")


def _percent(part: int, whole: int) -> str:
    """Rounded down: 275 of 276 is 99 %, never 100 % while one decision differs."""
    return f" ({100 * part // whole} %)" if whole else ""


# -- the game's text part (waraq.referee.replay.render.GameText) -----------------

TRICKS = True


def match_text(replay: Replay, seat: int | None, round_: int | None, trick: int | None) -> MatchText:
    return MatchText(replay, seat, round_, trick)


def step_screen(replay: Replay, step: Step, seat: int | None) -> StepScreen:
    return StepScreen(replay, step, seat)
