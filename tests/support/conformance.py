"""One random-simulation conformance checker for every game (STYLE.md, tests).

Like OpenSpiel's random simulation test, it plays a match with random
players and checks at every decision what any game of the referee must
guarantee:

* while the match goes on there are legal actions, the acting seat's view
  offers exactly them, the action taken is one of them and ``apply`` takes it;
* an action that is not legal is refused with the game's illegal-action error
  and leaves the state as it was;
* no seat's view, for every seat and not only the one to act, shows a card that
  seat may not know, counted two ways: the game's own ``cards seen`` helper and
  an independent walk over the view's JSON; and no view has a field carrying
  the seed, the deck or the stock;
* the match ends within a bound on the number of decisions;
* the events survive a round trip through JSON, replay to the same events and
  result, and re-playing them step by step gives every seat the same view;
* a clone taken mid-match and given the same actions ends identically, and
  playing on a clone leaves the original untouched (and the other way round);
* the same rules, seed and player seed give the same events.

What is particular to a game lives in its :class:`Adapter` (how to start a
match, what an illegal action looks like, which strings are cards) and in a
:class:`Witness`, one per match, that reads the match's events as they come
and checks the game's own invariants: card conservation, hand sizes, scoring,
and which cards each seat may legitimately have seen. A witness derives its
expectations from the events and views, the public contract, not from the
engine's internals.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

# Keys a view must never have: they would carry the shuffle or the undealt cards.
FORBIDDEN_VIEW_KEYS = ("seed", "deck", "stock", "dealer", "burned")
# ...except these, which are counts: how many cards the stock holds is public (Hand).
ALLOWED_VIEW_KEYS = ("stock_size",)


class Witness:
    """Per-match checker of a game's own rules, fed the match's events in order.

    The runner calls :meth:`observe` with each new event, then, before each
    decision, :meth:`check_decision`; :meth:`may_know` says which card names a
    seat may have seen by now; :meth:`finish` runs once the match is over.
    """

    rounds = 0  # rounds (deals of a new round) seen so far

    def observe(self, event: dict[str, Any]) -> None:
        raise NotImplementedError

    def check_decision(self, state: Any, legal: tuple[Any, ...], views: list[Any]) -> None:
        raise NotImplementedError

    def may_know(self, seat: int, state: Any) -> set[str]:
        raise NotImplementedError

    def public_names(self) -> set[str]:
        """Card names every seat knows from the rules alone (e.g. cards taken out of the deck)."""
        return set()

    def finish(self, state: Any) -> None:
        raise NotImplementedError


class Adapter:
    """How the checker drives one game. Defaults assume the Hokm-style state API:
    ``legal_actions()``, ``apply``, ``clone``, ``view(seat)``, ``events``,
    ``result``, ``to_act``, ``kind``; a game with other names overrides them."""

    name = "game"
    illegal_error: type[Exception] = ValueError

    # -- the game itself ----------------------------------------------------

    def players(self, rules: Any) -> int:
        return rules.players

    def start(self, rules: Any, seed: int) -> Any:
        raise NotImplementedError

    def max_decisions(self, rules: Any) -> int:
        """An upper bound on the decisions of any match under ``rules``."""
        raise NotImplementedError

    def witness(self, rules: Any) -> Witness:
        raise NotImplementedError

    def illegal_action(self, state: Any, rng: random.Random) -> Any | None:
        """An action that is not legal now (preferably a tempting one), or None."""
        raise NotImplementedError

    # A card's name as a regular expression (Hokm: ``10H``, ``AS``).
    card_name_pattern = ""

    @cached_property
    def quoted_card(self) -> re.Pattern[str]:
        return re.compile(f'"({self.card_name_pattern})"')

    def cards_in_view(self, view: Any) -> set[str]:
        """The card names the game's own helper says a view shows."""
        raise NotImplementedError

    def replay(self, rules: Any, events: list[dict[str, Any]]) -> Any:
        raise NotImplementedError

    def iter_replay(self, rules: Any, events: list[dict[str, Any]]) -> Iterator[Any]:
        raise NotImplementedError

    # -- the state API ------------------------------------------------------

    def is_over(self, state: Any) -> bool:
        return state.result is not None

    def result(self, state: Any) -> Any:
        return state.result

    def kind(self, state: Any) -> Any:
        return state.kind

    def to_act(self, state: Any) -> int:
        return state.to_act

    def legal(self, state: Any) -> tuple[Any, ...]:
        return tuple(state.legal_actions())

    def apply(self, state: Any, action: Any) -> None:
        state.apply(action)

    def clone(self, state: Any) -> Any:
        return state.clone()

    def events(self, state: Any) -> list[dict[str, Any]]:
        return state.events

    def view(self, state: Any, seat: int) -> Any:
        return state.view(seat)

    def view_legal(self, view: Any) -> tuple[Any, ...]:
        return tuple(view.legal)

    def view_json(self, view: Any) -> Any:
        return view.to_json()


@dataclass
class MatchReport:
    """What one checked match did, for the tests' own counts."""

    decisions: int = 0
    rounds: int = 0
    kinds_viewed: Counter = field(default_factory=Counter)  # decision kinds whose views were checked
    illegal_tried: int = 0
    clones_checked: int = 0


# -- reading a JSON view ----------------------------------------------------------
# The view's JSON is serialized once and read as text: a card name anywhere in
# it is a quoted string matching the game's card pattern, and a key is a quoted
# string before a colon. This is independent of how the view is built, proves
# that it serializes, and is fast enough to run for every seat at every decision.

KEY = re.compile(r'"([^"\\]*)":')


def naming_the_shuffle(names: Iterable[str]) -> list[str]:
    return [n for n in names if n not in ALLOWED_VIEW_KEYS and any(word in n.lower() for word in FORBIDDEN_VIEW_KEYS)]


def json_cards_and_bad_keys(document: Any, card: re.Pattern[str]) -> tuple[set[str], list[str]]:
    """(every card name anywhere in a JSON document, its keys that name the shuffle)."""
    text = json.dumps(document)
    lower = text.lower()
    bad = []
    if any(word in lower for word in FORBIDDEN_VIEW_KEYS):  # rare: then look closer
        bad = naming_the_shuffle(KEY.findall(text))
    return set(card.findall(text)), bad


@cache
def forbidden_fields(view_type: type) -> list[str]:
    """The view's own fields (a dataclass's or a named tuple's) that name the shuffle."""
    if dataclasses.is_dataclass(view_type):
        return naming_the_shuffle(f.name for f in dataclasses.fields(view_type))
    return naming_the_shuffle(getattr(view_type, "_fields", ()))


# -- one checked match --------------------------------------------------------------


# A player picks one of the legal actions its view offers; it may look at the view.
Player = Callable[[tuple[Any, ...], Any, random.Random], Any]


def random_player(legal: tuple[Any, ...], view: Any, rng: random.Random) -> Any:
    return rng.choice(legal)


def play_unchecked(adapter: Adapter, rules: Any, seed: int, player_seed: int, player: Player) -> Any:
    """A match played without any check: the reference for determinism."""
    state = adapter.start(rules, seed)
    rng = random.Random(player_seed)
    while not adapter.is_over(state):
        view = adapter.view(state, adapter.to_act(state))
        adapter.apply(state, player(adapter.view_legal(view), view, rng))
    return state


def check_match(
    adapter: Adapter,
    rules: Any,
    seed: int,
    player_seed: int,
    player: Player = random_player,
) -> MatchReport:
    """Play one match under ``rules`` and check every invariant at every decision.

    Every seat is ``player`` (random by default), choosing with
    ``random.Random(player_seed)`` and nothing else, so :func:`play_unchecked`
    with the same seeds must give the same match; the checker's own choices
    (which illegal action to try, where to clone) use a separate generator.
    """
    report = MatchReport()
    seats = range(adapter.players(rules))
    players = random.Random(player_seed)
    checker = random.Random(f"checker/{player_seed}")
    witness = adapter.witness(rules)
    bound = adapter.max_decisions(rules)

    state = adapter.start(rules, seed)
    fed = 0
    actions: list[Any] = []
    views_after: list[list[Any]] = []  # views_after[i]: every seat's view after i decisions
    # Clones: one early (before any round of a card game can end) and one later, if the
    # match gets there.
    clone_at = {checker.randrange(0, 20), checker.randrange(20, 400)}
    clones: dict[int, Any] = {}

    while True:
        events = adapter.events(state)
        for event in events[fed:]:
            witness.observe(event)
        fed = len(events)

        views = [adapter.view(state, s) for s in seats]
        over = adapter.is_over(state)
        kind = None if over else adapter.kind(state)
        for seat, view in zip(seats, views, strict=True):
            check_view_hides(adapter, witness, state, seat, view)
        report.kinds_viewed[kind] += 1
        views_after.append(views)
        if over:
            break

        step = len(actions)
        assert step < bound, f"no end after {bound} decisions, the most {rules} allows"
        legal, acting = check_offers(adapter, witness, state, views, f"step {step} ({kind})")

        if step in clone_at:
            clones[step] = adapter.clone(state)
            check_clone_is_independent(adapter, state, views, checker)

        illegal = adapter.illegal_action(state, checker)
        if illegal is not None:
            check_refused(adapter, state, illegal, views)
            report.illegal_tried += 1

        action = player(adapter.view_legal(views[acting]), views[acting], players)
        assert action in legal
        adapter.apply(state, action)
        actions.append(action)

    witness.finish(state)
    report.decisions = len(actions)
    report.rounds = witness.rounds
    final_events = adapter.events(state)

    check_replay(adapter, rules, state, views_after)
    for step, clone in clones.items():
        check_clone_ends_alike(adapter, state, clone, views_after[step], actions[step:])
        report.clones_checked += 1

    again = play_unchecked(adapter, rules, seed, player_seed, player)
    assert adapter.events(again) == final_events, "the same seeds gave another match"
    return report


def check_offers(adapter: Adapter, witness: Witness, state: Any, views: list[Any], where: str) -> tuple[Any, int]:
    """Only the acting seat is offered actions, exactly the legal ones, and there is one at least;
    returns them and the acting seat."""
    legal = adapter.legal(state)
    assert legal, f"{where}: the match goes on but there is no legal action"
    acting = adapter.to_act(state)
    assert adapter.view_legal(views[acting]) == legal, f"{where}: the acting seat's view offers other actions"
    for seat, view in enumerate(views):
        if seat != acting:
            assert not adapter.view_legal(view), f"{where}: seat {seat} is offered actions out of turn"
    witness.check_decision(state, legal, views)
    return legal, acting


def check_clone_ends_alike(adapter: Adapter, state: Any, clone: Any, views_then: list[Any], actions: list[Any]) -> None:
    """Playing on the original changed nothing in the clone, and the same actions lead it to the same end."""
    assert [adapter.view(clone, s) for s in range(len(views_then))] == views_then
    for action in actions:
        adapter.apply(clone, action)
    assert adapter.events(clone) == adapter.events(state)
    assert adapter.result(clone) == adapter.result(state)


def check_view_hides(adapter: Adapter, witness: Witness, state: Any, seat: int, view: Any) -> None:
    """The view of ``seat`` shows only cards it may know, by the game's helper and by
    an independent walk of its JSON, and carries nothing of the shuffle."""
    allowed = witness.may_know(seat, state)
    helper = adapter.cards_in_view(view)
    assert helper <= allowed, f"seat {seat} is shown {sorted(helper - allowed)}, which it may not know"
    walked, bad_keys = json_cards_and_bad_keys(adapter.view_json(view), adapter.quoted_card)
    assert walked <= allowed, f"seat {seat}'s JSON view names {sorted(walked - allowed)}, which it may not know"
    # The helper must not miss a card that the JSON shows (or the leak check above is blind).
    assert walked - helper <= witness.public_names(), f"the view helper misses {sorted(walked - helper)}"
    bad = forbidden_fields(type(view)) + bad_keys
    assert not bad, f"the view has fields {bad} that may carry the shuffle"


def snapshot(adapter: Adapter, state: Any, seats: int) -> tuple[Any, ...]:
    """The state as the outside sees it: events, pending decision, every seat's view."""
    return (
        len(adapter.events(state)),
        adapter.kind(state),
        adapter.to_act(state),
        adapter.legal(state),
        [adapter.view(state, s) for s in range(seats)],
    )


def check_refused(adapter: Adapter, state: Any, illegal: Any, views: list[Any]) -> None:
    """``apply`` refuses an illegal action with the game's error and changes nothing."""
    events = adapter.events(state)
    before = (len(events), adapter.kind(state), adapter.to_act(state), adapter.legal(state), views)
    try:
        adapter.apply(state, illegal)
    except adapter.illegal_error:
        pass
    else:
        raise AssertionError(f"apply took the illegal action {illegal!r} ({adapter.kind(state)})")
    assert snapshot(adapter, state, len(views)) == before, f"refusing {illegal!r} changed the state"


def check_clone_is_independent(adapter: Adapter, state: Any, views: list[Any], rng: random.Random) -> None:
    """Playing a clone on (here for up to 100 decisions, through the ends of tricks and
    often of a round) leaves the original exactly as it was."""
    before = snapshot(adapter, state, len(views))
    events_before = json.dumps(adapter.events(state))
    scratch = adapter.clone(state)
    for _ in range(100):
        if adapter.is_over(scratch):
            break
        adapter.apply(scratch, rng.choice(adapter.legal(scratch)))
    assert snapshot(adapter, state, len(views)) == before, "playing on a clone changed the original"
    assert json.dumps(adapter.events(state)) == events_before


def check_replay(adapter: Adapter, rules: Any, state: Any, views_after: list[list[Any]]) -> None:
    """The events, through JSON as a record holds them, rebuild the same match, and step
    by step every seat sees what it saw in the original."""
    events = adapter.events(state)
    record = json.loads(json.dumps(events))
    assert record == events, "the events do not survive a JSON round trip"
    rebuilt = adapter.replay(rules, record)
    assert adapter.events(rebuilt) == events
    assert adapter.result(rebuilt) == adapter.result(state)
    seats = range(len(views_after[0]))
    steps = 0
    for steps, replayed in enumerate(adapter.iter_replay(rules, record), start=1):
        assert [adapter.view(replayed, s) for s in seats] == views_after[steps], (
            f"after decision {steps} the replayed views differ"
        )
    assert steps == len(views_after) - 1, "iter_replay yields one state per decision"


def check_matches(
    adapter: Adapter, cases: Iterable[tuple[Any, int, int]], player: Player = random_player
) -> MatchReport:
    """Check several matches; the report sums them."""
    total = MatchReport()
    for rules, seed, player_seed in cases:
        one = check_match(adapter, rules, seed, player_seed, player)
        total.decisions += one.decisions
        total.rounds += one.rounds
        total.kinds_viewed.update(one.kinds_viewed)
        total.illegal_tried += one.illegal_tried
        total.clones_checked += one.clones_checked
    return total
