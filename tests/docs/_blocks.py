"""The code blocks of a markdown page, with their ``not run`` / ``run with`` marks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

RUNNABLE = frozenset({"python", "bash", "sh", "shell", "console"})
_FENCE = re.compile(r"^(\s*)```([\w+-]*)\s*$")
_NOT_RUN = re.compile(r"^<!--\s*not run:\s*(.*?)\s*-->$")
_RUN_WITH = re.compile(r"^<!--\s*run with:\s*(.*?)\s*-->$")


@dataclass(frozen=True)
class Block:
    """One fenced code block: its language, code, first code line and marks."""

    page: Path
    lang: str
    code: str
    line: int
    skip_reason: str | None
    run_with: str | None

    @property
    def runnable(self) -> bool:
        """Whether the block is code this test executes (python or a shell)."""
        return self.lang in RUNNABLE

    @property
    def where(self) -> str:
        return f"{self.page.name}:{self.line}"


def blocks_of(page: Path) -> list[Block]:
    """Every fenced block of ``page``, in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        match = _FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        indent, lang = match.groups()
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        before = lines[index - 1].strip() if index else ""
        not_run, run_with = _NOT_RUN.match(before), _RUN_WITH.match(before)
        code = "\n".join(line[len(indent) :] for line in lines[index + 1 : end]) + "\n"
        blocks.append(
            Block(
                page=page,
                lang=lang.lower(),
                code=code,
                line=index + 2,
                skip_reason=not_run.group(1) if not_run else None,
                run_with=run_with.group(1) if run_with else None,
            )
        )
        index = end + 1
    return blocks
