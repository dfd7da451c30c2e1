"""The stages' claims, checked in-process: each staged situation arises whatever the bot does.

The BAM deal is claimed to ask BAM of the bot however it names trump and
whatever it plays; the REDEAL seed to open round 1 on a REDEAL; the unknown
fields to land inside every message a bot reads. Each is checked here from
the engine's and protobuf's own behaviour, not from the stage code's.
"""

from __future__ import annotations

import random

import pytest
from google.protobuf.unknown_fields import UnknownFieldSet

from waraq.referee.conformance import hokm_stages
from waraq.referee.conformance.future_fields import with_future_fields
from waraq.referee.conformance.situations import Situation, situations
from waraq.referee.games import registry
from waraq.referee.games.cards import JACK, parse_card
from waraq.referee.games.dealers import FixedDealer
from waraq.referee.games.hokm.dealing import stack_deck
from waraq.referee.games.hokm.engine import HokmState
from waraq.referee.wire import codec as wire
from waraq.v1 import bot_pb2 as pb


@pytest.mark.parametrize("trump", ["S", "H", "D", "C"])
def test_the_bam_deal_asks_the_bot_bam_whatever_trump_it_names_and_whatever_it_plays(trump: str) -> None:
    stage = hokm_stages.bam_stage(registry.load_rules("hokm", "classic"))
    assert stage.dealer is not None and stage.bot_seats == (0,)
    stand_ins = [hokm_stages.low_player("m", seat) for seat in range(4)]
    for seed in range(60):
        rng = random.Random(seed)
        state = HokmState(stage.rules, stage.dealer())
        assert (state.to_act, state.kind) == (0, "TRUMP")  # the bot is hakem
        state.apply("SHDC".index(trump))  # a suit is its index in S H D C
        while state.kind == "PLAY":
            seat = state.to_act
            legal = state.legal_actions()
            state.apply(rng.choice(legal) if seat == 0 else stand_ins[seat](state.view(seat)))
        assert (state.kind, state.to_act) == ("BAM", 0), f"trump {trump}, bot's plays from seed {seed}"
        assert state.tricks_won == [7, 0, 0, 0]


@pytest.mark.parametrize("players", [4, 3, 2])
def test_the_redeal_stage_opens_on_a_redeal_of_a_hand_without_honours(players: int) -> None:
    base = registry.load_rules("hokm", hokm_stages.PRESETS[players])
    stage = hokm_stages.redeal_stage(base)
    assert stage.rules.max_redeals > 0
    state = registry.engine("hokm").new_match(stage.rules, stage.seeds[0])
    assert state.kind == "REDEAL"
    hand = state.view(state.to_act).hand
    assert len(hand) == 5 and all(card % 13 < JACK for card in hand)  # no J, Q, K or A


def _hokm_state(rules_name: str, **changes: object) -> HokmState:
    """Seat 0 (hakem) all hearts; seat 1 spades and diamonds; seat 2 all clubs; seat 3 the rest."""
    rules = registry.load_rules("hokm", rules_name).replace(**changes)
    hands = [
        "AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H",
        "AS KS QS JS 10S 9S 8S AD KD QD JD 10D 9D",
        "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C",
        "7S 6S 5S 4S 3S 2S 8D 7D 6D 5D 4D 3D 2D",
    ]
    deck = stack_deck(rules, 0, [hand.split() for hand in hands])
    state = HokmState(rules, FixedDealer([parse_card("AS")], [deck]))
    state.apply(0)  # seat 0 names spades
    return state


def test_a_lead_a_void_and_a_must_trump_are_told_apart() -> None:
    state = _hokm_state("classic", void_rule="must_trump")
    assert situations(state.view(0)) == {Situation.LEAD}
    state.apply(parse_card("AH"))
    # Seat 1 holds no heart but spades, the trump: bound to trump, its diamonds not legal.
    assert situations(state.view(1)) == {Situation.MUST_TRUMP}
    state.apply(parse_card("8S"))
    assert situations(state.view(2)) == {Situation.VOID}  # no heart and no trump: any card
    free = _hokm_state("classic")
    free.apply(parse_card("AH"))
    assert situations(free.view(1)) == {Situation.VOID}  # the same hand, free to discard
    assert set(free.view(1).legal) == set(free.view(1).hand)  # void, it may play any card


def test_the_future_fields_land_inside_every_message_a_bot_reads_and_change_nothing_else() -> None:
    state = _hokm_state("classic")
    sent = wire.decision_message(1, state.view(0), match_id="m", deadline_ms=100, bank_ms=100)
    plain, future = pb.RefereeMessage.FromString(sent), pb.RefereeMessage.FromString(with_future_fields(sent))
    for message in (future.decision, future.decision.hokm):
        assert [field.field_number for field in UnknownFieldSet(message)] == [900]
    assert not list(UnknownFieldSet(plain.decision))
    future.DiscardUnknownFields()
    assert future == plain
    start = pb.RefereeMessage(start=pb.MatchStart(match_id="m", seat=2, game="hokm"))
    read = pb.RefereeMessage.FromString(with_future_fields(start.SerializeToString()))
    assert [field.field_number for field in UnknownFieldSet(read.start)] == [900]
    read.DiscardUnknownFields()
    assert read == start
