"""Every code block of README.md, docs/ and the package READMEs runs as written, offline.

Pages are discovered, not listed: a new page is covered the day it is added. Each page runs
in its own process (frameworks keep process-wide state) in a fresh temporary folder that is
also ``HOME``, with sockets blocked and telemetry off. A block that cannot run says why, on the
line right before its fence: ``<!-- not run: <reason> -->``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _blocks import blocks_of

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(
    [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "packages").glob("*/README.md")]
)
TELEMETRY_OFF = {
    "LANGCHAIN_TRACING_V2": "false",
    "LANGSMITH_TRACING": "false",
    "OPENAI_AGENTS_DISABLE_TRACING": "1",
    "OTEL_SDK_DISABLED": "true",
    "LOGFIRE_SEND_TO_LOGFIRE": "false",
    "CREWAI_DISABLE_TELEMETRY": "true",
    "CREWAI_TRACING_ENABLED": "false",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_TELEMETRY": "False",
    "DO_NOT_TRACK": "1",
    "HF_HUB_OFFLINE": "1",
}


def _page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_pages_are_discovered() -> None:
    names = {_page_id(p) for p in PAGES}
    assert {"README.md", "docs/quickstart.md", "docs/integrations/langgraph.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_not_run_marks_give_a_reason(page: Path) -> None:
    for block in blocks_of(page):
        assert block.skip_reason is None or block.skip_reason.strip(), block.where


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_code_block_runs_as_written(page: Path, tmp_path: Path) -> None:
    runnable = [b for b in blocks_of(page) if b.runnable and b.skip_reason is None]
    if not runnable:
        pytest.skip("no runnable code block on this page")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(TELEMETRY_OFF, HOME=str(tmp_path))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("ANNEAL_MEMORY_DB", None)
    done = subprocess.run(
        [sys.executable, str(Path(__file__).parent / "_run_page.py"), str(page)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{_page_id(page)}:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
