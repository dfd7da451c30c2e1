"""Training data from records (referee/env/dataset.py): every row checked against the record it came from.

The records are real matches, played by the referee's match runner between
the built-in ``random`` and ``heuristic`` bots (in-process seats), on every
Hokm preset and a variant that asks REDEAL and BAM; two more have faults: a
player that raises under ``substitute`` (its decisions are substitutes) and
under ``forfeit`` (the match ends on an unanswered question). The test never
asks the exporter's walk how a row should be: it reads the record's lines
itself, replays the engine over the lines before a decision and encodes the
seat's view of that state, and takes outcomes from the ``result`` line.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import json
import shutil
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from waraq.bots.server import builtin_players
from waraq.referee.env import dataset, hand_encoding
from waraq.referee.env.dataset import Selection, Skipped, export_dataset
from waraq.referee.env.hand_steps import StepTurn
from waraq.referee.env.hokm_encoding import ACTIONS, action_index, encode, legal_mask, observation_size
from waraq.referee.games import registry
from waraq.referee.games.hand import engine as hand_engine
from waraq.referee.games.hokm.engine import action_from_json, replay
from waraq.referee.games.hokm.rules import PRESETS, HokmRules
from waraq.referee.match.play import MatchConfig, run_match
from waraq.referee.match.seats import InProcessSeat
from waraq.referee.records.record_file import RecordWriter
from waraq.referee.run.runner import match_id

PLAYERS = builtin_players()
VARIANT = HokmRules(target_score=3, max_redeals=2, bam=True)  # REDEAL and BAM asked too
MATCHES: dict[str, tuple[Any, list[str], str]] = {  # folder -> rules, the bot at each seat, fault policy
    "classic": (PRESETS["classic"], ["random", "heuristic"] * 2, "forfeit"),
    "short": (PRESETS["short"], ["heuristic", "random"] * 2, "forfeit"),
    "variant": (VARIANT, ["random", "heuristic"] * 2, "forfeit"),
    "three": (PRESETS["three"], ["random", "heuristic", "random"], "forfeit"),
    "two": (PRESETS["two"].replace(burn_visible=True), ["heuristic", "random"], "forfeit"),
    "substitute": (PRESETS["short"], ["random", "raising", "random", "random"], "substitute"),
    "forfeit": (PRESETS["short"], ["random", "random", "random", "raising"], "forfeit"),
}
SEEDS = (1, 2, 3)
RAISES_AT = (4, 9)  # the raising player's questions that it answers with an exception


class Raising:
    """The random player, but its 4th and 9th questions raise: a fault the referee records."""

    def __init__(self, match: str, seat: int) -> None:
        self.player = PLAYERS["random"](match, seat, "hokm")
        self.asked = 0

    def __call__(self, view: Any) -> Any:
        self.asked += 1
        if self.asked in RAISES_AT:
            raise RuntimeError("on cue")
        return self.player(view)


def seat_of(bot: str, game: str) -> InProcessSeat:
    if bot == "raising":
        return InProcessSeat(Raising, bot)
    return InProcessSeat(lambda match, seat: PLAYERS[bot](match, seat, game), bot)


def play(folder: Path, rules: Any, bots: list[str], seeds: tuple[int, ...], policy: str = "forfeit") -> Path:
    """Real matches, recorded by the referee's runner in ``folder`` as ``waraq match`` names them."""
    folder.mkdir(parents=True, exist_ok=True)
    game = registry.game_of_rules(rules)

    async def all_of_them() -> None:
        for seed in seeds:
            config = MatchConfig(rules, seed, match_id(seed), policy=policy)
            with RecordWriter(folder / f"{game}-{seed}.jsonl") as record:
                await run_match(config, [seat_of(bot, game) for bot in bots], record)

    asyncio.run(all_of_them())
    return folder


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dataset-records")
    for name, (rules, bots, policy) in MATCHES.items():
        play(root / name, rules, bots, SEEDS, policy)
    return root


@pytest.fixture(scope="module")
def exported(records, tmp_path_factory) -> dict[str, Any]:
    """Each folder exported whole: name -> the loaded arrays."""
    out = tmp_path_factory.mktemp("datasets")
    found = {}
    for name in MATCHES:
        summary = export_dataset([records / name], out / f"{name}.npz", on_skip=_no_skips)
        assert summary.skipped == 0 and summary.rows > 0
        found[name] = dict(np.load(out / f"{name}.npz"))
    return found


def _no_skips(skipped: Skipped) -> None:
    raise AssertionError(str(skipped))


# -- the record, read by the test itself ----------------------------------------------


def events_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def decisions_of(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line, event) of each decision line."""
    return [(line, e) for line, e in enumerate(events_of(path), start=1) if e["type"] == "decision"]


def record_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.jsonl"), key=lambda p: int(p.stem.split("-")[1]))


def outcome(result: dict[str, Any], seat: int) -> int:
    return 0 if not result["winners"] else 1 if seat in result["winners"] else -1


def names(array: np.ndarray) -> list[str]:
    return [str(x) for x in array]


# -- the rows -------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(MATCHES))
def test_a_row_for_every_decision_line_and_the_encodings_sizes_in_the_file(records, exported, name):
    data = exported[name]
    rules = MATCHES[name][0]
    lines = sum(len(decisions_of(p)) for p in record_files(records / name))
    n = len(data["obs"])
    assert n == lines
    for column in dataset.COLUMNS:
        assert len(data[column]) == n, column
    size = observation_size(rules.players)
    assert data["obs"].shape == (n, size) and data["obs"].dtype == np.float32
    assert data["mask"].shape == (n, ACTIONS) and data["mask"].dtype == np.int8
    assert int(data["observation_size"]) == size and int(data["actions"]) == ACTIONS
    assert int(data["players"]) == rules.players and str(data["game"]) == "hokm"
    assert str(data["format"]) == "waraq.dataset" and int(data["format_version"]) == dataset.FORMAT_VERSION
    assert names(data["kinds"]) == ["TRUMP", "PLAY", "DISCARD", "DRAW", "REDEAL", "BAM"]
    offsets, lengths = data["layout_offset"], data["layout_length"]
    assert offsets[0] == 0 and offsets[-1] + lengths[-1] == size and list(offsets[1:]) == list((offsets + lengths)[:-1])
    assert names(data["rules_hash"]) == [rules.rules_hash]
    assert names(data["rules_json"]) == [rules.canonical_json()]
    assert set(data["step"]) == {0}  # Hokm: one row a decision


@pytest.mark.parametrize("name", list(MATCHES))
def test_each_rows_identity_is_its_decision_line(records, exported, name):
    data = exported[name]
    paths = record_files(records / name)
    assert names(data["records_path"]) == [str(p) for p in paths]
    assert names(data["records_match_id"]) == [events_of(p)[0]["match_id"] for p in paths]
    bots, kinds = names(data["bots"]), names(data["kinds"])
    row = 0
    for index, path in enumerate(paths):
        header = events_of(path)[0]
        for number, (line, event) in enumerate(decisions_of(path), start=1):
            seat = event["seat"]
            assert data["record"][row] == index and data["decision"][row] == number and data["line"][row] == line
            assert data["seat"][row] == seat and data["round"][row] == event["round"]
            assert kinds[data["kind"][row]] == event["kind"]
            assert bots[data["bot"][row]] == header["seats"][seat]["bot"]
            assert data["rules"][row] == 0
            row += 1
    assert row == len(data["obs"])


@pytest.mark.parametrize("name", list(MATCHES))
def test_sampled_rows_are_the_engines_view_of_the_record_replayed_to_their_decision(records, exported, name):
    data = exported[name]
    row = 0
    checked = 0
    for path in record_files(records / name):
        events = events_of(path)
        rules = HokmRules.from_dict(events[0]["rules"])
        decisions = decisions_of(path)
        for number, (line, event) in enumerate(decisions):
            if number % 17 == 0 or number == len(decisions) - 1:
                state = replay(rules, events[: line - 1])  # every line before the decision's
                assert state.to_act == event["seat"] and state.kind == event["kind"]
                view = state.view(event["seat"])
                assert np.array_equal(data["obs"][row], encode(view)), (path.name, line)
                assert np.array_equal(data["mask"][row], legal_mask(view)), (path.name, line)
                taken = action_from_json(event["kind"], event["action"])
                assert data["action"][row] == action_index(event["kind"], taken), (path.name, line)
                checked += 1
            row += 1
    assert checked >= 2 * len(SEEDS)


def test_every_action_taken_is_legal_under_its_rows_mask(exported):
    for name, data in exported.items():
        rows = np.arange(len(data["action"]))
        assert (data["mask"][rows, data["action"]] == 1).all(), name
        assert (data["mask"].sum(axis=1) >= 1).all(), name


@pytest.mark.parametrize("name", list(MATCHES))
def test_outcomes_are_the_records_results_for_the_deciding_seat(records, exported, name):
    data = exported[name]
    expected = []
    for path in record_files(records / name):
        result = events_of(path)[-1]
        assert result["type"] == "result"
        expected += [outcome(result, event["seat"]) for _, event in decisions_of(path)]
    assert list(data["outcome"]) == expected
    assert set(data["outcome"]) == {1, -1}


def test_a_forfeit_is_lost_by_the_faulty_side_and_its_unanswered_question_is_no_row(records, exported):
    data = exported["forfeit"]
    for index, path in enumerate(record_files(records / "forfeit")):
        events = events_of(path)
        result = events[-1]
        assert result["reason"] == "forfeit" and result["faulty"] == [3] and result["winners"] == [0, 2]
        assert events[-2]["type"] == "fault"  # the question it raised on: no decision followed
        mine = data["record"] == index
        assert mine.sum() == len(decisions_of(path))
        assert set(data["outcome"][mine & np.isin(data["seat"], [1, 3])]) == {-1}
        assert set(data["outcome"][mine & np.isin(data["seat"], [0, 2])]) == {1}
    assert not data["substituted"].any()


def test_substituted_decisions_are_marked_and_only_they(records, exported):
    data = exported["substitute"]
    expected = []
    for path in record_files(records / "substitute"):
        events = events_of(path)
        expected += [events[line - 2]["type"] == "fault" for line, _ in decisions_of(path)]
    assert list(data["substituted"]) == expected
    assert sum(expected) == len(RAISES_AT) * len(SEEDS)
    assert set(data["seat"][data["substituted"]]) == {1}


# -- filters --------------------------------------------------------------------------


def test_the_seat_and_bot_filters_keep_exactly_those_decisions(records, exported, tmp_path):
    whole = exported["classic"]
    for selection, keep in (
        (Selection(seats=frozenset({1})), whole["seat"] == 1),
        (Selection(seats=frozenset({0, 3})), np.isin(whole["seat"], [0, 3])),
        (Selection(bots=frozenset({"heuristic"})), np.isin(whole["seat"], [1, 3])),
        (Selection(seats=frozenset({0, 1}), bots=frozenset({"random"})), whole["seat"] == 0),
    ):
        out = tmp_path / "filtered.npz"
        summary = export_dataset([records / "classic"], out, selection, on_skip=_no_skips)
        data = np.load(out)
        assert summary.rows == keep.sum() == len(data["obs"])
        for column in ("obs", "mask", "action", "outcome", "decision", "line", "seat"):
            assert np.array_equal(data[column], whole[column][keep]), column
        assert set(names(data["bots"])) == {names(whole["bots"])[b] for b in whole["bot"][keep]}  # only theirs
        out.unlink()


def test_players_picks_one_player_count_from_a_mixed_folder_and_passes_the_others_over(records, tmp_path):
    mixed = tmp_path / "mixed"
    for name in ("three", "two", "short"):
        shutil.copytree(records / name, mixed / name)
    skipped: list[Skipped] = []
    summary = export_dataset([mixed], tmp_path / "three.npz", Selection(players=3), on_skip=skipped.append)
    assert skipped == [] and summary.passed_over == 2 * len(SEEDS)
    assert summary.rows == sum(len(decisions_of(p)) for p in record_files(records / "three"))
    assert np.load(tmp_path / "three.npz")["obs"].shape[1] == observation_size(3)


def test_without_players_the_first_records_count_holds_and_the_others_are_each_one_line(records, tmp_path):
    mixed = tmp_path / "mixed"
    shutil.copytree(records / "short", mixed / "a")
    shutil.copytree(records / "two", mixed / "b")
    skipped: list[Skipped] = []
    summary = export_dataset([mixed], tmp_path / "out.npz", on_skip=skipped.append)
    assert summary.players == 4 and summary.skipped == len(SEEDS)
    assert [s.path for s in skipped] == record_files(mixed / "b")
    assert str(skipped[0]) == (
        f"{mixed / 'b' / 'hokm-1.jsonl'}: a 2-player hokm record, and this dataset is of 4-player hokm "
        "(observations of 501): export it to a file of its own (--players 2); not exported"
    )


# -- records that cannot be exported --------------------------------------------------


def test_broken_records_are_one_line_each_and_the_others_are_exported(records, exported, tmp_path):
    folder = tmp_path / "some-broken"
    shutil.copytree(records / "short", folder)
    good = record_files(folder)
    tampered, cut, garbage = tmp_path / "some-broken" / "x-1.jsonl", folder / "x-2.jsonl", folder / "x-3.jsonl"
    lines = good[0].read_text().splitlines(keepends=True)
    line, event = decisions_of(good[0])[20]
    other = next(c for c in ("AS", "KS", "QS", "2C", "3C") if c != event["action"])
    lines_tampered = list(lines)
    lines_tampered[line - 1] = json.dumps({**event, "action": other}) + "\n"
    tampered.write_text("".join(lines_tampered))
    cut.write_text("".join(lines[: len(lines) // 2]))
    garbage.write_text("not json\n")
    skipped: list[Skipped] = []
    out = tmp_path / "out.npz"
    summary = export_dataset([folder], out, on_skip=skipped.append)
    assert sorted(s.path for s in skipped) == [tampered, cut, garbage]
    reasons = {s.path: str(s) for s in skipped}
    assert reasons[cut].startswith(f"{cut}: cut short: no result line")
    assert reasons[garbage].startswith(f"{garbage}: corrupt: line 1 is not JSON")
    assert reasons[tampered].startswith(f"{tampered}: inconsistent: line {line}")
    assert all(text.endswith("; not exported") and "\n" not in text for text in reasons.values())
    data = np.load(out)
    assert summary.skipped == 3 and summary.records == len(good)
    assert names(data["records_path"]) == [str(p) for p in good]
    for column in ("obs", "mask", "action", "outcome"):
        assert np.array_equal(data[column], exported["short"][column]), column


def test_a_hand_record_among_hokm_ones_is_one_line_or_passed_over_with_game_hokm(records, hand_records, tmp_path):
    hand = hand_records
    shutil.copytree(records / "short", tmp_path / "mixed")
    (tmp_path / "mixed" / "later").mkdir()  # walked after the Hokm records, which set the dataset's game
    shutil.copy(hand / "hand-1.jsonl", tmp_path / "mixed" / "later" / "hand-1.jsonl")
    skipped: list[Skipped] = []
    summary = export_dataset([tmp_path / "mixed"], tmp_path / "out.npz", on_skip=skipped.append)
    path = tmp_path / "mixed" / "later" / "hand-1.jsonl"
    if "hand" in dataset.ENCODINGS:
        why = "a 4-player hand record, and this dataset is of 4-player hokm (observations of 501)"
        why += ": export it to a file of its own (--game hand)"
    else:
        why = "a hand record: there is no hand encoding to export it with (only hokm)"
    assert [str(s) for s in skipped] == [f"{path}: {why}; not exported"]
    assert summary.records == len(SEEDS)
    summary = export_dataset([tmp_path / "mixed"], tmp_path / "hokm.npz", Selection(game="hokm"), on_skip=_no_skips)
    assert summary.records == len(SEEDS) and summary.passed_over == 1


def test_nothing_is_written_when_no_row_is_selected(records, tmp_path):
    out = tmp_path / "none.npz"
    summary = export_dataset([records / "short"], out, Selection(bots=frozenset({"nobody"})), on_skip=_no_skips)
    assert summary.rows == 0 and summary.read == len(SEEDS) and summary.bots_seen == {"heuristic", "random"}
    assert list(tmp_path.iterdir()) == []  # no file, and no scratch left behind


# -- the file -------------------------------------------------------------------------


def test_the_streamed_archive_is_a_plain_npz_whatever_the_blocks(records, exported, tmp_path, monkeypatch):
    """The rows go through scratch files and into the archive a block at a time: with blocks of 7
    bytes the arrays are the same, the zip is sound, and np.load needs no pickle."""
    monkeypatch.setattr(dataset._Writer, "BLOCK", 7)
    out = tmp_path / "small-blocks.npz"
    export_dataset([records / "three"], out, on_skip=_no_skips)
    with zipfile.ZipFile(out) as archive:
        assert archive.testzip() is None
        assert sorted(archive.namelist()) == sorted(f"{name}.npy" for name in exported["three"])
    data = np.load(out, allow_pickle=False)
    for name, array in exported["three"].items():
        assert data[name].dtype == array.dtype and np.array_equal(data[name], array), name
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # the scratch is gone


def test_the_kinds_every_preset_asks_are_all_there(exported):
    asked = Counter()
    for data in exported.values():
        kinds = names(data["kinds"])
        asked.update(kinds[k] for k in data["kind"])
    assert {"TRUMP", "PLAY", "DISCARD", "DRAW", "REDEAL"} <= set(asked)


def test_gzipped_records_give_the_same_rows(records, exported, tmp_path):
    folder = tmp_path / "gz"
    folder.mkdir()
    for path in record_files(records / "two"):
        (folder / f"{path.name}.gz").write_bytes(gzip.compress(path.read_bytes()))
    export_dataset([folder], tmp_path / "gz.npz", on_skip=_no_skips)
    data = np.load(tmp_path / "gz.npz")
    for name, array in exported["two"].items():
        if name != "records_path":
            assert np.array_equal(data[name], array), name


# -- Hand: a TAKE is a row, a TURN a row per move that builds it ------------------------


@pytest.fixture(scope="module")
def hand_records(tmp_path_factory) -> Path:
    rules = registry.load_rules("hand", "short")
    return play(tmp_path_factory.mktemp("hand-records"), rules, ["random", "heuristic"] * 2, SEEDS)


def test_hand_rows_rebuild_each_turn_move_by_move_from_the_engines_view(hand_records, tmp_path):
    out = tmp_path / "hand.npz"
    export_dataset([hand_records], out, on_skip=_no_skips)
    data = np.load(out)
    n = len(data["obs"])
    assert data["obs"].shape == (n, hand_encoding.observation_size(4)) and data["obs"].dtype == np.float32
    assert data["mask"].shape == (n, hand_encoding.ACTIONS) and str(data["game"]) == "hand"
    assert names(data["kinds"]) == ["TAKE", "TURN"]
    assert (data["mask"][np.arange(n), data["action"]] == 1).all()
    row = 0
    turns = 0
    for path in sorted(hand_records.glob("*.jsonl")):
        events = events_of(path)
        rules = registry.rules_from_dict("hand", events[0]["rules"])
        result = events[-1]
        for number, (line, event) in enumerate(decisions_of(path), start=1):
            state = hand_engine.replay(rules, events[: line - 1])  # every line before the decision's
            view = state.view(event["seat"])
            action = hand_engine.action_from_json(event["kind"], event["action"])
            assert data["outcome"][row] == outcome(result, event["seat"])
            if event["kind"] == "TAKE":
                assert (data["decision"][row], data["step"][row], data["line"][row]) == (number, 0, line)
                assert np.array_equal(data["obs"][row], hand_encoding.encode(view))
                assert np.array_equal(data["mask"][row], hand_encoding.legal_mask(view))
                assert data["action"][row] == hand_encoding.take_index(action)
                row += 1
                continue
            turns += 1
            built, step, finished = StepTurn.of(view), 0, None
            while finished is None:  # the rows of the turn's moves, up to its discard
                assert (data["decision"][row], data["step"][row], data["line"][row]) == (number, step, line)
                assert np.array_equal(data["obs"][row], hand_encoding.encode(view, built)), (path.name, line, step)
                assert np.array_equal(data["mask"][row], hand_encoding.legal_mask(view, built)), (path.name, line)
                finished = built.play(hand_encoding.decode(int(data["action"][row])))
                row, step = row + 1, step + 1
            state.apply(finished)  # the turn the rows build is the recorded one
            after = hand_engine.replay(rules, events[:line])
            assert [state.view(s) for s in range(4)] == [after.view(s) for s in range(4)]
    assert row == n and turns > 0


def test_game_hand_takes_the_hand_records_of_a_mixed_folder(records, hand_records, tmp_path):
    shutil.copytree(records / "short", tmp_path / "mixed" / "hokm")
    shutil.copytree(hand_records, tmp_path / "mixed" / "hand")
    summary = export_dataset([tmp_path / "mixed"], tmp_path / "out.npz", Selection(game="hand"), on_skip=_no_skips)
    assert (summary.game, summary.records, summary.passed_over) == ("hand", len(SEEDS), len(SEEDS))
    assert names(np.load(tmp_path / "out.npz")["records_path"]) == [
        str(p) for p in sorted((tmp_path / "mixed" / "hand").glob("*.jsonl"))
    ]


def test_a_decision_its_encoding_cannot_spell_skips_its_record_in_one_line(records, exported, tmp_path, monkeypatch):
    """Hand's turn_steps refuses a turn its moves cannot build (a ValueError); any encoding may."""
    bad = record_files(records / "short")[1]
    events = events_of(bad)
    line, event = decisions_of(bad)[5]
    refused = replay(HokmRules.from_dict(events[0]["rules"]), events[: line - 1]).view(event["seat"])
    hokm = dataset.ENCODINGS["hokm"]

    def rows(view: Any, kind: str, action: Any) -> list[Any]:
        if view == refused:
            raise ValueError("no such move")
        return hokm.rows(view, kind, action)

    monkeypatch.setitem(dataset.ENCODINGS, "hokm", dataclasses.replace(hokm, rows=rows))
    skipped: list[Skipped] = []
    summary = export_dataset([records / "short"], tmp_path / "out.npz", on_skip=skipped.append)
    assert [str(s) for s in skipped] == [f"{bad}: line {line}: PLAY cannot be encoded: no such move; not exported"]
    assert summary.records == len(SEEDS) - 1 and summary.read == len(SEEDS) - 1
    others = exported["short"]["record"] != 1
    assert np.array_equal(np.load(tmp_path / "out.npz")["obs"], exported["short"]["obs"][others])
