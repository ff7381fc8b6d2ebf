"""The continuity file and the wrap: prepare a package, save the compressed result."""

from anneal_memory.continuity._cancel import (
    pattern_history,
    wrap_cancel,
    wrap_history,
    wrap_status,
)
from anneal_memory.continuity._file import continuity_path
from anneal_memory.continuity._prepare import prepare_wrap
from anneal_memory.continuity._results import (
    CancelResult,
    PrepareResult,
    ProvenPattern,
    SaveResult,
    WrapPackage,
    WrapStatus,
)
from anneal_memory.continuity._save import validated_save_continuity
from anneal_memory.continuity._schema import (
    DEFAULT_SCHEMA,
    PARTNERSHIP_SCHEMA,
    PROJECT_SCHEMA,
    SectionRole,
    SectionSchema,
    SectionSpec,
    schema_by_name,
)
from anneal_memory.continuity._settings import current_schema, set_section_schema
from anneal_memory.store._patterns import PatternEvent
from anneal_memory.store._wraps import WrapRecord

__all__ = [
    "DEFAULT_SCHEMA",
    "PARTNERSHIP_SCHEMA",
    "PROJECT_SCHEMA",
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
    "current_schema",
    "pattern_history",
    "prepare_wrap",
    "schema_by_name",
    "set_section_schema",
    "validated_save_continuity",
    "wrap_cancel",
    "wrap_history",
    "wrap_status",
]
