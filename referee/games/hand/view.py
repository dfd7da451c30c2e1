"""What one seat of a Hand match may know: :class:`HandView` (docs/rules.md, information hiding).

:meth:`~waraq.referee.games.hand.engine.HandState.view` builds one for a
seat; :meth:`HandView.to_json` spells it as the protocol and the replay read
it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from waraq.referee.games.hand.decisions import GAME, HandKind, step_to_json
from waraq.referee.games.hand.melds import CARD_NAMES, FACE_NAMES, Step, Swap, TableMeld
from waraq.referee.games.hand.rules import HandRules
from waraq.referee.games.results import Result


@dataclass(frozen=True, slots=True)
class HandView:
    """What one seat may know at a real table (docs/rules.md, information hiding).

    It never holds another seat's hand, the stock's cards or order, the decks
    or the seed. The discard pile is shown whole: every card in it was seen
    face up when discarded. Cards are ints; :meth:`to_json` spells them.
    """

    rules: HandRules
    seat: int
    round: int
    first: int  # the round's first player
    kind: HandKind | None  # the pending decision, whoever makes it; None when over
    to_act: int | None
    legal: tuple[Any, ...]  # TAKE: ("stock", "discard") for the seat to act; else empty
    hand: tuple[int, ...]  # sorted
    hand_sizes: tuple[int, ...]
    opened: tuple[bool, ...]  # per seat, this round
    melds: tuple[TableMeld, ...]  # the table, in the order laid
    pile: tuple[int, ...]  # the discard pile, bottom to top
    taken: tuple[tuple[int, int], ...]  # (seat, card) taken from the pile this round, in order
    stock_size: int
    drawn: int | None  # this seat's TURN: the card it drew from the stock
    took: int | None  # this seat's TURN: the discard it took, to be laid this turn
    uses: tuple[tuple[Step, ...], ...]  # with ``took``: ways to lay it (discard.discard_uses)
    scores: tuple[int, ...]  # per seat, or per team with partners
    result: Result | None

    def cards_seen(self) -> set[int]:
        """Every card this view shows, wherever it appears (for leak checks)."""
        seen = set(self.hand) | set(self.pile)
        for meld in self.melds:
            seen.update(meld.cards)
        seen.update(card for _, card in self.taken)
        if self.drawn is not None:
            seen.add(self.drawn)
        if self.took is not None:
            seen.add(self.took)
        for use in self.uses:
            for step in use:
                seen.update(_step_cards(step))
        return seen

    def to_json(self) -> dict[str, Any]:
        return {
            "game": GAME,
            "rules": self.rules.to_dict(),
            "seat": self.seat,
            "round": self.round,
            "first": self.first,
            "kind": self.kind,
            "to_act": self.to_act,
            "legal": list(self.legal),
            "hand": [CARD_NAMES[c] for c in self.hand],
            "hand_sizes": list(self.hand_sizes),
            "opened": list(self.opened),
            "melds": [meld_to_json(m) for m in self.melds],
            "pile": [CARD_NAMES[c] for c in self.pile],
            "taken": [{"seat": s, "card": CARD_NAMES[c]} for s, c in self.taken],
            "stock_size": self.stock_size,
            "drawn": None if self.drawn is None else CARD_NAMES[self.drawn],
            "took": None if self.took is None else CARD_NAMES[self.took],
            "uses": [[step_to_json(s) for s in use] for use in self.uses],
            "scores": list(self.scores),
        }


def _step_cards(step: Step) -> tuple[int, ...]:
    return (step.card,) if type(step) is Swap else step.cards


def meld_to_json(meld: TableMeld) -> dict[str, Any]:
    return {
        "owner": meld.owner,
        "kind": meld.kind,
        "cards": [CARD_NAMES[c] for c in meld.cards],
        "joker_as": None if meld.joker_as is None else FACE_NAMES[meld.joker_as],
    }
