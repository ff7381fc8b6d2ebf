"""The adapter contract (tests/adapters/_contract.py), run against LlamaIndex.

The fake model is llama-index-core's ``MockFunctionCallingLLM`` (see conftest.py).
"""

from _contract import (  # noqa: F401 - pytest collects the shared contract tests here
    test_a_failing_wrap_model_never_fails_the_run,
    test_a_locked_store_never_fails_the_run,
    test_a_locked_store_never_stalls_the_event_loop,
    test_an_unparseable_wrap_reply_is_refused,
    test_an_unwritable_continuity_never_fails_the_run,
    test_baton_store_downgrades,
    test_concurrent_runs_never_echo_their_own_tool_result,
    test_empty_wrap_calls_no_model,
    test_records_tool_result_and_answer,
    test_second_run_recalls,
    test_session_two_in_a_new_process_gets_session_one,
    test_wrap_saves_one_graduation,
)
