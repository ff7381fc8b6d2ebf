"""Does a recalled memory help? Exposures, outcomes and the worth report (issue 28).

Every block of memory that reaches a model is an exposure (:func:`record_exposure`): its id
and the episodes, patterns and crystals it showed. An outcome (:func:`record_outcome`) labels
an exposure's items followed / ignored / not_applicable and says whether the work succeeded;
later outcomes merge. :func:`worth_report` adds them up per item (:func:`worth_of`: one
item). Report-only: nothing ranks, decays or retires from these counts (docs/outcomes.md
says why). Exposures and outcomes live in tables of the store's database; this package
imports the store, never the reverse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.worth._echoes import exposed_source
    from anneal_memory.worth._exposures import (
        MAX_EXPOSURES,
        RETENTION_DAYS,
        expose,
        get_exposure,
        prune_exposures,
        record_exposure,
    )
    from anneal_memory.worth._item import worth_of
    from anneal_memory.worth._items import patterns_in, shown_items
    from anneal_memory.worth._outcomes import get_outcome, record_outcome
    from anneal_memory.worth._report import SORT_KEYS, worth_report
    from anneal_memory.worth._types import (
        COUNT_FIELDS,
        Exposure,
        ItemKind,
        Label,
        OutcomeRecord,
        Result,
        WorthRow,
    )

_EXPOSURES = "anneal_memory.worth._exposures"
_TYPES = "anneal_memory.worth._types"
_EXPORTS: dict[str, str] = {
    "MAX_EXPOSURES": _EXPOSURES,
    "RETENTION_DAYS": _EXPOSURES,
    "expose": _EXPOSURES,
    "get_exposure": _EXPOSURES,
    "prune_exposures": _EXPOSURES,
    "record_exposure": _EXPOSURES,
    "patterns_in": "anneal_memory.worth._items",
    "shown_items": "anneal_memory.worth._items",
    "get_outcome": "anneal_memory.worth._outcomes",
    "record_outcome": "anneal_memory.worth._outcomes",
    "SORT_KEYS": "anneal_memory.worth._report",
    "worth_report": "anneal_memory.worth._report",
    "worth_of": "anneal_memory.worth._item",
    "exposed_source": "anneal_memory.worth._echoes",
    "COUNT_FIELDS": _TYPES,
    "Exposure": _TYPES,
    "ItemKind": _TYPES,
    "Label": _TYPES,
    "OutcomeRecord": _TYPES,
    "Result": _TYPES,
    "WorthRow": _TYPES,
}
__all__ = [
    "COUNT_FIELDS",
    "MAX_EXPOSURES",
    "RETENTION_DAYS",
    "SORT_KEYS",
    "Exposure",
    "ItemKind",
    "Label",
    "OutcomeRecord",
    "Result",
    "WorthRow",
    "expose",
    "exposed_source",
    "get_exposure",
    "get_outcome",
    "patterns_in",
    "prune_exposures",
    "record_exposure",
    "record_outcome",
    "shown_items",
    "worth_of",
    "worth_report",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
