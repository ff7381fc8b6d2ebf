"""What a policy does to an episode's text and metadata: redact, refuse (naming kinds), off."""

from __future__ import annotations

import json

import pytest
from anneal_memory.errors import InvalidEpisodeError, InvalidInputError, SecretRefusedError
from anneal_memory.redaction import RedactionPolicy, RedactionSettings, clean_fields

KEY = "AKIAIOSFODNN7EXAMPLE"
META = json.dumps({"cmd": f"aws --key {KEY}", "nested": {"list": ["ok", "password=hunter22"]}})


def test_redact_replaces_in_text_and_nested_metadata_values() -> None:
    done = clean_fields(f"saw {KEY}", META, RedactionSettings())
    assert done.content == "saw [redacted:aws-access-key]"
    assert json.loads(done.metadata_json or "") == {
        "cmd": "aws --key [redacted:aws-access-key]",
        "nested": {"list": ["ok", "password=[redacted:password]"]},
    }
    assert done.kinds == ("aws-access-key", "password")


def test_nothing_found_returns_the_input_unchanged() -> None:
    meta = '{"b": 1, "a": "x"}'
    done = clean_fields("plain note", meta, RedactionSettings())
    assert (done.content, done.metadata_json, done.kinds) == ("plain note", meta, ())


def test_refuse_names_the_kinds_and_where_never_the_secret() -> None:
    settings = RedactionSettings(policy=RedactionPolicy.REFUSE)
    with pytest.raises(SecretRefusedError) as refused:
        clean_fields(f"saw {KEY}", META, settings)
    message = str(refused.value)
    assert refused.value.kinds == ("aws-access-key", "password")
    assert "content and metadata" in message
    assert "aws-access-key, password" in message
    assert "Nothing was written" in message
    assert KEY not in message
    assert "hunter22" not in message
    assert isinstance(refused.value, InvalidEpisodeError)


def test_refuse_personal_data_says_so() -> None:
    settings = RedactionSettings(policy=RedactionPolicy.REFUSE, personal=True)
    with pytest.raises(SecretRefusedError, match=r"holds personal data \(email\)"):
        clean_fields("mail jane@example.org", None, settings)


def test_off_keeps_everything() -> None:
    done = clean_fields(f"saw {KEY}", META, RedactionSettings(policy=RedactionPolicy.OFF))
    assert (done.content, done.metadata_json, done.kinds) == (f"saw {KEY}", META, ())


def test_policy_names() -> None:
    assert RedactionPolicy.parse("refuse") is RedactionPolicy.REFUSE
    with pytest.raises(InvalidInputError, match="use one of redact, refuse, off"):
        RedactionPolicy.parse("maybe")
    assert RedactionSettings().to_dict() == {"policy": "redact", "personal": False}
