"""Golden playthroughs of Hokm: one whole match per player count, as readable text.

    python tests/golden/regenerate.py           # rewrite hokm_4p.txt, hokm_3p.txt, hokm_2p.txt
                                                # and Hand's (tests/golden/hand_playthrough.py)
    python tests/golden/regenerate.py --search  # show which seeds have the wanted features

Each file is one match with a fixed seed between seeded random players
(``waraq.bots.hokm_random.RandomPlayer``), written so that a reviewer can
check it against RULES.md by hand: the rules and their hash, the ace draw,
every deal (the five cards each seat holds when trump is named, then the full
hands; with 2 players the discards and every draw), every trick, why each round
ended, its points, the next hakem and the result. ``tests/games/hokm/test_golden.py``
renders the matches again with :func:`render` and diffs them with the files.

The text is built from the public contract: the record events
(``state.events``) and each seat's view (``state.view(seat)``), never from
the engine's private fields.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

from waraq.bots.hokm_random import RandomPlayer
from waraq.referee.games.cards import CARD_NAMES, RANKS, SUIT_NAMES, SUITS, parse_card
from waraq.referee.games.hokm.engine import HokmState, HokmView, new_match
from waraq.referee.games.hokm.rules import HokmRules

HERE = Path(__file__).parent

# Per player count: the rules (short matches, to 3 points, so a file stays
# readable), the match seed, and why that seed (found with --search).
MATCHES: dict[int, dict[str, Any]] = {
    4: {
        "rules": {"players": 4, "target_score": 3, "bam": True, "max_redeals": 1},
        "seed": 193,
        "why": "the first seed from 0 whose match has a redeal, a bam called and a kot",
    },
    3: {
        "rules": {"players": 3, "target_score": 3},
        "seed": 1117,
        "why": (
            "the first seed from 0 whose match has a kot, a round decided before trick 17 "
            "and a round where two seats share the most tricks"
        ),
    },
    2: {
        "rules": {"players": 2, "target_score": 3},
        "seed": 46,
        "why": "the first seed from 0 whose match has a kot won by the hakem",
    },
}


def path_for(players: int) -> Path:
    return HERE / f"hokm_{players}p.txt"


def bots(players: int, seed: int) -> list[RandomPlayer]:
    return [RandomPlayer(f"golden/{seed}/{seat}") for seat in range(players)]


# -- spelling ----------------------------------------------------------------------


def hand_text(cards: tuple[int, ...] | list[int]) -> str:
    """``S: A 10 4  H: -  D: Q 9  C: 8`` -- suits S H D C, ranks high to low."""
    parts = []
    for s, letter in enumerate(SUITS):
        ranks = [RANKS[c % 13] for c in sorted(cards, reverse=True) if c // 13 == s]
        parts.append(f"{letter}: {' '.join(ranks) or '-'}")
    return "  ".join(f"{p:<19}" for p in parts).rstrip()


def cards_text(cards: Any) -> str:
    return " ".join(CARD_NAMES[c] for c in cards)


class Writer:
    """Turns a match, one decision at a time, into lines of text."""

    def __init__(self, rules: HokmRules) -> None:
        self.rules = rules
        self.n = rules.players
        self.lines: list[str] = []
        self.trick: list[tuple[int, int]] = []  # (seat, card) of the trick in progress
        self.tricks_won = [0] * self.n
        self.trick_number = 0
        self.draws = 0  # 2 players: draws made this round
        self.deck: list[int] = []
        self.hands: list[tuple[int, ...]] = []

    def say(self, text: str = "") -> None:
        self.lines.append(text)

    def side_name(self, seat: int) -> str:
        if self.n == 4:
            return f"team {seat % 2} (seats {seat % 2} and {seat % 2 + 2})"
        return f"seat {seat}"

    def running(self, won: list[int]) -> str:
        if self.n == 4:
            return f"{won[0] + won[2]}-{won[1] + won[3]}"
        return "-".join(map(str, won))

    # -- events -------------------------------------------------------------------

    def events(self, batch: list[dict[str, Any]], state: HokmState) -> None:
        """The events one action produced; ``state`` is the state after all of them."""
        views = [state.view(s) for s in range(self.n)]
        for i, event in enumerate(batch):
            later = batch[i + 1 :]
            kind = event["type"]
            if kind == "ace_draw":
                self.ace_draw(event)
            elif kind == "deal":
                self.deal(event, views)
            elif kind == "decision":
                self.decision(event, views, later)
            elif kind == "round_end":
                self.round_end(event, later)
            elif kind == "result":
                self.result(event)
        self.hands = [v.hand for v in views]

    def ace_draw(self, event: dict[str, Any]) -> None:
        turned = [f"s{i % self.n} {c}" for i, c in enumerate(event["cards"])]
        self.say("Ace draw, face up one card a seat from seat 0 in play order:")
        self.say("  " + ", ".join(turned))
        self.say(f"  first ace to seat {event['hakem']}: the first hakem is seat {event['hakem']}")

    def deal(self, event: dict[str, Any], views: list[HokmView]) -> None:
        hakem = event["hakem"]
        self.deck = [parse_card(c) for c in event["deck"]]
        self.trick, self.tricks_won, self.trick_number, self.draws = [], [0] * self.n, 0, 0
        if not views[0].redeals:
            self.say()
            self.say(f"=== Round {event['round']}: hakem seat {hakem} ===")
        self.say(f"Deal: a packet of five cards to each seat, the hakem (seat {hakem}) first:")
        self.hand_lines(views)

    def decision(self, event: dict[str, Any], views: list[HokmView], later: list) -> None:
        seat, kind, action = event["seat"], event["kind"], event["action"]
        if kind == "REDEAL":
            if action:
                shown = views[seat].redeals[-1][1]
                self.say(f"Seat {seat} holds no A, K, Q or J and asks for a redeal, showing {cards_text(shown)}")
            else:
                self.say(f"Seat {seat} could ask for a redeal and does not")
        elif kind == "TRUMP":
            self.say(f"Trump: seat {seat} names {action} ({SUIT_NAMES[SUITS.index(action)]})")
            if self.n != 2:
                packets = " + ".join(["5"] + ["4"] * ((self.rules.hand_size - 5) // 4))
                self.full_hands(
                    views,
                    f"Rest of the deal: packets of four from the hakem, {packets} = {self.rules.hand_size} cards each:",
                )
        elif kind == "DISCARD":
            self.say(f"Seat {seat} discards {' '.join(action)}, keeps:")
            self.say(self.hand_line(seat, views))
        elif kind == "DRAW":
            self.draw(seat, action, views)
        elif kind == "PLAY":
            self.play(seat, parse_card(action), views, later)
        elif kind == "BAM":
            if action:
                self.say(f"Seat {seat} calls bam: its side plays on for all 13 tricks")
            else:
                self.say(f"Seat {seat} does not call bam")

    def hand_line(self, seat: int, views: list[HokmView]) -> str:
        mark = "h" if seat == views[seat].hakem else " "
        return f"  s{seat}{mark} {hand_text(views[seat].hand)}"

    def hand_lines(self, views: list[HokmView]) -> None:
        for seat in range(self.n):
            self.say(self.hand_line(seat, views))

    def full_hands(self, views: list[HokmView], title: str) -> None:
        self.say(title)
        self.hand_lines(views)
        self.say(f"Tricks (cards in play order, leader first; running tricks {self.trick_columns()}):")

    def trick_columns(self) -> str:
        return "team 0-team 1" if self.n == 4 else "-".join(f"s{s}" for s in range(self.n))

    def draw(self, seat: int, action: str, views: list[HokmView]) -> None:
        if self.draws == 0:
            self.say("Draws (the top card is offered; keep: it joins the hand, the next is burned;")
            self.say("       pass: it is burned, the next joins the hand):")
        step = views[seat].draws[-1]
        new = [c for c in views[seat].hand if c not in self.hands[seat]]
        taken = new[0] if len(new) == 1 else None
        top = 10 + 2 * self.draws  # the stock starts after the two packets of five
        pair = self.deck[top : top + 2]
        burned = [c for c in pair if c != taken]
        self.draws += 1
        took = CARD_NAMES[taken] if taken is not None else "?"
        burnt = cards_text(burned) if len(burned) == 1 else "?"
        if action == "keep":
            then = f"takes {took + ',':<4} burns {burnt}"
        else:
            then = f"burns {burnt + ',':<4} takes {took}"
        self.say(f"  {self.draws:2}  s{seat} is offered {CARD_NAMES[step.offered]:<3}  {action}: {then}")
        if len(views[0].hand) == len(views[1].hand) == self.rules.hand_size:
            self.say(f"Unused stock card: {cards_text(self.deck[top + 2 :])}")
            self.full_hands(views, "Hands after the draws:")

    def play(self, seat: int, card: int, views: list[HokmView], later: list) -> None:
        self.trick.append((seat, card))
        if len(self.trick) < self.n:
            return
        ended = [e for e in later if e["type"] == "round_end"]
        won = ended[0]["tricks"] if ended else list(views[0].tricks_won)
        winners = [s for s in range(self.n) if won[s] == self.tricks_won[s] + 1]
        self.tricks_won = list(won)
        self.trick_number += 1
        plays = "  ".join(f"s{s} {CARD_NAMES[c]:<3}" for s, c in self.trick)
        led = SUITS[self.trick[0][1] // 13]
        winner = f"s{winners[0]}" if len(winners) == 1 else "?"
        self.say(f"  {self.trick_number:2}  {plays}   led {led}  won by {winner}  {self.running(won)}")
        self.trick = []

    def round_end(self, event: dict[str, Any], later: list[dict[str, Any]]) -> None:
        tricks = event["tricks"]
        played = sum(tricks)
        winners = event["winners"]
        self.say(f"Round {event['round']} ends after {played} tricks: {self.why(event)}")
        gained = ", ".join(f"{self.side_label(side)} +{p}" for side, p in enumerate(event["points"]) if p)
        kot = {None: "not a kot", "kot": "kot", "hakem_kot": "hakem-kot"}[event["kot"]]
        score = ", ".join(f"{self.side_label(side)} {p}" for side, p in enumerate(event["score"]))
        self.say(f"Points: {gained} ({kot}). Score: {score}")
        deals = [e for e in later if e["type"] == "deal"]
        side = "won" if event["hakem"] in winners else "lost"
        if deals:
            self.say(f"Hakem seat {event['hakem']}'s side {side}: the next hakem is seat {deals[0]['hakem']}")

    def side_label(self, side: int) -> str:
        return f"team {side}" if self.n == 4 else f"seat {side}"

    def why(self, event: dict[str, Any]) -> str:
        tricks, winners = event["tricks"], event["winners"]
        who = self.side_name(winners[0])
        if event.get("bam") == "won":
            return f"bam: {who} took all 13 tricks"
        if event.get("bam") == "lost":
            return f"bam lost: the other side took a trick, {who} wins the round"
        if self.n == 3:
            return self.why_alone(tricks, winners[0], event["kot"] is not None)
        side = [tricks[s] + (tricks[s + 2] if self.n == 4 else 0) for s in range(2)]
        mine = side[winners[0] % 2]
        other = side[1 - winners[0] % 2]
        kot = ": kot" if event["kot"] else ""
        return f"{who} has {mine} tricks, the other side {other}{kot}"

    def why_alone(self, tricks: list[int], winner: int, kot: bool) -> str:
        played = sum(tricks)
        if kot:
            return f"seat {winner} won each of the first {played} tricks: kot"
        top = max(tricks)
        if played == self.rules.tricks and tricks.count(top) == 2:
            tied = [s for s in range(3) if tricks[s] == top]
            return (
                f"all {played} tricks played; seats {tied[0]} and {tied[1]} share the most ({top}), "
                f"so seat {winner} wins with {tricks[winner]}"
            )
        rival = max(t for s, t in enumerate(tricks) if s != tricks.index(top))
        left = self.rules.tricks - played
        # The comparison is printed as it is, so a wrong early end shows as ">=".
        relation = "<" if rival + left < top else ">="
        return (
            f"seat {tricks.index(top)} has {top} and cannot be caught: "
            f"best rival {rival} + {left} left = {rival + left} {relation} {top}; seat {winner} wins"
        )

    def result(self, event: dict[str, Any]) -> None:
        self.say()
        who = " and ".join(f"seat {s}" for s in event["winners"])
        score = "-".join(map(str, event["score"]))
        self.say(f"=== Result: {who} won the match, {score} (reason: {event['reason']}) ===")


# -- whole matches -------------------------------------------------------------------


def play(rules: HokmRules, seed: int) -> tuple[HokmState, list[str]]:
    """Play the match and write it; returns the final state and the body lines."""
    state = new_match(rules, seed)
    players = bots(rules.players, seed)
    writer = Writer(rules)
    done = 0
    while True:
        events = state.events
        writer.events(events[done:], state)
        done = len(events)
        if state.result is not None:
            return state, writer.lines
        seat = state.to_act
        state.apply(players[seat](state.view(seat)))


def render(players: int) -> str:
    """The golden text of the ``players``-seat match."""
    match = MATCHES[players]
    rules = HokmRules.from_dict(match["rules"])
    _, body = play(rules, match["seed"])
    about = (
        f"Golden playthrough: Hokm, {players} players, one whole match. Check it against RULES.md. "
        # The test's path as it was when the golden files were pinned (it is now tests/games/hokm/test_golden.py):
        # kept, so that the files stay byte-identical.
        "Written by `python tests/golden/regenerate.py`; tests/test_golden.py plays the match "
        "again and compares it with this file. Do not edit by hand. "
        f"Deals come from new_match(rules, seed={match['seed']}), {match['why']} "
        "(found with `regenerate.py --search`). Seat s is played by "
        # The player's name as it was when the files were pinned (now waraq.bots.hokm_random.RandomPlayer).
        f'sample_bots.random_player.RandomPlayer("golden/{match["seed"]}/s"). '
        "Seats are numbered in play order; cards are rank then suit (10H); hands are sorted "
        "by suit S H D C, ranks high to low; 'h' after a seat marks the hakem."
    )
    header = [
        *textwrap.wrap(about, 92),
        "",
        "Rules:",
        *(f"  {key} = {json.dumps(value)}" for key, value in rules.to_dict().items()),
        f"Rules hash: {rules.rules_hash}",
    ]
    if players == 4:
        header.append("Teams: team 0 = seats 0 and 2, team 1 = seats 1 and 3.")
    return "\n".join(header + [""] + body) + "\n"


# -- choosing seeds ------------------------------------------------------------------


def features(players: int, seed: int) -> set[str]:
    """What happens in a match: 'kot', 'hakem_kot'; with 3 players also 'decided early'
    (before trick 17), 'decided at 17' and 'tie' (two seats share the most tricks)."""
    rules = HokmRules.from_dict(MATCHES[players]["rules"])
    state, _ = play(rules, seed)
    found = set()
    for event in state.events:
        if event["type"] == "decision" and event["kind"] in ("REDEAL", "BAM"):
            found.add(f"{event['kind']} {event['action']}")
        if event["type"] != "round_end":
            continue
        tricks = event["tricks"]
        if event["kot"]:
            found.add(event["kot"])
        elif players == 3 and sum(tricks) < rules.tricks:
            found.add("decided early")
        elif players == 3:
            found.add("tie" if tricks.count(max(tricks)) == 2 else "decided at 17")
    return found


SEARCHED = 1200


def main(argv: list[str]) -> int:
    if "--search" in argv:
        for players in MATCHES:
            for seed in range(SEARCHED):
                found = features(players, seed)
                if found & {"kot", "hakem_kot", "BAM True", "decided early", "tie"}:
                    print(f"{players} players, seed {seed}: {', '.join(sorted(found))}")
        return 0
    for players in MATCHES:
        text = render(players)
        path_for(players).write_text(text)
        print(f"wrote {path_for(players)} ({text.count(chr(10))} lines)")
    sys.path.insert(0, str(HERE.parents[1]))  # run as a script: make `tests` importable
    from tests.golden import hand_playthrough

    return hand_playthrough.main([])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
