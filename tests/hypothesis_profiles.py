"""Hypothesis profiles for swacheck's property tests (tests/test_fuzz.py, tests/test_hostile.py).

- ``ci`` (the default): about 300 examples in all, no deadline, derandomized so that every
  CI run tries the same inputs (a failure reproduces with the same command).
- ``long``: about 100,000+ examples spread over the fuzz tests, random each run; for a nightly
  or a manual hunt.

Choose with the environment variable::

    SWACHECK_HYPOTHESIS_PROFILE=long python -m pytest tests/test_fuzz.py

or with Hypothesis's own pytest option. That option is applied when pytest configures itself,
before any test module (and so this one) is imported, so load this module as a plugin too::

    python -m pytest -p tests.hypothesis_profiles --hypothesis-profile=long tests/test_fuzz.py

(without ``-p`` pytest stops with ``Profile 'long' is not registered``). A profile chosen with
``--hypothesis-profile`` wins over the environment variable.

Importing this module registers both profiles and, unless a profile other than Hypothesis's
``default`` is already active, loads the one the environment names. The test modules import it
first thing, so the profiles exist before any test runs.

Each test asks :func:`examples` for its share of the profile's budget, so one profile scales
every test at once.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

ENV_VAR = "SWACHECK_HYPOTHESIS_PROFILE"

# max_examples here is the budget of a test of weight 1.0 (see examples()).
settings.register_profile(
    "ci",
    max_examples=45,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)
settings.register_profile(
    "long",
    max_examples=20_000,
    deadline=None,
    derandomize=False,
    print_blob=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)

if settings.get_current_profile_name() == "default":
    settings.load_profile(os.environ.get(ENV_VAR, "ci"))


def examples(weight: float = 1.0) -> int:
    """This test's number of examples: ``weight`` times the active profile's budget."""
    return max(1, int(settings.default.max_examples * weight))
