from __future__ import annotations

from anneal_memory.store.recall._search import MAX_QUERY_TERMS, plan_search, tokenize


def test_tokens_are_lowercase_words_without_punctuation() -> None:
    assert tokenize('Which "DB"? NEAR(a,b) col:val x* snake_case') == [
        "which",
        "db",
        "near",
        "a",
        "b",
        "col",
        "val",
        "x",
        "snake",
        "case",
    ]


def test_plan_quotes_every_term_and_keeps_a_phrase() -> None:
    plan = plan_search("the connection pool")
    assert plan is not None
    assert plan.phrase == '"the connection pool"'
    assert plan.terms == ("connection", "pool")
    assert plan.any_word == '"connection" OR "pool"'


def test_single_word_has_no_phrase_stage() -> None:
    plan = plan_search("pool!!")
    assert plan is not None
    assert plan.phrase is None
    assert plan.any_word == '"pool"'


def test_only_stopwords_are_kept_when_nothing_else_remains() -> None:
    plan = plan_search("what is it")
    assert plan is not None
    assert plan.terms == ("what", "is", "it")


def test_no_words_means_no_plan() -> None:
    assert plan_search("!!! ??? ***") is None
    assert plan_search("\x00") is None


def test_terms_are_deduplicated_and_capped() -> None:
    plan = plan_search(" ".join(f"w{i}" for i in range(200)) + " w1 w1")
    assert plan is not None
    assert len(plan.terms) == MAX_QUERY_TERMS
    assert len(set(plan.terms)) == len(plan.terms)
