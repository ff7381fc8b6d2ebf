"""Drift probes as text (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anneal_memory.probes._types import DriftStatus

__all__ = ["drift_line"]


def drift_line(drift: Mapping[str, Any]) -> str:
    """``Drift probes: 2 held, 1 lost (probe-003)`` from a save result's ``drift``."""
    counts = drift.get("counts", {})
    parts = []
    for status in DriftStatus:
        n = int(counts.get(status.value, 0))
        if n:
            ids = drift.get(status.value) or []
            parts.append(f"{n} {status.value}" + (f" ({', '.join(ids)})" if ids else ""))
    return "Drift probes: " + (", ".join(parts) or "none live")
