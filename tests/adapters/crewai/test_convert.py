from anneal_crewai._convert import (
    LABEL_CHARS,
    MEMORY_HEADER,
    has_memory_message,
    insert_position,
    memory_message,
    message_text,
    query_text,
    short_label,
)

SYSTEM = {"role": "system", "content": "You are Ops."}
USER = {"role": "user", "content": "Current Task: Is billing deployed?"}


def test_message_text_keeps_only_text_parts():
    parts = [{"type": "text", "text": "What is in"}, {"type": "image_url"}, "this log?"]
    assert message_text({"role": "user", "content": parts}) == "What is in\nthis log?"
    assert message_text({"role": "user", "content": "plain"}) == "plain"
    assert message_text({"role": "assistant", "content": None}) == ""


def test_query_is_the_task_description_else_the_first_user_message():
    assert query_text("Is billing deployed?", [SYSTEM, USER]) == "Is billing deployed?"
    assert query_text(None, [SYSTEM, USER]) == USER["content"]
    assert query_text("   ", [SYSTEM, USER]) == USER["content"]
    assert query_text(None, [SYSTEM]) == ""


def test_memory_message_joins_the_non_empty_blocks_under_the_header():
    message = memory_message(" # Ops continuity \n", "", None, "Relevant memory:\n- (ab12cd34) x")
    assert message == {
        "role": "system",
        "content": f"{MEMORY_HEADER}\n\n# Ops continuity\n\nRelevant memory:\n- (ab12cd34) x",
    }
    assert memory_message("", None, "  ") is None


def test_a_conversation_with_the_memory_message_is_recognised():
    message = memory_message("Relevant memory:\n- (ab12cd34) x")
    assert message is not None
    assert has_memory_message([SYSTEM, message, USER])
    assert not has_memory_message([SYSTEM, USER])
    assert not has_memory_message([{"role": "user", "content": message["content"]}])


def test_memory_goes_after_the_leading_system_messages():
    assert insert_position([SYSTEM, USER]) == 1
    assert insert_position([SYSTEM, SYSTEM, USER, SYSTEM]) == 2
    assert insert_position([USER]) == 0
    assert insert_position([SYSTEM]) == 1
    assert insert_position([]) == 0


def test_short_label_is_one_bounded_line():
    assert short_label("  Ops\n engineer ") == "Ops engineer"
    long = short_label("x" * 500)
    assert long is not None
    assert len(long) == LABEL_CHARS
    assert long.endswith("…")
    assert short_label("") is None
    assert short_label(None) is None
