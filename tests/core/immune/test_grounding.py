from __future__ import annotations

from anneal_memory.immune._grounding import grounding_words, rephrase_words, shared_words


def test_grounding_words_drop_short_tokens_and_stopwords() -> None:
    assert grounding_words("The DB is on an SSD; it WAS slow-ish") == {"ssd", "slow", "ish"}


def test_shared_words_are_case_and_punctuation_blind() -> None:
    assert shared_words("Pool-sizing fixed it", "pool sizing, FIXED!") == {
        "pool",
        "sizing",
        "fixed",
    }


def test_rephrase_list_also_drops_number_words_and_glue() -> None:
    assert "three" in grounding_words("three pools")
    assert rephrase_words("three pools always") == {"pools"}
