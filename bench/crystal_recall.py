"""Precision of ``crystal_recall`` on a labelled set, ours and (optionally) 1.0.2's.

The set (``crystal_recall_set.json``): 20 crystals, each with one evidence episode, and 42
prompts labelled with the crystals that should come back: 23 name the subject in other
words, 9 only describe what the evidence episode saw (found through the evidence edge), 10
are negatives (off-topic, or sharing one generic word). Every prompt runs in prompt mode with
the default cap of 3, on two stores: ``small`` (only the 20 evidence episodes, so keywords
are weighed by length) and ``idf`` (plus 300 seeded filler episodes, so corpus idf applies).

Figures per store: ``precision`` (relevant hits / hits returned, micro), ``recall``
(relevant hits / labelled relevant), ``hit_at_1`` (positive prompts whose first hit is
relevant), ``negatives_silent`` (negative prompts that return nothing), ``false_hits``.

    .venv/bin/python bench/crystal_recall.py [--quick] \\
        [--upstream-python /work/venv-upstream/bin/python] [--out crystal_recall.json]

``--quick`` runs our side on the small store only (a second or two). ``--upstream-python``
adds the public anneal-memory 1.0.2 on the same set through its own CLI
(``crystal recall --json``), in a subprocess of that interpreter.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Corpus, emit, log, machine_facts

SET = Path(__file__).with_name("crystal_recall_set.json")
FILLER = 300

_UPSTREAM_SETUP = """
import json, sys
from pathlib import Path
from anneal_memory import Store
from anneal_memory.crystal import CrystalStore
db, data, filler = Path(sys.argv[1]), json.loads(sys.argv[2]), json.loads(sys.argv[3])
with Store(str(db)) as store:
    ids = [store.record(c["episode"], "observation").id for c in data["crystals"]]
    for text in filler:
        store.record(text, "observation")
crystals = CrystalStore(db.parent / f"{db.stem}.crystal.json")
for c, ident in zip(data["crystals"], ids):
    crystals.crystallize(name=c["name"], level=c["level"], explanation=c["explanation"],
                         evidence=[ident], tags=c["tags"])
"""


def _score(results: list[list[str]], prompts: list[dict]) -> dict:
    returned = tp = labelled = top = positives = silent = negatives = 0
    for names, prompt in zip(results, prompts, strict=True):
        relevant = set(prompt["relevant"])
        returned += len(names)
        tp += len([n for n in names if n in relevant])
        labelled += len(relevant)
        if relevant:
            positives += 1
            top += bool(names) and names[0] in relevant
        else:
            negatives += 1
            silent += not names
    return {
        "prompts": len(prompts),
        "hits_returned": returned,
        "precision": round(tp / returned, 3) if returned else None,
        "recall": round(tp / labelled, 3) if labelled else None,
        "hit_at_1": round(top / positives, 3) if positives else None,
        "negatives_silent": round(silent / negatives, 3) if negatives else None,
        "false_hits": returned - tp,
    }


def _ours(db: Path, data: dict, filler: list[str]) -> list[list[str]]:
    from anneal_memory import Store
    from anneal_memory.crystal import crystal_recall, crystallize

    with Store(db) as store:
        for c in data["crystals"]:
            ep = store.record(c["episode"], "observation")
            crystallize(store, c["name"], level=c["level"], explanation=c["explanation"],
                        evidence=[ep.id], tags=c["tags"])  # fmt: skip
        for text in filler:
            store.record(text, "observation")
        return [
            [h.crystal.name for h in crystal_recall(store, p["q"]).hits] for p in data["prompts"]
        ]


def _upstream(python: str, db: Path, data: dict, filler: list[str]) -> list[list[str]]:
    setup = [python, "-c", _UPSTREAM_SETUP, str(db), json.dumps(data), json.dumps(filler)]
    subprocess.run(setup, check=True, capture_output=True, text=True)
    cli = str(Path(python).with_name("anneal-memory"))
    out = []
    for prompt in data["prompts"]:
        proc = subprocess.run(
            [cli, "--db", str(db), "crystal", "recall", prompt["q"], "--json"],
            check=False, capture_output=True, text=True,
        )  # fmt: skip
        try:
            found = json.loads(proc.stdout) if proc.stdout.strip().startswith("[") else []
        except json.JSONDecodeError:
            found = []
        out.append([item["name"] for item in found])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="our side, small store only")
    parser.add_argument("--upstream-python", help="interpreter with anneal-memory==1.0.2")
    parser.add_argument("--out", help="also write the JSON summary here")
    args = parser.parse_args()
    data = json.loads(SET.read_text(encoding="utf-8"))
    stores = {"small": []} if args.quick else {"small": [], "idf": Corpus(42).texts(0, FILLER)}
    summary: dict = {"machine": machine_facts(), "set": SET.name, "stores": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for label, filler in stores.items():
            log(f"ours: {label} store")
            row = {
                "ours": _score(_ours(Path(tmp) / f"ours-{label}.db", data, filler), data["prompts"])
            }
            if args.upstream_python and not args.quick:
                log(f"1.0.2: {label} store (one CLI call per prompt)")
                found = _upstream(args.upstream_python, Path(tmp) / f"up-{label}.db", data, filler)
                row["upstream_1_0_2"] = _score(found, data["prompts"])
            summary["stores"][label] = row
    emit(summary, args.out)


if __name__ == "__main__":
    main()
