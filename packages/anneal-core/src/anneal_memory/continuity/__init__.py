"""The continuity file and the wrap: prepare a package, save the compressed result."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.continuity._cancel import (
        pattern_history,
        unwrapped_in_scope,
        unwrapped_scopes,
        wrap_cancel,
        wrap_history,
        wrap_status,
    )
    from anneal_memory.continuity._cues import cued_facts
    from anneal_memory.continuity._file import continuity_path
    from anneal_memory.continuity._lease import WRAP_LEASE_SECONDS
    from anneal_memory.continuity._prepare import DEFAULT_PACKAGE_CHARS, prepare_wrap
    from anneal_memory.continuity._results import (
        CancelResult,
        PrepareResult,
        ProvenPattern,
        SaveResult,
        WrapPackage,
        WrapStatus,
    )
    from anneal_memory.continuity._save import validated_save_continuity
    from anneal_memory.continuity._settings import current_schema, set_section_schema
    from anneal_memory.document._schema import (
        DEFAULT_SCHEMA,
        PARTNERSHIP_SCHEMA,
        PROJECT_SCHEMA,
        SectionRole,
        SectionSchema,
        SectionSpec,
        schema_by_name,
    )
    from anneal_memory.store.wraps import PatternEvent, WrapRecord

_EXPORTS: dict[str, str] = {
    "CancelResult": "anneal_memory.continuity._results",
    "DEFAULT_PACKAGE_CHARS": "anneal_memory.continuity._prepare",
    "DEFAULT_SCHEMA": "anneal_memory.document._schema",
    "PARTNERSHIP_SCHEMA": "anneal_memory.document._schema",
    "PROJECT_SCHEMA": "anneal_memory.document._schema",
    "PatternEvent": "anneal_memory.store.wraps",
    "PrepareResult": "anneal_memory.continuity._results",
    "ProvenPattern": "anneal_memory.continuity._results",
    "SaveResult": "anneal_memory.continuity._results",
    "SectionRole": "anneal_memory.document._schema",
    "SectionSchema": "anneal_memory.document._schema",
    "SectionSpec": "anneal_memory.document._schema",
    "WrapPackage": "anneal_memory.continuity._results",
    "WrapRecord": "anneal_memory.store.wraps",
    "WRAP_LEASE_SECONDS": "anneal_memory.continuity._lease",
    "WrapStatus": "anneal_memory.continuity._results",
    "continuity_path": "anneal_memory.continuity._file",
    "cued_facts": "anneal_memory.continuity._cues",
    "current_schema": "anneal_memory.continuity._settings",
    "pattern_history": "anneal_memory.continuity._cancel",
    "prepare_wrap": "anneal_memory.continuity._prepare",
    "schema_by_name": "anneal_memory.document._schema",
    "set_section_schema": "anneal_memory.continuity._settings",
    "unwrapped_in_scope": "anneal_memory.continuity._cancel",
    "unwrapped_scopes": "anneal_memory.continuity._cancel",
    "validated_save_continuity": "anneal_memory.continuity._save",
    "wrap_cancel": "anneal_memory.continuity._cancel",
    "wrap_history": "anneal_memory.continuity._cancel",
    "wrap_status": "anneal_memory.continuity._cancel",
}

__all__ = [
    "DEFAULT_PACKAGE_CHARS",
    "DEFAULT_SCHEMA",
    "PARTNERSHIP_SCHEMA",
    "PROJECT_SCHEMA",
    "WRAP_LEASE_SECONDS",
    "CancelResult",
    "PatternEvent",
    "PrepareResult",
    "ProvenPattern",
    "SaveResult",
    "SectionRole",
    "SectionSchema",
    "SectionSpec",
    "WrapPackage",
    "WrapRecord",
    "WrapStatus",
    "continuity_path",
    "cued_facts",
    "current_schema",
    "pattern_history",
    "prepare_wrap",
    "schema_by_name",
    "set_section_schema",
    "unwrapped_in_scope",
    "unwrapped_scopes",
    "validated_save_continuity",
    "wrap_cancel",
    "wrap_history",
    "wrap_status",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
