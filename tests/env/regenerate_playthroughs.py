"""OpenSpiel playthroughs of Hokm and Hand (tests/env/playthroughs/): make them again after a deliberate change.

    python -m tests.env.regenerate_playthroughs [hokm|hand]

In OpenSpiel's own format (open_spiel/python/algorithms/generate_playthrough.py): a short
match, its chance outcomes and decisions drawn by OpenSpiel's generator from a fixed seed,
with every seat's strings and tensors at the states it shows. Hokm: one per player count, a
match to one point, so one deal. Hand: 4 and 2 players, one round (the ``short`` preset, and
``two`` cut to one round; a 3-player file would add half a megabyte and no new code path),
in a folder of its own. tests/env/test_hokm_openspiel.py and test_hand_openspiel.py replay
each file and compare; a reviewer can read one against docs/rules.md. A diff in one after a
change is a change of behaviour to explain in its commit.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from absl import flags
from open_spiel.python.algorithms import generate_playthrough

from waraq.referee.env import hand_openspiel, hokm_openspiel

FOLDER = Path(__file__).parent / "playthroughs"
SEED = 7


@dataclass(frozen=True)
class Playthroughs:
    folder: Path
    games: dict[str, str]  # file name -> the game's OpenSpiel string


SETS = {
    "hokm": Playthroughs(
        FOLDER,
        {
            "hokm_4p": f"{hokm_openspiel.GAME_NAME}(target_score=1)",
            "hokm_3p": f"{hokm_openspiel.GAME_NAME}(preset=three,target_score=1)",
            "hokm_2p": f"{hokm_openspiel.GAME_NAME}(preset=two,target_score=1)",
        },
    ),
    "hand": Playthroughs(
        FOLDER / "hand",  # apart: Hokm's test counts the files beside it
        {
            "hand_4p": f"{hand_openspiel.GAME_NAME}(preset=short)",
            "hand_2p": f"{hand_openspiel.GAME_NAME}(preset=two,rounds=1)",
        },
    ),
}


def parse_absl_flags() -> None:
    """generate_playthrough reads an absl flag when it replays; outside an absl program nobody parsed them."""
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()


def regenerate(game: str) -> list[Path]:
    """Write every playthrough of ``game`` into its folder; the paths written."""
    parse_absl_flags()
    wanted = SETS[game]
    wanted.folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, spec in wanted.games.items():
        path = wanted.folder / f"{name}.txt"
        path.write_text(generate_playthrough.playthrough(spec, action_sequence=None, seed=SEED), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for game in sys.argv[1:] or list(SETS):
        for path in regenerate(game):
            print(f"{path} ({path.stat().st_size // 1024} KB)")
