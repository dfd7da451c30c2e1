"""Training data from match records: a row per decision (per move of a Hand turn), as NumPy arrays in one ``.npz``.

:func:`export_dataset` re-plays each record through the referee's own replay
(:func:`waraq.referee.replay.walk.load`, the walk ``waraq replay --verify``
makes, which drives the engine's ``iter_replay``) and writes, for every
decision a seat took, the seat's view as its game's encoding gives it, the
legal mask, the index of the action taken, the match's outcome for that seat,
and columns that say where the row came from. There is no second copy of the
rules: a view here is the engine's ``state.view(seat)`` of the state the
record's own decisions led to.

Each game's encoding is one entry of :data:`ENCODINGS`. Hokm's
(:mod:`~waraq.referee.env.hokm_encoding`): a decision is one row, ``encode(view)``,
``legal_mask(view)``, ``action_index(kind, action)``. Hand's
(:mod:`~waraq.referee.env.hand_encoding`): a ``TAKE`` is one row; a ``TURN``, one
engine action, is one row per move that builds it (``turn_step_states``), each
with the view and the mask of the turn as built up to that move, numbered in the
``step`` column.

A record that does not verify (damaged, cut short, tampered with), one of a
game with no encoding here, one whose observations are not of the dataset's
length (another game or player count), or one with a decision its encoding
cannot spell (a Hand turn its moves cannot build) is **skipped**: ``on_skip`` is told
in one line naming the file, and every other record is still exported. A
dataset holds one game and one player count, so that every observation has
one layout; the first record exported sets them, or the selection's ``game``
and ``players`` do.

Why ``.npz``: the ``env`` extra already installs NumPy, which reads it with
``np.load`` and no pickle; Parquet would need pyarrow, 100 MB and more for a
table of numbers. The observations stay ``float32`` and the mask ``int8``,
exactly as the environments give them: deflated, a 4-player decision takes
about 47 bytes on disk (observation 41, mask 6); quantising the observation
to ``uint8`` would save 14 of them and lose its equality with ``encode``.

Memory does not grow with the records: each record's rows go, as soon as it
is walked, deflated into a scratch file per column beside the output; at
the end each column is inflated again into its member of the ``.npz``, whose
``.npy`` header is written then, when the row count is known. Nothing is at
``out`` until the whole file is: it is built under a scratch name and moved
there.

The arrays (``N`` rows, ``L`` = ``observation_size``, ``A`` = ``actions``,
``R`` records, ``B`` bots, ``K`` kinds, ``H`` rules sets), each ``name.npy``
in the archive:

=================  =========  ========  =====================================================
name               dtype      shape     contents
=================  =========  ========  =====================================================
obs                float32    (N, L)    the seat's view, encoded (its game's encoding; a Hand TURN's
                                        rows: with the turn built so far)
mask               int8       (N, A)    1 at each legal action of the decision
action             int32      (N,)      the index of the action taken
outcome            int8       (N,)      +1 the seat's side won, -1 it lost, 0 no winner
record             int32      (N,)      index into ``records_path``/``records_match_id``
decision           int32      (N,)      the decision's number in its record, from 1
step               int16      (N,)      the row's number within its decision, from 0
                                        (Hokm and Hand's TAKE: always 0; a Hand TURN: its moves)
line               int32      (N,)      the record line of the decision, from 1
seat               int8       (N,)      the deciding seat
round              int16      (N,)      the round, from 1
kind               int8       (N,)      index into ``kinds``
bot                int32      (N,)      index into ``bots``: the seat's bot as the header names it
rules              int16      (N,)      index into ``rules_hash``/``rules_json``
substituted        bool       (N,)      the referee's substitute, after the seat's fault
records_path       str        (R,)      each record exported, as found
records_match_id   str        (R,)      its header's ``match_id``
bots               str        (B,)      bot names
kinds              str        (K,)      the game's decision kinds, in its encoding's order
rules_hash         str        (H,)      ``sha256:...`` of each rules set
rules_json         str        (H,)      each rules set's canonical JSON
layout_name        str        (.,)      the observation's blocks (empty if the game has none)
layout_offset      int32      (.,)      each block's offset in ``obs``
layout_length      int32      (.,)      each block's length
format             str        ()        ``"waraq.dataset"``
format_version     int16      ()        :data:`FORMAT_VERSION`
game               str        ()        ``"hokm"`` or ``"hand"``
players            int16      ()        the player count of every record
observation_size   int32      ()        ``L``
actions            int32      ()        ``A``
=================  =========  ========  =====================================================

The outcome is the record's ``result`` (a forfeit's included): +1 for a seat in
``winners``, -1 for one not, 0 for every seat when ``winners`` is empty (an
aborted match), as :func:`waraq.referee.env.hokm_pettingzoo.match_reward` gives.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from waraq.referee.env.parts import BY_NAME, GameParts
from waraq.referee.replay.walk import Replay, load, record_paths

FORMAT = "waraq.dataset"
FORMAT_VERSION = 1
SUFFIX = ".npz"

# Each game's encoding, as the exporter needs it (waraq.referee.env.parts: the environments' own).
ENCODINGS: dict[str, GameParts] = dict(BY_NAME)


@dataclass(frozen=True)
class Selection:
    """Which decisions to export; None: any."""

    seats: frozenset[int] | None = None
    bots: frozenset[str] | None = None  # the bot's name as the record's header gives it
    players: int | None = None  # records of other player counts are passed over, not reported
    game: str | None = None  # records of other games are passed over, not reported

    def keeps(self, seat: int, bot: str) -> bool:
        return (self.seats is None or seat in self.seats) and (self.bots is None or bot in self.bots)


@dataclass(frozen=True)
class Skipped:
    """A record not exported, and why, in one line."""

    path: Path
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}; not exported"


@dataclass
class Summary:
    """What an export did. ``rows`` 0: nothing was written."""

    out: Path
    rows: int = 0
    records: int = 0  # records that gave rows
    read: int = 0  # records that verified and were of the dataset's game and player count
    skipped: int = 0
    passed_over: int = 0  # of another game or player count than the selection's
    game: str | None = None
    players: int | None = None
    observation_size: int = 0
    bytes: int = 0
    bots_seen: set[str] = field(default_factory=set)


def export_dataset(
    paths: Sequence[str | Path],
    out: str | Path,
    selection: Selection = Selection(),
    on_skip: Callable[[Skipped], None] = lambda skipped: None,
) -> Summary:
    """Export the decisions of the records at ``paths`` (files, or folders walked recursively) to ``out``.

    Writes nothing when no decision is selected (``Summary.rows`` 0). Raises OSError when ``out``
    cannot be written; checking ``out`` against the inputs is the caller's
    (:func:`waraq.referee.common.arguments.refuse_writing_over`).
    """
    out = Path(out)
    summary = Summary(out)
    scratch = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    writer = _Writer(scratch)
    try:
        for path in record_paths(list(paths)):
            _export_record(load(path), writer, selection, summary, on_skip)
        if summary.rows:
            assert summary.game is not None and summary.players is not None
            building = scratch / out.name
            writer.finish(building, _tables(summary, writer))
            os.replace(building, out)
            summary.bytes = out.stat().st_size
    finally:
        writer.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return summary


def _export_record(
    replay: Replay, writer: _Writer, selection: Selection, summary: Summary, on_skip: Callable[[Skipped], None]
) -> None:
    def skip(reason: str) -> None:
        summary.skipped += 1
        on_skip(Skipped(replay.path, reason))

    if not replay.ok:
        skip(f"{replay.status}: {replay.problem}")
        return
    game, players = replay.game, replay.players
    if (selection.players or players, selection.game or game) != (players, game):
        summary.passed_over += 1
        return
    encoding = ENCODINGS.get(game)
    if encoding is None:
        skip(f"a {game} record: there is no {game} encoding to export it with (only {', '.join(ENCODINGS)})")
        return
    if summary.game is None:
        summary.game, summary.players = game, players
        summary.observation_size = encoding.observation_size(players)
    elif (game, players) != (summary.game, summary.players):
        option = f"--game {game}" if game != summary.game else f"--players {players}"
        skip(
            f"a {players}-player {game} record, and this dataset is of {summary.players}-player {summary.game} "
            f"(observations of {summary.observation_size}): export it to a file of its own ({option})"
        )
        return
    bots = replay.bots
    winners = set((replay.result or {}).get("winners") or ())
    kind_index = {kind: i for i, kind in enumerate(encoding.kinds)}
    chunk = _Chunk(record=summary.records)
    decision = 0
    for step in replay.steps:
        if step.action is None:  # the question whose fault ended the match: no decision was taken
            continue
        decision += 1
        if not selection.keeps(step.seat, bots[step.seat]):
            continue
        outcome = 0 if not winners else 1 if step.seat in winners else -1
        try:
            rows = encoding.rows(step.view, step.kind, step.action)
        except ValueError as error:  # the encoding has no rows for this decision
            skip(f"line {step.line}: {step.kind} cannot be encoded: {error}")
            return
        for number, (obs, mask, action) in enumerate(rows):
            chunk.add(
                obs=obs,
                mask=mask,
                action=action,
                outcome=outcome,
                decision=decision,
                step=number,
                line=step.line,
                seat=step.seat,
                round=step.round,
                kind=kind_index[step.kind],
                substituted=step.fault is not None,
            )
    summary.read += 1
    summary.bots_seen.update(bots)
    if chunk.rows:  # the tables name only what rows refer to
        chunk.columns["bot"] = [writer.index("bots", bots[seat]) for seat in chunk.columns["seat"]]
        chunk.same["rules"] = writer.index("rules", replay.rules.rules_hash, replay.rules.canonical_json())
        writer.tables["records_path"].append(str(replay.path))
        writer.tables["records_match_id"].append(replay.match_id)
        writer.write(chunk, summary.observation_size, encoding.actions)
        summary.records += 1
        summary.rows += chunk.rows


def _tables(summary: Summary, writer: _Writer) -> dict[str, np.ndarray]:
    """The arrays beside the rows: the tables the columns index, the encoding's sizes, the format."""
    assert summary.game is not None and summary.players is not None
    encoding = ENCODINGS[summary.game]
    blocks = encoding.layout(summary.players)
    return {
        "records_path": _strings(writer.tables["records_path"]),
        "records_match_id": _strings(writer.tables["records_match_id"]),
        "bots": _strings(writer.tables["bots"]),
        "kinds": _strings(encoding.kinds),
        "rules_hash": _strings(writer.tables["rules"]),
        "rules_json": _strings(writer.rules_json),
        "layout_name": _strings(blocks),
        "layout_offset": np.array([offset for offset, _ in blocks.values()], dtype=np.int32),
        "layout_length": np.array([length for _, length in blocks.values()], dtype=np.int32),
        "format": np.array(FORMAT),
        "format_version": np.array(FORMAT_VERSION, dtype=np.int16),
        "game": np.array(summary.game),
        "players": np.array(summary.players, dtype=np.int16),
        "observation_size": np.array(summary.observation_size, dtype=np.int32),
        "actions": np.array(encoding.actions, dtype=np.int32),
    }


def _strings(values: Iterable[str]) -> np.ndarray:
    """Unicode, never object: ``np.load`` reads it without pickle."""
    return np.array(list(values), dtype=np.str_)


# -- the columns -------------------------------------------------------------

# Each row column: its dtype, and whether its rows are vectors (of the observation's or the mask's length).
COLUMNS: dict[str, tuple[type, str]] = {
    "obs": (np.float32, "observation"),
    "mask": (np.int8, "actions"),
    "action": (np.int32, ""),
    "outcome": (np.int8, ""),
    "record": (np.int32, ""),
    "decision": (np.int32, ""),
    "step": (np.int16, ""),
    "line": (np.int32, ""),
    "seat": (np.int8, ""),
    "round": (np.int16, ""),
    "kind": (np.int8, ""),
    "bot": (np.int32, ""),
    "rules": (np.int16, ""),
    "substituted": (np.bool_, ""),
}


class _Chunk:
    """One record's rows, as lists per column until written; the columns of one value for all, once."""

    def __init__(self, record: int) -> None:
        self.columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}
        self.same: dict[str, int] = {"record": record}  # its index in the records table
        self.rows = 0

    def add(self, **row: Any) -> None:
        for name, value in row.items():
            self.columns[name].append(value)
        self.rows += 1

    def array(self, name: str, dtype: type) -> np.ndarray:
        if name in self.same:
            return np.full(self.rows, self.same[name], dtype=dtype)
        values = self.columns[name]
        if isinstance(values[0], np.ndarray):
            return np.stack(values).astype(dtype, copy=False)
        return np.array(values, dtype)


class _Writer:
    """The rows' columns, each deflated into a scratch file as they come; then the ``.npz``."""

    SCRATCH_LEVEL = 1  # the scratch files are read once: the fastest deflate (the archive's is the default, 6)
    BLOCK = 1 << 20  # bytes inflated at a time into the archive

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.files: dict[str, IO[bytes]] = {}
        self.deflaters: dict[str, Any] = {}
        self.rows = 0
        self.widths: dict[str, int] = {}
        self.tables: dict[str, list[str]] = {"records_path": [], "records_match_id": [], "bots": [], "rules": []}
        self.rules_json: list[str] = []
        self._found: dict[tuple[str, str], int] = {}

    def index(self, table: str, name: str, rules_json: str = "") -> int:
        """``name``'s index in ``table``, added there at its first use."""
        found = self._found.get((table, name))
        if found is None:
            found = self._found[(table, name)] = len(self.tables[table])
            self.tables[table].append(name)
            if table == "rules":
                self.rules_json.append(rules_json)
        return found

    def write(self, chunk: _Chunk, observation_size: int, actions: int) -> None:
        widths = {"observation": observation_size, "actions": actions}
        for name, (dtype, width) in COLUMNS.items():
            array = chunk.array(name, dtype)
            if width:
                self.widths[name] = widths[width]
                assert array.shape == (chunk.rows, widths[width]), (name, array.shape)
            if name not in self.files:
                self.files[name] = (self.folder / f"{name}.deflated").open("wb")
                self.deflaters[name] = zlib.compressobj(self.SCRATCH_LEVEL)
            self.files[name].write(self.deflaters[name].compress(np.ascontiguousarray(array).tobytes()))
        self.rows += chunk.rows

    def close(self) -> None:
        for file in self.files.values():
            file.close()

    def finish(self, path: Path, tables: dict[str, np.ndarray]) -> None:
        """The archive at ``path``: each column's ``.npy`` (its header, then its rows), then the tables."""
        for name, file in self.files.items():
            file.write(self.deflaters[name].flush())
        self.close()
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
            for name, (dtype, width) in COLUMNS.items():
                shape = (self.rows, self.widths[name]) if width else (self.rows,)
                header = {
                    "descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                    "fortran_order": False,
                    "shape": shape,
                }
                with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array_header_1_0(member, header)
                    self._inflate_into(self.folder / f"{name}.deflated", member)
            for name, array in tables.items():
                with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, array, allow_pickle=False)

    def _inflate_into(self, scratch: Path, member: IO[bytes]) -> None:
        """A scratch file's bytes into the archive, a block at a time however well they deflated."""
        inflater = zlib.decompressobj()
        with scratch.open("rb") as file:
            while block := file.read(self.BLOCK):
                while block:
                    member.write(inflater.decompress(block, self.BLOCK))
                    block = inflater.unconsumed_tail
        member.write(inflater.flush())
