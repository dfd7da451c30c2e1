"""A third game, defined only here, that proves the registry is the one place knowing the games.

It joins the referee as any other package's game would: one entry point in
the group ``waraq.games`` naming :data:`ENTRY` (tests/games/test_a_new_game.py
writes that entry point's metadata beside the checkout, as pip would).
"""

from waraq.referee.games.registry import GameEntry, Part

ENTRY = GameEntry(
    "toy",
    "tests.toy_game.engine",
    "tests.toy_game.rules",
    {Part.WIRE: "tests.toy_game.parts:WIRE", Part.TEXT: "tests.toy_game.parts"},
)
