#!/usr/bin/env python3
"""Corroboration on LoCoMo-built wraps: honest graduations kept, incidental ones refused.

Each LoCoMo conversation becomes two stores: every turn is an episode, one speaker's turns
recorded as ``external`` (what an outside source said), the other's as ``agent`` (speaker B
outside in the first store, speaker A in the second). A first wrap saves one 1x line per
question; the second wrap (over the turns) climbs each line to
2x with ``[evidence: ...]`` and the question and answer as the explanation:

  honest     a question whose gold evidence holds an external and an agent turn cites all
             its gold turns: the agent turn is about the same thing;
  incidental a question whose gold evidence holds an external turn cites its external gold
             turns plus the agent turn (not gold) that shares the fewest meaningful words
             with the explanation, at least two: the issue's "two shared words with an
             unrelated episode".

A line graduated when it is written at 2x. Run it on two checkouts to compare rules
(``PYTHONPATH=<checkout>/packages/anneal-core/src``).

Usage: .venv/bin/python bench/bench_corroboration.py ../shared/data/locomo-dev.json
           [--out f.json] [--quick]
Prints ONE JSON summary on stdout (progress on stderr).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import emit, log
from _haystack import load_turns
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.immune._grounding import grounding_words

_EVIDENCE = re.compile(r"^D:?(\d+):0*(\d+)$")
_UNSAFE = re.compile(r'["\[\]\n|]')
_EXPLANATION_CHARS = 160


def _gold(raw: list[str]) -> list[str]:
    out = []
    for entry in raw or []:
        for piece in re.split(r"[;,\s]+", str(entry)):
            m = _EVIDENCE.match(piece.strip())
            if m and (norm := f"D{int(m.group(1))}:{int(m.group(2))}") not in out:
                out.append(norm)
    return out


def _explanation(qa: dict) -> str:
    text = _UNSAFE.sub(" ", f"{qa['question']} {qa.get('answer', '')}")
    return " ".join(text.split())[:_EXPLANATION_CHARS]


def _text(lines: list[str]) -> str:
    head = ["# Bench \u2014 Memory (v1)", "", "## State", "- benchmarking", "", "## Patterns"]
    tail = ["", "## Decisions", "- none", "", "## Context", "- LoCoMo", ""]
    return "\n".join([*head, *lines, *tail])


def _incidental(explanation: str, agent: dict[str, str], gold: set[str]) -> str | None:
    words = grounding_words(explanation)
    shared = [
        (len(words & grounding_words(text)), dia)
        for dia, text in agent.items()
        if dia not in gold and len(words & grounding_words(text)) >= 2
    ]
    return min(shared)[1] if shared else None


def _outside(turn: dict, speaker: str) -> bool:
    return bool(turn["text"].split("] ", 1)[-1].startswith(f"{speaker}:"))


def _lines(
    sample: dict, turns: list[dict], ids: dict[str, str], speaker: str
) -> dict[str, tuple[str, list]]:
    """Pattern name -> (kind, cited dia ids) for each usable question."""
    external = {t["dia_id"] for t in turns if _outside(t, speaker)}
    agent = {t["dia_id"]: t["text"] for t in turns if t["dia_id"] not in external}
    out: dict[str, tuple[str, list]] = {}
    for n, qa in enumerate(sample["qa"]):
        gold = [g for g in _gold(qa.get("evidence", [])) if g in ids]
        outside = [g for g in gold if g in external]
        if not outside or "answer" not in qa:
            continue
        if any(g not in external for g in gold):
            out[f"honest_{n}"] = ("honest", gold)
        other = _incidental(_explanation(qa), agent, set(gold))
        if other is not None:
            out[f"incidental_{n}"] = ("incidental", [*outside, other])
    return out


def _conversation(sample: dict, folder: Path, speaker: str) -> dict[str, list[int]]:
    turns = load_turns(sample)
    with Store(folder / "memory.db", project_name="Bench", audit=False) as store:
        store.record("benchmark set-up", "context")
        names = {f"q{n}": qa for n, qa in enumerate(sample["qa"])}
        prepare_wrap(store)
        ids: dict[str, str] = {}
        for t in turns:
            trust = "external" if _outside(t, speaker) else "agent"
            ids[t["dia_id"]] = store.record(t["text"], "observation", trust=trust).id
        lines = _lines(sample, turns, ids, speaker)
        seed = [f"- {name} | 1x (2026-01-01)" for name in lines]
        validated_save_continuity(store, _text(seed))
        package = prepare_wrap(store, max_chars=1_000_000, max_package_chars=10_000_000).package
        assert package is not None
        climbed = []
        for name, (_kind, cited) in lines.items():
            qa = names[f"q{name.split('_')[1]}"]
            evidence = ", ".join(ids[d] for d in cited)
            climbed.append(
                f'- {name} | 2x ({package.today}) [evidence: {evidence} "{_explanation(qa)}"]'
                " [no-contradicts]"
            )
        validated_save_continuity(store, _text(climbed))
        saved = store.load_continuity() or ""
    counts: dict[str, list[int]] = {"honest": [0, 0], "incidental": [0, 0]}
    for line in saved.splitlines():
        m = re.match(r"- (honest|incidental)_\d+ \| (\d+)x", line)
        if m:
            counts[m.group(1)][0] += 1
            counts[m.group(1)][1] += int(m.group(2)) >= 2
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("locomo", help="locomo-dev.json")
    parser.add_argument("--out")
    parser.add_argument("--quick", action="store_true", help="the first conversation only (CI)")
    args = parser.parse_args()
    samples = json.loads(Path(args.locomo).read_text(encoding="utf-8"))
    if args.quick:
        samples = samples[:1]
    total = {"honest": [0, 0], "incidental": [0, 0]}
    with tempfile.TemporaryDirectory(prefix="bench-corroboration-") as tmp:
        for k, sample in enumerate(samples):
            log(f"conversation {k + 1}/{len(samples)}")
            for side in ("speaker_b", "speaker_a"):
                folder = Path(tmp) / f"c{k}-{side}"
                folder.mkdir()
                speaker = sample["conversation"][side]
                for kind, (lines, graduated) in _conversation(sample, folder, speaker).items():
                    total[kind][0] += lines
                    total[kind][1] += graduated
    emit(
        {
            kind: {"lines": n, "graduated_to_2x": g, "share": round(g / n, 4) if n else None}
            for kind, (n, g) in total.items()
        },
        args.out,
    )


if __name__ == "__main__":
    main()
