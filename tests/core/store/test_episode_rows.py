"""Episodes read back from rows are whole ``Episode`` values (built through their slots, #25)."""

from __future__ import annotations

import dataclasses
import pickle

from anneal_memory import Episode, EpisodeType, Store


def test_a_recalled_episode_is_the_recorded_one_in_every_way(store: Store) -> None:
    first = store.record("the cache warms at boot", EpisodeType.OBSERVATION)
    recorded = store.record(
        "Chose the warm cache because cold starts hurt",
        EpisodeType.DECISION,
        source="planner",
        metadata={"ticket": "C-9", "weights": [1, 2.5]},
        idempotency_key="k-9",
        derived_from=[first.id],
    )
    found = store.recall("warm cache cold starts", limit=5).episodes
    read = next(e for e in found if e.id == recorded.id)
    for field in dataclasses.fields(Episode):
        assert getattr(read, field.name) == getattr(recorded, field.name), field.name
    assert read == recorded
    assert pickle.loads(pickle.dumps(read)) == recorded
    assert read.derived_from == (first.id,)
    assert read.type is EpisodeType.DECISION


def test_a_recalled_episode_stays_frozen(store: Store) -> None:
    store.record("frozen values stay frozen", EpisodeType.OBSERVATION)
    read = store.recall("frozen").episodes[0]
    try:
        read.content = "changed"  # type: ignore[misc]
    except dataclasses.FrozenInstanceError:
        pass
    else:  # pragma: no cover - the failure this test exists for
        raise AssertionError("an episode read from a row could be changed")
    assert read.content == "frozen values stay frozen"
