"""The adapter contract (tests/adapters/_contract.py), run against LlamaIndex.

The fake model is llama-index-core's ``MockFunctionCallingLLM`` (see conftest.py).
"""

from _contract import (  # noqa: F401 - pytest collects the shared contract tests here
    test_baton_store_downgrades,
    test_empty_wrap_calls_no_model,
    test_records_tool_result_and_answer,
    test_second_run_recalls,
    test_wrap_saves_one_graduation,
)
