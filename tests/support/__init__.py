"""What the tests share: bots that misbehave on purpose live in ``tests/bots``; every other helper is here.

No test module imports another test module; what two of them need is in a module of this package.
"""

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent  # the repository
TEST_BOTS = TESTS / "bots"
DATA = TESTS / "data"
