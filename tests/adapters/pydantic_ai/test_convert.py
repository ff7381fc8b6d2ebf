import pytest

pytest.importorskip("pydantic_ai")

from anneal_pydantic_ai._convert import prompt_text


def test_prompt_text_of_a_string_prompt_is_the_string():
    assert prompt_text("Is billing deployed?") == "Is billing deployed?"


def test_prompt_text_keeps_only_text_parts_of_a_multimodal_prompt():
    image = object()
    assert prompt_text(["What is in", image, "this log?"]) == "What is in\nthis log?"


def test_prompt_text_of_no_prompt_is_empty():
    assert prompt_text(None) == ""
    assert prompt_text([]) == ""
