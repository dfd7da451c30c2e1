"""Hand as an OpenSpiel game (``python_waraq_hand``): the referee's engine behind pyspiel's API.

Importing this module registers the game: ``pyspiel.load_game("python_waraq_hand",
{"preset": "short"})`` or ``pyspiel.load_game("python_waraq_hand(preset=two,rounds=1)")``.

There is no second copy of the rules. A player's actions are the 321 move indices of
:mod:`waraq.referee.env.hand_encoding`: a ``TAKE`` is one move, a ``TURN`` several moves by
the same seat (pick cards, lay, add, swap, then discard), built on
:class:`~waraq.referee.env.hand_steps.StepTurn` over the engine's own ``PartialTurn``,
never into a dead end. The engine's state changes only when a decision is whole: a TAKE
answer, or the discard that finishes the turn, reaches ``HandState.apply`` (the checked
door), as :mod:`waraq.referee.env.hand_pettingzoo` steps a turn. The observations are the
engine's :class:`~waraq.referee.games.hand.view.HandView` of one seat, so they cannot show
another hand or the stock's order.

**Parameters.** ``preset`` (``classic``, ``partners``, ``three``, ``two``, ``short``) and
every key of the rules config (:data:`waraq.referee.games.hand.rules.KEYS`), a key given
overriding the preset's value. A key left at its default takes the preset's value: ``-1``
for the numbers, ``"preset"`` for ``partnership`` (``true`` or ``false`` to set it). The
number of players is the rules'.

**Chance nodes.** First the first player of the match, what the engine's seeded dealer
draws (a seat, outcomes ``0 .. n-1``, uniform). Then every card is dealt as a chance
outcome, its id the card (``copy * 53 + face``, 0-105: the PICK index of the same card
minus 2), uniform over the cards not dealt yet of what is being dealt: each round's deck,
whole, when the engine waits for it (at the start of each round and after a void deal),
and each new stock, whole, when a turn must draw from an empty one (the discard pile under
its top card, shuffled; a :class:`~waraq.referee.games.hand.dealing.ChanceHandDealer`,
``HandState.deal`` and ``HandState.restock``). A deck or stock is dealt before anyone sees
a card of it; the engine then gives each seat what the rules say when they say it. This is
the engine's seeded shuffle, card by card.

**Strings and tensors.** ``observation_string``/``observation_tensor``: the seat's view
now (the tensor is :func:`~waraq.referee.env.hand_encoding.encode`, with the turn built so
far during the seat's own turn; zeros before the first deck). A turn's moves are public as
they are made (a card picked is a card about to be laid: nothing unpicks), so every seat's
strings show the turn under way; the tensor of a seat not to act shows the table as the
engine has it. ``information_state_string``: everything the seat has observed, a pure
function of its views and the public moves: per deal, the first player and its hand as
dealt, then every move in order (each public), every draw from the stock (the card only
for itself), each new stock's size; and its observation now.
``information_state_tensor``: the encoding now, plus what this deal showed the seat that
the view now does not: its hand as dealt, the cards it drew, the cards each seat
discarded, the faces each seat was offered from the pile and declined, and the moves of
the turn under way. Earlier deals are left out of the tensor: a new deal is a new shuffle,
and the score they left is in the view.

**Returns.** +1 for each seat of the winning side (the lowest total, every seat tied for
it) and -1 for the others at the end (:func:`~waraq.referee.env.boards.side_reward`), 0 for
everyone in a match the engine aborts; 0 before the end.

**Resampling.** ``state.resample_from_infostate(seat, sampler)`` (what OpenSpiel's Python
IS-MCTS calls) returns a new state drawn uniformly from the deals consistent with
``seat``'s information; :mod:`waraq.referee.env.hand_resample` says which and proves it.
pyspiel's C++ side cannot reach it (a Python game's state has no C++
``ResampleFromInfostate``); the Python ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` can.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from random import Random
from typing import Any, NamedTuple

import numpy as np
import pyspiel

from waraq.referee.env import hand_resample
from waraq.referee.env.hand_encoding import (
    ACTIONS,
    DISCARD_BASE,
    MELD_BASE,
    SWAP_BASE,
    TAKE_BASE,
    Move,
    StepTurn,
    action_index,
    action_of,
    describe,
    encode,
    layout,
)
from waraq.referee.env.hand_resample import DRAW, MOVE, RESTOCK, START, Story
from waraq.referee.env.openspiel_table import CHANCE, TableGame, TableObserver, TableState, game_type
from waraq.referee.games.hand.dealing import ChanceHandDealer
from waraq.referee.games.hand.decisions import DISCARD_PILE, TAKE, TAKES, TURN
from waraq.referee.games.hand.engine import MAX_TURNS, MAX_VOIDS, HandState, IllegalAction
from waraq.referee.games.hand.melds import CARD_NAMES, CARDS, FACES, TableMeld
from waraq.referee.games.hand.rules import KEYS, HandRules
from waraq.referee.games.hand.view import HandView

GAME_NAME = "python_waraq_hand"
FROM_PRESET = -1  # a number key left here takes the preset's value
FROM_PRESET_TEXT = "preset"  # so does a true-or-false key left here
MOVES_PER_TURN = 64  # a TAKE, at most 30 picks (15 held, a joker won back picked again), as many steps, a discard
RESAMPLE_TRIES = 200  # worlds begun before resampling gives up (hand_resample; a replay rejects a few)
# A chance node with k cards to deal: each card's probability, computed once.
_PROBABILITY = [1.0 / k if k else 0.0 for k in range(CARDS + 1)]


def _unset(value: Any) -> Any:
    """The parameter default that stands for the preset's value of a key whose values look like ``value``."""
    if isinstance(value, bool):
        return FROM_PRESET_TEXT  # partnership: "true" or "false" sets it
    return FROM_PRESET


PARAMETERS: dict[str, Any] = {"preset": "classic", **{key: _unset(getattr(HandRules(), key)) for key in KEYS}}


def rules_of(params: Mapping[str, Any]) -> HandRules:
    """The rules the game parameters ask for: the preset, then every key not left at its default."""
    config: dict[str, Any] = {"preset": params.get("preset", "classic")}
    for key in KEYS:
        value = params.get(key, PARAMETERS[key])
        if value == PARAMETERS[key]:
            continue
        if isinstance(PARAMETERS[key], str) and isinstance(value, str):
            words = {"true": True, "false": False}
            if value not in words:
                raise ValueError(f"{key} = {value!r}: expected true, false or {FROM_PRESET_TEXT}")
            value = words[value]
        config[key] = value
    return HandRules.from_dict(config)


def max_decisions(rules: HandRules) -> int:
    """The most moves a match can take: the engine aborts a deal after MAX_TURNS turns and a round after
    MAX_VOIDS void deals in a row, and a turn has at most MOVES_PER_TURN moves."""
    return rules.rounds * MAX_VOIDS * MAX_TURNS * MOVES_PER_TURN


def max_chance_nodes(rules: HandRules) -> int:
    """The first player, then per deal its deck and at most one new stock (under 106 cards) a turn."""
    return 1 + rules.rounds * MAX_VOIDS * (len(rules.deck) + MAX_TURNS * (len(rules.deck) - 1))


GAME_TYPE = game_type(GAME_NAME, "Waraq Hand (the referee's engine)", PARAMETERS)


# -- the match as OpenSpiel plays it ---------------------------------------------------


class FinishedDeal(NamedTuple):
    """A deal now over: its first player, each seat's hand as dealt, and its story (see ``Story``)."""

    first: int
    dealt: tuple[tuple[int, ...], ...]
    story: tuple[Story, ...]

    def lines(self, seat: int, number: int) -> list[str]:
        return deal_lines(seat, number, self.first, self.dealt[seat], self.story)


class HandTable:
    """One match as OpenSpiel steps through it, in pure Python (no pyspiel): the first player, the
    engine's state, the turn being built, the deck or stock being dealt, and what the information
    states need of the past.

    :class:`HandOpenSpielState` holds one as an attribute, so pyspiel's clone (a deep copy of each
    attribute) is :meth:`copy`, and its serialisation (a pickle of the attributes) is the rules and
    the list of actions, replayed when read back (:meth:`__reduce__`). A snapshot (``before_deal``)
    and a finished deal are never changed once made, so copies share them.
    """

    __slots__ = (
        "rules",
        "engine",
        "steps",
        "pending",
        "undealt",
        "actions",
        "deal_start",
        "before_deal",
        "runs",
        "dealt",
        "first",
        "story",
        "turn_moves",
        "past",
    )

    def __init__(self, rules: HandRules) -> None:
        self.rules = rules
        self.engine: HandState | None = None  # made when the first player is drawn
        self.steps: StepTurn | None = None  # the turn the seat to act is building, once it has moved
        self.pending: list[int] = []  # the deck or stock being dealt, card by card
        self.undealt: list[int] = list(range(rules.players))  # what the chance node may deal now
        self.actions: list[int] = []  # every action so far, chance outcomes included
        self.deal_start = 0  # where in ``actions`` the current deck's first card is
        self.before_deal: HandTable | None = None  # this table just before that card: worlds replay from it
        self.runs: list[tuple[int, int]] = []  # (start in ``actions``, cards) of each chance run of this deal
        self.dealt: tuple[tuple[int, ...], ...] = ()  # each seat's hand as this deal dealt it
        self.first = -1  # this deal's first player
        self.story: list[Story] = []  # this deal's steps since its deck (see ``Story``)
        self.turn_moves: list[int] = []  # the indices of the turn under way (its TAKE included)
        self.past: tuple[FinishedDeal, ...] = ()

    @classmethod
    def replayed(cls, rules: HandRules | Mapping[str, Any], actions: Sequence[int]) -> HandTable:
        table = cls(rules if isinstance(rules, HandRules) else HandRules.from_dict(rules))
        for action in actions:
            table.apply(action)
        return table

    def __reduce__(self) -> tuple[Callable[..., HandTable], tuple[Any, ...]]:
        # Pickled as its rules and actions: a record of the match, replayed by the engine when read.
        return HandTable.replayed, (self.rules.to_dict(), list(self.actions))

    def __deepcopy__(self, memo: dict[int, Any]) -> HandTable:
        return self.copy()

    def copy(self) -> HandTable:
        new = HandTable.__new__(HandTable)
        new.rules = self.rules
        new.engine = self.engine.clone() if self.engine is not None else None
        new.steps = self.steps.copy() if self.steps is not None else None
        new.pending = self.pending[:]
        new.undealt = self.undealt[:]
        new.actions = self.actions[:]
        new.deal_start = self.deal_start
        new.before_deal = self.before_deal  # shared: a snapshot is never changed
        new.runs = self.runs[:]
        new.dealt, new.first = self.dealt, self.first
        new.story = self.story[:]
        new.turn_moves = self.turn_moves[:]
        new.past = self.past
        return new

    # -- where the match is -------------------------------------------------------

    @property
    def dealing(self) -> bool:
        """A chance node: the first player, a deck or a new stock the engine waits for."""
        engine = self.engine
        return engine is None or engine.awaiting_deck or engine.awaiting_restock

    @property
    def over(self) -> bool:
        return self.engine is not None and self.engine.result is not None

    def turn_of(self, seat: int) -> StepTurn | None:
        """The turn ``seat`` is building, when it is to play a TURN (before its first move: a new one)."""
        engine = self.engine
        if engine is None or engine.kind != TURN or engine.to_act != seat:
            return None
        if self.steps is None:
            self.steps = StepTurn.of(engine.view(seat))
        return self.steps

    # -- one step -----------------------------------------------------------------

    def apply(self, index: int) -> None:
        """One OpenSpiel action: an outcome at a chance node, else a move of the seat to act."""
        if type(index) is not int:
            index = int(index)  # numpy integers from samplers
        engine = self.engine
        if self.dealing and index not in self.undealt:  # refused before anything changes
            raise ValueError(f"chance outcome {index} is not one still to deal: {sorted(self.undealt)}")
        if engine is None:
            self._first(index)
        elif engine.awaiting_deck:
            self._deal(engine, index)
        elif engine.awaiting_restock:
            self._restock(engine, index)
        elif engine.result is not None:
            raise IllegalAction(f"action {index}: the match is over")
        else:
            self._move(engine, index)
        self.actions.append(index)

    def _take(self, card: int) -> int:
        self.undealt.remove(card)  # checked by apply
        return card

    def _first(self, seat: int) -> None:
        self._take(seat)
        self.engine = HandState(self.rules, ChanceHandDealer(seat))  # it waits for its first deck
        self.undealt = list(self.rules.deck)

    def _deal(self, engine: HandState, card: int) -> None:
        if not self.pending:
            snapshot = self.copy()
            snapshot.before_deal = None  # one snapshot back is all a world needs
            self.before_deal = snapshot
            self.deal_start = len(self.actions)
            self.runs = [(self.deal_start, len(self.rules.deck))]
            self.story, self.turn_moves, self.dealt = [], [], ()
        self.pending.append(self._take(card))
        if self.undealt:
            return
        engine.deal(self.pending)
        self.pending = []
        self.dealt = tuple(tuple(hand) for hand in engine.hands)
        self.first = engine.first
        self._after(engine)

    def _restock(self, engine: HandState, card: int) -> None:
        if not self.pending:
            under = self.undealt
            self.runs.append((len(self.actions), len(under)))
            self.story.append((-1, RESTOCK, len(under), tuple(sorted(under))))
        self.pending.append(self._take(card))
        if self.undealt:
            return
        engine.restock(self.pending)
        self.pending = []
        self._after(engine)

    def _move(self, engine: HandState, index: int) -> None:
        seat = engine.to_act
        assert seat is not None  # the match goes on and deals nothing: a seat is to act
        view = engine.view(seat)
        if engine.kind == TAKE:
            answer = action_of(index, view)
            top = engine.pile[-1]
            engine.apply(answer)
            self.turn_moves.append(index)
            self.story.append((seat, MOVE, index, top))
            if answer != DISCARD_PILE:
                assert engine.drawn is not None  # the stock's top was drawn for the seat
                self.story.append((seat, DRAW, engine.drawn, -1))
            return
        steps = self.steps if self.steps is not None else StepTurn.of(view)
        move = action_of(index, view, steps)
        assert isinstance(move, Move)  # a TURN's index is a move
        extra = -1
        if index >= SWAP_BASE:
            joker = steps.turn.table[move.arg].joker
            assert joker is not None  # a swap is allowed only on a meld with its joker
            extra = joker
        finished = steps.play(move)
        self.story.append((seat, MOVE, index, extra))
        self.turn_moves.append(index)
        if finished is None:
            self.steps = steps
            return
        self.steps = None
        engine.apply(finished)
        self.turn_moves = []
        self._after(engine)

    def _after(self, engine: HandState) -> None:
        """After the engine moved on by itself: note a draw it made for the next seat, or close the deal."""
        if engine.awaiting_deck or engine.result is not None:
            # The deal is over (a round's end, a void deal, the match's end): it joins the past.
            self.past += (FinishedDeal(self.first, self.dealt, tuple(self.story)),)
            self.dealt, self.story, self.turn_moves = (), [], []
            if engine.awaiting_deck:
                self.undealt = list(self.rules.deck)
            return
        if engine.awaiting_restock:
            self.undealt = engine.pile[:-1]  # the new stock's cards, to deal
            return
        seat = engine.to_act
        if seat is None or engine.kind == TURN and engine.drawn is None:
            return  # a round's first turn: no draw
        top = engine.pile[-1] if engine.pile else -1
        self.story.append((seat, START, int(engine.kind == TAKE), (top, tuple(engine.table), engine.opened[seat])))
        if engine.drawn is not None:
            self.story.append((seat, DRAW, engine.drawn, -1))

    # -- what a seat knows ----------------------------------------------------------

    def view(self, seat: int) -> HandView | None:
        return self.engine.view(seat) if self.engine is not None else None

    def observation(self, seat: int, *, public: bool = True, private: bool = True) -> str:
        parts = []
        if private:
            parts.append(f"seat {seat}")
        engine = self.engine
        if engine is None:
            if public:
                parts.append("first player to draw")
            return " | ".join(parts)
        view = engine.view(seat)
        steps = self.steps if engine.to_act == seat else None
        if private:
            parts.append(private_text(view, steps))
        if public:
            parts.append(public_text(view))
            if self.turn_moves:
                parts.append(f"turn of {engine.to_act} " + ", ".join(move_text(i) for i in self.turn_moves))
            if self.pending or engine.awaiting_deck or engine.awaiting_restock:
                parts.append(f"dealing {len(self.pending)}/{len(self.pending) + len(self.undealt)}")
        return " | ".join(parts)

    def information(self, seat: int) -> str:
        first = "-" if self.engine is None else str(self.engine.first_of_match)
        lines = [f"seat {seat} of {self.rules.players} | first player {first}"]
        for number, deal in enumerate(self.past, 1):
            lines += deal.lines(seat, number)
        lines += self.deal_lines(seat)
        lines.append("now | " + self.observation(seat))
        return "\n".join(lines)

    def deal_lines(self, seat: int) -> list[str]:
        """What ``seat`` has seen of the deal on the table (none before its deck is laid out)."""
        if not self.dealt:
            return []
        return deal_lines(seat, len(self.past) + 1, self.first, self.dealt[seat], self.story)

    def shows(self, seat: int) -> tuple[list[str], str]:
        """What ``seat`` has seen of the current deal: a world that shows it the same is consistent."""
        return self.deal_lines(seat), self.observation(seat)

    # -- resampling -----------------------------------------------------------------

    def resampled(self, seat: int, rng: Random) -> HandTable:
        """A world drawn from those consistent with ``seat``'s information (see hand_resample)."""
        engine = self.engine
        if engine is None or self.before_deal is None:
            return self.copy()  # the first player is public and no card is out
        if not self.dealt:  # the deck being dealt: nobody has seen a card of it
            if not self.pending:
                return self.copy()
            world = self._replay([rng.sample(list(self.rules.deck), len(self.pending))])
            assert world is not None  # cards alone are never illegal
            return world
        facts = hand_resample.Facts.of(self.rules, seat, self.first, self.dealt[seat], self.story)
        target = self.shows(seat)
        for _ in range(RESAMPLE_TRIES):
            runs = hand_resample.sample_runs(facts, rng)
            if runs is None:
                continue
            if self.pending:  # a new stock being dealt, none of it drawn: its first cards are any of it
                runs[-1] = runs[-1][: len(self.pending)]
            world = self._replay(runs)
            if world is not None and world.shows(seat) == target:
                return world
        raise RuntimeError(f"no world consistent with seat {seat}'s information in {RESAMPLE_TRIES} draws")

    def _replay(self, runs: Sequence[Sequence[int]]) -> HandTable | None:
        """This deal again from its first card, its chance runs dealt as ``runs`` (the deck, then each
        new stock; the last may be cut short) and every move as it was; None if a move is refused."""
        assert self.before_deal is not None  # a deck has been started
        world = self.before_deal.copy()
        actions = self.actions
        at = self.deal_start
        try:
            for (start, _), cards in zip(self.runs, runs, strict=False):
                for action in actions[at:start]:
                    world.apply(action)
                for card in cards:
                    world.apply(card)
                at = start + len(cards)
            for action in actions[at:]:
                world.apply(action)
        except (IllegalAction, ValueError):
            return None
        return world


def deal_lines(seat: int, number: int, first: int, hand: Sequence[int], story: Sequence[Story]) -> list[str]:
    """A deal's lines of ``seat``'s information state: its first player and ``seat``'s hand as dealt,
    then the deal's steps as ``seat`` saw them."""
    seen = []
    for who, what, value, _ in story:
        if what == MOVE:
            seen.append(f"{who} {move_text(value)}")
        elif what == DRAW:
            seen.append(f"{who} draw" + (f" {CARD_NAMES[value]}" if who == seat else ""))
        elif what == RESTOCK:
            seen.append(f"restock {value}")  # a START says nothing more than the moves after it
    return [f"deal {number} first {first} | hand {_cards(hand)}", "moves | " + ", ".join(seen)]


# -- the text of a view ----------------------------------------------------------------


def _cards(cards: Sequence[int]) -> str:
    return " ".join(CARD_NAMES[c] for c in cards) or "-"


def move_text(index: int) -> str:
    """A move as its text without the index: ``PICK 7H#0``, ``TAKE stock``, ``ADD 3``."""
    return describe(index).split("(", 1)[1][:-1]


def _meld(meld: TableMeld) -> str:
    return f"{meld.owner}:" + "-".join(CARD_NAMES[c] for c in meld.cards)


def public_text(view: HandView) -> str:
    """What every seat sees alike: the round, who is to do what, the hands' sizes, who opened, the table,
    the pile, the cards taken from it, the stock's size and the score."""
    parts = [f"round {view.round} first {view.first}"]
    if view.kind is not None:
        parts.append(f"{view.kind} seat {view.to_act}")
    parts.append("hands " + " ".join(map(str, view.hand_sizes)))
    parts.append("opened " + "".join("o" if o else "." for o in view.opened))
    if view.melds:
        parts.append("melds " + " ".join(_meld(m) for m in view.melds))
    parts.append(f"pile {_cards(view.pile)}")
    if view.taken:
        parts.append("taken " + " ".join(f"{s}:{CARD_NAMES[c]}" for s, c in view.taken))
    parts.append(f"stock {view.stock_size} score " + " ".join(map(str, view.scores)))
    if view.result is not None:
        parts.append(f"over {view.result.reason} winners " + (" ".join(map(str, view.result.winners)) or "-"))
    return " | ".join(parts)


def private_text(view: HandView, steps: StepTurn | None = None) -> str:
    """What only the view's seat sees: its hand (as its turn has left it so far), the card it drew."""
    hand = steps.turn.hand if steps is not None else view.hand
    parts = ["hand " + _cards(sorted(hand))]
    if view.drawn is not None:
        parts.append("drew " + CARD_NAMES[view.drawn])
    return " | ".join(parts)


# -- the observer: strings and tensors -------------------------------------------------


def observation_pieces(players: int) -> list[tuple[str, int]]:
    """The observation tensor's named pieces, in order: the blocks of
    :func:`~waraq.referee.env.hand_encoding.layout`, each its own piece."""
    return [(name, length) for name, (_, length) in layout(players).items()]


def deal_pieces(players: int) -> list[tuple[str, int]]:
    """The information state's pieces beyond the observation: this deal's ``first_hand`` (the seat's hand
    as dealt, by card), ``drew`` (the cards it drew from the stock), per relative seat ``discarded`` (the
    cards it discarded) and ``declined`` (the faces it was offered from the pile and left), and
    ``turn_moves`` (the indices of the turn under way)."""
    return [
        ("first_hand", CARDS),
        ("drew", CARDS),
        ("discarded", players * CARDS),
        ("declined", players * FACES),
        ("turn_moves", ACTIONS),
    ]


class HandObserver(TableObserver):
    """The Python observer (:class:`~waraq.referee.env.openspiel_table.TableObserver`) of Hand's tensor pieces."""

    game_name = GAME_NAME

    def observation_pieces(self, rules: HandRules) -> list[tuple[str, int]]:
        return observation_pieces(rules.players)

    def deal_pieces(self, rules: HandRules) -> list[tuple[str, int]]:
        return deal_pieces(rules.players)

    def encode(self, table: HandTable, player: int, view: HandView) -> np.ndarray:
        return encode(view, table.turn_of(player))

    def deal_history(self, table: HandTable, player: int, view: HandView) -> None:
        pieces, n = self.dict, self.rules.players
        pieces["first_hand"][list(table.dealt[player])] = 1.0
        for who, what, value, extra in table.story:
            if what == DRAW and who == player:
                pieces["drew"][value] = 1.0
            elif what == MOVE:
                rel = (who - player) % n
                if DISCARD_BASE <= value < MELD_BASE:
                    pieces["discarded"][rel * CARDS + value - DISCARD_BASE] = 1.0
                elif value == TAKE_BASE + TAKES.index("stock"):
                    pieces["declined"][rel * FACES + extra % FACES] = 1.0
        pieces["turn_moves"][table.turn_moves] = 1.0


# -- the state -------------------------------------------------------------------------


class HandOpenSpielState(TableState):
    """A match as a pyspiel state: its :class:`HandTable`, which every method reads, and a cache for resampling."""

    table_class = HandTable

    def _legal_actions(self, player: int) -> list[int]:
        table = self.table
        engine = table.engine
        assert engine is not None and player == engine.to_act
        if engine.kind == TAKE:
            return [TAKE_BASE + TAKES.index(answer) for answer in engine.legal_actions()]
        steps = table.turn_of(player)
        assert steps is not None  # a TURN is pending
        return sorted(action_index(move) for move in steps.allowed())

    def _chance_actions(self) -> list[int]:
        return sorted(self.table.undealt)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        undealt = self.table.undealt
        p = _PROBABILITY[len(undealt)]
        return [(card, p) for card in sorted(undealt)]

    def _action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            table = self.table
            if table.engine is None:
                return f"first player {action}"
            return f"{'restock' if table.engine.awaiting_restock else 'deal'} {CARD_NAMES[action]}"
        return describe(action)

    def __str__(self) -> str:
        """Every seat's cards and the table: for debugging (OpenSpiel's ``ToString``), not for a seat."""
        table = self.table
        if table.engine is None:
            return "first player to draw"
        engine = table.engine
        lines = [f"seat {s}: hand {_cards(engine.hands[s])}" for s in range(table.rules.players)]
        lines.append(public_text(engine.view(0)))
        lines.append(f"stock {_cards(engine.stock)}")
        if table.turn_moves:
            lines.append(f"turn of {engine.to_act} " + ", ".join(move_text(i) for i in table.turn_moves))
        if table.pending:
            lines.append("dealing " + _cards(table.pending))
        return "\n".join(lines)


class HandGame(TableGame):
    """The game of the module docstring; ``rules`` are the :class:`HandRules` its parameters ask for."""

    game_type = GAME_TYPE
    state_class = HandOpenSpielState
    observer_class = HandObserver
    actions = ACTIONS
    chance_outcomes = CARDS
    rules_of = staticmethod(rules_of)
    max_decisions = staticmethod(max_decisions)
    max_chance_nodes = staticmethod(max_chance_nodes)
    rules: HandRules


pyspiel.register_game(GAME_TYPE, HandGame)


def load(rules: str = "classic", **keys: Any) -> HandGame:
    """The registered game for a preset and overriding keys: ``load("two", rounds=1)``."""
    game: HandGame = pyspiel.load_game(GAME_NAME, {"preset": rules, **keys})
    return game


__all__ = ["GAME_NAME", "HandGame", "HandOpenSpielState", "HandTable", "load", "rules_of"]
