"""Hypothesis profiles: ``fast`` by default, ``ci`` with the full example counts.

``ANNEAL_HYPOTHESIS_PROFILE=ci`` (``.ci/run`` sets it) runs every property test with its full
count: hypothesis's 100 by default, or the count a test names through ``examples(n)``. The
``fast`` profile, for the README's test command, runs at most ``FAST_EXAMPLES`` per test.
Neither sets a deadline: a property test asserts a property, not a speed.
"""

from __future__ import annotations

import os

__all__ = ["FAST_EXAMPLES", "PROFILES", "PROFILE_ENV", "examples", "load"]

PROFILE_ENV = "ANNEAL_HYPOTHESIS_PROFILE"
FAST_EXAMPLES = 10
CI_EXAMPLES = 100
PROFILES = {"fast": FAST_EXAMPLES, "ci": CI_EXAMPLES}


def _chosen() -> str:
    name = os.environ.get(PROFILE_ENV, "fast")
    if name not in PROFILES:
        raise ValueError(f"{PROFILE_ENV}={name!r}: choose one of {', '.join(PROFILES)}")
    return name


def load() -> None:
    """Register both profiles and load the one ``ANNEAL_HYPOTHESIS_PROFILE`` names.

    Nothing to do where hypothesis is not installed (a venv with pytest alone).
    """
    try:
        from hypothesis import settings
    except ImportError:
        return
    for name, count in PROFILES.items():
        settings.register_profile(name, max_examples=count, deadline=None)
    settings.load_profile(_chosen())


def examples(ci: int) -> int:
    """A test's example count: ``ci`` in the ``ci`` profile, at most ``FAST_EXAMPLES`` else."""
    return ci if _chosen() == "ci" else min(ci, FAST_EXAMPLES)
