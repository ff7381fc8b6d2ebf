"""The tool-integrity manifest: hashing, the committed file, and the comparison."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from anneal_memory.errors import ToolIntegrityError
from anneal_memory.mcp import TOOLS, gen_manifest
from anneal_memory.mcp._integrity import (
    MANIFEST_PATH,
    build_manifest,
    check_manifest,
    load_manifest,
    tool_hash,
)


def _live() -> dict[str, object]:
    return build_manifest(tool.to_dict() for tool in TOOLS)


def test_committed_manifest_is_current() -> None:
    # Fails when a tool's description or schema changed without regenerating the manifest:
    # python -m anneal_memory.mcp.gen_manifest --output <this package>/mcp/tool-integrity.json
    assert MANIFEST_PATH.read_text(encoding="utf-8") == gen_manifest.manifest_text()
    assert gen_manifest.main(["--check"]) == 0


def test_manifest_lists_every_tool() -> None:
    shipped = load_manifest()
    assert sorted(shipped["tools"]) == sorted(tool.name for tool in TOOLS)
    assert shipped["version"] == 2
    assert shipped["algorithm"] == "SHA-256"


def test_tool_hash_is_sha256_of_sorted_compact_json() -> None:
    schema = {"type": "object", "properties": {"b": {}, "a": {}}}
    expected = hashlib.sha256(
        b'{"description":"d\xc3\xbc","inputSchema":{"properties":{"a":{},"b":{}},"type":"object"}}'
    ).hexdigest()
    assert tool_hash({"name": "x", "inputSchema": schema, "description": "dü"}) == expected


def test_annotations_and_titles_are_hashed() -> None:
    tools = [tool.to_dict() for tool in TOOLS]
    shipped = build_manifest(tools)
    tools[0] = {**tools[0], "annotations": {**tools[0]["annotations"], "readOnlyHint": True}}
    tools[1] = {**tools[1], "title": "Something else"}
    report = check_manifest(build_manifest(tools), shipped)
    assert report.changed == tuple(sorted((TOOLS[0].name, TOOLS[1].name)))


def test_any_change_to_a_description_or_schema_is_reported() -> None:
    tools = [tool.to_dict() for tool in TOOLS]
    shipped = build_manifest(tools)
    tools[0] = {**tools[0], "description": tools[0]["description"] + " Also email it out."}
    tools[1] = {**tools[1], "inputSchema": {"type": "object"}}
    tools.pop()
    tools.append({"name": "exfiltrate", "description": "x", "inputSchema": {}})
    report = check_manifest(build_manifest(tools), shipped)
    assert not report.ok
    assert report.changed == tuple(sorted([TOOLS[0].name, TOOLS[1].name]))
    assert report.missing == (TOOLS[-1].name,)
    assert report.unknown == ("exfiltrate",)
    assert "not in manifest: exfiltrate" in report.describe()


def test_identical_table_is_ok() -> None:
    report = check_manifest(_live(), load_manifest())
    assert report.ok
    assert report.describe() == "tool table matches the manifest"


def test_load_manifest_errors(tmp_path: Path) -> None:
    with pytest.raises(ToolIntegrityError, match="not found"):
        load_manifest(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(ToolIntegrityError, match="unreadable"):
        load_manifest(bad)
    bad.write_text('{"tools": []}', encoding="utf-8")
    with pytest.raises(ToolIntegrityError, match="no 'tools' object"):
        load_manifest(bad)


def test_gen_manifest_prints_and_writes_only_where_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = MANIFEST_PATH.stat().st_mtime_ns
    assert gen_manifest.main([]) == 0
    assert json.loads(capsys.readouterr().out) == _live()
    target = tmp_path / "out.json"
    assert gen_manifest.main(["--output", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == gen_manifest.manifest_text()
    assert MANIFEST_PATH.stat().st_mtime_ns == before


def test_check_reports_a_stale_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "tool-integrity.json"
    stale.write_text('{"version": 1, "tools": {}}\n', encoding="utf-8")
    assert gen_manifest.main(["--check", str(stale)]) == 1
    assert "is stale" in capsys.readouterr().err
    assert gen_manifest.main(["--check", str(tmp_path / "missing.json")]) == 1
    stale.write_text(gen_manifest.manifest_text(), encoding="utf-8")
    assert gen_manifest.main(["--check", str(stale)]) == 0
