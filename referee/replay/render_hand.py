"""A replayed Hand match as text for a terminal (rich renderables), readable in 80 columns.

:class:`HandMatchText` is Hand's :class:`waraq.referee.replay.render_hokm.MatchText`: the
header, then each round: its deal (every hand, sorted), each turn on a line
of its own (the draw, the melds laid, the additions and joker swaps, each on
a line below, and the discard), the rebuilt stocks, and the round's end
(who went out, a hand, what each seat was charged, the points and the
score); then the result. :class:`HandStepScreen` is one decision, for
walking a record.

Cards are shown by face (``7H``, ``JK``): the two copies of a card are the
same card in play, and the record keeps which copy it was. Hands are sorted
by suit, S H D C, ranks low to high as runs are laid, the jokers last. Table
melds are numbered from 0 in the order they were laid (``#2``), as the
actions that add to them number them.

As one seat saw it (``seat``): its own hand and its own draws, and what is
public: every card taken from the pile, every meld and discard, the stock
rebuilt, the charges and scores, the seats away and back (a ``connection``
line, said where the record has it); never another hand, another seat's draw
from the stock, or a choice another seat was offered and declined.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.padding import Padding
from rich.text import Text

from waraq.referee.games.cards import RANKS, SUITS
from waraq.referee.games.hand.dealing import deal_order
from waraq.referee.games.hand.decisions import DISCARD_PILE, TAKE, TURN
from waraq.referee.games.hand.melds import (
    FACE_NAMES,
    FACES,
    JOKER,
    Add,
    Meld,
    Swap,
    TableMeld,
    check_add,
    check_meld,
    check_swap,
    meld_value,
    parse_card,
)
from waraq.referee.replay.render import (
    RED_SUITS,
    connection_line,
    fault_text,
    header_grid,
    note_line,
    side_name,
    step_connections,
)
from waraq.referee.replay.walk import Connection, Replay, Step

STEP_INDENT = 8  # a turn's melds, additions and swaps, under its number


# -- cards and hands ------------------------------------------------------------


def face_of(card: int) -> int:
    return card % FACES


def face_name(card: int) -> str:
    return FACE_NAMES[face_of(card)]


def card_text(card: int) -> Text:
    """A card by its face, ``7H`` (red for hearts and diamonds), ``JK`` in bold."""
    face = face_of(card)
    if face == JOKER:
        return Text("JK", style="bold")
    return Text(FACE_NAMES[face], style="red" if face // 13 in RED_SUITS else "")


def cards_text(cards: Sequence[int]) -> Text:
    return Text(" ").join(card_text(c) for c in cards) if cards else Text("-")


def suit_groups(hand: Sequence[int]) -> tuple[list[str], int]:
    """A hand as four strings of ranks, S H D C, low to high (``["2 5 9 9 Q", "-", ...]``), and its jokers."""
    faces = sorted(face_of(c) for c in hand)
    groups = [" ".join(RANKS[f % 13] for f in faces if f // 13 == suit) or "-" for suit in range(4)]
    return groups, faces.count(JOKER)


def hand_text(hand: Sequence[int], widths: Sequence[int] | None = None) -> Text:
    """``S: 2 5 9 9 Q  H: -  D: 10  C: A  JK``; with ``widths``, each suit padded to line up."""
    groups, jokers = suit_groups(hand)
    text = Text()
    for suit, ranks in enumerate(groups):
        style = "red" if suit in RED_SUITS else ""
        if suit:
            text.append("  ")
        text.append(f"{SUITS[suit]}: {ranks}", style=style)
        if widths and (suit < 3 or jokers):
            text.append(" " * (widths[suit] - len(ranks)))
    if jokers:
        text.append("  ").append(" ".join(["JK"] * jokers), style="bold")
    return text


def hands_block(hands: Mapping[int, Sequence[int]], width: int, indent: int = 2) -> list[Text]:
    """One line per seat, ``s1  S: ...``, the suits lined up when that fits in ``width``."""
    groups = {seat: suit_groups(hand) for seat, hand in hands.items()}
    widths = [max(len(g[0][suit]) for g in groups.values()) for suit in range(4)]
    jokers = max((2 + 3 * g[1] - 1 for g in groups.values() if g[1]), default=0)  # "  JK JK"
    aligned = indent + 4 + sum(widths) + 4 * 3 + 3 * 2 + jokers <= width
    return [
        Text(" " * indent + f"s{seat}  ").append_text(hand_text(hand, widths if aligned else None))
        for seat, hand in hands.items()
    ]


def dealt_hands(event: dict[str, Any], rules: Any) -> tuple[dict[int, list[int]], int]:
    """Each seat's cards from a ``deal`` line, dealt as the engine deals them, and the stock's size."""
    hands: dict[int, list[int]] = {seat: [] for seat in range(rules.players)}
    stock = 0
    for seat, name in zip(deal_order(rules, event["first"]), event["deck"], strict=True):
        if seat is None:
            stock += 1
        else:
            hands[seat].append(parse_card(name))
    return hands, stock


def meld_text(meld: TableMeld) -> Text:
    """``5H 6H JK=7H``: a run's joker says which card it stands for."""
    text = Text()
    for i, card in enumerate(meld.cards):
        if i:
            text.append(" ")
        text.append_text(card_text(card))
        if face_of(card) == JOKER and meld.joker_as is not None:
            text.append("=").append_text(card_text(meld.joker_as))
    return text


def meld_label(meld: TableMeld, number: int, seat: int) -> str:
    """``#2``, or ``s1's #2`` when ``seat`` touches a meld another seat laid."""
    return f"#{number}" if meld.owner == seat else f"s{meld.owner}'s #{number}"


# -- the match --------------------------------------------------------------------


@dataclass
class HandMatchText:
    """A whole replayed Hand match (or one round), for everyone or as one seat saw it."""

    replay: Replay
    seat: int | None = None
    round: int | None = None

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.replay.header:
            yield header_grid(self.replay, self.seat)
        if self.replay.initial is not None:
            yield from _HandLines(self, options.max_width).lines()
        if not self.replay.ok:
            yield Text(f"{self.replay.status.capitalize()}: {self.replay.problem}", style="bold red")


class _HandLines:
    """Walks the replay's timeline and says each line of it as text."""

    def __init__(self, match: HandMatchText, width: int) -> None:
        self.replay = match.replay
        self.rules = match.replay.rules
        self.seat = match.seat
        self.round = match.round
        self.width = width
        self.take: Step | None = None  # a TAKE answered, shown with the turn it begins
        self.last_turn: Step | None = None  # the round's latest turn: the hands at its end
        self.turns = 0  # turns of the round so far
        self.deals = 0  # deals of the round so far (a void round is dealt again)
        self.void = False  # the last round_end was a void round's: the next deal is the same round's

    def shown(self, round_: Any) -> bool:
        return self.round is None or round_ == self.round

    def mine(self, seat: int) -> bool:
        return self.seat is None or seat == self.seat

    def lines(self) -> Iterator[RenderableType]:
        connections = {c.line: c for c in self.replay.connections}
        for line, event, step, _state in self.replay.timeline():
            kind = event.get("type")
            if kind == "deal":
                if self.shown(event.get("round")):
                    yield from self.deal(event)
            elif kind == "fault":
                if step is None and self.shown(event.get("round")):  # a seat that could not start
                    yield self.fault(event)
                elif step is not None and step.after is None and self.shown(step.round):
                    yield from self.unanswered(step)
            elif kind == "decision" and step is not None:
                if self.shown(step.round):
                    yield from self.decision(step)
            elif kind == "restock":
                if self.shown(event.get("round")):
                    yield self.restock(event)
            elif kind == "connection" and line in connections:
                yield from self.connection(connections[line])
            elif kind == "round_end":
                if self.shown(event.get("round")):
                    yield from self.round_end(event)
            elif kind == "result" and self.round is None:
                yield Text(result_line(event, self.rules), style="bold")

    # -- events -------------------------------------------------------------

    def deal(self, event: dict[str, Any]) -> Iterator[RenderableType]:
        round_, first = event.get("round"), event.get("first")
        self.turns, self.last_turn = 0, None
        if self.void:
            self.void, self.deals = False, self.deals + 1
            yield Text(f"Deal {self.deals} of round {round_}, after the void one:", style="bold")
        else:
            self.deals = 1
            yield Text("")
            yield Text(f"=== Round {round_}: s{first} first ===", style="bold")
        hands, stock = dealt_hands(event, self.rules)
        who = "each seat's hand" if self.seat is None else f"s{self.seat}'s hand"
        yield Text(f"Deal: {who}, sorted (s{first} holds 15 and starts; the stock has {stock}):")
        shown = {s: hands[s] for s in range(self.rules.players) if self.mine(s)}
        yield from hands_block(shown, self.width)
        yield Text("Turns (the draw; melds laid, added to, jokers swapped; the discard):")

    def decision(self, step: Step) -> Iterator[RenderableType]:
        if step.fault is not None:
            yield self.fault(step.fault, substituted=True)
        if step.kind == TAKE:
            self.take = step
            return
        take, self.take = self.take, None
        self.turns += 1
        self.last_turn = step
        yield from self.turn(step, take)

    def unanswered(self, step: Step) -> Iterator[RenderableType]:
        """The match ends on this question's fault: say what was asked, then the fault."""
        take, self.take = self.take, None
        before = step.before
        if step.kind == TAKE:
            offered = before.pile[-1] if before.pile else None
            text = Text(f"{self.turns + 1:>4}  s{step.seat} ")
            if self.mine(step.seat) and offered is not None:
                text.append("is offered the discard ").append_text(card_text(offered))
            else:
                text.append("is to draw")
            yield text
        else:
            text = Text(f"{self.turns + 1:>4}  s{step.seat} ").append_text(self.draw(step, take))
            yield text.append(" and is to meld and discard")
        assert step.fault is not None  # an unanswered question is one the match ended on by its fault
        yield self.fault(step.fault)

    def turn(self, step: Step, take: Step | None) -> Iterator[RenderableType]:
        """``  12  s1 draws 7H, discards KD`` or, with steps, the draw, a line a step, the discard."""
        before, turn, seat = step.before, step.action, step.seat
        head = Text(f"{self.turns:>4}  s{seat} ").append_text(self.draw(step, take))
        table = list(before.table)
        out = len(before.hands[seat]) - sum(_placed(s) for s in turn.steps) == 1
        discard = Text("discards ").append_text(card_text(turn.discard))
        if out:
            discard.append(" and goes out")
        if not turn.steps:
            yield head.append(", ").append_text(discard)
        else:
            yield head
            opened = before.opened[seat]
            laid = 0
            for action in turn.steps:
                text, value = self.step_text(action, table, seat)
                if value is not None and not opened:
                    laid += value
                    if laid >= self.rules.opening_points:
                        opened = True
                        text.append(f"; opens with {laid}")
                yield Padding(text, (0, 0, 0, STEP_INDENT))
            yield Padding(discard, (0, 0, 0, STEP_INDENT))
        if self.seat is not None and seat == self.seat and not out and step.after is not None:
            kept = step.after.hands[seat]  # the same round: nobody went out
            yield Padding(Text("holds ").append_text(hand_text(kept)), (0, 0, 0, STEP_INDENT))
        for asked in (take, step):
            if asked is not None and asked.note and self.mine(asked.seat):
                yield note_line(Text(f"s{asked.seat}: {asked.note}"))

    def draw(self, step: Step, take: Step | None) -> Text:
        """How the turn began, as the reader may know it: the first turn of a round draws nothing."""
        before = step.before
        if before.took is not None:
            return Text("takes ").append_text(card_text(before.took)).append(" from the pile")
        if before.drawn is None:
            return Text(f"starts with {len(before.hands[step.seat])} cards")
        if not self.mine(step.seat):
            return Text("draws from the stock")
        text = Text()
        if take is not None and take.action != DISCARD_PILE:
            text.append("leaves ").append_text(card_text(take.before.pile[-1])).append(" on the pile, ")
        return text.append("draws ").append_text(card_text(before.drawn))

    def step_text(self, action: Any, table: list[Any], seat: int) -> tuple[Text, int | None]:
        """One step, and the running table updated; with the value of a meld laid."""
        if isinstance(action, Meld):
            kind, cards, joker_as = check_meld(action.cards)
            table.append(TableMeld(seat, kind, tuple(cards), joker_as))
            value = meld_value(kind, cards, joker_as)
            text = Text(f"lays #{len(table) - 1}: ").append_text(meld_text(table[-1]))
            return text.append(f" ({kind}, {value})"), value
        old = table[action.meld]
        label = meld_label(old, action.meld, seat)
        if isinstance(action, Add):
            new = table[action.meld] = check_add(old, action.cards, action.at)
            text = Text("adds ").append_text(cards_text(action.cards)).append(f" to {label}: ")
            return text.append_text(meld_text(new)), None
        new = table[action.meld] = check_swap(old, action.card)
        text = Text("swaps ").append_text(card_text(action.card)).append(f" for the joker of {label}: ")
        return text.append_text(meld_text(new)), None

    def connection(self, connection: Connection) -> Iterator[RenderableType]:
        """A seat away or back (public: every view says it), in the round of the question it falls by."""
        step = self.replay.step_of(connection)
        if self.round is None or (step is not None and self.shown(step.round)):
            yield connection_line(self.replay, connection)

    def restock(self, event: dict[str, Any]) -> Text:
        stock = event.get("stock") or []
        return Text(f"      The pile but its top card ({len(stock)} cards) is shuffled into a new stock")

    def fault(self, fault: dict[str, Any], *, substituted: bool = False) -> Padding:
        text = fault_text({k: v for k, v in fault.items() if k != "substituted"}, detail=self.mine(fault["seat"]))
        if substituted and "substituted" in fault:
            text.append("; a random legal action was played for it", style="red")
        return Padding(text, (0, 0, 0, 2))

    def round_end(self, event: dict[str, Any]) -> Iterator[RenderableType]:
        rules, round_ = self.rules, event.get("round")
        if event.get("void"):
            self.void = True
            yield Text(
                f"Round {round_} is void: the stock ran out and the pile had no card under its top; it is dealt again",
                style="bold",
            )
            return
        out = event.get("out")
        hand = ", a hand: every charge doubled" if event.get("hand") else ""
        yield Text(f"Round {round_} ends: s{out} goes out{hand}", style="bold")
        charges = event.get("charges") or []
        last = self.last_turn
        width = max((len(str(c)) for c in charges), default=1)
        for seat, charge in enumerate(charges):
            text = Text(f"  s{seat}  {charge:>{width}}")
            if seat != out and last is not None and self.mine(seat):
                text.append("  ").append_text(hand_text(last.before.hands[seat]))
            if last is not None and not last.before.opened[seat] and seat != out and charge:
                text.append("  (never opened)")
            yield text
        if rules.teams < rules.players:
            yield Text(f"Points: {_by_side(rules, event.get('points') or [])}")
        yield Text(f"Score: {_by_side(rules, event.get('score') or [])}")


def _by_side(rules: Any, values: Sequence[Any]) -> str:
    """``s0+s2 54, s1+s3 -30`` (teams) or ``s0 54, s1 -30, s2 12``."""
    return ", ".join(f"{side_name(rules, side)} {value}" for side, value in enumerate(values))


def _placed(action: Any) -> int:
    """How many cards a step takes from the hand (a swap takes one and gives the joker back)."""
    return 0 if isinstance(action, Swap) else len(action.cards)


def result_line(event: dict[str, Any], rules: Any) -> str:
    """``Result: s1 wins with the lowest total; score s0 33, s1 -20, s2 -10`` (and ties, forfeits, aborts)."""
    reason = event.get("reason")
    score = _by_side(rules, event.get("score") or []) or "none"
    if reason == "aborted":
        if "detail" in event:
            return f"Result: aborted by the referee: {event['detail']}"
        return f"Result: aborted, a round would not end: nobody wins; score {score}"
    sides = sorted({seat % rules.teams for seat in event.get("winners") or []})
    who = _and([side_name(rules, side) for side in sides]) or "nobody"
    wins = "wins" if len(sides) == 1 and rules.teams == rules.players else "win"
    if reason == "forfeit":
        faulty = _and([f"s{s}" for s in event.get("faulty") or []])
        return f"Result: {who} {wins} by the forfeit of {faulty}; score {score}"
    how = ", tied for the lowest total" if len(sides) > 1 else " with the lowest total"
    return f"Result: {who} {wins}{how}; score {score}"


def _and(names: Sequence[str]) -> str:
    """``s0``, ``s0 and s1``, ``s0, s1 and s3``."""
    return " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else "".join(names)


# -- one step --------------------------------------------------------------------


@dataclass
class HandStepScreen:
    """One decision: the table as the seat saw it (or everyone's hands), and what it chose."""

    replay: Replay
    step: Step
    seat: int | None = None  # show only this seat's hand

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        replay, step, rules = self.replay, self.step, self.replay.rules
        state, view = step.before, step.view
        bot = replay.bots[step.seat] if step.seat < len(replay.bots) else "?"
        yield Text(
            f"Decision {step.number} of {len(replay.steps)}, line {step.line}: round {step.round}; "
            f"s{step.seat} ({bot}) to {step.kind}",
            style="bold",
        )
        yield from step_connections(replay, step, self.seat)
        opened = ", ".join(f"s{s}" for s, o in enumerate(state.opened) if o) or "nobody"
        yield Text(f"First s{state.first}; score {_by_side(rules, state.scores)}; opened: {opened}")
        seats = range(rules.players) if self.seat is None else [self.seat]
        yield from hands_block({s: state.hands[s] for s in seats}, options.max_width)
        if self.seat is not None:
            others = ", ".join(f"s{s} {n}" for s, n in enumerate(view.hand_sizes) if s != self.seat)
            yield Text(f"  cards held by the others: {others}")
        if state.table:
            yield Text("Table:")
            for number, meld in enumerate(state.table):
                yield Text(f"  #{number} s{meld.owner}  ").append_text(meld_text(meld))
        top = Text("Pile: ").append_text(card_text(state.pile[-1]) if state.pile else Text("empty"))
        yield top.append(f" on top of {len(state.pile) - 1}" if len(state.pile) > 1 else "").append(
            f"; stock {len(state.stock)}"
        )
        if step.kind == TURN and self.mine_or_all:
            if state.took is not None:
                yield Text("Took ").append_text(card_text(state.took)).append(": it must be melded this turn")
            elif state.drawn is not None:
                yield Text("Drew ").append_text(card_text(state.drawn))
        if step.kind == TAKE:
            yield Text("Legal: stock, or the discard ").append_text(card_text(state.pile[-1]))
        if step.fault is not None:
            yield fault_text(step.fault, detail=self.mine_or_all)
        details = [f"seq {step.seq}", f"bank {step.bank_ms:g} ms"]
        if step.ms is not None:
            details.insert(0, f"{step.ms:g} ms")
        if step.bot_ms is not None:
            details.insert(1, f"bot {step.bot_ms:g} ms")
        if not step.sent:
            details.append("not sent: the seat was already lost")
        played = Text("Played:", style="bold")
        if step.kind == TURN and step.action is not None:
            yield played.append(f"   ({', '.join(details)})")
            for line in turn_lines(step.action):
                yield Text(f"  {line}")
        else:
            yield played.append(f" {step.action or '-'}   ({', '.join(details)})")
        if step.note:
            yield Text("Note: ").append(step.note, style="italic")
        yield from step_connections(replay, step, self.seat, after=True)

    @property
    def mine_or_all(self) -> bool:
        return self.seat is None or self.seat == self.step.seat


def turn_lines(turn: Any) -> list[str]:
    """A Turn as the record says it, a line a step: ``add 9H to #2 at the high end``."""
    lines = []
    for action in turn.steps:
        if isinstance(action, Meld):
            lines.append("meld " + " ".join(map(face_name, action.cards)))
        elif isinstance(action, Add):
            at = f" at the {action.at} end" if action.at else ""
            lines.append(f"add {' '.join(map(face_name, action.cards))} to #{action.meld}{at}")
        elif isinstance(action, Swap):
            lines.append(f"swap {face_name(action.card)} for the joker of #{action.meld}")
    return [*lines, f"discard {face_name(turn.discard)}"]


# -- the game's text part (waraq.referee.replay.render.GameText) -----------------

TRICKS = False


def match_text(replay: Replay, seat: int | None, round_: int | None, trick: int | None) -> HandMatchText:
    return HandMatchText(replay, seat, round_)


def step_screen(replay: Replay, step: Step, seat: int | None) -> HandStepScreen:
    return HandStepScreen(replay, step, seat)


def action_text(kind: str, action: Any) -> Text:
    """An action in its record spelling (a turn is too rich for one line: the step screen says it)."""
    from waraq.referee.games.hand import decisions  # the spelling's one owner

    spelled = decisions.action_to_json(kind, action)
    return Text(spelled if isinstance(spelled, str) else json.dumps(spelled, separators=(",", ":")))
