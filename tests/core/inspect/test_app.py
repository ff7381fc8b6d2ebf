"""The inspector's ASGI app: what it answers, to whom, and that it only reads."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest
from anneal_memory import Store
from anneal_memory.inspect import ENDPOINTS, InspectorApp, InspectSettings, Mount, SingleStore
from anneal_memory.testing import DEMO_GROUNDED, FrozenClock
from asgi_client import request
from explain_helpers import FOLLOW_UP, SESSION, demo_wrap, record_all

TOKEN = "t0ken-for-tests"
HOST = "127.0.0.1:8765"
AUTH = {"Authorization": f"Bearer {TOKEN}", "Host": HOST}


@pytest.fixture
def reader(store: Store, target: str, clock: FrozenClock) -> Iterator[Store]:
    """The store with two demo wraps, reopened read-only as the inspector opens it."""
    record_all(store, SESSION)
    demo_wrap(store)
    record_all(store, FOLLOW_UP)
    demo_wrap(store)
    store.record("a tool said so", "observation", trust="tool", scope="u1")
    with Store(target, read_only=True, clock=clock) as opened:
        yield opened


@pytest.fixture
def app(reader: Store) -> InspectorApp:
    settings = InspectSettings(
        allowed_hosts=frozenset({HOST}), allowed_origins=frozenset({f"http://{HOST}"})
    )
    return InspectorApp(SingleStore(reader, TOKEN), settings)


def api(app: InspectorApp, endpoint: str, **params: Any) -> Any:
    reply = request(app, f"/api/{endpoint}", query=urllib.parse.urlencode(params), headers=AUTH)
    assert reply.status == 200, reply.body
    return reply.json()


def test_every_endpoint_answers_json_matching_the_store(app: InspectorApp, reader: Store) -> None:
    overview = api(app, "overview")
    status = reader.status()
    assert overview["status"]["total_episodes"] == status.total_episodes == 6
    assert overview["waiting_by_scope"] == [{"scope": "u1", "episodes": 1}]
    assert overview["counts"]["patterns"] == 2
    assert overview["last_wrap"]["id"] == 2
    assert api(app, "verify")["verdict"]["valid"] is True
    found = api(app, "episodes", q="parallel pytest postgres")
    assert found["total"] == reader.recall("parallel pytest postgres").total_matching
    assert [e["id"] for e in found["episodes"]] == [
        e.id for e in reader.recall("parallel pytest postgres", limit=25).episodes
    ]
    assert len(found["explanations"]) == len(found["episodes"])
    first = found["explanations"][0]
    assert first["rank"] == 1
    assert first["found_by"] in {"phrase", "words"}
    assert {m["word"] for m in first["matched"]} <= {"parallel", "pytest", "postgres"}
    assert first["score"] > 0
    assert found["recall"]["stage"] == "words"
    pattern = api(app, "pattern", name=DEMO_GROUNDED)
    assert [p["level"] for p in pattern["series"]] == [1, 2]
    continuity = api(app, "continuity")
    assert continuity["text"] == reader.load_continuity()
    assert next(p["name"] for p in continuity["patterns"]) == DEMO_GROUNDED
    wraps = api(app, "wraps")
    assert [w["id"] for w in wraps["wraps"]] == [2, 1]
    assert "token" not in wraps["wraps"][0]
    assert api(app, "graph")["links"][0]["strength"] == pytest.approx(1.0)
    assert api(app, "audit", limit=5)["entries"][0]["seq"] >= 4
    assert api(app, "crystals")["total"] == 0
    assert api(app, "spores", status="all")["total"] == 0
    assert api(app, "patterns")["total"] == 2
    one = found["episodes"][0]["id"]
    assert api(app, "episode", id=one)["id"] == one


def test_filters_scope_trust_and_pages(app: InspectorApp) -> None:
    scoped = api(app, "episodes", scope="u1")
    assert [e["content"] for e in scoped["episodes"]] == ["a tool said so"]
    assert scoped["episodes"][0]["scope"] == "u1"
    tools = api(app, "episodes", trust="tool")
    assert [e["trust"] for e in tools["episodes"]] == ["tool"]
    assert tools["total"] is None
    assert api(app, "episodes", type="decision")["total"] == 1
    page = api(app, "episodes", limit=2, offset=2)
    assert len(page["episodes"]) == 2
    assert page["has_more"] is True


@pytest.mark.parametrize(
    ("name", "query", "message"),
    [
        ("episodes", "limit=101", "limit must be from 1 to 100"),
        ("episodes", "offset=-1", "offset must be from 0"),
        ("episodes", "trust=root", "trust must be one of"),
        ("episodes", "since=yesterday-ish", "since"),
        ("episode", "", "id is required"),
        ("episode", "id=%3Cscript%3E", "eight hex"),
        ("audit", "event=nope", "unknown audit event"),
        ("pattern", "name=" + "x" * 600, "longer than 500"),
        ("probes", "status=retired", "status must be live or all"),
        ("probes", "limit=0", "limit must be from 1 to 100"),
    ],
)
def test_bad_parameters_are_400_with_the_reason(
    app: InspectorApp, name: str, query: str, message: str
) -> None:
    reply = request(app, f"/api/{name}", query=query, headers=AUTH)
    assert reply.status == 400
    assert message in reply.json()["error"]


def test_refusals_come_before_any_data(app: InspectorApp) -> None:
    assert request(app, "/api/overview", headers={"Host": HOST}).status == 401
    assert (
        request(app, "/api/overview", headers={**AUTH, "Authorization": "Bearer nope"}).status
        == 401
    )
    assert (
        request(app, "/api/overview", headers={**AUTH, "Host": "evil.example:8765"}).status == 403
    )
    assert (
        request(app, "/api/overview", headers={**AUTH, "Origin": "http://evil.example"}).status
        == 403
    )
    assert request(app, "/api/overview", headers=AUTH, method="POST").status == 405
    assert request(app, "/api/nothing", headers=AUTH).status == 404
    for path in (
        "/static/../_app.py",
        "/static/%2e%2e/x",
        "/static/",
        "/etc/passwd",
        "/static/app.py",
    ):
        assert request(app, path, headers=AUTH).status == 404, path


def test_the_page_and_its_files_carry_the_security_headers(app: InspectorApp) -> None:
    page = request(app, "/", headers={"Host": HOST})
    assert page.status == 200
    assert page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "default-src 'none'" in policy
    assert "unsafe-inline" not in policy
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["referrer-policy"] == "no-referrer"
    assert b"<script>" not in page.body  # no inline script: every script is a file
    script = request(app, "/static/app.js", headers={"Host": HOST})
    assert script.headers["content-type"].startswith("text/javascript")
    assert script.headers["x-content-type-options"] == "nosniff"
    for name in (
        "app.js", "dom.js", "views.js", "views_memory.js", "views_worth.js", "markdown.js",
        "graph.js",
    ):  # fmt: skip
        body = request(app, f"/static/{name}", headers={"Host": HOST}).body
        for sink in (
            b"innerHTML",
            b"outerHTML",
            b"insertAdjacentHTML",
            b"document.write",
            b"eval(",
        ):
            assert sink not in body, (name, sink)


def test_nothing_is_written_by_any_endpoint(app: InspectorApp, reader: Store, target: str) -> None:
    assert reader.read_only
    with Store(target, read_only=True) as before_store:
        before = [e["seq"] for e in _trail(before_store)]
    for name in ENDPOINTS:
        params = {"episode": {"id": "00000000"}, "pattern": {"name": DEMO_GROUNDED}}.get(name, {})
        request(app, f"/api/{name}", query=urllib.parse.urlencode(params), headers=AUTH)
    with Store(target, read_only=True) as after_store:
        assert [e["seq"] for e in _trail(after_store)] == before


def _trail(store: Store) -> list[dict[str, Any]]:
    return list(store.audit_page(limit=100).entries)


def test_the_mount_sends_its_prefix_to_the_inspector(reader: Store) -> None:
    seen: list[str] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["path"])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    inspector = InspectorApp(SingleStore(reader, TOKEN), InspectSettings(prefix="/inspect"))
    mounted = Mount(inner, inspector, "/inspect")
    assert request(mounted, "/mcp").status == 204
    assert request(mounted, "/inspectorx").status == 204
    assert seen == ["/mcp", "/inspectorx"]
    assert request(mounted, "/inspect").status == 308
    assert request(mounted, "/inspect/").status == 200
    assert (
        request(
            mounted, "/inspect/api/overview", headers={"Authorization": f"Bearer {TOKEN}"}
        ).status
        == 200
    )


def test_token_scopes_open_each_scope_once_read_only(tmp_path: Any) -> None:
    from anneal_memory.inspect import TokenScopes

    db = tmp_path / "default.db"
    with Store(db) as writer:
        writer.record("the default scope's episode", "observation")
    opened: list[str] = []

    def open_scope(scope: str) -> Store:
        opened.append(scope)
        return Store(db if scope == "default" else tmp_path / f"{scope}.db", read_only=True)

    access = TokenScopes({"good": "default", "lost": "nowhere"}.get, open_scope)
    app = InspectorApp(access, InspectSettings())
    first = request(app, "/api/overview", headers={"Authorization": "Bearer good"})
    second = request(app, "/api/overview", headers={"Authorization": "Bearer good"})
    assert first.status == second.status == 200
    assert first.json()["status"]["total_episodes"] == 1
    assert opened == ["default"]
    assert request(app, "/api/overview", headers={"Authorization": "Bearer bad"}).status == 401
    missing = request(app, "/api/overview", headers={"Authorization": "Bearer lost"})
    assert missing.status == 503
    assert "database" in missing.json()["error"]
    app.close()


def test_search_explains_each_page_and_what_it_left_out(app: InspectorApp, reader: Store) -> None:
    question = "parallel pytest postgres"
    second = api(app, "episodes", q=question, limit=2, offset=2)
    expected = [e.id for e in reader.recall(question, limit=2, offset=2).episodes]
    assert [e["id"] for e in second["episodes"]] == expected
    assert [x["rank"] for x in second["explanations"]] == [3, 4][: len(expected)]
    scoped = api(app, "episodes", q="tool said", scope="")
    assert scoped["episodes"] == []
    assert [h["reasons"] for h in scoped["hidden"]] == [[{"why": "scope", "scope": "u1"}]]
    newest = api(app, "episodes")
    assert newest["explanations"] is None
    assert newest["hidden"] == []


def test_worth_counts_and_probes_on_the_episode_and_pattern_views(
    store: Store, target: str, clock: FrozenClock
) -> None:
    from anneal_memory.probes import add_probe, retire_probe
    from anneal_memory.worth import record_exposure, record_outcome

    record_all(store, SESSION)
    demo_wrap(store)
    held = add_probe(store, pattern=DEMO_GROUNDED, min_level=2, note="<img src=x onerror=1>")
    retired = add_probe(store, fact="the template database", section="Decisions")
    retire_probe(store, retired.id)
    add_probe(store, fact="per worker databases", scope="u1")
    record_all(store, FOLLOW_UP)
    demo_wrap(store)
    episode_id = store.recall("parallel pytest", limit=1).episodes[0].id
    shown = [f"e:{episode_id}", f"p:{DEMO_GROUNDED}"]
    ident = record_exposure(store, "test", shown)
    assert ident is not None
    record_outcome(store, ident, result="success", items=dict.fromkeys(shown, "followed"))
    record_exposure(store, "test", shown[:1])
    with Store(target, read_only=True, clock=clock) as opened:
        app = InspectorApp(SingleStore(opened, TOKEN), InspectSettings())
        episode = api(app, "episode", id=episode_id)
        assert episode["worth"]["surfaced"] == 2
        assert (episode["worth"]["followed_success"], episode["worth"]["unlabelled"]) == (1, 1)
        pattern = api(app, "pattern", name=DEMO_GROUNDED)
        assert pattern["worth"]["followed"] == 1
        assert [p["id"] for p in pattern["probes"]] == [held.id]
        assert pattern["probes"][0]["last_status"] == "held"
        assert pattern["probes"][0]["note"] == "<img src=x onerror=1>"  # data; the page escapes
        live = api(app, "probes")
        assert [p["id"] for p in live["probes"]] == [held.id, "probe-003"]
        assert live["total"] == 2
        every = api(app, "probes", status="all", limit=1, offset=1)
        assert (every["total"], [p["id"] for p in every["probes"]]) == (3, [retired.id])
        assert every["probes"][0]["retired_at"] is not None
        assert [p["id"] for p in api(app, "probes", scope="u1")["probes"]] == ["probe-003"]
