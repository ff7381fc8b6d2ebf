"""Check tool arguments against the small JSON Schema subset our tool table uses.

Supported keywords: ``type`` (object, string, integer, number, boolean, array with
``items`` and ``maxItems``), ``properties``,
``required``, ``additionalProperties: false``, ``enum``, ``minimum``, ``maximum``,
``minLength``. Anything else in a schema is documentation for the client and is not checked
here (the library validates values again).

As in JSON Schema, an integer is a number with no fractional part: ``5.0`` is an integer, and
:func:`normalize_arguments` hands it to the library as ``5``. Messages name JSON types
(``object``, ``array``, ``string``, ``integer``, ``number``, ``boolean``, ``null``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

__all__ = ["check_arguments", "json_type", "normalize_arguments"]

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
}


_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),  # before int: a bool is an int in Python
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
    (type(None), "null"),
)


def json_type(value: object) -> str:
    """The JSON type name of a decoded JSON value (``5.0`` is a number)."""
    for kind, name in _TYPE_NAMES:
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _is_integral(value: object) -> bool:
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()


def _type_problem(name: str, expected: str, value: object) -> str | None:
    kinds = _JSON_TYPES.get(expected)
    if kinds is None:
        return None
    is_bool = isinstance(value, bool)
    ok = isinstance(value, kinds) and (expected == "boolean" or not is_bool)
    if ok and isinstance(value, float) and not math.isfinite(value):
        ok = False
    if ok or (expected == "integer" and _is_integral(value)):
        return None
    article = "an" if expected[0] in "aeiou" else "a"
    return f"{name} must be {article} {expected}, got {json_type(value)}"


def _bounds_problem(name: str, schema: Mapping[str, Any], value: object) -> str | None:
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(str(v) for v in schema["enum"])
        return f"{name} must be one of: {allowed}; got {json.dumps(value, ensure_ascii=False)}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{name} must be at least {schema['minimum']}, got {value}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{name} must be at most {schema['maximum']}, got {value}"
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        return f"{name} must not be empty"
    return None


def _check_value(name: str, schema: Mapping[str, Any], value: object) -> list[str]:
    problem = _type_problem(name, schema.get("type", ""), value)
    if problem is None:
        problem = _bounds_problem(name, schema, value)
    if problem is not None:
        return [problem]
    if isinstance(value, list):
        if len(value) > schema.get("maxItems", len(value)):
            return [f"{name} may hold at most {schema['maxItems']} items"]
        items = schema.get("items", {})
        return [
            p for i, item in enumerate(value) for p in _check_value(f"{name}[{i}]", items, item)
        ]
    if schema.get("type") == "object" and "properties" in schema:
        assert isinstance(value, dict)
        return _check_object(schema, value, prefix=f"{name}.")
    return []


def _check_object(schema: Mapping[str, Any], args: Mapping[str, Any], *, prefix: str) -> list[str]:
    properties: Mapping[str, Any] = schema.get("properties", {})
    problems = [
        f"{prefix}{key} is required" for key in schema.get("required", ()) if key not in args
    ]
    for key, value in args.items():
        spec = properties.get(key)
        if spec is None:
            if schema.get("additionalProperties", True) is False:
                known = ", ".join(properties) or "none"
                problems.append(f"unknown argument {prefix}{key} (accepted: {known})")
            continue
        problems.extend(_check_value(f"{prefix}{key}", spec, value))
    return problems


def check_arguments(schema: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    """List what is wrong with ``args`` for a tool whose input schema is ``schema``.

    Returns:
        One readable line per problem; empty when the arguments fit.
    """
    return _check_object(schema, args, prefix="")


def normalize_arguments(schema: Mapping[str, Any], args: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments that passed :func:`check_arguments`, with integral floats as ints.

    ``{"limit": 5.0}`` becomes ``{"limit": 5}`` where the schema says integer, in nested
    objects too; everything else is returned as given.
    """
    properties: Mapping[str, Any] = schema.get("properties", {})
    normalized: dict[str, Any] = {}
    for key, value in args.items():
        spec = properties.get(key, {})
        if spec.get("type") == "integer" and _is_integral(value):
            value = int(value)
        elif spec.get("type") == "object" and isinstance(value, dict) and "properties" in spec:
            value = normalize_arguments(spec, value)
        normalized[key] = value
    return normalized
