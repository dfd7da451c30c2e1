"""OpenSpiel playthroughs of Hokm (tests/env/playthroughs/*.txt): make them again after a deliberate change.

    python -m tests.env.regenerate_playthroughs

One playthrough per player count, in OpenSpiel's own format (open_spiel/python/algorithms/
generate_playthrough.py): a match to one point, so one deal, its chance outcomes and decisions drawn by
OpenSpiel's generator from a fixed seed, with every seat's strings and tensors at the states it shows.
tests/env/test_hokm_openspiel.py replays each file and compares; a reviewer can read one against
docs/rules.md. A diff in one after a change is a change of behaviour to explain in its commit.
"""

from __future__ import annotations

from pathlib import Path

from absl import flags
from open_spiel.python.algorithms import generate_playthrough

from waraq.referee.env.hokm_openspiel import GAME_NAME

FOLDER = Path(__file__).parent / "playthroughs"
GAMES = {
    "hokm_4p": f"{GAME_NAME}(target_score=1)",
    "hokm_3p": f"{GAME_NAME}(preset=three,target_score=1)",
    "hokm_2p": f"{GAME_NAME}(preset=two,target_score=1)",
}
SEED = 7


def parse_absl_flags() -> None:
    """generate_playthrough reads an absl flag when it replays; outside an absl program nobody parsed them."""
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()


def regenerate(folder: Path = FOLDER) -> list[Path]:
    """Write every playthrough into ``folder``; the paths written."""
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
