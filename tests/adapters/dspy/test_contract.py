"""The adapter contract (tests/adapters/_contract.py), run against DSPy.

The fake model is DSPy's ``DummyLM`` (see conftest.py).
"""

from __future__ import annotations

import _contract
from anneal_memory import AgentMemory


def test_records_tool_result_and_answer(harness: _contract.AdapterHarness, memory: AgentMemory):
    _contract.check_records_tool_result_and_answer(harness, memory)


def test_second_run_recalls(harness: _contract.AdapterHarness, memory: AgentMemory):
    _contract.check_second_run_recalls(harness, memory)


def test_wrap_saves_one_graduation(harness: _contract.AdapterHarness, memory: AgentMemory):
    _contract.check_wrap_saves_one_graduation(harness, memory)


def test_empty_wrap_calls_no_model(harness: _contract.AdapterHarness, memory: AgentMemory):
    _contract.check_empty_wrap_calls_no_model(harness, memory)


def test_baton_store_downgrades(harness: _contract.AdapterHarness, memory: AgentMemory):
    _contract.check_baton_store_downgrades(harness, memory)
