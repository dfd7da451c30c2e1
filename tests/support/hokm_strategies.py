"""Hypothesis strategies for Hokm rules and seeds, sized for the timed suite."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from waraq.referee.games.cards import CARD_NAMES
from waraq.referee.games.hokm.rules import HokmRules


def scaled(examples: int) -> int:
    """``examples`` under the default "ci" profile (100 examples), more under "thorough"."""
    return max(1, examples * settings.default.max_examples // 100)


@st.composite
def hokm_rules(draw: st.DrawFn, players: int) -> HokmRules:
    """Any valid combination of variant keys for ``players`` seats."""
    return HokmRules(
        players=players,
        target_score=draw(st.sampled_from(TARGETS)),
        kot_points=draw(st.integers(1, 4)),
        hakem_kot_points=draw(st.integers(1, 5)),
        void_rule=draw(st.sampled_from(["free", "must_trump"])),
        hakem_rotation=draw(st.sampled_from(["on_loss", "every_round", "on_loss_previous"])),
        max_redeals=draw(st.integers(0, 2)),
        bam=players != 3 and draw(st.booleans()),
        burn_visible=players == 2 and draw(st.booleans()),
        removed_cards=() if players == 4 else (draw(st.sampled_from(CARD_NAMES)),),
    )


SEEDS = st.integers(0, 2**32 - 1)


# Mostly one-round matches, since every seat's view is checked at every decision,
# but about one in seven runs longer, the default 7 included: rounds after the
# first start from another hakem and from scores other than 0.
TARGETS = [1] * 17 + [7, 2, 3]


def random_matches(examples: int) -> settings:
    """Hypothesis settings for ``examples`` whole random matches (more when thorough).
    The counts below give about the same time to each player count, about 3000
    matches in all: a 3-player round has the most decisions, a 2-player one the
    fewest views to check."""
    return settings(
        max_examples=scaled(examples),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
