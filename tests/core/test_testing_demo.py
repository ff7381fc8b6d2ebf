"""The shipped demo compressor writes a valid continuity the immune system can judge."""

from __future__ import annotations

from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.testing import DEMO_GROUNDED, DEMO_INVENTED, demo_compress


def test_demo_compressor_graduates_one_and_gets_one_demoted(store: Store) -> None:
    store.record("The cache warmed slowly after every deploy of the api", "observation")
    store.record("Prewarming the cache made deploys of the api fast again", "outcome")
    first = prepare_wrap(store)
    text = demo_compress(first.text or "")
    assert text == demo_compress(first.text or "")  # deterministic
    result = validated_save_continuity(store, text, wrap_token=first.wrap_token)
    assert [f.pattern for f in result.findings if f.code.value == "ungrounded"] == [DEMO_INVENTED]
    store.record("Another deploy of the api: the prewarmed cache stayed fast", "outcome")
    second = prepare_wrap(store)
    result = validated_save_continuity(store, demo_compress(second.text or ""))
    graduated = [f.pattern for f in result.findings if f.code.value == "graduated"]
    assert graduated == [DEMO_GROUNDED]
    assert result.graduations_validated == 1
    assert result.demotions == 1
