"""OpenSpiel playthroughs of Hand (tests/env/playthroughs/hand/*.txt): make them again after a deliberate change.

    python -m tests.env.regenerate_hand_playthroughs

Two playthroughs, 4 and 2 players, in OpenSpiel's own format (open_spiel/python/algorithms/
generate_playthrough.py): a match of one round (the ``short`` preset, and ``two`` cut to one
round; a 3-player file would add half a megabyte and no new code path), its chance outcomes
and moves drawn by OpenSpiel's generator from a fixed seed, with every seat's strings and
tensors at the states it shows. tests/env/test_hand_openspiel.py
replays each file and compares; a reviewer can read one against docs/rules.md ("## Hand"). A
diff in one after a change is a change of behaviour to explain in its commit. (Hokm's are
tests/env/regenerate_playthroughs.py's.)
"""

from __future__ import annotations

from pathlib import Path

from absl import flags
from open_spiel.python.algorithms import generate_playthrough

from waraq.referee.env.hand_openspiel import GAME_NAME

FOLDER = Path(__file__).parent / "playthroughs" / "hand"  # apart: Hokm's test counts the files beside it
GAMES = {
    "hand_4p": f"{GAME_NAME}(preset=short)",
    "hand_2p": f"{GAME_NAME}(preset=two,rounds=1)",
}
SEED = 7


def parse_absl_flags() -> None:
    """generate_playthrough reads an absl flag when it replays; outside an absl program nobody parsed them."""
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()


def regenerate(folder: Path = FOLDER) -> list[Path]:
    """Write every Hand playthrough into ``folder``; the paths written."""
    parse_absl_flags()
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, game in GAMES.items():
        path = folder / f"{name}.txt"
        path.write_text(generate_playthrough.playthrough(game, action_sequence=None, seed=SEED), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in regenerate():
        print(f"{path} ({path.stat().st_size // 1024} KB)")
