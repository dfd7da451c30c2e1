"""What a board tells the open links: hand-worked variances removed, and the planned boards' update."""

from __future__ import annotations

import math

import pytest

from waraq.ladder.stats.design import Knowledge, OpenLinks, questions
from waraq.ladder.stats.ratings import layout
from waraq.ladder.stats.sequential import PairVerdict, Verdict
from waraq.ladder.stats.strength import ELO_SCALE, fit

FOUR = layout(4)
S2 = 100.0**2  # each strength known to ±100 Elo, independently
NOISE_EVEN = 1 / (2 * ELO_SCALE**2 / 4)  # a board of two rooms between even sides: 1 / (2 I(½))


def knowledge(links, bots=(1, 2, 3, 4), elo=None):
    covariance = {(a, b): S2 if a == b else 0.0 for a in bots for b in bots}
    return Knowledge(list(bots), OpenLinks(tuple(links), elo or dict.fromkeys(bots, 0.0), covariance))


def test_a_board_observes_the_difference_of_each_two_sides_counting_seats():
    assert questions((1, 2, 3, 4), FOUR) == [{1: 1, 3: 1, 2: -1, 4: -1}]
    assert questions((1, 2, 1, 2), FOUR) == [{1: 2, 2: -2}]  # each bot partnering itself counts twice
    assert questions((5, 6, 7), layout(3)) == [{5: 1, 6: -1}, {5: 1, 7: -1}, {6: 1, 7: -1}]


def test_the_variance_removed_from_a_link_is_worked_by_hand():
    # Link 1–2 open, c = e1 − e2, cᵀΣc = 2s². Mixed partners {1, 3} v {2, 4}: x = e1 + e3 − e2 − e4,
    # cᵀΣx = 2s², xᵀΣx = 4s², so the share removed is (2s²)² / (4s² + N) / 2s² = 2s² / (4s² + N).
    known = knowledge([(1, 2)])
    assert known.gain(questions((1, 2, 3, 4), FOUR), 2) == pytest.approx(2 * S2 / (4 * S2 + NOISE_EVEN))
    # Self partners {1, 1} v {2, 2}: x = 2c, cᵀΣx = 4s², xᵀΣx = 8s²: 8s² / (8s² + N), four times the
    # information on 1 − 2 for the same noise, which is why a tie of copies settles sooner with self partners.
    assert known.gain(questions((1, 2, 1, 2), FOUR), 2) == pytest.approx(8 * S2 / (8 * S2 + NOISE_EVEN))
    # {1, 2} v {3, 4} observes e1 + e2 − e3 − e4: nothing about 1 − 2, though two opposed pairs are open.
    assert known.gain(questions((1, 3, 2, 4), FOUR), 2) == 0.0
    # Two open links add their shares; no open link, nothing to gain.
    both = knowledge([(1, 2), (3, 4)])
    assert both.gain(questions((1, 3, 2, 4), FOUR), 2) == 0.0
    assert both.gain(questions((1, 2, 3, 4), FOUR), 2) == pytest.approx(2 * 2 * S2 / (4 * S2 + NOISE_EVEN))
    assert knowledge([]).gain(questions((1, 2, 3, 4), FOUR), 2) == 0.0


def test_a_lopsided_board_tells_less_than_an_even_one():
    # 1 is fitted 400 Elo above the others: {1, 3} v {2, 4} is won 91 % of the time, I(p) = p (1 − p) ln²10/400².
    known = knowledge([(1, 2)], elo={1: 400.0, 2: 0.0, 3: 0.0, 4: 0.0})
    p = 1 / (1 + 10 ** (-400 / 400))
    noise = 1 / (2 * ELO_SCALE**2 * p * (1 - p))
    assert known.gain(questions((1, 2, 3, 4), FOUR), 2) == pytest.approx(2 * S2 / (4 * S2 + noise))
    assert noise > NOISE_EVEN


def test_after_one_seating_is_planned_its_mirror_tells_the_most():
    # {1, 3} v {2, 4} observes (1 − 2) + (3 − 4); once planned, what is left unknown of 1 − 2 is tied up with
    # 3 − 4, and {1, 4} v {2, 3}, observing (1 − 2) − (3 − 4), cancels it: it now tells more than a repeat.
    known = knowledge([(1, 2)])
    first, mirror = questions((1, 2, 3, 4), FOUR), questions((1, 2, 4, 3), FOUR)
    before = known.gain(first, 2)
    assert known.gain(mirror, 2) == pytest.approx(before)
    known.learn(first, 2)
    assert known.gain(mirror, 2) > known.gain(first, 2)
    assert known.gain(first, 2) < before


def test_learning_is_the_gaussian_update_of_the_covariance():
    # One observation x with noise N: Σ' = Σ − Σx xᵀΣ / (xᵀΣx + N). For x = e1 − e2 and Σ = s²I the link's
    # variance 2s² drops to 2s² − 4s⁴ / (2s² + N), and the share removed is the gain said before.
    known = knowledge([(1, 2)])
    x = [{1: 1, 2: -1}]
    gain = known.gain(x, 1)
    known.learn(x, 1)
    noise = 1 / (ELO_SCALE**2 / 4)
    left = known.sigma[0][0] + known.sigma[1][1] - 2 * known.sigma[0][1]
    assert left == pytest.approx(2 * S2 - 4 * S2**2 / (2 * S2 + noise))
    assert 1 - left / (2 * S2) == pytest.approx(gain)
    assert known.sigma[2][2] == S2 and known.sigma[0][2] == 0  # bots the board did not seat are as they were
    assert all(math.isclose(known.sigma[i][j], known.sigma[j][i]) for i in range(4) for j in range(4))


def test_open_links_are_the_open_verdicts():
    verdicts = [
        PairVerdict(4, 3, 0.0, -1, 1, Verdict.TIED),
        PairVerdict(3, 2, 0.0, -1, 1, Verdict.OPEN),
        PairVerdict(2, 1, 0.0, -1, 1, Verdict.ABOVE),
    ]
    fitted = fit([], [1, 2, 3, 4])  # no boards: every bot at the prior
    found = OpenLinks.of(fitted, verdicts)
    assert found.links == ((3, 2),)
    assert found.covariance == fitted.model_covariance
