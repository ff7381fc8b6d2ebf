"""The store's chosen section schema, kept in the ``meta`` table."""

from __future__ import annotations

from anneal_memory.document._schema import DEFAULT_SCHEMA, SectionSchema, schema_by_name
from anneal_memory.store import Store
from anneal_memory.store._episodes import set_meta
from anneal_memory.store._target import file_of
from anneal_memory.store.sqlite._connection import write_transaction

__all__ = ["SCHEMA_META_KEY", "current_schema", "set_section_schema"]

SCHEMA_META_KEY = "section_schema"


def current_schema(store: Store) -> SectionSchema:
    """The store's section schema (``default`` unless one was set)."""
    with store._lock:
        row = (
            store.connection("section_schema")
            .execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_META_KEY,))
            .fetchone()
        )
    return DEFAULT_SCHEMA if row is None else schema_by_name(str(row[0]))


def set_section_schema(store: Store, name: str) -> SectionSchema:
    """Choose the store's section schema; the next prepare uses it.

    Raises:
        InvalidSchemaError: No schema has that name.
    """
    schema = schema_by_name(name)
    with store._lock:
        conn = store.connection("set_section_schema")
        with write_transaction(conn, operation="set_section_schema", path=file_of(store)):
            set_meta(conn, [(SCHEMA_META_KEY, schema.name)])
            store.stage_audit(
                conn, "section_schema_set", actor="operator", data={"schema": schema.name}
            )
        store.flush_audit()
    return schema
