"""A records folder holds one run's records of each game: ``waraq match`` goes on with it, never mixes in another.

``waraq match`` writes ``waraq-hokm-run.json`` (or ``-hand-``) beside its
records: everything
that decides a match of the run but its seed (the game, the rules, the bots
by seat, the fault policy, the time control, the file format, and a
fingerprint of the deal key, never the key itself). Run again the same way
(the same command and the same deal key), a run *continues* the folder:

* a match whose record is complete is kept, not played again: the same
  seed, key and bots deal the same cards to the same programs, so playing it
  again would only write the same record;
* every other match of the run is played: not played yet, cut short (a full
  disk, a kill), lost to a bot that did not start, or aborted by a referee
  error (those two say nothing of the bots' play, and a fixed bot or referee
  should get its chance).

A folder that holds another run's records of the same game is refused
(:class:`FolderError`) unless the caller says to replace them: two such runs
cannot be told apart by their file names (``hokm-1.jsonl`` is match 1 of
either), and the second would silently overwrite the first's. A Hokm run and
a Hand run can share a folder: their records are named by their game. The
default folder is never refused: ``records/``, else the first of
``records-2/``, ``records-3/``, … that is free of this game's records or
holds this same run (:func:`choose`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from waraq.referee.games.results import ResultReason
from waraq.referee.match import secret_deals
from waraq.referee.match.play import FaultRecord, MatchOutcome
from waraq.referee.records.record_file import RecordError, read_record
from waraq.referee.run.runner import RunConfig, match_id, record_name

FORMAT = "waraq.run.v1"
RECORD_SUFFIXES = (".jsonl", ".jsonl.gz")
OVERWRITE = "--overwrite"  # the flag that replaces another run's records: named in every refusal


class FolderError(ValueError):
    """A records folder this run cannot use: the message names it and the way out."""


def manifest_name(game: str) -> str:
    return f"waraq-{game}-run.json"


def identity(config: RunConfig) -> dict[str, Any]:
    """What makes two runs one run, but for their seeds: the content of the game's manifest."""
    return {
        "format": FORMAT,
        "game": config.rules.GAME,
        "rules": config.rules.to_dict(),
        "bots": [str(spec) for spec in config.bots],
        "policy": config.policy,
        "max_faults": config.max_faults,
        "time_control": asdict(config.time_control),
        "gzip": config.gzip,
        # A keyed hash under a name no match has: it tells keys apart and gives away nothing of one.
        "deal_key": secret_deals.match_id(config.deal_key, "records-folder") if config.deal_key else "",
    }


def choose(given: Path | None, default: Path, wanted: dict[str, Any]) -> Path:
    """The folder a run writes to: ``given`` as it is, else ``default`` or its first free
    numbered sibling (``records-2``, …), or the one that holds this same run already."""
    if given is not None:
        return given
    number = 1
    while True:
        folder = default if number == 1 else default.with_name(f"{default.name}-{number}")
        if not folder.exists() or (folder.is_dir() and not _differences(folder, wanted)):
            return folder
        number += 1


def claim(folder: Path, wanted: dict[str, Any], *, overwrite: bool = False) -> None:
    """Make ``folder`` this run's: refuse another run's records unless ``overwrite``, which
    deletes them (the record files and the manifest; nothing else in the folder).

    Raises :class:`FolderError` for a folder that cannot be this run's, and
    :class:`~waraq.referee.records.record_file.RecordError` when the folder or its manifest cannot be written.
    """
    if folder.exists() and not folder.is_dir():
        raise FolderError(f"--record {folder}: is a file, not a folder for records")
    game = wanted["game"]
    differences = _differences(folder, wanted) if folder.is_dir() else None
    if differences:
        records = _records(folder, game)
        if not overwrite:
            if differences == ["deal key"]:
                what = (
                    f"of a run under another deal key (each run without one given deals under a fresh key): "
                    f"to continue that run, give its key (${secret_deals.ENVIRONMENT}); to replace its records, "
                )
            else:
                what = f"of another run (it differs in: {', '.join(differences)}): to replace them, "
            raise FolderError(
                f"{folder}/ holds {len(records)} {game} record(s) {what}give {OVERWRITE}; "
                "or choose another folder with --record"
            )
        for path in [*records, folder / manifest_name(game)]:
            path.unlink(missing_ok=True)
    manifest = folder / manifest_name(game)
    partial = manifest.with_name(manifest.name + ".partial")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        partial.write_text(json.dumps(wanted, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        partial.replace(manifest)  # a reader never sees half a manifest
    except OSError as error:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        raise RecordError(manifest, error) from None


def kept(folder: Path, config: RunConfig, seeds: Iterable[int]) -> dict[int, MatchOutcome]:
    """The matches of ``seeds`` whose records in ``folder`` are whole and are kept (see above)."""
    found = {}
    for seed in seeds:
        path = folder / (record_name(seed, config.rules.GAME) + (".gz" if config.gzip else ""))
        if path.is_file():
            outcome = outcome_of(path, match_id(seed, config.deal_key))
            if outcome is not None:
                found[seed] = outcome
    return found


def outcome_of(path: Path, expected_id: str) -> MatchOutcome | None:
    """A complete record's outcome, if it is one to keep: this match (its id), played to its
    end by the bots (no STARTUP fault, not aborted by the referee)."""
    record = read_record(path)
    if not record.complete or record.header.get("match_id") != expected_id:
        return None
    result = record.events[-1]
    faults = [e for e in record.events if e.get("type") == "fault"]
    if result.get("reason") == "aborted" or any(f.get("kind") == "STARTUP" for f in faults):
        return None
    try:
        return MatchOutcome(
            match_id=expected_id,
            seed=int(record.header["seed"]),
            winners=tuple(result["winners"]),
            reason=ResultReason(result["reason"]),  # another is a ValueError: played again
            score=tuple(result["score"]),
            faulty=tuple(result.get("faulty", ())),
            faults=[FaultRecord(f["seat"], f["kind"], f["detail"], f["round"], f.get("code")) for f in faults],
            decisions=sum(1 for e in record.events if e.get("type") == "decision"),
            record=str(path),
        )
    except (KeyError, TypeError, ValueError):  # a record edited by hand: play the match again
        return None


def _differences(folder: Path, wanted: dict[str, Any]) -> list[str] | None:
    """What sets the folder's run of this game apart from ``wanted``: ``[]`` the same run,
    None no run of this game (no manifest and none of its records)."""
    game = wanted["game"]
    manifest = folder / manifest_name(game)
    if not manifest.exists():
        return [f"its records have no {manifest.name}"] if _records(folder, game) else None
    try:
        found = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return [f"an unreadable {manifest.name}"]
    if not isinstance(found, dict):
        return [f"an unreadable {manifest.name}"]
    return [key.replace("_", " ") for key in wanted if found.get(key) != wanted[key]]


def _records(folder: Path, game: str) -> list[Path]:
    """The game's records in the folder (``hokm-7.jsonl``: see :func:`waraq.referee.run.runner.record_name`)."""
    return sorted(
        p
        for p in folder.iterdir()
        if p.is_file() and p.name.startswith(f"{game}-") and p.name.endswith(RECORD_SUFFIXES)
    )
