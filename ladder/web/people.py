"""Who uses the arena, in the ladder's own database: people, invites, sessions, API tokens, who owns which bot.

The tables live in ``ladder.sqlite`` beside the ladder's (made IF NOT EXISTS
when the server opens it, as the dial-in tables are), so one file holds the
arena and a ``kill -9`` loses nothing: a change here is one transaction of the
ladder's :class:`~waraq.ladder.storage.store.Store`, joined with the ladder's
own change where there is one (a bot added and its owner, together).

Every secret is kept as its digest (:mod:`.credentials`); passwords as scrypt
hashes. Nothing here decides who may do what: :mod:`.access` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum

from waraq.ladder.storage.store import Store, now
from waraq.ladder.web import credentials

TABLES = """
CREATE TABLE IF NOT EXISTS people (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,   -- "Alice" and "alice" are one person
    role TEXT NOT NULL CHECK (role IN ('organiser', 'author')),
    password TEXT,                              -- scrypt$N$r$p$salt$hash; NULL until set
    disabled INTEGER NOT NULL DEFAULT 0,
    made TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS invites (
    digest TEXT PRIMARY KEY,                    -- sha256 of the invite link's token
    role TEXT NOT NULL,
    made_by INTEGER REFERENCES people (id),     -- NULL: `waraq serve --init-admin`
    made TEXT NOT NULL,
    expires TEXT NOT NULL,
    used_by INTEGER REFERENCES people (id)
);
CREATE TABLE IF NOT EXISTS sessions (
    digest TEXT PRIMARY KEY,                    -- sha256 of the cookie's token
    person INTEGER NOT NULL REFERENCES people (id),
    made TEXT NOT NULL,
    expires TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS api_tokens (
    digest TEXT PRIMARY KEY,
    person INTEGER NOT NULL REFERENCES people (id),
    label TEXT NOT NULL,
    made TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS owners (             -- the author of each bot the web added (by its ladder.toml name)
    base TEXT PRIMARY KEY,
    person INTEGER NOT NULL REFERENCES people (id)
);
"""

INVITE_DAYS = 7
SESSION_DAYS = 14


class Role(StrEnum):
    ORGANISER = "organiser"
    AUTHOR = "author"


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    role: Role
    disabled: bool
    made: str
    has_password: bool

    @property
    def organiser(self) -> bool:
        return self.role is Role.ORGANISER


@dataclass(frozen=True)
class Invite:
    role: Role
    made: str
    expires: str
    used_by: int | None


class PeopleError(ValueError):
    """A refusal to show the person who asked: one line."""


def prepare(store: Store) -> None:
    """Make the tables (a database opened to write; a no-op when they are there)."""
    store.db.executescript(TABLES)


def _person(row: tuple) -> Person:
    return Person(row[0], row[1], Role(row[2]), bool(row[3]), row[4], row[5] is not None)


_PERSON = "SELECT id, name, role, disabled, made, password FROM people"


# --- people ------------------------------------------------------------------------------------


def everyone(store: Store) -> list[Person]:
    return [_person(row) for row in store.db.execute(f"{_PERSON} ORDER BY id")]


def person(store: Store, person_id: int) -> Person | None:
    row = store.db.execute(f"{_PERSON} WHERE id = ?", (person_id,)).fetchone()
    return _person(row) if row else None


def person_named(store: Store, name: str) -> Person | None:
    row = store.db.execute(f"{_PERSON} WHERE name = ?", (name,)).fetchone()
    return _person(row) if row else None


def password_of(store: Store, person_id: int) -> str | None:
    row = store.db.execute("SELECT password FROM people WHERE id = ?", (person_id,)).fetchone()
    return row[0] if row else None


def set_password(store: Store, person_id: int, hashed: str) -> None:
    """A new password: every session and API token of the person ends with the old one."""
    with store.transaction():
        store.db.execute("UPDATE people SET password = ? WHERE id = ?", (hashed, person_id))
        store.db.execute("DELETE FROM sessions WHERE person = ?", (person_id,))


def set_disabled(store: Store, person_id: int, disabled: bool) -> None:
    with store.transaction():
        store.db.execute("UPDATE people SET disabled = ? WHERE id = ?", (int(disabled), person_id))
        if disabled:
            store.db.execute("DELETE FROM sessions WHERE person = ?", (person_id,))
            store.db.execute("DELETE FROM api_tokens WHERE person = ?", (person_id,))


# --- invites -----------------------------------------------------------------------------------


def invite(store: Store, role: Role, made_by: int | None) -> str:
    """A new invite's token (for its link), shown once; only its digest is kept."""
    token = credentials.new_token()
    with store.transaction():
        store.db.execute(
            "INSERT INTO invites (digest, role, made_by, made, expires) VALUES (?, ?, ?, ?, ?)",
            (credentials.digest(token), role.value, made_by, now(), now(timedelta(days=INVITE_DAYS))),
        )
    return token


def open_invite(store: Store, token: str) -> Invite | None:
    """The invite of a link's token, if it is unused and not expired."""
    row = store.db.execute(
        "SELECT role, made, expires, used_by FROM invites WHERE digest = ?", (credentials.digest(token),)
    ).fetchone()
    if row is None or row[3] is not None or row[2] < now():
        return None
    return Invite(Role(row[0]), row[1], row[2], row[3])


def invites(store: Store) -> list[tuple[Invite, str | None, str | None]]:
    """Every invite, newest first: the invite, who made it, who used it."""
    rows = store.db.execute(
        "SELECT i.role, i.made, i.expires, i.used_by, m.name, u.name FROM invites i "
        "LEFT JOIN people m ON m.id = i.made_by LEFT JOIN people u ON u.id = i.used_by ORDER BY i.made DESC"
    ).fetchall()
    return [(Invite(Role(r[0]), r[1], r[2], r[3]), r[4], r[5]) for r in rows]


def accept(store: Store, token: str, name: str, hashed_password: str) -> Person:
    """Use an invite: a new person with that name and password. One transaction: an invite serves once."""
    with store.transaction():
        found = open_invite(store, token)
        if found is None:
            raise PeopleError("this invite link is used, expired or unknown: ask the organiser for a new one")
        if person_named(store, name) is not None:
            raise PeopleError(f"the name {name!r} is taken: choose another")
        cursor = store.db.execute(
            "INSERT INTO people (name, role, password, made) VALUES (?, ?, ?, ?)",
            (name, found.role.value, hashed_password, now()),
        )
        person_id = int(cursor.lastrowid or 0)
        store.db.execute("UPDATE invites SET used_by = ? WHERE digest = ?", (person_id, credentials.digest(token)))
    made = person(store, person_id)
    assert made is not None
    return made


# --- sessions and API tokens ---------------------------------------------------------------------


def open_session(store: Store, person_id: int) -> str:
    """A new session's token. A sign-in always makes a new one: a token planted before it is worth nothing."""
    token = credentials.new_token()
    with store.transaction():
        store.db.execute("DELETE FROM sessions WHERE expires < ?", (now(),))
        store.db.execute(
            "INSERT INTO sessions VALUES (?, ?, ?, ?)",
            (credentials.digest(token), person_id, now(), now(timedelta(days=SESSION_DAYS))),
        )
    return token


def session_person(store: Store, token: str) -> Person | None:
    row = store.db.execute(
        "SELECT person FROM sessions WHERE digest = ? AND expires >= ?", (credentials.digest(token), now())
    ).fetchone()
    return _active(store, row[0]) if row else None


def close_session(store: Store, token: str) -> None:
    with store.transaction():
        store.db.execute("DELETE FROM sessions WHERE digest = ?", (credentials.digest(token),))


def new_api_token(store: Store, person_id: int, label: str) -> str:
    token = credentials.new_token()
    with store.transaction():
        store.db.execute(
            "INSERT INTO api_tokens VALUES (?, ?, ?, ?)", (credentials.digest(token), person_id, label, now())
        )
    return token


def api_tokens(store: Store, person_id: int) -> list[tuple[str, str, str]]:
    """A person's API tokens: (a short id of its digest, its label, when made); never the token."""
    rows = store.db.execute(
        "SELECT digest, label, made FROM api_tokens WHERE person = ? ORDER BY made", (person_id,)
    ).fetchall()
    return [(row[0][:12], row[1], row[2]) for row in rows]


def revoke_api_token(store: Store, person_id: int, short: str) -> bool:
    with store.transaction():
        cursor = store.db.execute(
            "DELETE FROM api_tokens WHERE person = ? AND substr(digest, 1, 12) = ?", (person_id, short)
        )
    return cursor.rowcount > 0


def token_person(store: Store, token: str) -> Person | None:
    row = store.db.execute("SELECT person FROM api_tokens WHERE digest = ?", (credentials.digest(token),)).fetchone()
    return _active(store, row[0]) if row else None


def _active(store: Store, person_id: int) -> Person | None:
    found = person(store, person_id)
    return found if found is not None and not found.disabled else None


# --- owners --------------------------------------------------------------------------------------


def owner_of(store: Store, base: str) -> int | None:
    row = store.db.execute("SELECT person FROM owners WHERE base = ?", (base,)).fetchone()
    return row[0] if row else None


def set_owner(store: Store, base: str, person_id: int) -> None:
    store.db.execute("INSERT OR REPLACE INTO owners VALUES (?, ?)", (base, person_id))


def bots_of(store: Store, person_id: int) -> list[str]:
    return [row[0] for row in store.db.execute("SELECT base FROM owners WHERE person = ? ORDER BY base", (person_id,))]


def owners(store: Store) -> dict[str, str]:
    """bot (its ladder.toml name) -> its author's name."""
    rows = store.db.execute("SELECT o.base, p.name FROM owners o JOIN people p ON p.id = o.person")
    return dict(rows.fetchall())
