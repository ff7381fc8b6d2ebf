"""Wrap rows, pattern history and association links, and where the continuity text is kept.

The wrap lifecycle (``anneal_memory.continuity``) runs these inside its unit of work
(``store.writing``/``store.reading``), on ``tx.conn``; none of them commits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.store.wraps._patterns import (
        AssociationCounts,
        PatternEvent,
        apply_associations,
        load_prior,
        pattern_events,
        read_associations,
        save_patterns,
    )
    from anneal_memory.store.wraps._place import ContinuityPlace, restore_interrupted
    from anneal_memory.store.wraps._reads import (
        OpenWrap,
        PatternRow,
        PatternStepRow,
        count_patterns,
        episode_scopes,
        open_wraps,
        pattern_row,
        pattern_steps,
        patterns_page,
        snapshot_page,
        wrap_lines,
    )
    from anneal_memory.store.wraps._rows import (
        Snapshot,
        WrapOpening,
        WrapRecord,
        cancel_wrap,
        complete_wrap,
        existing_ids,
        find_open_wrap,
        insert_wrap,
        last_completed_wrap_id,
        load_open_wrap,
        read_snapshot,
        renew_lease,
        saves_so_far,
        unwrapped_by_scope,
        unwrapped_count,
        unwrapped_prefix,
        wrap_history,
    )

_EXPORTS: dict[str, str] = {
    "AssociationCounts": "anneal_memory.store.wraps._patterns",
    "ContinuityPlace": "anneal_memory.store.wraps._place",
    "restore_interrupted": "anneal_memory.store.wraps._place",
    "OpenWrap": "anneal_memory.store.wraps._reads",
    "PatternEvent": "anneal_memory.store.wraps._patterns",
    "PatternRow": "anneal_memory.store.wraps._reads",
    "PatternStepRow": "anneal_memory.store.wraps._reads",
    "WrapOpening": "anneal_memory.store.wraps._rows",
    "WrapRecord": "anneal_memory.store.wraps._rows",
    "apply_associations": "anneal_memory.store.wraps._patterns",
    "cancel_wrap": "anneal_memory.store.wraps._rows",
    "complete_wrap": "anneal_memory.store.wraps._rows",
    "count_patterns": "anneal_memory.store.wraps._reads",
    "episode_scopes": "anneal_memory.store.wraps._reads",
    "existing_ids": "anneal_memory.store.wraps._rows",
    "find_open_wrap": "anneal_memory.store.wraps._rows",
    "insert_wrap": "anneal_memory.store.wraps._rows",
    "last_completed_wrap_id": "anneal_memory.store.wraps._rows",
    "load_open_wrap": "anneal_memory.store.wraps._rows",
    "load_prior": "anneal_memory.store.wraps._patterns",
    "open_wraps": "anneal_memory.store.wraps._reads",
    "pattern_events": "anneal_memory.store.wraps._patterns",
    "pattern_row": "anneal_memory.store.wraps._reads",
    "pattern_steps": "anneal_memory.store.wraps._reads",
    "patterns_page": "anneal_memory.store.wraps._reads",
    "read_associations": "anneal_memory.store.wraps._patterns",
    "renew_lease": "anneal_memory.store.wraps._rows",
    "save_patterns": "anneal_memory.store.wraps._patterns",
    "saves_so_far": "anneal_memory.store.wraps._rows",
    "snapshot_page": "anneal_memory.store.wraps._reads",
    "read_snapshot": "anneal_memory.store.wraps._rows",
    "Snapshot": "anneal_memory.store.wraps._rows",
    "unwrapped_by_scope": "anneal_memory.store.wraps._rows",
    "unwrapped_count": "anneal_memory.store.wraps._rows",
    "unwrapped_prefix": "anneal_memory.store.wraps._rows",
    "wrap_history": "anneal_memory.store.wraps._rows",
    "wrap_lines": "anneal_memory.store.wraps._reads",
}

__all__ = [
    "AssociationCounts",
    "ContinuityPlace",
    "OpenWrap",
    "PatternEvent",
    "PatternRow",
    "PatternStepRow",
    "Snapshot",
    "WrapOpening",
    "WrapRecord",
    "apply_associations",
    "cancel_wrap",
    "complete_wrap",
    "count_patterns",
    "episode_scopes",
    "existing_ids",
    "find_open_wrap",
    "insert_wrap",
    "last_completed_wrap_id",
    "load_open_wrap",
    "load_prior",
    "open_wraps",
    "pattern_events",
    "pattern_row",
    "pattern_steps",
    "patterns_page",
    "read_associations",
    "read_snapshot",
    "renew_lease",
    "restore_interrupted",
    "save_patterns",
    "saves_so_far",
    "snapshot_page",
    "unwrapped_by_scope",
    "unwrapped_count",
    "unwrapped_prefix",
    "wrap_history",
    "wrap_lines",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
