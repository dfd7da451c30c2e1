"""Dial-in tokens: made once, shown once, kept only as a digest.

A token is 32 random bytes (256 bits), so a plain SHA-256 of it is as hard to
reverse as the token is to guess: unlike a password it needs no slow, salted
hash. Whoever keeps the tokens (a ladder's database, a match's memory) keeps
only :func:`digest`, and a lookup by digest compares no secret byte by byte.

Nothing here does I/O.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Protocol

PREFIX = "wq_"  # tells a Waraq token apart in a config file or a leaked log


def new_token() -> str:
    """A fresh token, e.g. ``wq_3q2...``: printed once, never stored."""
    return PREFIX + secrets.token_urlsafe(32)


def digest(token: str) -> str:
    """What is stored of a token: ``sha256:`` and its hex digest."""
    return "sha256:" + hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class Keys(Protocol):
    """Who holds the tokens: the bot a token seats, or None for a token nobody holds (wrong, revoked)."""

    def bot_of(self, token: str) -> str | None: ...


class TokenTable:
    """Tokens held in memory (``waraq match``, ``check-bot``): one a bot, made by :meth:`issue`."""

    def __init__(self) -> None:
        self._bots: dict[str, str] = {}  # digest -> bot

    def issue(self, bot: str) -> str:
        """A new token for ``bot``, replacing any it had."""
        self._bots = {d: b for d, b in self._bots.items() if b != bot}
        token = new_token()
        self._bots[digest(token)] = bot
        return token

    def bot_of(self, token: str) -> str | None:
        return self._bots.get(digest(token))
