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

Errors name the file and what is wrong with it, never the key.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from waraq.ladder.config import ConfigError
from waraq.referee.match import secret_deals

KEY_FILE = "ladder.key"
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
    lines = [line for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]
    if len(lines) != 1:
        raise ConfigError(f"{path} holds {len(lines)} key lines, expected one (lines starting with # are comments)")
    return lines[0]


def ensure(folder: Path) -> tuple[str, bool]:
    """The ladder's key, and whether it was made just now (a ladder older than keys).

    Only a writer of the ladder calls this (``waraq ladder run`` holds its lock), so no
    other process makes the file between the look and the making."""
    if (folder / KEY_FILE).exists():
        return read(folder), False
    return create(folder), True
