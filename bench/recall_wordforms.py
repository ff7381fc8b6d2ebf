"""Word forms at query time or at index time: the same episodes, the same ranks? (issue 29).

Three ways to let *chose* meet *choose* over the ``recall_set.json`` store (its episodes and
the same 2,400 filler notes), each ranked by plain FTS5 bm25 (``porter unicode61``) over the
OR of the question's content words, so the word forms are the only difference:

* ``none``: the words as typed (what recall did before);
* ``query``: each word as the OR of its family's forms (``_wordforms``: what recall does);
* ``index``: every word of every episode and question replaced by its family's first form
  before indexing (index-time normalisation: needs the index rebuilt);
* ``lemmatizer`` (when ``simplemma`` is importable): the same with simplemma's English lemma.

Per way: hit@1 / hit@5 of each question's labelled episode, and for ``index`` the share of
questions whose matching episodes are exactly those of ``query``.

    .venv/bin/python bench/recall_wordforms.py [--quick] [--out f.json]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import emit, machine_facts
from anneal_memory.store.recall._search import STOPWORDS, quote, tokenize
from anneal_memory.store.recall._wordforms import _table, word_forms
from recall_set import FILLER, SET, filler


def _index(texts: list[str], normal: Callable[[str], str]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61')")
    conn.executemany(
        "INSERT INTO t(rowid, x) VALUES (?, ?)",
        [(i, " ".join(normal(w) for w in tokenize(text))) for i, text in enumerate(texts, 1)],
    )
    return conn


def _words(question: str) -> list[str]:
    words = list(dict.fromkeys(tokenize(question)))
    return [w for w in words if w not in STOPWORDS] or words


def _search(conn: sqlite3.Connection, expression: str) -> list[int]:
    rows = conn.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank", (expression,))
    return [int(r[0]) for r in rows]


def _lemma_of_table(word: str) -> str:
    family = _table().get(word)
    return family[0] if family else word


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="300 filler notes")
    parser.add_argument("--out")
    args = parser.parse_args()
    data = json.loads(SET.read_text(encoding="utf-8"))
    now = dt.datetime.fromisoformat(data["now"].replace("Z", "+00:00"))
    episodes = [*data["episodes"], *filler(300 if args.quick else FILLER, now)]
    row_of = {e["key"]: i for i, e in enumerate(episodes, 1)}
    texts = [e["text"] for e in episodes]
    ways: dict[str, tuple[Callable[[str], str], Callable[[str], str]]] = {
        "none": (str, lambda q: " OR ".join(quote(w) for w in _words(q))),
        "query": (
            str,
            lambda q: " OR ".join(" OR ".join(quote(f) for f in word_forms(w)) for w in _words(q)),
        ),
        "index": (
            _lemma_of_table,
            lambda q: " OR ".join(quote(_lemma_of_table(w)) for w in _words(q)),
        ),
    }
    try:
        import simplemma  # type: ignore[import-not-found]

        def lemma(word: str) -> str:
            return str(simplemma.lemmatize(word, lang="en")).lower()

        ways["lemmatizer"] = (lemma, lambda q: " OR ".join(quote(lemma(w)) for w in _words(q)))
    except ImportError:
        pass
    found: dict[str, list[list[int]]] = {}
    summary: dict = {"machine": machine_facts(), "episodes": len(texts), "ways": {}}
    for name, (normal, expression) in ways.items():
        conn = _index(texts, normal)
        found[name] = [_search(conn, expression(p["question"])) for p in data["pairs"]]
        by_kind: dict[str, list[int | None]] = {}
        for pair, ranked in zip(data["pairs"], found[name], strict=True):
            target = row_of[pair["target"]]
            rank = ranked.index(target) + 1 if target in ranked else None
            by_kind.setdefault(pair["kind"], []).append(rank)
            by_kind.setdefault("all", []).append(rank)
        summary["ways"][name] = {
            kind: {
                "n": len(r),
                "hit@1": round(sum(x == 1 for x in r) / len(r), 3),
                "hit@5": round(sum(x is not None and x <= 5 for x in r) / len(r), 3),
            }
            for kind, r in by_kind.items()
        }
    same = [set(a) == set(b) for a, b in zip(found["query"], found["index"], strict=True)]
    summary["index_matches_equal_query_matches"] = round(sum(same) / len(same), 3)
    emit(summary, args.out)


if __name__ == "__main__":
    main()
