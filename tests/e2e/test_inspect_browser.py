"""The memory inspector in a real browser: Debian's Chromium driven by Playwright.

A demo store gets hostile episodes (script tags, event-handler attributes, ``javascript:``
links, SVG payloads) in its text, sources, scopes, metadata, continuity, crystals and spores;
``anneal-memory inspect`` serves it from a real process, and every view is loaded: its
numbers must match the store's, search must find through the real recall, and nothing
hostile may run (``window.__pwned`` stays unset, no dialog opens, no handler attribute or
foreign script reaches the page). Screenshots go to ``$ANNEAL_ARTIFACTS/inspect`` (default
``tests/.artifacts/inspect``) for CI to keep.

The browser is never downloaded: ``/usr/bin/chromium`` (or ``$ANNEAL_CHROMIUM``). Without it
the tests skip, unless ``ANNEAL_REQUIRE_BROWSER=1`` (CI) makes that a failure.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.testing import DEMO_GROUNDED, demo_compress

sys.path.insert(0, str(Path(__file__).parent))

from _http_server import running_server

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

CHROMIUM = os.environ.get("ANNEAL_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(os.environ.get("ANNEAL_ARTIFACTS") or Path(__file__).parents[1] / ".artifacts")
HOSTILE = (
    "<script>window.__pwned = 1</script> hostile script tag",
    '<img src=x onerror="window.__pwned = 2"> hostile image handler',
    '<a href="javascript:window.__pwned = 3">click</a> hostile javascript link',
    '<svg onload="window.__pwned = 4"><script>window.__pwned = 5</script></svg> hostile svg',
    '"\'><iframe srcdoc="<script>parent.__pwned=6</script>"></iframe> hostile iframe',
)
HOSTILE_SOURCE = "<img src=x onerror=window.__pwned=7>"
HOSTILE_SCOPE = '"><script>window.__pwned=8</script>'
HOSTILE_LINES = (
    "- <script>window.__pwned = 9</script>",
    "- **<img src=x onerror=window.__pwned=10>** and [x](javascript:window.__pwned=11)",
    "- `<svg/onload=window.__pwned=12>`",
)


def _browser_path() -> str:
    if not Path(CHROMIUM).exists():
        if os.environ.get("ANNEAL_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{CHROMIUM} is missing but ANNEAL_REQUIRE_BROWSER=1")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    return CHROMIUM


def _hostile_store(db: Path) -> dict[str, Any]:
    subprocess.run(
        [sys.executable, "-m", "anneal_memory", "--db", str(db), "demo"],
        check=True,
        capture_output=True,
        timeout=120,
    )
    from anneal_memory.crystal import crystallize
    from anneal_memory.spores import add_spore

    with Store(db) as store:
        ids = [
            store.record(text, "observation", source=HOSTILE_SOURCE, metadata={"x": text}).id
            for text in HOSTILE
        ]
        store.record(HOSTILE[0], "decision", scope=HOSTILE_SCOPE)
        prepared = prepare_wrap(store)
        text = demo_compress(prepared.text or "") + "\n".join(("", *HOSTILE_LINES, ""))
        validated_save_continuity(store, text, wrap_token=prepared.wrap_token)
        crystallize(store, "hostile_crystal", level=2, explanation=HOSTILE[1], evidence=ids[:1])
        add_spore(store, type="thought", text=HOSTILE[3], tier="hot")
        from anneal_memory.probes import add_probe
        from anneal_memory.worth import record_exposure, record_outcome

        add_probe(store, pattern=DEMO_GROUNDED, min_level=2, note=HOSTILE[1])
        add_probe(store, fact=HOSTILE[4], section=HOSTILE[2][:60])
        shown = [f"p:{DEMO_GROUNDED}", f"e:{ids[0]}"]
        exposure = record_exposure(store, "test", shown)
        assert exposure is not None
        record_outcome(store, exposure, result="success", items=dict.fromkeys(shown, "followed"))
        return {"ids": ids, "status": store.status(), "continuity": store.load_continuity()}


def _read_url(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    deadline = time.monotonic() + 60  # readiness, not a speed assertion
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.5)
        if ready:
            line = process.stdout.readline()
            if "http://" in line:
                return line[line.index("http://") :].strip()
        if process.poll() is not None:
            raise RuntimeError(f"inspect exited: {process.stderr.read() if process.stderr else ''}")
    raise RuntimeError("inspect printed no URL")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A hostile demo store and a real ``anneal-memory inspect`` process over it."""
    db = tmp_path_factory.mktemp("inspect") / "memory.db"
    facts = _hostile_store(db)
    process = subprocess.Popen(
        [sys.executable, "-m", "anneal_memory", "--db", str(db), "inspect", "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        yield {**facts, "db": db, "url": _read_url(process)}
    finally:
        process.terminate()
        process.wait(timeout=20)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # Playwright is a dev dependency; an isolated run without it (other Pythons) skips.
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    path = _browser_path()

    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=path, args=ARGS)
        yield launched
        launched.close()


class Page:
    """One tab with listeners for anything a payload could do."""

    def __init__(self, browser: Any, url: str) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on(
            "console",
            lambda m: self.errors.append(m.text) if m.type == "error" else None,
        )
        self.page.goto(url)
        self.page.wait_for_selector("body[data-ready]")
        self.base = url.split("#", 1)[0]

    def view(self, hash_route: str, shot: str) -> Any:
        self.page.evaluate("document.body.removeAttribute('data-ready')")
        self.page.evaluate(
            "h => { if (location.hash === h)"
            " window.dispatchEvent(new HashChangeEvent('hashchange')); else location.hash = h; }",
            hash_route,
        )
        name = hash_route[2:].split("?", 1)[0]
        self.page.wait_for_selector(f"body[data-ready='{name}']")
        folder = ARTIFACTS / "inspect"
        folder.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(folder / f"{shot}.png"), full_page=True)
        return self.page

    def assert_nothing_ran(self) -> None:
        page = self.page
        assert page.evaluate("window.__pwned") is None
        assert page.evaluate("parent.__pwned") is None
        assert self.dialogs == []
        assert (
            page.evaluate(
                "document.querySelectorAll('[onerror],[onload],[onclick],iframe,object,embed').length"
            )
            == 0
        )
        assert page.evaluate("document.querySelectorAll('a[href^=\"javascript\"]').length") == 0
        scripts = page.evaluate("[...document.scripts].map(s => s.getAttribute('src'))")
        assert all(src and src.startswith("static/") for src in scripts), scripts
        assert self.errors == []  # not even a payload blocked by the CSP: none became markup


def test_every_view_loads_and_its_numbers_match_the_store(
    browser: Any, served: dict[str, Any]
) -> None:
    tab = Page(browser, served["url"])
    status = served["status"]
    page = tab.view("#/overview", "overview")
    assert page.text_content("[data-stat=total_episodes] .n") == str(status.total_episodes)
    assert page.text_content("[data-stat=episodes_since_wrap] .n") == str(
        status.episodes_since_wrap
    )
    page.wait_for_selector("#verdict .badge.ok")
    assert "chain valid" in (page.text_content("#verdict") or "")
    assert page.text_content("#baton") == "nobody"
    page = tab.view("#/continuity", "continuity")
    assert page.locator("#continuity li.pattern a").count() == 2
    page = tab.view(f"#/pattern?name={DEMO_GROUNDED}", "pattern")
    assert page.locator("#level-chart svg circle[data-outcome]").count() == 3
    assert page.locator("#steps .step").count() == 3
    assert page.locator("#steps .step.validated").count() >= 1
    assert (page.text_content("#worth [data-count=followed]") or "").startswith("1 (1 success")
    assert page.locator("#pattern-probes tr[data-probe]").count() == 1
    page = tab.view("#/probes", "probes")
    assert page.locator("#probes tr[data-probe]").count() == 2
    assert HOSTILE[4] in (page.text_content("#probes") or "")  # shown as text
    page = tab.view(f"#/episode?id={served['ids'][0]}", "episode-worth")
    assert page.text_content("#worth [data-count=surfaced]") == "1"
    page = tab.view("#/wraps", "wraps")
    assert page.locator("main .panel[data-wrap]").count() == 3
    page = tab.view("#/tiers", "tiers")
    assert page.locator("#crystals tr").count() == 1 + 2
    assert page.locator("#spores tr").count() == 1 + 2
    page = tab.view("#/graph", "graph")
    assert page.locator("#graph circle.node").count() >= 2
    page = tab.view("#/audit", "audit")
    page.wait_for_selector("#verdict .badge.ok")
    with Store(served["db"], read_only=True) as store:
        entries = store.audit_page(limit=50).entries
    assert page.locator("table.audit tr").count() == 1 + len(entries)
    tab.assert_nothing_ran()


def test_search_uses_the_real_recall(browser: Any, served: dict[str, Any]) -> None:
    tab = Page(browser, served["url"])
    page = tab.view("#/episodes", "episodes")
    page.fill("input[name=q]", "parallel pytest workers")
    page.evaluate("document.body.removeAttribute('data-ready')")
    page.click("form.filters button[type=submit]")
    page.wait_for_selector("body[data-ready='episodes']")
    with Store(served["db"], read_only=True) as store:
        expected = [e.id for e in store.recall("parallel pytest workers", limit=25).episodes]
        total = store.recall("parallel pytest workers").total_matching
    shown = page.eval_on_selector_all(
        "#episode-table tr[data-id]", "rows => rows.map(r => r.dataset.id)"
    )
    assert shown == expected
    assert page.text_content("#count") == f"{total} matching"
    from anneal_memory.explain import explain_recall

    with Store(served["db"], read_only=True) as store:
        stages = [
            h.found_by for h in explain_recall(store, "parallel pytest workers", limit=25).results
        ]
    drawn = page.eval_on_selector_all(
        "#episode-table tr[data-id] .why", "rows => rows.map(r => r.dataset.foundBy)"
    )
    assert drawn == stages
    assert page.locator("#episode-table .why svg rect").count() >= len(shown)
    page = tab.view("#/episodes?q=why does the checkout test fail in parallel", "episodes-search")
    assert page.locator("#episode-table .why").count() >= 1
    page = tab.view("#/episodes?type=decision", "episodes-decisions")
    assert page.locator("#episode-table tr[data-id]").count() == 3
    tab.assert_nothing_ran()


def test_hostile_text_is_shown_as_text_and_runs_nothing(
    browser: Any, served: dict[str, Any]
) -> None:
    tab = Page(browser, served["url"])
    page = tab.view("#/episodes?q=hostile", "hostile-episodes")
    cells = page.eval_on_selector_all(
        "#episode-table td.content", "cells => cells.map(c => c.textContent)"
    )
    for text in HOSTILE:
        assert any(cell.startswith(text) for cell in cells), text
    page = tab.view(f"#/episode?id={served['ids'][3]}", "hostile-episode")
    assert page.text_content("#episode-content") == HOSTILE[3]
    page = tab.view("#/continuity", "hostile-continuity")
    body = page.text_content("#continuity") or ""
    assert "<script>window.__pwned = 9</script>" in body
    assert "[x](javascript:window.__pwned=11)" in body
    page = tab.view(f"#/episodes?scope={HOSTILE_SCOPE}", "hostile-scope")
    assert page.locator("#episode-table tr[data-id]").count() == 1
    page = tab.view("#/episodes?q=hostile script tag&scope=", "hostile-left-out")
    left_out = page.eval_on_selector_all(
        "#left-out td.content", "cells => cells.map(c => c.textContent)"
    )
    assert HOSTILE[0] in left_out  # the other scope's episode, shown as text
    reasons = page.text_content("#left-out") or ""
    assert "scope " + json.dumps(HOSTILE_SCOPE) in reasons
    for route in ("#/tiers", "#/graph", "#/audit", "#/wraps", "#/overview"):
        tab.view(route, "hostile-" + route[2:])
    tab.assert_nothing_ran()


def test_the_same_page_under_serve_http_reads_each_tokens_scope(
    browser: Any, served: dict[str, Any], tmp_path: Path
) -> None:
    db = tmp_path / "http.db"
    with Store(db) as store:
        store.record("only the default scope's store holds this", "observation")
    with running_server(db, {"alice": "default"}) as server:
        base = server.url.removesuffix("/mcp") + "/inspect/"
        tab = Page(browser, base + "#token=" + server.tokens["alice"])
        page = tab.view("#/overview", "http-overview")
        assert page.text_content("[data-stat=total_episodes] .n") == "1"
        stranger = Page(browser, base + "#token=amt_not-a-token")
        assert "Unauthorized" in (stranger.page.text_content("main") or "")
        tab.assert_nothing_ran()
