"""Serve policy.py as a Waraq bot: ``python examples/imitation/serve.py --unix PATH`` (or --port N).

A command that names this file lets the sandbox show the bot this folder (the
weights, the policy) and nothing else of the checkout.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from waraq.bots.policy import main

sys.exit(main(["policy:act", *sys.argv[1:]]))
