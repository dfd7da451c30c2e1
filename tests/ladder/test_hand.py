"""A Hand ladder: its config, its sides and ranks (lowest score best), its seatings, and a real run.

Hand is free-for-all with 2, 3 or 4 players, or two partnerships (seats 0+2
against 1+3) with 4. Ratings are checked against the trueskill package's own
numbers for the sides and ranks worked out here by hand; the real run plays
short matches (one round) between sample bot processes and checks that every
match is rated and its record complete, and that the matches of a duplicate
deal were dealt the same decks with the bots moved on by one seat.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest
import trueskill

from waraq.ladder.play import folder
from waraq.ladder.play.matchmaking import History, MatchmakingError, Planner, candidates, rotations
from waraq.ladder.stats import ratings as rt
from waraq.ladder.storage import config as cfg
from waraq.ladder.storage.config import ConfigError, Matchmaking, TrueSkillSettings
from waraq.referee.games import registry
from waraq.referee.records.record_file import read_record

LADDER = rt.environment(TrueSkillSettings())
A, B, C, D = 1, 2, 3, 4
FREE_FOR_ALL = rt.Layout(4, 4, low_wins=True)
PARTNERS = rt.Layout(4, 2, low_wins=True)
THREE = rt.Layout(3, 3, low_wins=True)
TWO = rt.Layout(2, 2, low_wins=True)
PYTHON = sys.executable


def hand_rules(spec):
    return registry.load_rules("hand", spec)


def same(got: rt.Rating, want: trueskill.Rating) -> None:
    assert got.mu == pytest.approx(want.mu, abs=1e-9)
    assert got.sigma == pytest.approx(want.sigma, abs=1e-9)


# --- sides and ranks ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "want"),
    [("classic", FREE_FOR_ALL), ("partners", PARTNERS), ("three", THREE), ("two", TWO), ("short", FREE_FOR_ALL)],
)
def test_the_layout_of_hand_rules_counts_low_and_has_teams_only_in_partnership(preset, want):
    assert rt.Layout.of(hand_rules(preset)) == want
    # Hokm's count up, and its 4 players are two teams.
    assert rt.Layout.of(registry.load_rules("hokm", "classic")) == rt.Layout(4, 2, low_wins=False)


@pytest.mark.parametrize(
    ("layout", "winners", "score", "faulty", "want"),
    [
        # 4 each for himself, s1 and s2 tied for the lowest total: both win and share rank 0;
        # then s0 (40) before s3 (120): the lower score is the better.
        (FREE_FOR_ALL, [1, 2], [40, -10, -10, 120], [], [1, 0, 0, 2]),
        # 3 players: s1 lowest; s2's 60 beats s0's 100 (Hokm's order would be the other way).
        (THREE, [1], [100, 20, 60], [], [2, 0, 1]),
        (TWO, [0], [-30, 100], [], [0, 1]),
        # Teams, scores by team: s1+s3 have the lower total.
        (PARTNERS, [1, 3], [150, -30], [], [1, 0]),
        # s2 forfeits: the other three seats win; the faulty seat is last.
        (FREE_FOR_ALL, [0, 1, 3], [10, 70, -30, 5], [2], [0, 0, 1, 0]),
        # Aborted by the safety net: no winner, not rated.
        (FREE_FOR_ALL, [], [0, 0, 0, 0], [], None),
    ],
)
def test_hand_ranks_put_the_lowest_score_first_and_ties_share_a_rank(layout, winners, score, faulty, want):
    assert rt.ranks(layout, winners, score, faulty) == want


def test_a_free_for_all_with_a_tie_is_rated_as_trueskill_rates_it():
    before = {A: rt.Rating(30, 4), B: rt.Rating(22, 6), C: rt.Rating(27, 2), D: rt.Rating(25, 8)}
    side_ranks = rt.ranks(FREE_FOR_ALL, [1, 2], [40, -10, -10, 120], [])
    new = rt.rate(LADDER, before, seats=(A, B, C, D), players=FREE_FOR_ALL, side_ranks=side_ranks)
    groups = [(LADDER.create_rating(r.mu, r.sigma),) for r in (before[A], before[B], before[C], before[D])]
    (a,), (b,), (c,), (d,) = LADDER.rate(groups, ranks=[1, 0, 0, 2])
    for bot, want in zip((A, B, C, D), (a, b, c, d), strict=True):
        same(new[bot], want)
    assert new[B].mu > before[B].mu and new[D].mu < before[D].mu


def test_a_partnership_is_rated_as_two_teams():
    before = {A: rt.Rating(30, 4), B: rt.Rating(22, 6), C: rt.Rating(27, 2), D: rt.Rating(25, 8)}
    # Seats 0+2 (A, C) against 1+3 (B, D); B and D's team has the lower total.
    side_ranks = rt.ranks(PARTNERS, [1, 3], [150, -30], [])
    new = rt.rate(LADDER, before, seats=(A, B, C, D), players=PARTNERS, side_ranks=side_ranks)
    ta = tuple(LADDER.create_rating(before[x].mu, before[x].sigma) for x in (A, C))
    tb = tuple(LADDER.create_rating(before[x].mu, before[x].sigma) for x in (B, D))
    (a, c), (b, d) = LADDER.rate([ta, tb], ranks=[1, 0])
    for bot, want in zip((A, B, C, D), (a, b, c, d), strict=True):
        same(new[bot], want)


def test_a_bot_partnering_itself_in_hand_weighs_twice_in_its_team():
    new = rt.rate(LADDER, {}, seats=(A, B, A, B), players=PARTNERS, side_ranks=[0, 1])
    r = LADDER.create_rating()
    (a,), (b,) = LADDER.rate([(r,), (r,)], ranks=[0, 1], weights=[(2,), (2,)])
    same(new[A], a)
    same(new[B], b)


def test_a_bot_in_two_seats_of_a_free_for_all_cannot_be_rated():
    with pytest.raises(ValueError, match="two sides"):
        rt.sides((A, B, A, C), FREE_FOR_ALL)


# --- seatings ---------------------------------------------------------------------------------


def plan(bots, layout, matches, seed=1, **settings):
    planner = Planner(LADDER, layout, Matchmaking(**settings), {}, History())
    return planner.plan(bots, seed, 0, matches)


@pytest.mark.parametrize("layout", [FREE_FOR_ALL, THREE, TWO])
def test_free_for_all_duplicates_seat_each_bot_once_in_each_seat_on_one_deal(layout):
    deals = plan([1, 2, 3, 4, 5], layout, matches=4 * layout.players)
    assert len(deals) == 4
    for deal in deals:
        assert len(deal) == layout.players  # one match per seat
        for seating in deal:
            assert len(set(seating)) == layout.players  # nobody plays against itself
        for seat in range(layout.players):
            assert sorted(s[seat] for s in deal) == sorted(deal[0])
        # The bots keep their order round the table: each discards to the same neighbour.
        for seating in deal:
            nxt = {seating[i]: seating[(i + 1) % layout.players] for i in range(layout.players)}
            assert nxt == {deal[0][i]: deal[0][(i + 1) % layout.players] for i in range(layout.players)}


def test_hand_rotations_by_layout():
    assert rotations((1, 2, 3, 4), FREE_FOR_ALL, True) == [(1, 2, 3, 4), (4, 1, 2, 3), (3, 4, 1, 2), (2, 3, 4, 1)]
    assert rotations((1, 2, 3, 4), PARTNERS, True) == [(1, 2, 3, 4), (4, 1, 2, 3)]


def test_partnership_duplicates_swap_the_teams_and_may_seat_a_bot_with_itself():
    for first, second in plan([1, 2, 3], PARTNERS, matches=8):
        assert {first[0], first[2]} == {second[1], second[3]}
        assert not {first[0], first[2]} & {first[1], first[3]}


def test_free_for_all_seats_are_balanced_without_duplicates():
    # 5 bots, 4 seats, 40 single matches: 160 seats, 32 a bot, 8 per bot and seat when even.
    seats: Counter = Counter()
    games: Counter = Counter()
    for (seating,) in plan([1, 2, 3, 4, 5], FREE_FOR_ALL, matches=40, duplicate=False):
        seats.update((bot, seat) for seat, bot in enumerate(seating))
        games.update(seating)
    assert len(seats) == 20
    assert max(seats.values()) - min(seats.values()) <= 2
    assert max(games.values()) - min(games.values()) <= 2


def test_four_each_for_himself_need_four_bots():
    with pytest.raises(MatchmakingError, match=r"a 4-player ladder \(each for himself\) needs at least 4 active bots"):
        plan([1, 2, 3], FREE_FOR_ALL, matches=4)
    # With teams two bots are enough: they face each other, each partnering itself.
    assert set(candidates([1, 2], PARTNERS, "mixed", 100, random.Random(1))) == {
        (1, 2, 1, 2),
        (2, 1, 2, 1),
    }


# --- the ladder's config -----------------------------------------------------------------------


def test_a_hand_ladder_writes_and_reads_back_its_game_and_rules(tmp_path):
    rules = hand_rules("partners")
    folder.init(tmp_path, rules, seed=3, partners="self")
    raw = tomllib.loads((tmp_path / cfg.CONFIG).read_text())
    assert raw["game"] == "hand"
    assert raw["rules"] == {"players": 4, "partnership": True, "rounds": 5, "opening_points": 51}
    config = cfg.load(tmp_path)
    assert config.game == "hand" and config.rules == rules and config.layout == PARTNERS


def test_a_ladder_toml_without_a_game_is_hokm(tmp_path):
    (tmp_path / cfg.CONFIG).write_text('format = "waraq.ladder.v1"\nseed = 5\n')
    config = cfg.load(tmp_path)
    assert config.game == "hokm" and config.rules == registry.load_rules("hokm", "classic")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('game = "hand"\n[rules]\nplayers = 3\npartnership = true\n', "[rules] "),
        ('game = "hand"\n[rules]\nrounds = 0\n', "rounds"),
        ('game = "hand"\n[rules]\ntarget_score = 7\n', "'target_score'"),  # a Hokm key in a Hand ladder
        ('game = "hand"\n[matchmaking]\npartners = "self"\n', 'partners = "self" needs partnership = true (teams)'),
    ],
)
def test_hand_rules_are_checked_by_the_hand_rules_type(tmp_path, text, message):
    (tmp_path / cfg.CONFIG).write_text('format = "waraq.ladder.v1"\nseed = 5\n' + text)
    with pytest.raises(ConfigError) as error:
        cfg.load(tmp_path)
    assert message in str(error.value) and str(tmp_path / cfg.CONFIG) in str(error.value)


def waraq(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1"}
    return subprocess.run(
        [PYTHON, "-m", "waraq.referee.cli.main", *args], capture_output=True, text=True, timeout=timeout, env=env
    )


@pytest.mark.slow
def test_ladder_init_game_hand_takes_the_hand_presets(tmp_path):
    made = waraq("ladder", "init", str(tmp_path / "h"), "--game", "hand", "--rules", "three", "--seed", "9")
    assert made.returncode == 0, made.stderr
    assert "Hand, 3 players each for himself, 5 rounds" in made.stdout
    assert cfg.load(tmp_path / "h").rules == hand_rules("three")
    bad = waraq("ladder", "init", str(tmp_path / "x"), "--game", "hand", "--rules", "cheap")
    assert bad.returncode == 2 and "cheap" in bad.stderr
    assert not (tmp_path / "x").exists()


# --- a real ladder ----------------------------------------------------------------------------

RANDOM_COMMAND = f"{PYTHON} -m waraq.bots.server random --port {{port}}"


def make(path: Path, rules, bots: dict[str, str], seed: int = 4) -> Path:
    folder.init(path, rules, seed=seed)
    with folder.open_ladder(path) as ladder:
        for name, spec in bots.items():
            folder.add(ladder, name, spec, check=False)
    return path


def rows(path: Path, query: str, *args: object) -> list[tuple]:
    with sqlite3.connect(path / "ladder.sqlite") as db:
        return db.execute(query, args).fetchall()


def seating(path: Path, record: str) -> list[int]:
    """The ladder entries in the seats of the match whose record this is."""
    found = rows(path, "SELECT bot_id FROM seats JOIN matches ON id = match_id WHERE record = ? ORDER BY seat", record)
    return [bot for (bot,) in found]


@pytest.fixture(scope="module")
def three_player(tmp_path_factory) -> Path:
    """Two deals of one-round 3-player matches, each deal played once per seat: 6 matches."""
    path = make(
        tmp_path_factory.mktemp("hand") / "three",
        hand_rules({"players": 3, "rounds": 1}),
        {"random": "random", "heuristic": "heuristic", "r2": RANDOM_COMMAND},
    )
    result = waraq("ladder", "run", "--matches", "6", "--concurrency", "3", "-C", str(path), timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    return path


@pytest.mark.slow
def test_every_match_of_a_hand_ladder_is_rated_and_its_record_complete(three_player):
    matches = rows(three_player, "SELECT id, status, reason, record, winners, score FROM matches ORDER BY id")
    assert len(matches) == 6
    for _, status, reason, record, _winners, _score in matches:
        assert (status, reason) == ("rated", "score")
        events = read_record(three_player / record).events
        assert events[0]["game"] == "hand" and events[0]["rules"]["players"] == 3
        assert [e["type"] for e in events if e["type"] in ("round_end", "result")][-2:] == ["round_end", "result"]
        result = events[-1]
        assert result["reason"] == "score"
        # The winners are the seats with the lowest score.
        low = min(result["score"])
        assert result["winners"] == [s for s, v in enumerate(result["score"]) if v == low]
    # Rated once per board (one deal in its three rotations), under the board's last match.
    rated = rows(three_player, "SELECT DISTINCT match_id FROM ratings ORDER BY match_id")
    assert rated == [(3,), (6,)]


def test_a_duplicate_deal_deals_the_same_decks_with_the_bots_moved_on(three_player):
    deals = rows(three_player, "SELECT deal, GROUP_CONCAT(record, ' ') FROM matches GROUP BY deal ORDER BY deal")
    assert len(deals) == 2
    for _, records in deals:
        games = [read_record(three_player / r).events for r in records.split()]
        assert len(games) == 3
        seats = [seating(three_player, r) for r in records.split()]
        assert len(set(seats[0])) == 3
        for k, bots in enumerate(seats):  # the bot of seat s sits in seat s + k
            assert bots == [seats[0][(s - k) % 3] for s in range(3)]
        dealt = [[(e["round"], e["first"], e["deck"]) for e in g if e["type"] == "deal"] for g in games]
        # Deck k of a match depends on the seed alone: the first deals are the same, and so
        # is every later one the three matches all reached (a void round deals again).
        common = min(map(len, dealt))
        assert common >= 1
        assert dealt[1][:common] == dealt[0][:common] == dealt[2][:common]
        assert len({g[0]["seed"] for g in games}) == 1
    # Two deals, two different seeds: different decks.
    first_decks = [
        next(e["deck"] for e in read_record(three_player / r.split()[0]).events if e["type"] == "deal")
        for _, r in deals
    ]
    assert first_decks[0] != first_decks[1]


@pytest.mark.slow
def test_the_board_and_export_show_the_hand_ladder(three_player):
    shown = waraq("ladder", "show", "--pairs", "-C", str(three_player))
    assert shown.returncode == 0, shown.stderr
    assert "(Hand, 3 players each for himself, 1 round): 6 matches" in " ".join(shown.stdout.split())  # wrapped
    for name in ("random", "heuristic", "r2"):
        assert name in shown.stdout
    exported = waraq("ladder", "export", "--json", "-C", str(three_player))
    data = json.loads(exported.stdout)
    assert data["ladder"]["game"] == "hand" and data["ladder"]["rules"]["players"] == 3
    assert sum(s["matches"] for s in data["standings"]) == 18  # 6 matches, 3 seats each


@pytest.mark.slow
def test_a_partnership_ladder_rates_two_teams(tmp_path):
    """Two bots, each partnering itself: a deal played twice, the teams swapped."""
    rules = hand_rules({"preset": "partners", "rounds": 1})
    path = make(tmp_path / "partners", rules, {"random": "random", "heuristic": "heuristic"})
    result = waraq("ladder", "run", "--matches", "4", "-C", str(path), timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    matches = rows(path, "SELECT status, record FROM matches ORDER BY id")
    assert [status for status, _ in matches] == ["rated"] * 4
    for _, record in matches:
        bots = seating(path, record)
        assert bots[0] == bots[2] != bots[1] == bots[3]  # a bot is never on both teams
        result_line = read_record(path / record).events[-1]
        assert result_line["reason"] == "score" and len(result_line["score"]) == 2  # a score a team
        low = min(result_line["score"])
        assert result_line["winners"] == [s for s in range(4) if result_line["score"][s % 2] == low]
    # Every board (two matches, one deal) rated once: one rating row per bot and board.
    assert rows(path, "SELECT COUNT(*) FROM ratings") == [(4,)]
