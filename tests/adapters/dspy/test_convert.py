import pytest

pytest.importorskip("dspy")

from anneal_dspy._convert import answer_of, query_text


def test_query_text_joins_the_inputs_in_order_and_skips_some():
    inputs = {"question": "Which port?", "memory": "old", "limit": 3, "blank": "  "}
    assert query_text(inputs, skip=["memory"]) == "Which port?\n3"


def test_answer_of_one_output_is_its_value():
    assert answer_of({"reasoning": "r", "trajectory": {}, "answer": "6543"}) == "6543"
    assert answer_of({"count": 3}) == 3


def test_answer_of_several_outputs_is_a_mapping():
    assert answer_of({"answer": "a", "confidence": 0.9}) == {"answer": "a", "confidence": 0.9}


def test_answer_of_named_fields_picks_those_in_order():
    outputs = {"reasoning": "r", "answer": "a", "sources": ["x"]}
    assert answer_of(outputs, ["sources", "missing"]) == ["x"]
    assert answer_of(outputs, ["reasoning", "answer"]) == {"reasoning": "r", "answer": "a"}


def test_answer_of_nothing_to_record_is_empty():
    assert answer_of({"reasoning": "r"}) == ""
    assert answer_of({"answer": "a"}, []) == ""
