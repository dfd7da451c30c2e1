"""Hand's moves and one seat's view as fixed-size numbers, for learning agents (numpy only).

Everything here is a function of one seat's :class:`~waraq.referee.games.hand.view.HandView`
(and, during that seat's own turn, of the turn it is building, a
:class:`~waraq.referee.env.hand_steps.StepTurn`): never of the state, so an encoding
cannot leak what the seat may not know. Legality is the engine's: a TAKE's answers
are the view's ``legal``, a turn's moves those :mod:`~waraq.referee.env.hand_steps`
allows on the engine's own ``PartialTurn``.

Actions: one discrete space for both decisions and every player count
(:data:`ACTIONS` = 321 indices). A ``TAKE`` is one index; a ``TURN`` is a sequence of
indices, the moves of :mod:`~waraq.referee.env.hand_steps` (its docstring says why none
leads to a dead end), the last one a ``DISCARD``:

=========  ==========  ===========================================================
indices    move        meaning
=========  ==========  ===========================================================
0-1        TAKE        ``"stock"``, ``"discard"``
2-107      PICK        select hand card ``index - 2`` (card ids ``copy * 53 + face``)
108-213    DISCARD     discard card ``index - 108``, ending the turn (nothing selected)
214        MELD        lay the selection as a new meld (a joker as low as it stands)
215        MELD_HIGH   the same cards, the joker at the run's high end
216-250    ADD         add the selection to table meld ``index - 216``
251-285    ADD_HIGH    the same, at the run's high end when it fits both ends
286-320    SWAP        the selected card wins back table meld ``index - 286``'s joker
=========  ==========  ===========================================================

A table holds at most :data:`MAX_MELDS` = 35 melds (106 cards, 3 or more a meld), so
every table meld has its ADD, ADD_HIGH and SWAP. :func:`legal_mask` gives the allowed
indices as an ``int8`` mask (all zeros when the seat is not to act), :func:`action_of`
an index back as the engine's TAKE answer or the turn's :class:`Move` (ValueError naming
it when not allowed now), :func:`action_index` a move's index (:func:`take_index` a TAKE
answer's), and :func:`turn_steps` a whole recorded turn as the indices that build it
(:func:`turn_step_states` with the turn so far before each: a dataset's step samples).

Observation: :func:`encode` gives a ``float32`` vector of :func:`observation_size(players)`
values (4619 for 4 players, 4526 for 3, 4433 for 2), every value in [0, 1] but the scores,
in [-1, 1]. Seats are *relative*: position ``r`` is the seat ``r`` places after the
observer (0 is itself; with partners, 2 is its partner). During the seat's own turn the
hand, the table and the seat's own progress are the turn's as built so far. The blocks,
in order (``n`` players; :func:`layout` gives each one's offset and length):

* ``hand`` (106): the cards held, by card id;
* ``selection`` (106): the cards picked for the next step;
* ``took`` (106): the discard taken this turn; ``drawn`` (106): the card drawn this turn;
* ``pile_top`` (53): the top discard's face; ``pile`` (53): the pile's faces, copies / 2;
* ``taken`` (n x 53): the faces each relative seat took from the pile this round, copies / 2;
* ``melds`` (35 x (106 + n)): the table's melds in the order laid, one slot each (zeros
  when empty): ``faces`` (53, the joker's face 52 when it holds one), ``joker_as`` (52, the
  face a run's joker stands for), ``run`` (1), ``owner`` (n, the relative seat that laid it);
* ``kind`` (2): TAKE, TURN one-hot (zeros when the match is over);
* ``to_act``, ``first`` (n each): the relative seat to act, the round's first player;
* ``opened`` (n): who has opened this round (the seat itself: by now, this turn included);
* ``hand_sizes`` (n): cards held per relative seat, / 15;
* ``scores`` (n): the total of each relative seat's side, / (100 x rounds), within [-1, 1];
* ``round`` (1): the round / rounds; ``stock`` (1): the stock's cards / 106;
* ``laid`` (1): what the melds laid this turn are worth / ``opening_points``, at most 1;
* ``owed`` (1): the taken discard is still in hand and must go down this turn;
* ``can_end`` (1): the turn could end now with a discard.

Rules that do not change within a match (rounds, opening points, partners) are in the
vector only through the scalings; an agent trained on one rules set knows them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

from waraq.referee.env.hand_steps import (
    ADD,
    ADD_HIGH,
    DISCARD,
    MELD,
    MELD_HIGH,
    PICK,
    SWAP,
    Move,
    MoveError,
    MoveKind,
    StepTurn,
    moves_of,
)
from waraq.referee.games.hand.decisions import TAKE, TAKES, TURN, HandKind, Turn
from waraq.referee.games.hand.melds import CARDS, FACES, RUN, TableMeld
from waraq.referee.games.hand.rules import HAND_SIZE
from waraq.referee.games.hand.turn import IllegalAction
from waraq.referee.games.hand.view import HandView

MAX_MELDS = CARDS // 3  # 35: a meld holds 3 cards or more
TAKE_BASE = 0
PICK_BASE = TAKE_BASE + len(TAKES)
DISCARD_BASE = PICK_BASE + CARDS
MELD_BASE = DISCARD_BASE + CARDS  # MELD, then MELD_HIGH
ADD_BASE = MELD_BASE + 2
ADD_HIGH_BASE = ADD_BASE + MAX_MELDS
SWAP_BASE = ADD_HIGH_BASE + MAX_MELDS
ACTIONS = SWAP_BASE + MAX_MELDS  # 321

# Each kind's first index and how many indices it has.
_SPANS: dict[MoveKind, tuple[int, int]] = {
    MoveKind.TAKE: (TAKE_BASE, len(TAKES)),
    PICK: (PICK_BASE, CARDS),
    DISCARD: (DISCARD_BASE, CARDS),
    MELD: (MELD_BASE, 1),
    MELD_HIGH: (MELD_BASE + 1, 1),
    ADD: (ADD_BASE, MAX_MELDS),
    ADD_HIGH: (ADD_HIGH_BASE, MAX_MELDS),
    SWAP: (SWAP_BASE, MAX_MELDS),
}
_BY_START = sorted(((start, kind) for kind, (start, _) in _SPANS.items()), reverse=True)
_KINDS = (TAKE, TURN)
MOST_HELD = HAND_SIZE + 1  # the first player's 15, the most a hand holds


def action_index(move: Move) -> int:
    """The index of ``move``; ValueError when the space has none for it."""
    start, count = _SPANS[move.kind]
    if type(move.arg) is not int or not 0 <= move.arg < count:
        raise ValueError(f"{move.kind} {move.arg!r} is outside the action space: expected 0-{count - 1}")
    return start + move.arg


def take_index(answer: str) -> int:
    """The index of a TAKE answer, ``"stock"`` or ``"discard"``."""
    if answer not in TAKES:
        raise ValueError(f"{answer!r} is no TAKE answer: expected 'stock' or 'discard'")
    return TAKE_BASE + TAKES.index(answer)


def decode(index: int | np.integer) -> Move:
    """The move an index stands for, allowed or not; ValueError outside the space."""
    if type(index) is not int and not isinstance(index, np.integer):
        raise ValueError(f"action index {index!r} is not an integer")
    i = int(index)
    if not 0 <= i < ACTIONS:
        raise ValueError(f"action index {i} is outside the action space 0-{ACTIONS - 1}")
    start, kind = next((s, k) for s, k in _BY_START if s <= i)
    return Move(kind, i - start)


def describe(index: int | np.integer) -> str:
    """An index for messages: ``20 (PICK 7H#0)``, ``1 (TAKE discard)``."""
    move = decode(index)
    shown = f"TAKE {TAKES[move.arg]}" if move.kind == MoveKind.TAKE else str(move)
    return f"{int(index)} ({shown})"


def _steps_for(view: HandView, steps: StepTurn | None) -> StepTurn:
    """The turn being built: ``steps``, or the view's turn before its first move."""
    if steps is not None:
        if steps.turn.seat != view.seat:
            raise ValueError(f"the turn given is seat {steps.turn.seat}'s, the view seat {view.seat}'s")
        return steps
    return StepTurn.of(view)


def _allowed(view: HandView, steps: StepTurn | None) -> list[int]:
    if view.kind is None or view.to_act != view.seat:
        return []
    if view.kind == TAKE:
        return [take_index(a) for a in view.legal]
    return sorted(action_index(m) for m in _steps_for(view, steps).allowed())


def legal_mask(view: HandView, steps: StepTurn | None = None) -> np.ndarray:
    """``int8`` of length :data:`ACTIONS`: 1 at each index allowed now, else 0. During the seat's
    TURN, ``steps`` is the turn built so far (None: before its first move)."""
    mask = np.zeros(ACTIONS, dtype=np.int8)
    mask[_allowed(view, steps)] = 1
    return mask


def action_of(index: int | np.integer, view: HandView, steps: StepTurn | None = None) -> str | Move:
    """What ``index`` stands for if it is allowed now: a TAKE's answer (the engine's action), or
    the :class:`Move` to play on ``steps``, the turn being built; else ValueError naming it."""
    move = decode(index)
    if view.kind is None:
        raise ValueError(f"action index {describe(index)} is not allowed: the match is over")
    if view.to_act != view.seat:
        raise ValueError(
            f"action index {describe(index)} is not allowed: seat {view.to_act} is to decide {view.kind}, "
            f"not seat {view.seat}"
        )
    if view.kind == TAKE:
        if move.kind == MoveKind.TAKE and TAKES[move.arg] in view.legal:
            return TAKES[move.arg]
        raise ValueError(f"action index {describe(index)} is not allowed: seat {view.seat} is to decide TAKE")
    if move.kind == MoveKind.TAKE:
        raise ValueError(f"action index {describe(index)} is not allowed: seat {view.seat} is playing its TURN")
    turn = _steps_for(view, steps)
    moves = turn.allowed()
    if move not in moves:
        allowed = sorted(action_index(m) for m in moves)
        shown = ", ".join(describe(i) for i in allowed[:8])
        more = f" and {len(allowed) - 8} more" if len(allowed) > 8 else ""
        raise ValueError(
            f"action index {describe(index)} is not allowed for seat {view.seat} now: {turn.why_not(move)}; "
            f"allowed are {shown}{more}"
        )
    return move


def turn_steps(view: HandView, turn: Turn) -> list[int]:
    """The indices that build ``turn``, the answer to ``view``'s TURN (a record's TURN decision
    and the view it was made from), the discard last. The rebuilt turn is ``turn`` but for the
    order of a set's cards (kept by suit, so the state after it is the same); ValueError
    (:class:`~waraq.referee.env.hand_steps.MoveError`) naming the step when one cannot be built."""
    try:
        return [action_index(m) for m in moves_of(view, turn)]
    except IllegalAction as error:  # the engine refused the turn itself
        raise MoveError(f"seat {view.seat}'s turn is not legal: {error}") from None


def turn_step_states(view: HandView, turn: Turn) -> Iterator[tuple[StepTurn, int]]:
    """:func:`turn_steps` with the turn before each index: ``(turn so far, index)`` pairs, from
    which a dataset's step samples are ``encode(view, turn so far)``, ``legal_mask(view, turn so far)``
    and the index. Each turn so far is a copy, kept as it was."""
    built = StepTurn.of(view)
    for index in turn_steps(view, turn):
        yield built.copy(), index
        built.play(decode(index))


# -- the observation ---------------------------------------------------------------------


def meld_slot(players: int) -> dict[str, tuple[int, int]]:
    """The parts of one table meld's slot: name -> (offset in the slot, length)."""
    return _offsets([("faces", FACES), ("joker_as", FACES - 1), ("run", 1), ("owner", players)])


def layout(players: int) -> dict[str, tuple[int, int]]:
    """Each block of the observation for ``players`` seats: name -> (offset, length)."""
    slot = sum(length for _, length in meld_slot(players).values())
    n = players
    return _offsets(
        [
            ("hand", CARDS),
            ("selection", CARDS),
            ("took", CARDS),
            ("drawn", CARDS),
            ("pile_top", FACES),
            ("pile", FACES),
            ("taken", n * FACES),
            ("melds", MAX_MELDS * slot),
            ("kind", len(_KINDS)),
            ("to_act", n),
            ("first", n),
            ("opened", n),
            ("hand_sizes", n),
            ("scores", n),
            ("round", 1),
            ("stock", 1),
            ("laid", 1),
            ("owed", 1),
            ("can_end", 1),
        ]
    )


def _offsets(blocks: list[tuple[str, int]]) -> dict[str, tuple[int, int]]:
    found: dict[str, tuple[int, int]] = {}
    offset = 0
    for name, length in blocks:
        found[name] = (offset, length)
        offset += length
    return found


def observation_size(players: int) -> int:
    offset, length = list(layout(players).values())[-1]
    return offset + length


def encode(view: HandView, steps: StepTurn | None = None) -> np.ndarray:
    """``view`` as a ``float32`` vector laid out as the module docstring says; during the seat's
    own TURN, ``steps`` is the turn built so far (None: before its first move)."""
    rules = view.rules
    n = rules.players
    me = view.seat
    at = layout(n)
    out = np.zeros(observation_size(n), dtype=np.float32)
    building = view.kind == TURN and view.to_act == me
    turn = _steps_for(view, steps).turn if building else None

    def rel(seat: int) -> int:
        return (seat - me) % n

    def put(block: str, index: int, value: float = 1.0) -> None:
        out[at[block][0] + index] = value

    hand = turn.hand if turn is not None else view.hand
    for card in hand:
        put("hand", card)
    if steps is not None and building:
        for card in steps.selection:
            put("selection", card)
    if view.took is not None:
        put("took", view.took)
    if view.drawn is not None:
        put("drawn", view.drawn)
    if view.pile:
        put("pile_top", view.pile[-1] % FACES)
    for card in view.pile:
        out[at["pile"][0] + card % FACES] += 0.5
    for seat, card in view.taken:
        out[at["taken"][0] + rel(seat) * FACES + card % FACES] += 0.5
    _encode_melds(out, at["melds"][0], turn.table if turn is not None else view.melds, n, rel)
    if view.kind is not None:
        put("kind", _KINDS.index(HandKind(view.kind)))
    if view.to_act is not None:
        put("to_act", rel(view.to_act))
    put("first", rel(view.first))
    for seat, opened in enumerate(view.opened):
        put("opened", rel(seat), float(turn.opened if turn is not None and seat == me else opened))
    for seat, size in enumerate(view.hand_sizes):
        held = len(hand) if seat == me else size
        put("hand_sizes", rel(seat), min(held, MOST_HELD) / MOST_HELD)
    scale = 100 * rules.rounds  # a round charges a seat that never opened 100
    for seat in range(n):
        score = view.scores[seat % rules.teams]
        put("scores", rel(seat), max(-1.0, min(1.0, score / scale)))
    put("round", 0, min(view.round, rules.rounds) / rules.rounds)
    put("stock", 0, view.stock_size / CARDS)
    if turn is not None:
        put("laid", 0, min(turn.laid, turn.points) / turn.points)
        put("owed", 0, float(turn.needs_use))
        put("can_end", 0, float(turn.problem() is None and not (steps is not None and steps.selection)))
    return out


def _encode_melds(out: np.ndarray, start: int, melds: Sequence[TableMeld], n: int, rel: Callable[[int], int]) -> None:
    slot = meld_slot(n)
    size = sum(length for _, length in slot.values())
    for i, meld in enumerate(melds):
        base = start + i * size
        for card in meld.cards:
            out[base + slot["faces"][0] + card % FACES] = 1.0
        if meld.joker_as is not None:
            out[base + slot["joker_as"][0] + meld.joker_as] = 1.0
        out[base + slot["run"][0]] = float(meld.kind == RUN)
        out[base + slot["owner"][0] + rel(meld.owner)] = 1.0


__all__ = [
    "ACTIONS",
    "MAX_MELDS",
    "Move",
    "MoveError",
    "StepTurn",
    "action_index",
    "action_of",
    "decode",
    "describe",
    "encode",
    "layout",
    "legal_mask",
    "meld_slot",
    "observation_size",
    "take_index",
    "turn_step_states",
    "turn_steps",
]
