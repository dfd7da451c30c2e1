"""Serve policy.py as a Waraq bot: ``python examples/imitation/serve.py --weights FILE --unix PATH`` (or --port N).

A command that names this file and the weights lets the sandbox show the bot this
folder (the policy) and that file, and nothing else of the checkout or the run.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import policy

from waraq.bots.policy import main

rest = sys.argv[1:]
if "--weights" in rest:
    at = rest.index("--weights")
    policy.WEIGHTS = Path(rest[at + 1])
    del rest[at : at + 2]
sys.exit(main(["policy:act", *rest]))
