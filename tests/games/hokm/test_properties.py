"""Hokm through the conformance suite: thousands of random matches over every
player count and variant, every invariant checked at every decision.

The game-agnostic checks live in ``tests/support/conformance.py``. Here are Hokm's
adapter and its :class:`HokmWitness`, which reads a match's events as they
come and works out from them and docs/rules.md alone what must hold: which cards
each seat holds and may know, the hand sizes, who decides what next, which
plays follow suit, and how each round ends and scores. It uses nothing of
the engine but the card names of ``waraq.referee.games.cards``, so the engine cannot
agree with itself.

Run longer with ``HYPOTHESIS_PROFILE=thorough`` (see ``tests/conftest.py``).
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.conformance import Adapter, Witness, check_match, check_matches
from tests.support.hokm_strategies import SEEDS, hokm_rules, random_matches
from waraq.referee.games.cards import CARD_NAMES, SUITS, parse_card
from waraq.referee.games.dealers import FixedDealer, ace_draw_for
from waraq.referee.games.hokm.dealing import stack_deck
from waraq.referee.games.hokm.engine import HokmState, IllegalAction, iter_replay, new_match, replay
from waraq.referee.games.hokm.rules import HokmRules

HONOURS = {"J", "Q", "K", "A"}
KINDS = ("TRUMP", "PLAY", "DISCARD", "DRAW", "REDEAL", "BAM")


def suit(card: int) -> int:
    return card // 13


def rank(card: int) -> int:
    return card % 13


def trick_winner(plays: list[tuple[int, int]], trump: int) -> int:
    """docs/rules.md 5: the highest trump wins; with no trump, the highest card of the led suit."""
    led = suit(plays[0][1])

    def strength(play: tuple[int, int]) -> tuple[int, int]:
        card = play[1]
        return (2 if suit(card) == trump else 1 if suit(card) == led else 0, rank(card))

    return max(plays, key=strength)[0]


def team_of(rules: HokmRules, seat: int) -> int:
    """4 players: teams {0, 2} and {1, 3}; with 2 or 3 everyone plays alone."""
    return seat % 2 if rules.players == 4 else seat


def team_seats(rules: HokmRules, team: int) -> list[int]:
    return [team, team + 2] if rules.players == 4 else [team]


def no_honour(cards: list[int]) -> bool:
    """docs/rules.md max_redeals: no ace, king, queen or jack."""
    return not any(CARD_NAMES[c][:-1] in HONOURS for c in cards)


class HokmWitness(Witness):
    """Hokm's rules, re-derived from the events (docs/rules.md, docs/records.md)."""

    def __init__(self, rules: HokmRules) -> None:
        self.rules = rules
        self.n = rules.players
        self.deck_in_play = sorted(parse_card(c) for c in CARD_NAMES if c not in rules.removed_cards)
        self.teams = 2 if self.n == 4 else self.n
        self.scores = [0] * self.teams
        self.rounds = 0
        # Every round gives some side at least a point, so a match has at most this many rounds.
        self.max_rounds = self.teams * (rules.target_score - 1) + 1
        self.round = 0
        self.hakem: int | None = None
        self.ended: dict[str, Any] | None = None  # the last round_end
        self.game_over = False  # a side reached the target or won by bam
        self.over = False
        self.redeal_asked = False  # a new deal follows a REDEAL of true
        self.pending: tuple[Any, ...] | None = None  # what the end of the last trick demands

    # -- reading the events ---------------------------------------------------

    def observe(self, event: dict[str, Any]) -> None:
        assert not self.over, f"an event after the result: {event}"
        getattr(self, "_" + event["type"])(event)

    def _ace_draw(self, event: dict[str, Any]) -> None:
        # docs/rules.md 1: cards face up from seat 0 in play order until an ace.
        ranks = [c[:-1] for c in event["cards"]]
        assert ranks[-1] == "A" and "A" not in ranks[:-1]
        assert event["hakem"] == (len(ranks) - 1) % self.n
        self.hakem = event["hakem"]

    def _deal(self, event: dict[str, Any]) -> None:
        deck = [parse_card(c) for c in event["deck"]]
        assert sorted(deck) == self.deck_in_play, "a deal is not a shuffle of the deck in play"
        assert event["hakem"] == self.hakem, f"round {event['round']}: dealt to the wrong hakem"
        if self.redeal_asked:
            # docs/rules.md max_redeals: the five-card deal restarts with the same hakem.
            assert event["round"] == self.round
            self.redeal_asked = False
            self.redeals += 1
        else:
            assert not self.game_over, "a new round after the game was won"
            assert self.ended is not None or self.round == 0
            assert event["round"] == self.round + 1
            self.round += 1
            self.rounds += 1
            assert self.rounds <= self.max_rounds
            self.ended = None
            self.redeals = 0
            # Card names each seat may know this round: its own, and everyone's.
            self.known: list[set[str]] = [set() for _ in range(self.n)]
            self.public = set(self.rules.removed_cards)  # the rules say which cards are out
        self.deck = deck
        self.hands: list[list[int]] = [[] for _ in range(self.n)]
        self.trump: int | None = None
        self.redeal_answered = False
        self.played: list[tuple[int, int]] = []  # (seat, card) this round
        self.tricks_won = [0] * self.n
        self.last_winner: int | None = None
        self.bam_team: int | None = None
        self.discards: list[list[int]] = [[] for _ in range(self.n)]
        self.burned: list[int] = []
        self.draws = 0
        # docs/rules.md 2: five cards to each seat from the hakem, in packets.
        for j in range(self.n):
            self._give((self.hakem + j) % self.n, deck[5 * j : 5 * j + 5])

    def _give(self, seat: int, cards: list[int]) -> None:
        self.hands[seat] += cards
        self.known[seat].update(CARD_NAMES[c] for c in cards)

    def _decision(self, event: dict[str, Any]) -> None:
        assert event["round"] == self.round
        kind, seat, action = event["kind"], event["seat"], event["action"]
        assert (kind, seat) == self.expected_turn(), f"{event} is not the decision due"
        getattr(self, "_" + kind.lower())(seat, action)

    def _redeal(self, seat: int, action: bool) -> None:
        self.redeal_answered = True
        if action:
            self.public.update(CARD_NAMES[c] for c in self.hands[seat])  # shown cards are public
            self.redeal_asked = True

    def _trump(self, seat: int, action: str) -> None:
        self.trump = SUITS.index(action)
        if self.n == 2:
            return
        # docs/rules.md 4: then packets of four from the hakem until the deck is dealt.
        pos = 5 * self.n
        while pos < len(self.deck):
            for j in range(self.n):
                self._give((self.hakem + j) % self.n, self.deck[pos : pos + 4])
                pos += 4

    def _discard(self, seat: int, action: list[str]) -> None:
        cards = [parse_card(c) for c in action]
        assert len(set(cards)) == 2 and all(c in self.hands[seat] for c in cards)
        for card in cards:
            self.hands[seat].remove(card)
        self.discards[seat] = cards

    def _draw(self, seat: int, action: str) -> None:
        # docs/rules.md 2 players: the drawer looks at the top card; keep it and burn the
        # next, or burn it and take the next. The stock starts after the ten dealt.
        offered, second = self.deck[10 + 2 * self.draws], self.deck[11 + 2 * self.draws]
        self.known[seat].add(CARD_NAMES[offered])
        if action == "keep":
            self._give(seat, [offered])
            self.burned.append(second)
            if self.rules.burn_visible:
                self.known[seat].add(CARD_NAMES[second])
        else:
            assert action == "pass"
            self._give(seat, [second])
            self.burned.append(offered)
        self.draws += 1

    def _play(self, seat: int, action: str) -> None:
        card = parse_card(action)
        assert card in self.hands[seat], f"seat {seat} played {action}, which it does not hold"
        self.hands[seat].remove(card)
        self.played.append((seat, card))
        self.public.add(action)
        if len(self.played) % self.n == 0:
            winner = trick_winner(self.played[-self.n :], self.trump)
            self.tricks_won[winner] += 1
            self.last_winner = winner
            self.pending = self.after_trick(winner)

    def _bam(self, seat: int, action: bool) -> None:
        _, _, if_declined = self.pending
        if action:
            self.bam_team = team_of(self.rules, seat)
            self.pending = None
        else:
            self.pending = if_declined

    def _round_end(self, event: dict[str, Any]) -> None:
        assert self.pending and self.pending[0] == "end", f"round {self.round} ended too early: {event}"
        _, team, points, kot, bam = self.pending
        self.pending = None
        assert len(self.played) % self.n == 0, "a round ended in the middle of a trick"
        assert event["tricks"] == self.tricks_won  # counted here from the plays
        assert sum(event["tricks"]) == len(self.played) // self.n
        assert event["round"] == self.round and event["hakem"] == self.hakem
        assert event["trump"] == SUITS[self.trump]
        assert event["winners"] == team_seats(self.rules, team), "round_end winners"
        gained = [0] * self.teams
        gained[team] = points
        assert event["points"] == gained, "round_end points"
        assert event["kot"] == kot, "round_end kot"
        if self.rules.bam:
            assert event["bam"] == bam, "round_end bam"
        else:
            assert "bam" not in event
        # Scores only grow, by exactly the points of the round.
        self.scores = [s + p for s, p in zip(self.scores, gained, strict=True)]
        assert event["score"] == self.scores, "round_end score"
        self.ended = event
        self.game_over = bam == "won" or self.scores[team] >= self.rules.target_score
        self.hakem = self.next_hakem(won=team == team_of(self.rules, self.hakem))

    def _result(self, event: dict[str, Any]) -> None:
        assert self.ended is not None and self.game_over, "a result before the game was won"
        assert event["reason"] == ("bam" if self.ended.get("bam") == "won" else "score")
        assert event["winners"] == self.ended["winners"]
        assert event["score"] == self.scores
        self.over = True

    # -- docs/rules.md, worked out from the trick counts ------------------------------

    def after_trick(self, winner: int) -> tuple[Any, ...] | None:
        """What the rules demand after a trick: None (play on), ("bam", seat,
        end if declined) or ("end", team, points, kot, bam)."""
        rules, played = self.rules, len(self.played) // self.n
        if self.n == 3:
            won = self.tricks_won
            if played == 7 and won[winner] == 7:  # each of the first seven tricks
                return self.kot_end(winner)
            top = max(won)
            leader = won.index(top)
            left = rules.tricks - played
            if all(won[r] + left < top for r in range(3) if r != leader):
                return ("end", leader, 1, None, None)
            if played == 17:  # two share the most: the third seat wins
                return ("end", won.index(min(won)), 1, None, None)
            return None
        team = team_of(rules, winner)
        ours = sum(self.tricks_won[s] for s in team_seats(rules, team))
        theirs = played - ours
        if self.bam_team is not None:
            if team != self.bam_team:  # our reading: play stops, an ordinary win
                return ("end", self.bam_team, 1, None, "lost")
            if ours == 13:  # all 13: the losers took none, so a kot, and the game
                return self.kot_end(team, bam="won")
            return None
        if ours == 7:
            if rules.bam and theirs == 0:
                return ("bam", winner, self.kot_end(team))
            return self.kot_end(team) if theirs == 0 else ("end", team, 1, None, None)
        return None

    def kot_end(self, team: int, bam: str | None = None) -> tuple[Any, ...]:
        """docs/rules.md 7: kot_points when the hakem's side made the kot, else hakem_kot_points."""
        if team == team_of(self.rules, self.hakem):
            return ("end", team, self.rules.kot_points, "kot", bam)
        return ("end", team, self.rules.hakem_kot_points, "hakem_kot", bam)

    def next_hakem(self, *, won: bool) -> int:
        """docs/rules.md 8 and hakem_rotation."""
        rotation, h = self.rules.hakem_rotation, self.hakem
        if rotation == "every_round" or (rotation == "on_loss" and not won):
            return (h + 1) % self.n
        if rotation == "on_loss_previous" and not won:
            return (h - 1) % self.n
        return h

    def expected_turn(self) -> tuple[str, int]:
        """The decision due now and who makes it."""
        if self.pending is not None:
            assert self.pending[0] == "bam", f"round {self.round} should have ended: {self.pending}"
            return "BAM", self.pending[1]
        hakem = self.hakem
        if self.trump is None:
            eligible = self.redeals < self.rules.max_redeals and no_honour(self.hands[hakem])
            return ("REDEAL" if eligible and not self.redeal_answered else "TRUMP"), hakem
        if self.n == 2 and not self.discards[1 - hakem]:
            return "DISCARD", hakem if not self.discards[hakem] else 1 - hakem
        if self.n == 2 and self.draws < 20:
            return "DRAW", hakem if self.draws % 2 == 0 else 1 - hakem
        leader = hakem if self.last_winner is None else self.last_winner
        return "PLAY", (leader + len(self.current_trick())) % self.n

    def current_trick(self) -> list[tuple[int, int]]:
        return self.played[len(self.played) - len(self.played) % self.n :]

    def stock(self) -> list[int]:
        if self.n == 2:
            return self.deck[10 + 2 * self.draws :]
        return self.deck[5 * self.n :] if self.trump is None else []

    def expected_sizes(self, kind: str, seat: int) -> list[int]:
        """Hand sizes from the phase alone (not from the cards followed here)."""
        n, hakem = self.n, self.hakem
        if kind in ("TRUMP", "REDEAL"):
            return [5] * n
        if kind == "DISCARD":
            return [5 if s != hakem or seat == hakem else 3 for s in range(n)]
        if kind == "DRAW":  # 3 after the discards, one more per draw, the hakem first
            k = self.draws
            return [3 + ((k + 1) // 2 if s == hakem else k // 2) for s in range(n)]
        done = len(self.played) // n
        in_trick = {s for s, _ in self.current_trick()}
        return [self.rules.hand_size - done - (s in in_trick) for s in range(n)]

    def expected_legal(self, kind: str, seat: int, hand: tuple[int, ...]) -> set[Any]:
        if kind == "TRUMP":
            return {0, 1, 2, 3}
        if kind in ("REDEAL", "BAM"):
            return {False, True}
        if kind == "DRAW":
            return {"keep", "pass"}
        if kind == "DISCARD":
            return set(combinations(sorted(hand), 2))
        trick = self.current_trick()
        if not trick:
            return set(hand)
        follow = {c for c in hand if suit(c) == suit(trick[0][1])}
        if follow:  # follow suit
            return follow
        trumps = {c for c in hand if suit(c) == self.trump}
        if self.rules.void_rule == "must_trump" and trumps:
            # 002: unless the partner (4 players) is winning the trick so far.
            partner_winning = self.n == 4 and trick_winner(trick, self.trump) == (seat + 2) % 4
            if not partner_winning:
                return trumps
        return set(hand)

    # -- checks at each decision -------------------------------------------------

    def check_decision(self, state: HokmState, legal: tuple[Any, ...], views: list[Any]) -> None:
        kind, seat = self.expected_turn()
        assert (state.kind, state.to_act) == (kind, seat), f"the rules ask {kind} of seat {seat}"
        for view in views:
            assert (view.kind, view.to_act, view.hakem, view.round) == (kind, seat, self.hakem, self.round)
            assert view.trump == self.trump
            assert list(view.scores) == self.scores
            assert list(view.trick) == self.current_trick() and list(view.tricks_won) == self.tricks_won
        # Each seat holds what its deals, draws, discards and plays imply.
        for s in range(self.n):
            assert sorted(state.hands[s]) == sorted(self.hands[s]), f"seat {s}'s hand"
            assert sorted(views[s].hand) == sorted(self.hands[s])
        sizes = self.expected_sizes(kind, seat)
        assert [len(h) for h in state.hands] == sizes, f"{kind}: hand sizes"
        assert all(list(view.hand_sizes) == sizes for view in views)
        # Conservation: hands, this round's plays, discards, burned cards and the stock
        # are the deck in play, each card once.
        everything = [c for h in state.hands for c in h] + [c for _, c in self.played]
        everything += [c for d in self.discards for c in d] + self.burned + self.stock()
        assert sorted(everything) == self.deck_in_play, "cards are not conserved"
        expected = self.expected_legal(kind, seat, views[seat].hand)
        assert set(legal) == expected and len(legal) == len(expected), f"{kind}: legal actions"
        # Types too: True is not the card 1 nor the suit hearts.
        assert {type(a) for a in legal} == {type(a) for a in expected}, f"{kind}: legal actions"

    def may_know(self, seat: int, state: HokmState) -> set[str]:
        """docs/rules.md, what each seat may know: the cards dealt to it this round, every
        card played, the cards shown in a redeal, its own draws and discards."""
        cards = self.known[seat] | self.public
        if state.kind == "DRAW" and state.to_act == seat:
            cards.add(CARD_NAMES[self.deck[10 + 2 * self.draws]])  # the card it is looking at
        return cards

    def public_names(self) -> set[str]:
        return set(self.rules.removed_cards)

    def finish(self, state: HokmState) -> None:
        assert self.over and state.kind is None and state.to_act is None
        assert state.legal_actions() == ()
        assert state.result is not None and list(state.result.score) == self.scores


class HokmAdapter(Adapter):
    name = "hokm"
    illegal_error = IllegalAction
    card_name_pattern = r"(?:10|[2-9JQKA])[SHDC]"

    def start(self, rules: HokmRules, seed: int) -> HokmState:
        return new_match(rules, seed)

    def max_decisions(self, rules: HokmRules) -> int:
        rounds = (2 if rules.players == 4 else rules.players) * (rules.target_score - 1) + 1
        # A round: the redeals, trump, 2 discards and 20 draws (2 players), every card, bam.
        per_round = rules.max_redeals + 1 + 2 + 20 + len(rules.deck) + 1
        return rounds * per_round

    def witness(self, rules: HokmRules) -> HokmWitness:
        return HokmWitness(rules)

    def illegal_action(self, state: HokmState, rng: random.Random) -> Any | None:
        kind = state.kind
        hand = state.hands[state.to_act]
        others = [c for c in state.rules.deck if c not in hand]
        if kind == "PLAY":
            # The tempting mistake first: a card it holds but may not play.
            wrong = [c for c in hand if c not in state.legal_actions()]
            return rng.choice(wrong or others)
        if kind == "DISCARD":
            return rng.choice([tuple(sorted((hand[0], rng.choice(others)))), (hand[0], hand[0]), tuple(hand[:3])])
        if kind == "TRUMP":
            return rng.choice([4, -1, True, "S", None])
        if kind == "DRAW":
            return rng.choice(["KEEP", "burn", True, None])
        return rng.choice([1, 0, None, "true"])  # REDEAL, BAM: only the bools are actions

    def cards_in_view(self, view: Any) -> set[str]:
        return {CARD_NAMES[c] for c in view.cards_seen()}

    def replay(self, rules: HokmRules, events: list[dict[str, Any]]) -> HokmState:
        return replay(rules, events)

    def iter_replay(self, rules: HokmRules, events: list[dict[str, Any]]):
        return iter_replay(rules, events)


HOKM = HokmAdapter()


# -- strategies -------------------------------------------------------------------


# -- the tests ------------------------------------------------------------------------


def check_random_match(players: int, data: st.DataObject, seed: int, player_seed: int) -> None:
    rules = data.draw(hokm_rules(players), label="rules")
    report = check_match(HOKM, rules, seed, player_seed)
    assert report.rounds >= 1 and report.decisions >= report.rounds


@pytest.mark.slow
@random_matches(1000)
@given(data=st.data(), seed=SEEDS, player_seed=SEEDS)
def test_four_player_matches_keep_every_invariant(data: st.DataObject, seed: int, player_seed: int) -> None:
    check_random_match(4, data, seed, player_seed)


@pytest.mark.slow
@random_matches(800)
@given(data=st.data(), seed=SEEDS, player_seed=SEEDS)
def test_three_player_matches_keep_every_invariant(data: st.DataObject, seed: int, player_seed: int) -> None:
    check_random_match(3, data, seed, player_seed)


@pytest.mark.slow
@random_matches(1200)
@given(data=st.data(), seed=SEEDS, player_seed=SEEDS)
def test_two_player_matches_keep_every_invariant(data: st.DataObject, seed: int, player_seed: int) -> None:
    check_random_match(2, data, seed, player_seed)


class StackedHokm(HokmAdapter):
    """Round 1 dealt from a stacked deck, seat 0 the hakem: seat 0 holds every spade,
    seat 1 every diamond, seat 2 every heart, seat 3 every club. Later rounds, if
    any, are shuffled from the seed."""

    def start(self, rules: HokmRules, seed: int) -> HokmState:
        suits = [[s * 13 + r for r in range(13)] for s in (0, 2, 1, 3)]  # S, D, H, C by seat
        stacked = stack_deck(rules, 0, suits)
        shuffled = [random.Random(f"{seed}/{k}").sample(rules.deck, len(rules.deck)) for k in range(40)]
        return HokmState(rules, FixedDealer(ace_draw_for(0, rules.deck), [stacked, *shuffled]))


def spades_without_redeal(legal: tuple[Any, ...], view: Any, rng: random.Random) -> Any:
    """Random, except that the hakem keeps the deal and names spades.

    With the stacked deck, seat 0 then leads a trump to every trick and nobody
    else holds one, so its side takes every trick: BAM is asked at 7-0 (its five
    first cards, 2S-6S, hold no honour, so REDEAL is asked first)."""
    if view.kind == "REDEAL":
        return False
    if view.kind == "TRUMP":
        return SUITS.index("S")
    return rng.choice(legal)


def test_views_are_checked_at_every_decision_kind() -> None:
    four = HokmRules(target_score=1, max_redeals=1, bam=True)
    two = HokmRules(players=2, removed_cards=("2D",), target_score=1, max_redeals=1, bam=True)
    report = check_matches(StackedHokm(), [(four, seed, seed) for seed in range(4)], spades_without_redeal)
    report2 = check_matches(HOKM, [(two, seed, seed) for seed in range(4)])
    kinds = report.kinds_viewed + report2.kinds_viewed
    missing = [k for k in KINDS if kinds[k] == 0]
    assert not missing, f"no view was checked at a {', '.join(missing)} decision"
    assert report.illegal_tried > 0 and report.clones_checked > 0


# -- the checker itself can fail ------------------------------------------------------
# A conformance suite that never fails proves nothing: these feed it engines
# broken on purpose and expect it to object.


class LeakyAdapter(HokmAdapter):
    """Each view also carries the next seat's hand in its JSON."""

    def view_json(self, view: Any) -> Any:
        document = view.to_json()
        document["hand_sizes"] = [CARD_NAMES[c] for c in self.state.hands[(view.seat + 1) % view.rules.players]]
        return document

    def start(self, rules: HokmRules, seed: int) -> HokmState:
        self.state = new_match(rules, seed)
        return self.state


class NoFollowAdapter(HokmAdapter):
    """Offers the whole hand at every play, as if follow suit were not a rule."""

    def legal(self, state: HokmState) -> tuple[Any, ...]:
        return tuple(state.hands[state.to_act]) if state.kind == "PLAY" else state.legal_actions()

    def view_legal(self, view: Any) -> tuple[Any, ...]:
        return view.hand if view.kind == "PLAY" and view.legal else tuple(view.legal)

    def apply(self, state: HokmState, action: Any) -> None:
        if state.kind == "PLAY" and action in state.hands[state.to_act]:
            state.push(action)
        else:
            state.apply(action)


class CarelessAdapter(HokmAdapter):
    """Lets any action through, legal or not."""

    def apply(self, state: HokmState, action: Any) -> None:
        try:
            state.apply(action)
        except IllegalAction:
            pass


class MisScoringAdapter(HokmAdapter):
    """Reports one point too many for every round won."""

    def events(self, state: HokmState) -> list[dict[str, Any]]:
        return [
            {**e, "points": [p + 1 if p else 0 for p in e["points"]]} if e["type"] == "round_end" else e
            for e in state.events
        ]


@pytest.mark.parametrize(
    "adapter, complaint",
    [
        (LeakyAdapter(), "may not know"),
        (MisScoringAdapter(), "round_end points"),
        (NoFollowAdapter(), "legal actions"),
        (CarelessAdapter(), "apply took the illegal action"),
    ],
)
def test_the_checker_catches_a_broken_engine(adapter: HokmAdapter, complaint: str) -> None:
    with pytest.raises(AssertionError, match=complaint):
        check_match(adapter, HokmRules(target_score=1), seed=5, player_seed=6)
