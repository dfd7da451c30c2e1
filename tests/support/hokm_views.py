"""Hokm views for tests of one decision: written by hand, or dealt by the engine.

A view written by hand (:func:`play_view`, :func:`trump_view`) holds only what a
position needs; :func:`draw_view` deals a 2-player round and plays it to a DRAW.
Hands and tricks are card names, as in :mod:`tests.support.hokm_setup`.
"""

from __future__ import annotations

from tests.support.hokm_setup import cards, deal, play_first_legal, rules, suit
from waraq.referee.games.cards import parse_card
from waraq.referee.games.hokm.engine import HokmState, HokmView, Trick, winning_index


def play_view(
    seat: int,
    hand: str,
    *,
    trick: str = "",
    leader: int | None = None,
    tricks: tuple[tuple[int, str], ...] = (),
    trump: str = "S",
    players: int = 4,
    **keys,
) -> HokmView:
    """A PLAY view written by hand: ``trick`` from its ``leader`` in play order;
    ``tricks`` earlier tricks as (leader, cards); legal by follow-suit (enough
    for the positions below, where a void seat may play anything)."""
    rules_ = rules(players=players, **keys)
    mine = sorted(cards(hand))
    now = cards(trick)
    if leader is None:
        leader = (seat - len(now)) % players
    assert (leader + len(now)) % players == seat, "the trick must come round to the seat"
    done = []
    for first, text in tricks:
        played = cards(text)
        winner = (first + winning_index(played, suit(trump))) % players
        done.append(Trick(first, tuple(played), winner))
    every = mine + now + [c for t in done for c in t.cards]
    assert len(every) == len(set(every)), "a card is written twice"
    follow = [c for c in mine if now and c // 13 == now[0] // 13]
    won = [0] * players
    for t in done:
        won[t.winner] += 1
    return HokmView(
        rules=rules_,
        seat=seat,
        round=1,
        hakem=0,
        trump=suit(trump),
        kind="PLAY",
        to_act=seat,
        legal=tuple(follow or mine),
        hand=tuple(mine),
        hand_sizes=(len(mine),) * players,
        trick=tuple(((leader + i) % players, c) for i, c in enumerate(now)),
        tricks=tuple(done),
        tricks_won=tuple(won),
        scores=(0,) * (2 if players == 4 else players),
        redeals=(),
        discarded=(),
        draws=(),
        offered=None,
        bam=False,
        result=None,
    )


def trump_view(five: str) -> HokmView:
    """The hakem (seat 0, 4 players) naming trump from five cards."""
    hand = tuple(sorted(cards(five)))
    return HokmView(
        rules=rules(),
        seat=0,
        round=1,
        hakem=0,
        trump=None,
        kind="TRUMP",
        to_act=0,
        legal=(0, 1, 2, 3),
        hand=hand,
        hand_sizes=(5, 5, 5, 5),
        trick=(),
        tricks=(),
        tricks_won=(0, 0, 0, 0),
        scores=(0, 0),
        redeals=(),
        discarded=(),
        draws=(),
        offered=None,
        bam=False,
        result=None,
    )


def draw_view(offered: str) -> HokmView:
    """The hakem's first DRAW (trump hearts), holding AH 9H 5C after discarding."""
    state = deal(rules(players=2), 0, ["AH 9H 3S 4D 5C", "2S 6S 7D 8D 9D"], stock=offered, trump="H")
    state.apply(tuple(sorted(cards("3S 4D"))))
    state.apply(tuple(sorted(cards("2S 6S"))))
    view = state.view(0)
    assert view.kind == "DRAW" and view.offered == parse_card(offered)
    return view


def all_trumps_at_bam() -> HokmState:
    """Seat 0 held all 13 spades (trump) and won the first seven tricks with 2S..8S: BAM is its
    to decide, holding 9S..AS, so nobody can take a trick from it and no trump is unseen."""
    hands = [
        "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
        "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
        "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
        "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
    ]
    state = deal(rules(bam=True), 0, hands, trump="S")
    play_first_legal(state, 28)
    return state
