"""Drift probes (issue 28): what the operator expects the continuity to keep.

A probe watches a pattern (at a level) or a fact (in a section). Every save checks each live
probe lexically and reports held / changed / weakened / crystallized / lost / unchecked in the
save result and its audit entry; a probe never blocks a save. :func:`probe_status` is the
operator's truth worklist. Probes live in a table of the store's database.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.probes._ops import (
        add_probe,
        check_probes,
        list_probes,
        probe_status,
        retire_probe,
    )
    from anneal_memory.probes._types import (
        DriftReport,
        DriftStatus,
        Probe,
        ProbeCheck,
        ProbeKind,
    )

_OPS = "anneal_memory.probes._ops"
_TYPES = "anneal_memory.probes._types"
_EXPORTS: dict[str, str] = {
    "DriftReport": _TYPES,
    "DriftStatus": _TYPES,
    "Probe": _TYPES,
    "ProbeCheck": _TYPES,
    "ProbeKind": _TYPES,
    "add_probe": _OPS,
    "check_probes": _OPS,
    "list_probes": _OPS,
    "probe_status": _OPS,
    "retire_probe": _OPS,
}

__all__ = [
    "DriftReport",
    "DriftStatus",
    "Probe",
    "ProbeCheck",
    "ProbeKind",
    "add_probe",
    "check_probes",
    "list_probes",
    "probe_status",
    "retire_probe",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
