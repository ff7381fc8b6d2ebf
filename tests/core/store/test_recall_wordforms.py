"""Word forms the stemmer cannot join meet their question (#29), on both backends."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.store.recall import _wordforms
from anneal_memory.store.recall._search import STOPWORDS, plan_search
from anneal_memory.store.recall._wordforms import MAX_FORMS, word_forms

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import backend_store, pg_url, store_on_both_backends, target  # noqa: F401
from stems import porter_stem


def _families() -> set[tuple[str, ...]]:
    return set(_wordforms._table().values())


def test_no_two_forms_of_a_family_share_a_stem() -> None:
    # Two forms with one stem would count the same word twice in bm25.
    clashes = []
    for family in _families():
        stems = [porter_stem(form) for form in family]
        if len(set(stems)) != len(stems):
            clashes.append(family)
    assert clashes == []


def test_forms_are_plain_lowercase_words_and_never_function_words() -> None:
    forms = {form for family in _families() for form in family}
    assert all(re.fullmatch(r"[a-z]+", form) for form in forms)
    assert forms & STOPWORDS == set()


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("chose", {"choose", "chosen", "choice"}),
        ("children", {"child"}),
        ("mice", {"mouse"}),
        ("better", {"good", "best"}),
        ("wrote", {"write", "written"}),
        ("cheapest", {"cheap", "cheaper"}),
        ("optimised", {"optimize"}),
        ("colour", {"color"}),
        ("failure", {"fail"}),
    ],
)
def test_a_word_brings_its_family(word: str, expected: set[str]) -> None:
    forms = word_forms(word)
    assert forms[0] == word
    assert expected <= set(forms)
    assert len(forms) <= MAX_FORMS


def test_light_verbs_are_left_alone() -> None:
    assert word_forms("went") == ("went",)
    assert word_forms("made") == ("made",)


def test_a_regular_ending_is_looked_through_and_its_base_left_to_the_stemmer() -> None:
    assert word_forms("decided") == ("decided", "decision")
    assert word_forms("choosing")[0] == "choosing"
    assert "choose" not in word_forms("choosing")
    assert word_forms("news") == ("news",)
    assert word_forms("database") == ("database",)


def test_a_question_with_two_forms_of_one_word_searches_the_family_once() -> None:
    plan = plan_search("did we choose or was it chosen?")
    assert plan is not None
    assert plan.terms == ("choose",)
    expression = plan.expression("choose")
    assert expression.startswith('("choose" OR ')
    assert set(expression.strip("()").split(" OR ")) == {
        '"choose"',
        '"chose"',
        '"chosen"',
        '"choice"',
    }


def _filler(store: Store, count: int) -> None:
    for i in range(count):
        store.record(f"The database note {i}: replica lag was {i % 7} seconds", "observation")


def test_the_readme_question_finds_its_decision_among_many_database_notes(store: Store) -> None:
    _filler(store, 200)
    chosen = store.record(
        "Chose PostgreSQL as the database because ACID outweighs speed", "decision"
    )
    found = store.recall("which database did we choose?", limit=5).episodes
    assert found[0].id == chosen.id


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("Maya's children are allergic to peanuts", "is Maya's child allergic to anything?"),
        ("Found mice in the server closet", "was there a mouse in the server closet?"),
        ("The SSD array is far better for random reads", "is the SSD array good for random reads?"),
        ("Optimised the thumbnail pipeline with libvips", "how did we optimize thumbnails?"),
        ("The payment retries failed silently", "what caused the payment retry failure?"),
    ],
)
def test_an_irregular_or_derived_form_meets_its_question(
    store: Store, text: str, question: str
) -> None:
    _filler(store, 40)
    wanted = store.record(text, "observation")
    assert store.recall(question, limit=3).episodes[0].id == wanted.id


def test_every_form_counts_as_a_match_and_stays_literal(store: Store) -> None:
    store.record("We chose the blue one", "decision")
    store.record("Nobody has chosen yet", "question")
    store.record("Choose wisely", "context")
    store.record("unrelated", "context")
    assert store.recall("choice").total_matching == 3
    assert store.recall('chose" OR "unrelated').total_matching == 4
