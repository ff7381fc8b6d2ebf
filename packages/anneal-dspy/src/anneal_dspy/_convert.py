"""Pure conversions between DSPy call data and the text anneal-memory records and recalls.

Nothing here imports DSPy, so these helpers are tested without the framework.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["SKIPPED_OUTPUTS", "answer_of", "query_text"]

# Outputs that describe how a module worked, not what it concluded.
SKIPPED_OUTPUTS = frozenset({"trajectory", "reasoning", "rationale"})


def query_text(inputs: Mapping[str, object], skip: Iterable[str] = ()) -> str:
    """Return a module call's inputs as one recall query (text values, in order)."""
    skipped = set(skip)
    parts = [v if isinstance(v, str) else str(v) for k, v in inputs.items() if k not in skipped]
    return "\n".join(part for part in parts if part.strip())


def answer_of(outputs: Mapping[str, object], fields: Iterable[str] | None = None) -> object:
    """Pick what to record as a module's answer from its output fields.

    With ``fields``, those outputs (in that order). Otherwise every output but the
    working (trajectory, reasoning). One output is returned as its value; several as a
    ``{name: value}`` mapping (recorded as JSON); none as "".
    """
    names = list(fields) if fields is not None else [k for k in outputs if k not in SKIPPED_OUTPUTS]
    picked = {name: outputs[name] for name in names if name in outputs}
    if not picked:
        return ""
    if len(picked) == 1:
        return next(iter(picked.values()))
    return picked
