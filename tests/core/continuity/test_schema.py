from __future__ import annotations

import pytest
from anneal_memory.continuity import (
    DEFAULT_SCHEMA,
    PARTNERSHIP_SCHEMA,
    PROJECT_SCHEMA,
    SectionRole,
    schema_by_name,
)
from anneal_memory.errors import InvalidSchemaError


@pytest.mark.parametrize(
    ("schema", "target", "hard_max", "durable"),
    [
        (DEFAULT_SCHEMA, 20000, 25000, 3000),
        (PARTNERSHIP_SCHEMA, 25500, 31875, 3825),
        (PROJECT_SCHEMA, 23000, 28750, 3450),
    ],
)
def test_sizes_follow_the_roles(schema, target: int, hard_max: int, durable: int) -> None:
    assert schema.target_chars == target
    assert schema.hard_max_chars() == hard_max
    assert schema.durable_budget_chars() == durable


def test_only_the_durable_section_is_optional() -> None:
    for schema in (DEFAULT_SCHEMA, PARTNERSHIP_SCHEMA, PROJECT_SCHEMA):
        optional = [s for s in schema.sections if s.optional]
        assert all(s.role is SectionRole.DURABLE for s in optional)
        assert schema.with_role(SectionRole.GRADUATING)


def test_schema_by_name_refuses_unknown_names() -> None:
    assert schema_by_name("project") is PROJECT_SCHEMA
    with pytest.raises(InvalidSchemaError, match="default, partnership, project"):
        schema_by_name("nope")
