"""Every text argument of the public Store calls passes one check, the same on both engines.

Issue #24 item 13: ``recall(source="\\ud800")`` raised ``UnicodeEncodeError`` on both engines;
a NUL in ``source`` was a database failure on PostgreSQL and matched nothing on SQLite. Now a
NUL, a lone surrogate or an over-long text is the call's own input error naming the argument,
raised before anything is read or written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from anneal_memory import AgentMemory, AnnealMemoryError, EpisodeType, Store
from anneal_memory.errors import InvalidEpisodeError, InvalidInputError, InvalidQueryError
from backends import (  # noqa: F401 - fixtures
    audit_entries,
    backend_store,
    pg_url,
    store_on_both_backends,
    target,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

Call = Callable[[Store, str, str], Any]

# (argument name, error class, the call with that argument set to the text)
CALLS: list[tuple[str, str, type[InvalidInputError], Call]] = [
    ("record", "content", InvalidEpisodeError, lambda s, i, v: s.record(v, "observation")),
    ("record", "source", InvalidEpisodeError, lambda s, i, v: s.record("x", "context", source=v)),
    ("record", "idempotency_key", InvalidEpisodeError,
     lambda s, i, v: s.record("x", "context", idempotency_key=v)),
    ("record", "state_key", InvalidEpisodeError,
     lambda s, i, v: s.record("x", "context",
     state_key=v)),
    ("record", "scope", InvalidEpisodeError, lambda s, i, v: s.record("x", "context", scope=v)),
    ("record", "supersedes[0]", InvalidEpisodeError,
     lambda s, i, v: s.record("x", "context", supersedes=[v])),
    ("record", "derived_from[0]", InvalidEpisodeError,
     lambda s, i, v: s.record("x", "context", derived_from=[v])),
    ("record", "timestamp", InvalidEpisodeError,
     lambda s, i, v: s.record("x", "context",
     timestamp=v)),
    ("recall", "source", InvalidQueryError, lambda s, i, v: s.recall(source=v)),
    ("recall", "since", InvalidQueryError, lambda s, i, v: s.recall(since=v)),
    ("recall", "scope", InvalidQueryError, lambda s, i, v: s.recall(scope=v)),
    ("get", "episode_id", InvalidEpisodeError, lambda s, i, v: s.get(v)),
    ("get", "scope", InvalidEpisodeError, lambda s, i, v: s.get(i, scope=v)),
    ("delete", "episode_id", InvalidEpisodeError, lambda s, i, v: s.delete(v)),
    ("set_state_key", "key", InvalidEpisodeError, lambda s, i, v: s.set_state_key(i, v)),
    ("set_trust", "episode_id", InvalidEpisodeError, lambda s, i, v: s.set_trust(v, "agent")),
    ("supersede", "old_id", InvalidEpisodeError, lambda s, i, v: s.supersede(v, i)),
    ("unsupersede", "new_id", InvalidEpisodeError, lambda s, i, v: s.unsupersede(i, v)),
    ("effective_trusts", "ids[0]", InvalidEpisodeError, lambda s, i, v: s.effective_trusts([v])),
    ("state_key_report", "key", InvalidQueryError, lambda s, i, v: s.state_key_report(v)),
    ("read_audit", "event", InvalidQueryError, lambda s, i, v: s.read_audit(event=v)),
    ("read_audit", "since", InvalidQueryError, lambda s, i, v: s.read_audit(since=v)),
    ("load_continuity", "scope", InvalidInputError, lambda s, i, v: s.load_continuity(v)),
    ("set_redaction", "actor", InvalidInputError, lambda s, i, v: s.set_redaction(actor=v)),
]  # fmt: skip
IDS = [f"{c[0]}.{c[1]}" for c in CALLS]
BAD = {
    "surrogate": ("a\ud800b", "lone surrogate (U+D800) at position 1"),
    "nul": ("a\x00b", "NUL character at position 1"),
    "over-long": ("x" * 70_000, "70,000 characters; the limit is"),
}


def _seeded(store: Store) -> str:
    return store.record("the seed episode", EpisodeType.CONTEXT, state_key="seed.key").id


def _trail_length(store: Store) -> int:
    return len(audit_entries(store))


@pytest.mark.parametrize("bad", sorted(BAD))
@pytest.mark.parametrize(("call", "arg", "error", "fn"), CALLS, ids=IDS)
def test_a_bad_text_argument_is_refused_by_name(
    store: Store, call: str, arg: str, error: type[InvalidInputError], fn: Call, bad: str
) -> None:
    seed = _seeded(store)
    before = (store.status().total_episodes, _trail_length(store))
    text, says = BAD[bad]
    with pytest.raises(error) as caught:
        fn(store, seed, text)
    message = str(caught.value)
    assert message.startswith(f"{arg} "), message
    if (arg, bad) == ("content", "over-long"):
        says = "70,000 bytes of UTF-8, over the 65,536-byte limit"
    assert says in message
    assert (store.status().total_episodes, _trail_length(store)) == before


@pytest.mark.parametrize("bad", sorted(BAD))
def test_any_keyword_is_still_valid_and_matches_nothing_odd(store: Store, bad: str) -> None:
    _seeded(store)
    assert store.recall(BAD[bad][0]).total_matching == 0


def test_agent_memory_searches_a_prompt_with_nul_or_surrogates(store: Store) -> None:
    memory = AgentMemory(store)
    memory.record("the deploy pipeline broke on friday")
    assert "deploy pipeline" in memory.context_for("why did the deploy\x00pipeline \ud800 break")
    with pytest.raises(InvalidEpisodeError, match=r"^source contains a NUL"):
        memory.record("x", source="a\x00b")


# Text that is almost always fine, with now and then a character neither engine can take.
_ODD = st.sampled_from(["\x00", "\ud800", "\udfff", "\ud83d"])
_TEXT = st.lists(st.one_of(st.characters(), _ODD), max_size=12).map("".join)


def _verdict(fn: Call, store: Store, seed: str, text: str) -> str:
    try:
        fn(store, seed, text)
    except InvalidInputError as exc:
        return f"refused: {type(exc).__name__}"
    except AnnealMemoryError as exc:  # documented, e.g. EpisodeNotFoundError for a free id
        return f"store error: {type(exc).__name__}"
    return "accepted"


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=_TEXT,
    which=st.sampled_from(CALLS),
)
def test_any_text_argument_is_accepted_or_refused_as_input(
    store: Store, text: str, which: tuple[str, str, type[InvalidInputError], Call]
) -> None:
    # The examples share one store. Never an engine error or a UnicodeEncodeError, and
    # text no engine can hold is always the call's own refusal, never a silent answer.
    _call, arg, error, fn = which
    verdict = _verdict(fn, store, "00000000", text)
    unholdable = "\x00" in text or any(0xD800 <= ord(c) <= 0xDFFF for c in text)
    if unholdable:
        assert verdict == f"refused: {error.__name__}", (arg, text)


def _shapes(a: int, /, b: str, *rest: int, c: int = 0, **more: object) -> None: ...


def _plain(a: int, b: str = "") -> None: ...


def _keyword_only(*, a: int, b: int = 0) -> None: ...


@pytest.mark.parametrize("function", [_shapes, _plain, _keyword_only, len, sorted, str.join])
def test_parameter_names_read_from_the_code_object_agree_with_inspect(
    function: Callable[..., Any],
) -> None:
    import inspect

    from anneal_memory.store._arguments import parameter_names

    assert parameter_names(function) == list(inspect.signature(function).parameters)


def test_every_guarded_store_method_is_named_as_inspect_names_it() -> None:
    import inspect

    from anneal_memory.store._arguments import parameter_names

    members = [getattr(Store, name) for name in dir(Store) if not name.startswith("_")]
    guarded = [m for m in members if callable(m) and hasattr(m, "__wrapped__")]
    assert len(guarded) >= 15  # the check sees the wrapped public calls
    for method in guarded:
        original = method.__wrapped__
        assert parameter_names(original) == list(inspect.signature(original).parameters)
