"""UTF-8 in and out of a real process, whatever its environment says about encodings."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


def test_utf8_round_trip_even_when_the_environment_says_ascii(run_cli, cli_env):
    env = cli_env(PYTHONIOENCODING="ascii", LC_ALL="C", LANG="C")
    text = "naïve café 🎉 記憶は生きている 기억"
    recorded = run_cli("record", "-", "--json", stdin=text, env=env).assert_ok().json()
    assert recorded["content"] == text
    assert run_cli("search", "記憶は生きている", "--json", env=env).json()["count"] == 1
    assert text in run_cli("get", recorded["id"], env=env).assert_ok().out
    assert text in run_cli("episodes", env=env).assert_ok().out
    as_argument = run_cli("record", "emoji 🦀 arg", "--json", env=env).assert_ok().json()
    assert as_argument["content"] == "emoji 🦀 arg"
