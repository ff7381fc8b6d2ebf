"""``AnnealModule``: a DSPy module wrapper that recalls into an input field and wraps."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import dspy
from anneal_memory import AgentMemory, RecordingPolicy, Store, WrapOutcome
from dspy.utils.exceptions import AdapterParseError

from anneal_dspy._callback import AnnealCallback
from anneal_dspy._convert import query_text

if TYPE_CHECKING:
    from anneal_memory import AffectSource

__all__ = ["NOTHING_RECALLED", "AnnealModule", "CompressSession"]

NOTHING_RECALLED = "(nothing relevant in memory)"
FIELD_DESCRIPTION = (
    "Long-term memory: what earlier sessions consolidated and earlier episodes relevant to "
    "this input, each as (id) [type] content. Use it when relevant."
)


class CompressSession(dspy.Signature):
    """Compress this agent's working memory at the end of a session.

    Follow the instructions in the package exactly; the continuity is markdown only.
    """

    package: str = dspy.InputField(desc="The session's episodes and the rules for the file.")
    continuity: str = dspy.OutputField(desc="The new continuity file, markdown only.")


class AnnealModule(dspy.Module):
    """Wrap a DSPy program with living memory.

    Every call recalls the continuity file and the episodes relevant to the call's inputs
    and passes them to ``program`` as one more input field (``memory`` by default), which
    this wrapper adds to the signature of each predictor of a copy of ``program``; the
    program you pass in is left unchanged. While the program runs, an
    :class:`AnnealCallback` records its answer and tool results. :meth:`wrap` / :meth:`awrap`
    consolidate the session with the configured ``dspy.LM`` (or the one you pass).

    ``program``'s ``forward`` must accept the extra field as a keyword: ``dspy.Predict``,
    ``dspy.ChainOfThought`` and ``dspy.ReAct`` do (they take ``**kwargs``); a custom module
    declares a ``memory`` parameter and passes it to its predictors.

    Args:
        program: The DSPy module to wrap.
        memory: An ``AgentMemory``, a ``Store``, or a database path.
        field: The name of the input field that carries the recalled memory.
        session_id: This session's id for the wrap (needed on baton-protected stores).
            Ignored when ``memory`` is an ``AgentMemory``.
        policy: Recording policy when ``memory`` is not an ``AgentMemory``.
        record: Record answers and tool results (set False when an ``AnnealCallback`` for
            the same memory is already configured globally).
        answer_fields: Output fields recorded as the answer (see ``AnnealCallback``).
        affect: Optional affect self-report passed to the save (see ``AgentMemory.wrap``).

    Attributes:
        program: The copy of ``program`` with the memory field.
        memory: The ``AgentMemory`` this module drives.
        last_wrap: The outcome of the most recent wrap, ``None`` before the first.
    """

    def __init__(
        self,
        program: dspy.Module,
        memory: AgentMemory | Store | str | os.PathLike[str],
        *,
        field: str = "memory",
        session_id: str | None = None,
        policy: RecordingPolicy | None = None,
        record: bool = True,
        answer_fields: Iterable[str] | None = None,
        affect: AffectSource = None,
    ) -> None:
        super().__init__()
        self.memory = AgentMemory.of(memory, session_id=session_id, policy=policy)
        self.field = field
        self.program = _with_input_field(program.deepcopy(), field)
        self.callback = AnnealCallback(self.memory, answer_fields=answer_fields) if record else None
        self.affect = affect
        self.last_wrap: WrapOutcome | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> AnnealModule:
        # Optimizers copy programs; the copy shares this module's memory (a live database).
        clone = self.__class__.__new__(self.__class__)
        clone.__dict__.update(self.__dict__)
        clone.program = self.program.deepcopy()
        return clone

    # -- recall ------------------------------------------------------------------------

    def recall(self, **inputs: Any) -> str:
        """Return the memory block for a call with ``inputs`` (what the field carries)."""
        query = query_text(inputs, skip=(self.field,))
        # Each call is its own turn (a fresh key): the field carries the block through
        # every step of the program, so nothing is recalled twice within one call.
        return self.memory.turn_context(query, turn=object()) or NOTHING_RECALLED

    def _callbacks(self) -> list[Any]:
        active = list(dspy.settings.get("callbacks", None) or [])
        if self.callback is not None and self.callback not in active:
            active.append(self.callback)
        return active

    def forward(self, **inputs: Any) -> Any:
        """Call the program with the recalled memory as one more input."""
        inputs.setdefault(self.field, self.recall(**inputs))
        with dspy.context(callbacks=self._callbacks()):
            return self.program(**inputs)

    async def aforward(self, **inputs: Any) -> Any:
        """Async :meth:`forward`."""
        inputs.setdefault(self.field, self.recall(**inputs))
        with dspy.context(callbacks=self._callbacks()):
            return await self.program.acall(**inputs)

    # -- session end -------------------------------------------------------------------

    def wrap(self, lm: dspy.BaseLM | None = None) -> WrapOutcome:
        """Wrap the session now with ``lm`` (default: the configured ``dspy.LM``).

        Raises:
            RuntimeError: No LM was given and none is configured.
        """
        chosen = _lm(lm)

        def compress(package: str) -> str:
            with dspy.context(lm=chosen, callbacks=_without_anneal()):
                try:
                    return str(dspy.Predict(CompressSession)(package=package).continuity)
                except AdapterParseError as exc:
                    return str(exc.lm_response)

        self.last_wrap = self.memory.wrap(compress, affect=self.affect)
        return self.last_wrap

    async def awrap(self, lm: dspy.BaseLM | None = None) -> WrapOutcome:
        """Async :meth:`wrap`.

        Raises:
            RuntimeError: No LM was given and none is configured.
        """
        chosen = _lm(lm)

        async def compress(package: str) -> str:
            with dspy.context(lm=chosen, callbacks=_without_anneal()):
                try:
                    prediction = await dspy.Predict(CompressSession).acall(package=package)
                except AdapterParseError as exc:
                    return str(exc.lm_response)
            return str(prediction.continuity)

        self.last_wrap = await self.memory.awrap(compress, affect=self.affect)
        return self.last_wrap


def _with_input_field(program: dspy.Module, field: str) -> dspy.Module:
    for _, predictor in program.named_predictors():
        signature = predictor.signature
        if field not in signature.input_fields:
            extra = dspy.InputField(desc=FIELD_DESCRIPTION)
            predictor.signature = signature.prepend(field, extra, type_=str)
    return program


def _lm(lm: dspy.BaseLM | None) -> dspy.BaseLM:
    chosen = lm or dspy.settings.lm
    if chosen is None:
        raise RuntimeError("no LM to wrap with: dspy.configure(lm=...) or pass wrap(lm)")
    return chosen


def _without_anneal() -> list[Any]:
    # The wrap's own model call is not an answer of the agent.
    callbacks = dspy.settings.get("callbacks", None) or []
    return [c for c in callbacks if not isinstance(c, AnnealCallback)]
