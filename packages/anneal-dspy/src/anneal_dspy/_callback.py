"""``AnnealCallback``: a DSPy callback that records module answers and tool results."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from typing import Any

from anneal_memory import AgentMemory
from dspy.utils.callback import BaseCallback

from anneal_dspy._convert import answer_of

__all__ = ["FINISH_TOOL", "AnnealCallback"]

FINISH_TOOL = "finish"  # dspy.ReAct's own end-of-task tool: no knowledge in its output


class AnnealCallback(BaseCallback):
    """Record what a DSPy program produces into an ``AgentMemory``.

    The output of the outermost module call (the program you called, not the predictors
    inside it) is recorded as the answer; every tool call's result as a tool result.
    A module call that raised records no answer; a tool call that raised is recorded as an
    outcome saying the tool failed. Either is also the run's failure
    (``AgentMemory.run_failed``: the exposures recalled so far get result ``failure``).
    Add it with ``dspy.configure(callbacks=[...])`` or ``dspy.context(callbacks=[...])``;
    ``AnnealModule`` adds its own while it runs.

    Args:
        memory: The ``AgentMemory`` to record into.
        answer_fields: Output fields to record as the answer (default: every output except
            ``trajectory`` and ``reasoning``; one field is recorded as its value, several
            as JSON).
    """

    def __init__(self, memory: AgentMemory, *, answer_fields: Iterable[str] | None = None) -> None:
        self.memory = memory
        self.answer_fields = tuple(answer_fields) if answer_fields is not None else None
        # Per callback and per context (thread / asyncio task): the outermost module call.
        self._outermost: ContextVar[str | None] = ContextVar(
            f"anneal_dspy_{id(self)}", default=None
        )
        self._tools: dict[str, str] = {}

    def on_module_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        """Remember the outermost module call of this context."""
        if self._outermost.get() is None:
            self._outermost.set(call_id)

    def on_module_end(
        self, call_id: str, outputs: Any | None, exception: Exception | None = None
    ) -> None:
        """Record the outermost module call's answer."""
        if self._outermost.get() != call_id:
            return
        self._outermost.set(None)
        if exception is not None:
            self.memory.offloop.record(self.memory.run_failed, exception)
        elif outputs is not None:
            self.memory.record_answer(answer_of(_fields(outputs), self.answer_fields))

    def on_tool_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        """Remember which tool this call runs."""
        name = getattr(instance, "name", None)
        if isinstance(name, str) and name != FINISH_TOOL:
            self._tools[call_id] = name

    def on_tool_end(
        self, call_id: str, outputs: Any | None, exception: Exception | None = None
    ) -> None:
        """Record the tool's result, or that it failed (never its error text as knowledge)."""
        name = self._tools.pop(call_id, None)
        if name is None:
            return
        if exception is not None:
            self.memory.record_tool_failure(name, f"{type(exception).__name__}: {exception}")
            self.memory.offloop.record(self.memory.run_failed, f"tool {name} failed")
        else:
            self.memory.record_tool_result(name, outputs)


def _fields(outputs: Any) -> Mapping[str, object]:
    # A Prediction (or any Example-like object) has items(); anything else is one value.
    if isinstance(outputs, Mapping):
        return outputs
    items = getattr(outputs, "items", None)
    if callable(items):
        return dict(items())
    return {"output": outputs}
