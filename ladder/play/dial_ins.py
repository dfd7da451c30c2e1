"""The ladder's side of the lobby: its tokens, as the database keeps them (digests only).

``waraq ladder add NAME --dial-in`` and ``waraq ladder token NAME --rotate``
write a token's digest (ladder/play/folder.py); the lobby asks :class:`LadderKeys`
at every dial, so a token replaced or a bot removed is refused from the next
dial on, even while a run goes on.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection

from waraq.ladder.storage.store import Store
from waraq.referee.lobby.tokens import digest


class LadderKeys:
    """Which of the ladder's dial-in bots a token seats (:class:`waraq.referee.lobby.tokens.Keys`)."""

    def __init__(self, store: Store, dial_ins: Collection[str]) -> None:
        self._store = store
        self._dial_ins = dial_ins  # a token of a bot no longer dial-in in ladder.toml seats nothing

    def bot_of(self, token: str) -> str | None:
        try:
            bot = self._store.bot_of_digest(digest(token))
        except sqlite3.Error:  # the database cannot be read now: refuse, and let the bot dial again
            return None
        return bot if bot in self._dial_ins else None
