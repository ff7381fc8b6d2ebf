"""Exposures and outcomes through every path: export/import (both backends), CLI, MCP."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anneal_memory import Store
from anneal_memory.errors import ImportFormatError
from anneal_memory.mcp import McpServer, ServerConfig
from anneal_memory.testing import FrozenClock
from anneal_memory.worth import (
    get_exposure,
    get_outcome,
    prune_exposures,
    record_exposure,
    record_outcome,
    worth_report,
)

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import audit_entries, pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def both(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


def _exported(store: Store) -> dict[str, Any]:
    out = io.StringIO()
    store.export_json(out)
    return json.loads(out.getvalue())


def _counts(store: Store) -> list[dict[str, object]]:
    return [r.to_dict() for r in worth_report(store, sort="ref")]


def test_export_and_import_carry_exposures_outcomes_and_totals(
    both: Store, tmp_path: Path, clock: FrozenClock
) -> None:
    old = record_exposure(both, "test", ["e:aaaaaaaa", "c:pool"])
    assert old is not None
    record_outcome(both, old, result="success", items={"e:aaaaaaaa": "followed"})
    clock.advance(days=100)
    prune_exposures(both)  # the old one becomes totals
    from anneal_memory.probes import add_probe, list_probes

    add_probe(both, pattern="pool_sizing", note="kept")
    add_probe(both, fact="Deploys go out on Tuesdays", section="Decisions")
    live = record_exposure(both, "test", ["e:aaaaaaaa"], scope="", session_id="s1")
    assert live is not None
    record_outcome(both, live, result="failure", items={"e:aaaaaaaa": "ignored"}, note="n")
    document = _exported(both)
    assert [e["id"] for e in document["exposures"]] == [live]
    assert document["exposures"][0]["outcome"]["labels"] == {"e:aaaaaaaa": "ignored"}
    assert {t["item"] for t in document["worth_totals"]} == {"e:aaaaaaaa", "c:pool"}

    with Store(tmp_path / "copy" / "memory.db") as copy:
        result = copy.import_json(document)
        assert (result.exposures_imported, result.worth_totals_imported) == (1, 2)
        assert result.probes_imported == 2
        assert [p.to_dict() for p in list_probes(copy)] == [p.to_dict() for p in list_probes(both)]
        assert _counts(copy) == _counts(both)
        assert get_exposure(copy, live).session_id == "s1"
        assert get_outcome(copy, live) == get_outcome(both, live)
        again = copy.import_json(document)  # a re-run changes nothing
        assert (again.exposures_imported, again.worth_totals_imported) == (0, 0)
        assert again.probes_imported == 0
        assert _counts(copy) == _counts(both)
    # The file import (our streaming reader) carries them too.
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with Store(tmp_path / "file" / "memory.db") as other:
        report = other.import_from(path)
        found = {c.kind: c.imported for c in report.counts}
        assert (found["exposures"], found["worth_totals"], found["probes"]) == (1, 2, 2)
        assert _counts(other) == _counts(both)


@pytest.mark.parametrize(
    ("key", "entry", "message"),
    [
        ("exposures", {"id": "x1", "at": "t", "via": "v", "scope": "", "items": ["e:1"]}, "id"),
        ("exposures", {"id": "x" + "a" * 12, "at": "t", "via": "v", "scope": "",
                       "items": ["q:1"]}, "items"),
        ("exposures", {"id": "x" + "a" * 12, "at": "t", "via": "v", "scope": "",
                       "items": ["e:1"], "outcome": {"result": "great", "labels": {},
                       "note": "", "updated_at": "t", "revision": 1}}, "outcome"),
        ("worth_totals", {"item": "e:1", "counts": {"surfaced": -1}}, "counts"),
        ("probes", {"kind": "pattern", "target": "p", "min_level": 1, "scope": "", "note": "",
                    "created_at": "t"}, "min_level"),
    ],
)  # fmt: skip
def test_a_malformed_entry_refuses_the_whole_import(
    both: Store, key: str, entry: dict[str, Any], message: str
) -> None:
    document = _exported(both)
    both.record("kept out by the refusal", "observation")
    document["episodes"] = [_exported(both)["episodes"][0] | {"id": "bbbbbbbb"}]
    document[key] = [entry]
    with pytest.raises(ImportFormatError, match=message):
        both.import_json(document)
    assert both.get("bbbbbbbb") is None


def test_cli_outcome_and_worth(run_cli: Any, cli_db: Path) -> None:
    recorded = run_cli("record", "socket pools need a timeout", "--json").assert_ok().json()
    found = run_cli("search", "socket pools", "--json").assert_ok().json()
    exposure = found["exposure_id"]
    assert exposure.startswith("x")
    item = f"episode:{recorded['id']}=followed"
    merged = run_cli("outcome", exposure, "--result", "success", "--item", item, "--json")
    assert merged.assert_ok().json()["labels"] == {f"e:{recorded['id']}": "followed"}
    text = run_cli("outcome", exposure, "--note", "it held").assert_ok().out
    assert f"Outcome of {exposure} (revision 2): success" in text
    err = run_cli("outcome", exposure, "--item", "episode:ffffffff=followed").assert_error(1)
    assert "did not show 'episode:ffffffff'" in err
    assert "KIND:REF=LABEL" in run_cli("outcome", exposure, "--item", "followed").assert_error(1)
    assert "not an exposure id" in run_cli("outcome", "x;DROP").assert_error(1)
    rows = run_cli("worth", "--json").assert_ok().json()["items"]
    assert rows == [{
        "kind": "episode", "ref": recorded["id"], "surfaced": 1, "followed": 1, "ignored": 0,
        "not_applicable": 0, "unlabelled": 0, "followed_success": 1, "followed_failure": 0,
        "ignored_success": 0, "ignored_failure": 0, "unlabelled_success": 0,
        "unlabelled_failure": 0,
    }]  # fmt: skip
    table = run_cli("worth", "--sort", "followed").assert_ok().out.splitlines()
    assert table[0].split()[:4] == ["kind", "ref", "surf", "fol"]
    assert table[1].split()[:4] == ["episode", recorded["id"], "1", "1"]
    assert "Report-only" in table[-1]
    assert run_cli("worth", "--sort", "bogus").code == 2
    with Store(cli_db) as store:
        assert [e["data"]["revision"] for e in audit_entries(store, "outcome_recorded")] == [1, 2]


def test_cli_crystal_recall_is_an_exposure(run_cli: Any, cli_db: Path) -> None:
    run_cli("init").assert_ok()
    run_cli("crystal", "crystallize", "--name", "pool_sizing", "--level", "3", "--explanation",
            "Size the connection pool to the worker count; an undersized pool throttles "
            "throughput.").assert_ok()  # fmt: skip
    query = "why does the connection pool throttle throughput?"
    data = run_cli("crystal", "recall", query, "--json").assert_ok().json()
    with Store(cli_db) as store:
        assert get_exposure(store, data["exposure_id"]).items == ("c:pool_sizing",)
    quiet = run_cli("crystal", "recall", query, "--json", "--no-exposure").assert_ok().json()
    assert "exposure_id" not in quiet


def _call(server: McpServer, name: str, **arguments: Any) -> dict[str, Any]:
    message = {
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }  # fmt: skip
    reply = server.handle(json.dumps(message))
    assert reply is not None
    result: dict[str, Any] = reply["result"]
    return result


def test_mcp_recall_reports_its_exposure_and_outcome_merges(both: Store) -> None:
    place = both.path if both.url is None else Path("unused.db")
    server = McpServer(ServerConfig(db_path=place, session_id="s9"), store=both)
    episode = both.record("The deploy script retries three times on staging", "decision")
    recalled = _call(server, "recall", keyword="deploy script")
    text = recalled["content"][0]["text"]
    exposure = recalled["structuredContent"]["exposure_id"]
    assert text.endswith(f"Exposure {exposure}: after acting, report it with the outcome tool.")
    assert get_exposure(both, exposure).session_id == "s9"
    done = _call(server, "outcome", exposure_id=exposure, result="success",
                 items={f"episode:{episode.id}": "followed"})  # fmt: skip
    assert not done["isError"], done
    assert done["structuredContent"] == {"exposure_id": exposure, "revision": 1}
    refused = _call(server, "outcome", exposure_id=exposure, items={"crystal:none": "followed"})
    assert refused["isError"]
    assert "did not show 'crystal:none'" in refused["content"][0]["text"]
    bad = _call(server, "outcome", exposure_id=exposure, result="great")
    assert bad["isError"]
    assert get_outcome(both, exposure).revision == 1  # type: ignore[union-attr]
    nothing = _call(server, "recall", keyword="zebra crossings")
    assert "Exposure" not in nothing["content"][0]["text"]
