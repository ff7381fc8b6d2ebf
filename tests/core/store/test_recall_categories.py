"""A question's category word meets the text's member (#29): *pets* finds *dog*, both backends."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from anneal_memory import AgentMemory, Store
from anneal_memory.explain import explain_recall, render_recall
from anneal_memory.store.recall import _categories
from anneal_memory.store.recall._categories import MAX_MEMBERS, category_members
from anneal_memory.store.recall._search import STOPWORDS, plan_search

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import backend_store, pg_url, store_on_both_backends, target  # noqa: F401
from stems import porter_stem


def test_members_are_plain_words_no_function_words_and_never_share_a_stem() -> None:
    # Two members with one stem would count one word twice in bm25; a member of two words
    # would be a phrase on SQLite and two words on PostgreSQL.
    clashes = []
    for name, members in _categories._table().items():
        assert re.fullmatch(r"[a-z]+", name)
        assert all(re.fullmatch(r"[a-z]+", member) for member in members), name
        assert set(members) & STOPWORDS == set(), name
        stems = [porter_stem(word) for word in (name, *members)]
        if len(set(stems)) != len(stems):
            clashes.append(name)
    assert clashes == []


def test_a_category_word_brings_its_members_bounded() -> None:
    assert {"dog", "cat", "hamster"} <= set(category_members("pets"))
    assert {"guitar", "piano"} <= set(category_members("instruments"))
    assert {"spain", "japan"} <= set(category_members("country"))
    assert all(len(category_members(name)) <= MAX_MEMBERS for name in _categories._table())
    assert category_members("database") == ()


def test_a_category_counts_as_one_word_and_a_member_asked_is_left_to_itself() -> None:
    plan = plan_search("which countries besides Spain did Ana visit?")
    assert plan is not None
    assert plan.terms == ("countries", "besides", "spain", "ana", "visit")
    countries = plan.forms_of("countries")
    assert countries[0] == "countries"
    assert "france" in countries
    assert "spain" not in countries
    assert plan.forms_of("spain") == ("spain",)
    assert plan.expression("countries").startswith('("countries" OR "france" OR ')


def _filler(store: Store, count: int) -> None:
    for i in range(count):
        store.record(f"Ana's note {i}: the garden needs water on day {i % 7}", "observation")


def test_the_member_meets_the_category_question(store: Store) -> None:
    _filler(store, 40)
    dog = store.record("Ana adopted a dog named Rex last spring", "observation")
    found = store.recall("What pets does Ana have?", limit=3)
    assert found.episodes[0].id == dog.id
    assert found.total_matching == 41


def test_members_stay_literal_and_the_count_counts_every_member(store: Store) -> None:
    store.record("The guitar is out of tune", "observation")
    store.record("Bought a piano", "observation")
    store.record("Instruments arrive Monday", "context")
    store.record("unrelated", "context")
    assert store.recall("instruments").total_matching == 3
    assert store.recall('instruments" OR "unrelated').total_matching == 4


def test_explain_shows_what_a_category_word_was_searched_as(store: Store) -> None:
    _filler(store, 10)
    dog = store.record("Ana adopted a dog named Rex last spring", "observation")
    found = explain_recall(store, "What pets does Ana have?", limit=5)
    assert found.results[0].id == dog.id
    assert found.searched["pets"][:2] == ("dog", "cat")
    assert "Searched pets as: pets, dog, cat," in render_recall(found)
    assert found.to_dict()["searched"]["pets"][0] == "dog"


def test_context_for_finds_the_member_too(store: Store) -> None:
    _filler(store, 20)
    dog = store.record("Ana adopted a dog named Rex last spring", "observation")
    block = AgentMemory(store, session_id="s-1").context_for("What pets does Ana have?")
    assert block.splitlines()[1].startswith(f"- ({dog.id}) [observation] Ana adopted a dog")
