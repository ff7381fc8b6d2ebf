"""The session-end wrap as one sequence, shared by the sync and the async driver.

``wrap_steps`` is a generator: it prepares the wrap, then *yields* each request for the
caller's model (compress the package, optionally self-report affect) and receives the reply,
then saves. ``run_sync`` and ``run_async`` answer those requests with a sync or async
callable, so both paths run exactly the same steps. Any exception thrown in while the wrap is
open cancels that wrap first, so a failed model call never leaves a wrap blocking the next one.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import enum
import inspect
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from anneal_memory.errors import (
    AnnealMemoryError,
    ContinuityRejectedError,
    GateError,
    InvalidInputError,
    WrapError,
    WrapInProgressError,
)

if TYPE_CHECKING:
    from anneal_memory.agent._types import AffectSource, Compressor
    from anneal_memory.associations import Affect
    from anneal_memory.continuity import SaveResult
    from anneal_memory.immune import Finding
    from anneal_memory.store import Store

__all__ = [
    "Ask",
    "WrapOutcome",
    "WrapOutcomeStatus",
    "run_async",
    "run_sync",
    "strip_fence",
    "waiting_episodes",
    "wrap_steps",
]

_MIN_RETRY_ROOM = 1000
# Wrap steps of every AgentMemory in the process (made on the first async wrap).
_STEPS: list[concurrent.futures.ThreadPoolExecutor] = []


class WrapOutcomeStatus(str, enum.Enum):
    """How a wrap ended."""

    SAVED = "saved"
    EMPTY = "empty"
    DOWNGRADED = "downgraded"
    REFUSED = "refused"
    FAILED = "failed"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True, kw_only=True)
class WrapOutcome:
    """What ``AgentMemory.wrap`` did.

    Attributes:
        status: ``saved``, ``empty`` (nothing to compress), ``downgraded`` (this session may
            only capture; the message says what the operator can do), ``refused``, or
            ``failed`` (the model or the store raised; the message names the error).
        message: One human-readable sentence or paragraph explaining the status.
        attempts: How many times the model was asked to compress (0, 1 or 2).
        episodes_compressed: Episodes folded into the continuity by the save.
        graduations_validated: Pattern graduations the immune system validated.
        findings: Every immune-system finding of the save (or of the last refusal).
        wrap_id: The saved wrap's id.
        save: The full save result, when saved.
    """

    status: WrapOutcomeStatus
    message: str
    attempts: int = 0
    episodes_compressed: int = 0
    graduations_validated: int = 0
    findings: tuple[Finding, ...] = ()
    wrap_id: int | None = None
    save: SaveResult | None = None

    @property
    def saved(self) -> bool:
        """True when a continuity was saved."""
        return self.status is WrapOutcomeStatus.SAVED


@dataclass(frozen=True, slots=True)
class Ask:
    """A request for the caller's model: ``compress`` the text, or self-report ``affect``."""

    kind: str
    text: str


def waiting_episodes(store: Store, scope: str) -> int:
    """How many episodes of ``scope`` wait for a wrap (the store's count without wraps)."""
    from anneal_memory.continuity import unwrapped_in_scope
    from anneal_memory.errors import BackendNotSupportedError

    try:
        return unwrapped_in_scope(store, scope)
    except BackendNotSupportedError:  # no wraps on this backend yet: the store's count
        return store.status().episodes_since_wrap


def strip_fence(reply: str) -> str:
    """Remove one code fence wrapped around a whole reply (models often add ```markdown)."""
    text = reply.strip()
    if text.startswith("```") and text.endswith("```") and "\n" in text:
        inner = text[text.index("\n") + 1 : -3]
        return inner.strip("\n")
    return text


def _finding_line(finding: object) -> str:
    code = getattr(finding, "code", "")
    code = getattr(code, "value", code)  # the code's value (``missing-section``), not the enum
    message = getattr(finding, "message", str(finding))
    return f"- {code}: {message}" if code else f"- {message}"


def _retry_prompt(package: str, refusal: ContinuityRejectedError, budget: int) -> str:
    """The package and the refusal, within ``budget`` characters (the package's own budget).

    The package was built with room for this part; when the refusal is longer, its last
    lines are cut and the cut is said. A package already over budget (only its fixed part
    can make it so) gets at most ``_MIN_RETRY_ROOM`` characters of refusal.
    """
    head = ["", "", "---", "", "## Your previous continuity was refused", "", str(refusal)]
    head += [_finding_line(f) for f in refusal.findings]
    tail = "\n\nFix these problems and return the whole corrected continuity markdown only."
    room = max(budget - len(package), _MIN_RETRY_ROOM) - len(tail)
    body = "\n".join(head)
    if len(body) > room:
        note = "\n(... the rest of the refusal was cut to keep the prompt within its budget)"
        body = body[: max(0, room - len(note))] + note
    return package + body + tail


def _cancel_quietly(store: Store, token: str | None, session_id: str | None, scope: str) -> None:
    from anneal_memory.continuity import wrap_cancel

    # Already closed by someone else, or the gate moved: nothing is left to undo.
    with contextlib.suppress(AnnealMemoryError):
        wrap_cancel(store, wrap_token=token, session_id=session_id, scope=scope)


def _saved(save: SaveResult, attempts: int, left: int) -> WrapOutcome:
    waiting = (
        f" {left} more episode(s) did not fit the package budget and wait for the next wrap."
        if left
        else ""
    )
    return WrapOutcome(
        status=WrapOutcomeStatus.SAVED,
        message=(
            f"Saved the continuity: {save.episodes_compressed} episode(s) compressed, "
            f"{save.graduations_validated} graduation(s) validated"
            + (" (after one retry)." if attempts > 1 else ".")
            + waiting
        ),
        attempts=attempts,
        episodes_compressed=save.episodes_compressed,
        graduations_validated=save.graduations_validated,
        findings=tuple(save.findings),
        wrap_id=save.wrap_id,
        save=save,
    )


def _continuity_from(reply: object) -> str:
    if not isinstance(reply, str):
        raise InvalidInputError(
            f"compress must return the continuity markdown as str, got {type(reply).__name__}"
        )
    return strip_fence(reply)


def wrap_steps(
    store: Store,
    session_id: str | None,
    *,
    ask_affect: bool,
    affect: Affect | None = None,
    scope: str = "",
) -> Generator[Ask, Any, WrapOutcome]:
    """Run one wrap of ``scope``, yielding model requests; see the module docstring.

    Raises:
        InvalidInputError: ``compress`` returned something other than text.
    """
    from anneal_memory.continuity import prepare_wrap, validated_save_continuity

    try:
        prepared = prepare_wrap(store, session_id=session_id, scope=scope)
    except WrapInProgressError as exc:
        return WrapOutcome(status=WrapOutcomeStatus.REFUSED, message=str(exc))
    if prepared.status == "empty":
        return WrapOutcome(status=WrapOutcomeStatus.EMPTY, message=prepared.message)
    if prepared.status == "downgraded":
        return WrapOutcome(status=WrapOutcomeStatus.DOWNGRADED, message=prepared.message)
    token, package = prepared.wrap_token, prepared.text or ""
    budget = prepared.package.max_package_chars if prepared.package else len(package)
    prompt, attempts, refusal = package, 0, None
    try:
        while attempts < 2:
            attempts += 1
            text = _continuity_from((yield Ask("compress", prompt)))
            if ask_affect and attempts == 1:
                affect = yield Ask("affect", text)
            try:
                save = validated_save_continuity(
                    store, text, wrap_token=token, session_id=session_id, affect=affect, scope=scope
                )
            except ContinuityRejectedError as exc:
                refusal = exc
                prompt = _retry_prompt(package, exc, budget)
                continue
            return _saved(save, attempts, prepared.episodes_left)
    except (WrapError, GateError) as exc:
        _cancel_quietly(store, token, session_id, scope)
        return WrapOutcome(status=WrapOutcomeStatus.REFUSED, message=str(exc), attempts=attempts)
    except BaseException:
        _cancel_quietly(store, token, session_id, scope)
        raise
    _cancel_quietly(store, token, session_id, scope)
    return WrapOutcome(
        status=WrapOutcomeStatus.REFUSED,
        message=f"The continuity was refused twice; nothing was saved. Last refusal: {refusal}",
        attempts=attempts,
        findings=cast("tuple[Finding, ...]", refusal.findings if refusal is not None else ()),
    )


def _handler(ask: Ask, compress: Compressor, affect: AffectSource) -> Callable[[str], object]:
    handler = compress if ask.kind == "compress" else affect
    if not callable(handler):
        raise InvalidInputError(f"no callable to answer a {ask.kind!r} request")
    return handler


def _answer_sync(ask: Ask, compress: Compressor, affect: AffectSource) -> object:
    result = _handler(ask, compress, affect)(ask.text)
    if not inspect.isawaitable(result):
        return result
    import asyncio  # imported here to keep `import anneal_memory` fast

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_awaited(result))
    if inspect.iscoroutine(result):
        result.close()
    raise InvalidInputError(
        "an async compress or affect callable cannot run inside a running event loop "
        "from the sync wrap(); use `await memory.awrap(...)` instead"
    )


async def _awaited(result: Awaitable[object]) -> object:
    return await result


def _drive(gen: Generator[Ask, Any, WrapOutcome], answer: Callable[[Ask], object]) -> WrapOutcome:
    reply: object = None
    error: BaseException | None = None
    while True:
        try:
            ask = gen.throw(error) if error is not None else gen.send(reply)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        error = None
        try:
            reply = answer(ask)
        except BaseException as exc:  # even a cancel/interrupt must close the open wrap
            error = exc


def run_sync(
    gen: Generator[Ask, Any, WrapOutcome], compress: Compressor, affect: AffectSource
) -> WrapOutcome:
    """Drive ``wrap_steps`` with sync callables (async ones run via ``asyncio.run``)."""
    return _drive(gen, lambda ask: _answer_sync(ask, compress, affect))


async def run_async(
    gen: Generator[Ask, Any, WrapOutcome], compress: Compressor, affect: AffectSource
) -> WrapOutcome:
    """Drive ``wrap_steps`` with sync or async callables, awaiting what they return.

    The generator's steps (the store's prepare, save and cancel) run in a worker thread, so
    the event loop never waits on the store.
    """
    reply: object = None
    error: BaseException | None = None
    while True:
        ask = await _step_off_loop(gen, reply, error)
        if isinstance(ask, _Done):
            return ask.outcome
        error = None
        try:
            reply = _handler(ask, compress, affect)(ask.text)
            if inspect.isawaitable(reply):
                reply = await reply
        except BaseException as exc:  # even a task cancellation must close the open wrap
            error = exc


async def _step_off_loop(
    gen: Generator[Ask, Any, WrapOutcome], reply: object, error: BaseException | None
) -> Ask | _Done:
    """One step of ``gen`` in a worker thread; a cancelled caller still closes the open wrap."""

    def step() -> Ask | _Done:
        try:
            return gen.throw(error) if error is not None else gen.send(reply)
        except StopIteration as stop:  # a future cannot carry StopIteration across threads
            return _Done(stop.value)

    import asyncio  # only async wraps get here: importing the package stays light

    if not _STEPS:
        _STEPS.append(
            concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="anneal-wrap")
        )
    future = _STEPS[0].submit(step)
    try:
        return await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        # The step finishes in its thread; then the open wrap is cancelled before this
        # cancellation goes on, so a wrap started next never finds it still open.
        closing = concurrent.futures.Future[None]()
        future.add_done_callback(lambda _: _close_into(gen, closing))
        await asyncio.shield(asyncio.wrap_future(closing))
        raise


@dataclass(frozen=True)
class _Done:
    outcome: WrapOutcome


def _close_into(
    gen: Generator[Ask, Any, WrapOutcome], done: concurrent.futures.Future[None]
) -> None:
    import asyncio

    with contextlib.suppress(BaseException):
        gen.throw(asyncio.CancelledError())
    with contextlib.suppress(BaseException):
        gen.close()
    done.set_result(None)
