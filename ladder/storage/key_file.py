"""``ladder.key``: the secret a ladder's decks and match ids are drawn under.

A ladder's seed is public: it is in ladder.toml, which a person may publish,
and every record's ``seed`` is that seed × 1,000,000 + the deal's number. It
still decides matchmaking, reproducibly; the decks and the match ids the bots
see come from this key as well (:mod:`waraq.referee.match.secret_deals`), so no record,
however many are published, predicts a deal still to be played.

* It is made at ``waraq ladder init`` from the system's secure random source,
  and kept in its own file in the ladder folder: not in ladder.toml, and not
  under records/, the two parts of a ladder meant to be shown.
* The file is mode 0600 from the moment it exists (made by ``mkstemp``, never
  chmod-ed afterwards: no moment where another user could read it), and is
  written whole before it is linked into place, so a crash leaves no half key
  and an existing key is never replaced.
* Reading refuses a key file that others may read, as ssh refuses a private
  key: a key others have read protects nothing.
* A ladder made before keys existed gets one at its next ``waraq ladder run``
  (:func:`ensure`); every match it plays from then on is dealt under the key,
  those it had planned but not played too. Their records, like every record,
  hold their decks, so they replay as before.
* A key that is gone after matches were played under it is not silently made
  again: the rest of a board begun under it would get other decks in its other
  rooms. The database says since when the ladder has had its key
  (``meta.deal_key_since``, or for a ladder made before it said so, the latest
  record that can be read); :func:`ensure` refuses unless told to make a new
  key (``waraq ladder run --new-key``).

Errors name the file and what is wrong with it, never the key.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from waraq.ladder.storage.config import ConfigError
from waraq.ladder.storage.store import Store, now
from waraq.referee.match import secret_deals
from waraq.referee.records.record_file import read_record

KEY_FILE = "ladder.key"
KEYED_SINCE = "deal_key_since"  # meta: when ladder.key was made; every match played since was dealt under it
HOLDS = "one line, the ladder's deal key, besides lines starting with # (as `waraq ladder init` writes it)"
TEXT = """\
# The secret this ladder's decks and match ids are drawn under (docs/security.md).
# Keep it private: whoever holds it can rebuild every deal still to be played.
{key}
"""


def create(folder: Path, key: str | None = None) -> str:
    """Make ``folder``'s key file, with ``key`` (tests, playing a ladder's deals again) or a
    fresh one; refuse to replace one that is there. Returns the key."""
    key = secret_deals.new_key() if key is None else key
    if not key or key != key.strip() or "\n" in key or key.startswith("#"):
        raise ConfigError(f"a deal key for {folder} must be one line of text, without spaces around it")
    path = folder / KEY_FILE
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{KEY_FILE}.")  # mode 0600
    try:
        with os.fdopen(handle, "w") as file:
            file.write(TEXT.format(key=key))
            file.flush()
            os.fsync(file.fileno())
        os.link(temporary, path)  # fails if a key is there
    except FileExistsError:
        raise ConfigError(f"{path} exists already: a ladder's key is never replaced") from None
    finally:
        os.unlink(temporary)
    directory = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(directory)  # the new name survives a power cut, as the database's commits do
    finally:
        os.close(directory)
    return key


def read(folder: Path) -> str:
    """The key in ``folder``'s key file, if only its owner may read it."""
    path = folder / KEY_FILE
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise ConfigError(
            f"{path} is mode {mode:04o}: others may read this ladder's deal key. "
            f"Make it private with `chmod 600 {path}`; if anyone else may have read it, "
            "the deals still to be played are not secret (docs/security.md)"
        )
    try:
        text = path.read_bytes().decode()
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"{path} is not a key file: byte {error.start} is not UTF-8 text; it must hold {HOLDS}"
        ) from None
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    if len(lines) != 1:
        raise ConfigError(f"{path} holds {len(lines)} key lines: it must hold {HOLDS}")
    return lines[0]


def ensure(folder: Path, store: Store, *, new_key: bool = False) -> tuple[str, str | None]:
    """The ladder's key, and what to tell when it was made just now: for a ladder older than
    keys, or with ``new_key`` (``--new-key``) for one whose key is gone. Refuses to make one
    when matches were played under a key that is gone, and ``new_key`` when the key is there.

    Only a writer of the ladder calls this (``waraq ladder run`` holds its lock), so no
    other process makes the file between the look and the making."""
    path = folder / KEY_FILE
    if path.exists() or path.is_symlink():
        if new_key:
            raise ConfigError(
                f"--new-key: {path} is there, and a ladder's key is never replaced "
                "(--new-key is for a ladder whose key is gone)"
            )
        return read(folder), None
    keyed = last_keyed(folder, store)
    if keyed is not None and not new_key:
        raise ConfigError(
            f"{path} is missing, but this ladder played matches under it (the latest: {keyed}): a new key "
            "would deal the rest of each board begun under it other cards in its other rooms. Put the file "
            "back from a copy; or go on under a new key with `waraq ladder run --new-key`"
        )
    key = create(folder)
    made_at(store)
    if keyed is not None:
        return key, (
            f"made a new deal key in {path} as --new-key asked: the boards begun under the lost one get other "
            "cards in the rooms still to be played (docs/security.md)"
        )
    return key, (
        f"this ladder had no deal key: made {path}, and every match from now on is dealt under it (docs/security.md)"
    )


def made_at(store: Store) -> None:
    """Say in the database that the ladder has had its key since now (at ``waraq ladder init``,
    and when a run makes one): the matches played from now on are dealt under it."""
    with store.transaction():
        store.set_meta(KEYED_SINCE, now())


def last_keyed(folder: Path, store: Store) -> str | None:
    """The record of the latest match this ladder played under its key; None when it played none
    (a ladder older than keys, or one that played nothing since it got its key). The database
    says since when it has had a key; for a ladder made before it said so, the latest record
    that can be read does (keys only ever came in, so its ``deal_key`` is the ladder's)."""
    since = store.meta(KEYED_SINCE)
    for record, finished in store.played_records():
        if since is not None:
            return record if finished >= since else None
        header = read_record(folder / record).header
        if header:
            return record if header.get("deal_key") is True else None
    return None
