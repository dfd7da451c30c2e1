"""The Go starter bot (sample_bots/starters/go): where it is, and what it answers.

Its strategy is restated here from its README ("What it plays") rather than
read from its code, so that a test replaying its decisions from a record
checks each one against what a bot author is told it does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tests.support import ROOT
from waraq.referee.games.hokm import engine as hokm
from waraq.referee.games.hokm.rules import HokmRules

KIT = ROOT / "sample_bots" / "starters" / "go"
PROTO = ROOT / "protocol" / "waraq" / "v1" / "bot.proto"
NAME = "go-starter"  # its HelloReply.name
VERSION = "1.0"


def starter_answer(view: dict[str, Any]) -> Any:
    """The starter's answer, in the record's spelling, to the decision pending in ``view``
    (a :meth:`HokmView.to_json` of the seat asked)."""
    kind, legal = view["kind"], view["legal"]
    if kind == hokm.TRUMP:  # the suit it holds most of; a tie goes to the one listed first
        return max(legal, key=lambda suit: sum(card.endswith(suit) for card in view["hand"]))
    if kind == hokm.DRAW:  # keep a trump, or a jack or better
        offered = view["offered"]
        return hokm.KEEP if offered[-1] == view["trump"] or offered[:-1] in {"J", "Q", "K", "A"} else hokm.PASS
    if kind == hokm.REDEAL:
        return True
    if kind == hokm.BAM:
        return False
    return legal[0]  # PLAY, DISCARD


def decisions_with_views(
    rules: HokmRules, events: list[dict[str, Any]]
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Each recorded decision with the view (``to_json``) its seat decided from, the match
    dealt again from the record's decks."""
    state = hokm.HokmState(rules, hokm.dealer_from_events(rules, events))
    for event in (e for e in events if e["type"] == "decision"):
        yield event, state.view(event["seat"]).to_json()
        state.apply(hokm.action_from_json(event["kind"], event["action"]))
    assert state.result is not None, "the record's decisions do not finish the match"
