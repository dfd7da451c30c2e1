"""Hokm as an OpenSpiel game (``python_waraq_hokm``): the referee's engine behind pyspiel's API.

Importing this module registers the game: ``pyspiel.load_game("python_waraq_hokm",
{"preset": "three"})`` or ``pyspiel.load_game("python_waraq_hokm(preset=two,target_score=1)")``.

There is no second copy of the rules. Each decision is one ``HokmState.apply`` on the
engine's own state (the checked door); the legal actions are the engine's, as indices of
:mod:`waraq.referee.env.hokm_encoding`'s 1388-index space; the observations are the
engine's :class:`~waraq.referee.games.hokm.engine.HokmView` of one seat, so they cannot
show what that seat may not know.

**Parameters.** ``preset`` (``classic``, ``short``, ``three``, ``two``) and every key of
the rules config (:data:`waraq.referee.games.hokm.rules.KEYS`), a key given overriding the
preset's value. A key left at its default takes the preset's value: ``-1`` for the
numbers, ``"preset"`` for the words and for ``removed_cards`` (cards separated by spaces
or ``+``, ``none`` for none), ``false`` for ``bam`` and ``burn_visible`` (no preset turns
them on). The number of players is the rules'.

**Chance nodes.** Every card is dealt as a chance outcome, its id the card (``suit * 13
+ rank``, 0-51: the PLAY index of the same card), uniform over the cards of that deck not
dealt yet: first the ace draw, face up, until an ace turns (its seat the first hakem), then
each deck, whole, when the engine waits for it (at the start of each round and after
each redeal; a :class:`~waraq.referee.games.dealers.ChanceDealer` and ``HokmState.deal``).
The deck is dealt before anyone sees a card of it; the engine then gives each seat what
the rules say when they say it. This is the engine's seeded shuffle, card by card.

**Strings and tensors.** ``observation_string``/``observation_tensor``: the seat's view
now (the tensor is :func:`~waraq.referee.env.hokm_encoding.encode`, zeros during the ace
draw). ``information_state_string``: everything the seat has observed, as a pure function
of its views: the ace draw, then for each deal its view when the deck was laid out, its
view when play began and the plays after it (each public), and its view now.
``information_state_tensor``: the encoding now, plus what this deal showed the seat that
the view now does not: its first five, whether the hakem was offered a redeal, the order
of the deal's plays and (2 players) its draws. Earlier deals are left out of the tensor:
a new deal is a new shuffle, and the score and hakem they left are in the view.

**Returns.** +1 for each seat of the winning side and -1 for the others at the end, 0 for
everyone in a match the engine aborts (:func:`~waraq.referee.env.boards.side_reward`, the
PettingZoo environment's reward); 0 before the end.

**Resampling.** ``state.resample_from_infostate(seat, sampler)`` (what OpenSpiel's Python
IS-MCTS calls) returns a new state drawn from the worlds consistent with ``seat``'s
information; :mod:`waraq.referee.env.hokm_resample` says which worlds and with what
probabilities. pyspiel's C++ side cannot reach it: a Python game's state has no C++
``ResampleFromInfostate``, so ``pyspiel.ISMCTSBot`` cannot search this game; the Python
``open_spiel.python.algorithms.ismcts.ISMCTSBot`` can.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from random import Random
from typing import Any, NamedTuple

import numpy as np
import pyspiel

from waraq.referee.env import hokm_resample
from waraq.referee.env.hokm_encoding import ACTIONS, action_index, decode, describe, encode, layout, observation_size
from waraq.referee.env.openspiel_table import CHANCE, TableGame, TableObserver, TableState, game_type
from waraq.referee.games.cards import ACE, CARD_NAMES, SUITS, rank_of
from waraq.referee.games.dealers import ChanceDealer
from waraq.referee.games.hokm.engine import PLAY, REDEAL, HokmState, HokmView, IllegalAction, Trick
from waraq.referee.games.hokm.rules import KEYS, HokmRules

GAME_NAME = "python_waraq_hokm"
CARDS = 52
assert action_index(PLAY, 51) == 51 and action_index(PLAY, 0) == 0  # PLAY's indices are the cards (the fast path)
FROM_PRESET = -1  # a number key left here takes the preset's value
FROM_PRESET_TEXT = "preset"  # so does a word key left here
# A chance node with k cards to deal: each card's (outcome, probability), built once (a tenth of a step's cost).
_OUTCOMES = [tuple((card, 1.0 / k) for card in range(CARDS)) if k else () for k in range(CARDS + 1)]
RESAMPLE_TRIES = 10_000  # worlds drawn before resampling gives up (only the redeal's facts reject any)


def _unset(value: Any) -> Any:
    """The parameter default that stands for the preset's value of a key whose values look like ``value``."""
    if isinstance(value, bool):
        return False  # no preset turns bam or burn_visible on
    if isinstance(value, int):
        return FROM_PRESET
    return FROM_PRESET_TEXT


PARAMETERS: dict[str, Any] = {"preset": "classic", **{key: _unset(getattr(HokmRules(), key)) for key in KEYS}}


def rules_of(params: Mapping[str, Any]) -> HokmRules:
    """The rules the game parameters ask for: the preset, then every key not left at its default."""
    config: dict[str, Any] = {"preset": params.get("preset", "classic")}
    for key in KEYS:
        value = params.get(key, PARAMETERS[key])
        if value == PARAMETERS[key]:
            continue
        if key == "removed_cards":
            value = [] if value == "none" else value.replace("+", " ").split()
        config[key] = value
    return HokmRules.from_dict(config)


def max_decisions(rules: HokmRules) -> int:
    """The most decisions a match can take: rounds times a round's decisions.

    Every round gives some side a point, so at most ``teams * (target - 1) + 1`` rounds;
    a round has its redeals, a REDEAL declined, TRUMP, 2 players' discards and draws,
    every card played and a BAM."""
    n = rules.players
    rounds = rules.teams * (rules.target_score - 1) + 1
    setup = rules.max_redeals + 2 + (2 + 2 * (rules.hand_size - 3) if n == 2 else 0)
    return rounds * (setup + n * rules.tricks + 1)


def max_chance_nodes(rules: HokmRules) -> int:
    """The ace draw turns at most every non-ace and an ace; each deal is one deck."""
    aces = sum(1 for c in rules.deck if rank_of(c) == ACE)
    rounds = rules.teams * (rules.target_score - 1) + 1
    return len(rules.deck) - aces + 1 + rounds * (rules.max_redeals + 1) * len(rules.deck)


GAME_TYPE = game_type(GAME_NAME, "Waraq Hokm (the referee's engine)", PARAMETERS)


# -- the match as OpenSpiel plays it ---------------------------------------------------


class FinishedDeal(NamedTuple):
    """What each seat saw of a deal now over: its views when the deck was laid out and when play
    began (none for a deal redealt before play), and the deal's decisions from then on, all public."""

    dealt: tuple[HokmView, ...]
    playing: tuple[HokmView, ...]
    then: tuple[tuple[int, int], ...]  # (seat, action index)

    def lines(self, seat: int, number: int) -> list[str]:
        lines = [f"deal {number} | {view_text(self.dealt[seat])}"]
        if self.playing:
            lines.append(f"play | {view_text(self.playing[seat])}")
        lines.append("then | " + " ".join(f"{who}:{describe(index)}" for who, index in self.then))
        return lines


class HokmTable:
    """One match as OpenSpiel steps through it, in pure Python (no pyspiel): the ace draw, the
    engine's state, the deck being dealt, and what the information states need of the past.

    :class:`HokmOpenSpielState` holds one as an attribute, so pyspiel's clone (a deep copy of each
    attribute) is :meth:`copy`, and its serialisation (a pickle of the attributes) is the rules and
    the list of actions, replayed when read back (:meth:`__reduce__`). A snapshot (``before_deal``)
    is never changed once taken, so copies share it.
    """

    __slots__ = (
        "rules",
        "turned",
        "engine",
        "pending",
        "undealt",
        "actions",
        "deal_start",
        "before_deal",
        "decisions",
        "dealt",
        "playing",
        "play_from",
        "past",
    )

    def __init__(self, rules: HokmRules) -> None:
        self.rules = rules
        self.turned: list[int] = []  # the ace draw so far, face up
        self.engine: HokmState | None = None  # made when the ace turns
        self.pending: list[int] = []  # the deck being dealt, card by card
        self.undealt: list[int] = list(rules.deck)  # the cards not yet dealt of the deck (or ace draw) in hand
        self.actions: list[int] = []  # every action so far, chance outcomes included
        self.deal_start = 0  # where in ``actions`` the current deck's first card is
        self.before_deal: HokmTable | None = None  # this table just before that card: worlds replay from it
        self.decisions: list[tuple[int, int]] = []  # (seat, action index) of the current deal
        self.dealt: tuple[HokmView, ...] = ()  # each seat's view right after the current deck was laid out
        self.playing: tuple[HokmView, ...] = ()  # each seat's view when the current deal's play began
        self.play_from = 0  # where in ``decisions`` play began
        self.past: tuple[FinishedDeal, ...] = ()

    @classmethod
    def replayed(cls, rules: HokmRules | Mapping[str, Any], actions: Sequence[int]) -> HokmTable:
        table = cls(rules if isinstance(rules, HokmRules) else HokmRules.from_dict(rules))
        for action in actions:
            table.apply(action)
        return table

    def __reduce__(self) -> tuple[Callable[..., HokmTable], tuple[Any, ...]]:
        # Pickled as its rules and actions: a record of the match, replayed by the engine when read.
        return HokmTable.replayed, (self.rules.to_dict(), list(self.actions))

    def __deepcopy__(self, memo: dict[int, Any]) -> HokmTable:
        return self.copy()

    def copy(self) -> HokmTable:
        new = HokmTable.__new__(HokmTable)
        new.rules = self.rules
        new.turned = self.turned[:]
        new.engine = self.engine.clone() if self.engine is not None else None
        new.pending = self.pending[:]
        new.undealt = self.undealt[:]
        new.actions = self.actions[:]
        new.deal_start = self.deal_start
        new.before_deal = self.before_deal  # shared: a snapshot is never changed
        new.decisions = self.decisions[:]
        new.dealt, new.playing, new.play_from, new.past = self.dealt, self.playing, self.play_from, self.past
        return new

    # -- where the match is -------------------------------------------------------

    @property
    def dealing(self) -> bool:
        """A chance node: the ace draw, or a deck the engine waits for."""
        engine = self.engine
        return engine is None or engine.awaiting_deck

    @property
    def over(self) -> bool:
        return self.engine is not None and self.engine.result is not None

    # -- one step -----------------------------------------------------------------

    def apply(self, index: int) -> None:
        """One OpenSpiel action: a card dealt at a chance node, else the engine's decision at ``index``."""
        engine = self.engine
        if engine is None:
            self._turn(index)
        elif engine.kind is PLAY:  # the commonest step: a PLAY's index is the card (hokm_encoding)
            seat = engine.to_act
            assert seat is not None  # a decision is pending
            engine.apply(index)
            self.decisions.append((seat, index))
            if engine.kind is None:
                self._deal_over(engine)
        elif engine.kind is None:
            if engine.result is not None:
                raise IllegalAction(f"action {index}: the match is over")
            self._deal(engine, index)
        else:
            self._decide(engine, index)
        self.actions.append(index)

    def _take(self, card: int) -> int:
        if type(card) is not int:
            card = int(card)  # numpy integers from samplers
        try:
            self.undealt.remove(card)
        except ValueError:
            raise ValueError(f"chance outcome {card} is not a card still to deal: {self.undealt}") from None
        return card

    def _turn(self, card: int) -> None:
        card = self._take(card)
        self.turned.append(card)
        if rank_of(card) == ACE:  # its seat is the first hakem; the engine starts, waiting for its first deck
            self.engine = HokmState(self.rules, ChanceDealer(self.turned))
            self.undealt = list(self.rules.deck)

    def _deal(self, engine: HokmState, card: int) -> None:
        if not self.pending:
            snapshot = self.copy()
            snapshot.before_deal = None  # one snapshot back is all a world needs
            self.before_deal = snapshot
            self.deal_start = len(self.actions)
        self.pending.append(self._take(card))
        if self.undealt:
            return
        engine.deal(self.pending)
        self.pending, self.undealt = [], list(self.rules.deck)
        self.dealt = tuple(engine.view(s) for s in range(self.rules.players))
        self.decisions, self.playing, self.play_from = [], (), 0

    def _decide(self, engine: HokmState, index: int) -> None:
        kind, action = decode(index)
        if kind != engine.kind:
            raise IllegalAction(
                f"action {describe(index)} is not legal: seat {engine.to_act} is to decide {engine.kind}"
            )
        seat = engine.to_act
        assert seat is not None  # a decision is pending
        engine.apply(action)
        self.decisions.append((seat, index))
        if engine.kind is None:
            self._deal_over(engine)
        elif engine.kind is PLAY and not self.playing:  # play begins: each seat's view, for later deals' records
            self.playing = tuple(engine.view(s) for s in range(self.rules.players))
            self.play_from = len(self.decisions)

    def _deal_over(self, engine: HokmState) -> None:
        if engine.result is None:  # the match waits for its next deck: this deal joins the past
            self.past += (self._finished(),)
            self.dealt, self.playing = (), ()

    def _finished(self) -> FinishedDeal:
        # Play's decisions are public; a deal redealt before play ends on its public REDEAL.
        then = self.decisions[self.play_from :] if self.playing else self.decisions[-1:]
        return FinishedDeal(self.dealt, self.playing, tuple(then))

    # -- what a seat knows ----------------------------------------------------------

    def view(self, seat: int) -> HokmView | None:
        return self.engine.view(seat) if self.engine is not None else None

    def observation(self, seat: int, *, public: bool = True, private: bool = True) -> str:
        parts = []
        if private:
            parts.append(f"seat {seat}")
        engine = self.engine
        if engine is None:
            if public:
                parts.append("ace draw " + _cards(self.turned))
            return " | ".join(parts)
        view = engine.view(seat)
        if private:
            parts.append(private_text(view))
        if public:
            parts.append(public_text(view))
            if engine.awaiting_deck:
                parts.append(f"dealing {len(self.pending)}/{len(self.rules.deck)}")
        return " | ".join(parts)

    def information(self, seat: int) -> str:
        lines = [f"seat {seat} of {self.rules.players} | ace draw {_cards(self.turned)}"]
        for number, deal in enumerate(self.past, 1):
            lines += deal.lines(seat, number)
        if self.dealt:
            lines.append(f"deal {len(self.past) + 1} | {view_text(self.dealt[seat])}")
        lines.append("now | " + self.observation(seat))
        return "\n".join(lines)

    # -- resampling -----------------------------------------------------------------

    def resampled(self, seat: int, rng: Random) -> HokmTable:
        """A world drawn from those consistent with ``seat``'s information (see hokm_resample)."""
        engine = self.engine
        if engine is None:
            return self.copy()  # the ace draw is face up: nothing is hidden
        if engine.awaiting_deck:  # the cards of the deck being dealt: nobody has seen one
            if not self.pending:
                return self.copy()
            world = self._replay(rng.sample(list(self.rules.deck), len(self.pending)), [])
            assert world is not None  # cards alone are never illegal
            return world
        decisions = [(who, *decode(index)) for who, index in self.decisions]
        for _ in range(RESAMPLE_TRIES):
            deck, actions = hokm_resample.sample_world(seat, self.dealt[seat], engine.view(seat), decisions, rng)
            indices = [action_index(kind, action) for (_, kind, _), action in zip(decisions, actions, strict=True)]
            world = self._replay(deck, indices)
            if world is not None and world.shows(seat) == self.shows(seat):
                return world
        raise RuntimeError(f"no world consistent with seat {seat}'s information in {RESAMPLE_TRIES} draws")

    def shows(self, seat: int) -> tuple[Any, ...]:
        """What ``seat`` has seen of the current deal: a world that shows it the same is consistent."""
        playing = self.playing[seat] if self.playing else None
        return self.dealt[seat], playing, self.view(seat)

    def _replay(self, cards: Sequence[int], indices: Sequence[int]) -> HokmTable | None:
        """This deal again from its first card with ``cards`` dealt and ``indices`` decided; None if illegal."""
        assert self.before_deal is not None  # a deck has been started
        world = self.before_deal.copy()
        try:
            for action in (*cards, *indices):
                world.apply(action)
        except IllegalAction:
            return None
        return world


# -- the text of a view ----------------------------------------------------------------


def _cards(cards: Sequence[int]) -> str:
    return " ".join(CARD_NAMES[c] for c in cards) or "-"


def _trick(trick: Trick, players: int) -> str:
    return ",".join(f"{seat}:{CARD_NAMES[card]}" for seat, card in trick.plays(players)) + f">{trick.winner}"


def public_text(view: HokmView) -> str:
    """What every seat sees alike: the round, hakem and trump, the pending decision, the cards played."""
    n = view.rules.players
    trump = "-" if view.trump is None else SUITS[view.trump]
    parts = [f"round {view.round} hakem {view.hakem} trump {trump}"]
    if view.kind is not None:
        parts.append(f"{view.kind} seat {view.to_act}")
    parts.append("hands " + " ".join(map(str, view.hand_sizes)))
    if view.redeals:
        parts.append("redeals " + "; ".join(f"{seat}:{_cards(shown)}" for seat, shown in view.redeals))
    if view.tricks:
        parts.append("tricks " + " ".join(_trick(t, n) for t in view.tricks))
    if view.trick:
        parts.append("trick " + ",".join(f"{seat}:{CARD_NAMES[card]}" for seat, card in view.trick))
    parts.append("won " + " ".join(map(str, view.tricks_won)) + " score " + " ".join(map(str, view.scores)))
    if view.bam:
        parts.append("bam")
    if view.result is not None:
        parts.append(f"over {view.result.reason} winners " + (" ".join(map(str, view.result.winners)) or "-"))
    return " | ".join(parts)


def private_text(view: HokmView) -> str:
    """What only the view's seat sees: its hand and, with 2 players, its discards and draws."""
    parts = ["hand " + _cards(view.hand)]
    if view.discarded:
        parts.append("discarded " + _cards(view.discarded))
    if view.draws:
        steps = (
            f"{CARD_NAMES[d.offered]} {d.choice}" + ("" if d.second is None else f" {CARD_NAMES[d.second]}")
            for d in view.draws
        )
        parts.append("draws " + ", ".join(steps))
    if view.offered is not None:
        parts.append("offered " + CARD_NAMES[view.offered])
    return " | ".join(parts)


def view_text(view: HokmView) -> str:
    return f"{private_text(view)} | {public_text(view)}"


# -- the observer: strings and tensors -------------------------------------------------


def observation_pieces(players: int) -> list[tuple[str, int]]:
    """The observation tensor's named pieces, in order, over :func:`~waraq.referee.env.hokm_encoding.layout`'s
    blocks: ``cards`` (hand, trick, played), ``table`` (trump, kind, to_act, hakem, leader), ``counts``
    (tricks_won, scores, hand_sizes) and ``other`` (bam and, with 2 or 3 players, the cards out of play)."""
    at = layout(players)
    table, counts, other = at["trump"][0], at["tricks_won"][0], at["bam"][0]
    return [
        ("cards", table),
        ("table", counts - table),
        ("counts", other - counts),
        ("other", observation_size(players) - other),
    ]


def deal_pieces(rules: HokmRules) -> list[tuple[str, int]]:
    """The information state's pieces beyond the observation: this deal's ``first_packet`` (the seat's first
    five), ``redeal_offered``, ``play_order`` (per card, its place in the deal's plays ÷ the deal's cards, 0
    if unplayed) and, with 2 players, per card its draw number ÷ 10 as ``draw_offered`` and ``draw_second``
    (seen after a pass, or burned in sight) and ``draw_kept``."""
    pieces = [("first_packet", CARDS), ("redeal_offered", 1), ("play_order", CARDS)]
    if rules.players == 2:
        pieces += [("draw_offered", CARDS), ("draw_second", CARDS), ("draw_kept", CARDS)]
    return pieces


class HokmObserver(TableObserver):
    """The Python observer (:class:`~waraq.referee.env.openspiel_table.TableObserver`) of Hokm's tensor pieces."""

    game_name = GAME_NAME

    def observation_pieces(self, rules: HokmRules) -> list[tuple[str, int]]:
        return observation_pieces(rules.players)

    def deal_pieces(self, rules: HokmRules) -> list[tuple[str, int]]:
        return deal_pieces(rules)

    def encode(self, table: HokmTable, player: int, view: HokmView) -> np.ndarray:
        return encode(view)

    def deal_history(self, table: HokmTable, player: int, view: HokmView) -> None:
        pieces = self.dict
        dealt = table.dealt[player]
        pieces["first_packet"][list(dealt.hand)] = 1.0
        pieces["redeal_offered"][0] = float(dealt.kind == REDEAL)
        cards = [card for plays in hokm_resample.plays_of(view) for _, card in plays]
        slots = self.rules.players * self.rules.tricks
        for i, card in enumerate(cards):
            pieces["play_order"][card] = (i + 1) / slots
        if self.rules.players == 2:
            draws = self.rules.hand_size - 3
            for k, step in enumerate(view.draws):
                mark = (k + 1) / draws
                pieces["draw_offered"][step.offered] = mark
                if step.second is not None:
                    pieces["draw_second"][step.second] = mark
                kept = step.offered if step.choice == "keep" else step.second
                if kept is not None:
                    pieces["draw_kept"][kept] = mark


# -- the state -------------------------------------------------------------------------


class HokmOpenSpielState(TableState):
    """A match as a pyspiel state: its :class:`HokmTable`, which every method reads, and a cache for resampling."""

    table_class = HokmTable

    def _legal_actions(self, player: int) -> list[int]:
        engine = self.table.engine
        assert engine is not None and player == engine.to_act
        kind = engine.kind
        if kind is PLAY:  # the commonest question: a card's index is the card, and a hand is kept sorted
            return list(engine.legal_actions())
        assert kind is not None
        return sorted(action_index(kind, action) for action in engine.legal_actions())

    def _chance_actions(self) -> list[int]:
        return list(self.table.undealt)  # kept in card order

    def chance_outcomes(self) -> list[tuple[int, float]]:
        undealt = self.table.undealt
        row = _OUTCOMES[len(undealt)]
        return [row[card] for card in undealt]  # twice as fast as list(map(row.__getitem__, ...))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            return f"{'turn' if self.table.engine is None else 'deal'} {CARD_NAMES[action]}"
        return describe(action)

    def __str__(self) -> str:
        """Every seat's cards and the table: for debugging (OpenSpiel's ``ToString``), not for a seat."""
        table = self.table
        if table.engine is None:
            return "ace draw " + _cards(table.turned)
        lines = [f"seat {s}: {private_text(table.engine.view(s))}" for s in range(table.rules.players)]
        lines.append(public_text(table.engine.view(0)))
        if table.pending:
            lines.append("dealing " + _cards(table.pending))
        return "\n".join(lines)


class HokmGame(TableGame):
    """The game of the module docstring; ``rules`` are the :class:`HokmRules` its parameters ask for."""

    game_type = GAME_TYPE
    state_class = HokmOpenSpielState
    observer_class = HokmObserver
    actions = ACTIONS
    chance_outcomes = CARDS
    rules_of = staticmethod(rules_of)
    max_decisions = staticmethod(max_decisions)
    max_chance_nodes = staticmethod(max_chance_nodes)
    rules: HokmRules


pyspiel.register_game(GAME_TYPE, HokmGame)


def load(rules: str = "classic", **keys: Any) -> HokmGame:
    """The registered game for a preset and overriding keys: ``load("two", target_score=1)``."""
    game: HokmGame = pyspiel.load_game(GAME_NAME, {"preset": rules, **keys})
    return game


__all__ = ["GAME_NAME", "HokmGame", "HokmOpenSpielState", "HokmTable", "load", "rules_of"]
