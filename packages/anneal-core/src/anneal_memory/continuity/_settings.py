"""The store's chosen section schema, kept in the ``meta`` table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory.document._schema import DEFAULT_SCHEMA, SectionSchema, schema_by_name
from anneal_memory.store import set_meta

if TYPE_CHECKING:
    from anneal_memory.store import SqlConnection, Store

__all__ = ["SCHEMA_META_KEY", "current_schema", "schema_of", "set_section_schema"]

SCHEMA_META_KEY = "section_schema"


def schema_of(conn: SqlConnection) -> SectionSchema:
    """The section schema stored in ``conn``'s ``meta`` table (``default`` unless one was set)."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_META_KEY,)).fetchone()
    return DEFAULT_SCHEMA if row is None else schema_by_name(str(row[0]))


def current_schema(store: Store) -> SectionSchema:
    """The store's section schema (``default`` unless one was set)."""
    with store.reading("section_schema") as reader:
        return schema_of(reader.conn)


def set_section_schema(store: Store, name: str) -> SectionSchema:
    """Choose the store's section schema; the next prepare uses it.

    Raises:
        InvalidSchemaError: No schema has that name.
    """
    schema = schema_by_name(name)
    with store.writing("set_section_schema") as tx:
        set_meta(tx.conn, [(SCHEMA_META_KEY, schema.name)])
        tx.audit("section_schema_set", actor="operator", data={"schema": schema.name})
    return schema
