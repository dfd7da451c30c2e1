"""Hypothesis settings profiles, chosen by the environment variable HYPOTHESIS_PROFILE.

* ``ci`` (the default): hypothesis's usual 100 examples a test, no deadline
  (a random Hokm match takes longer than the 200 ms default on a slow machine)
  and no too-slow health check for the same reason.
* ``thorough``: 10 times the examples, for a long run before a release.

Tests that play whole matches scale their own example counts by the profile's
``max_examples`` (see ``tests/test_hokm_properties.py``).
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "thorough",
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
