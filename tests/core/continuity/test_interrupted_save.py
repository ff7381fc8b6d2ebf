"""A save killed between its file's rename and its COMMIT is undone on the next open.

Issue #24 item 10. The save replaces the continuity file just before its transaction commits;
a kill in between used to leave the new text on disk while the database kept the wrap open,
without the save's pattern history, citations or ``continuity_saved`` entry, and ``check``
blamed a hand edit. Now the committed text is kept beside the file while the write is in
flight; ``check`` names the interrupted save, and the next write-capable open puts the last
committed text back (audited as ``continuity_restored``). These tests leave the files exactly
as a killed save leaves them, with the store's own ``write`` and no commit; the reliability
tier does the same with real SIGKILLs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.audit import read_entries
from anneal_memory.continuity import wrap_status

TEXT = "## State\n- {what}\n## Patterns\n## Decisions\n## Context\n- wrap\n"
KILLED = TEXT.format(what="the killed save's text")

pytestmark = pytest.mark.sqlite_only


def _saved(store: Store, what: str, scope: str = "") -> str:
    store.record(f"work on {what}", "observation", scope=scope)
    prep = prepare_wrap(store, scope=scope)
    text = TEXT.format(what=what)
    validated_save_continuity(store, text, wrap_token=prep.wrap_token, scope=scope)
    return text


def _killed_save(store: Store, scope: str = "") -> str:
    """Open a wrap and leave its save as a kill after the rename leaves it; the token."""
    store.record("work the killed save was about", "observation", scope=scope)
    prep = prepare_wrap(store, scope=scope)
    store.continuity_place(scope).write(None, KILLED, now="")  # type: ignore[arg-type]
    return prep.wrap_token


def _sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _leftovers(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name.endswith((".prev", ".none")))


@pytest.mark.parametrize("scope", ["", "alice"])
def test_the_last_committed_text_comes_back_and_check_says_why(db_path: Path, scope: str) -> None:
    with Store(db_path) as store:
        committed = _saved(store, "the committed save", scope)
        token = _killed_save(store, scope)
        path = store.continuity_file(scope)
    assert path.read_text() == KILLED
    with Store(db_path, read_only=True) as reader:
        report = reader.check(full=False)
    assert not report.ok
    assert [p.code for p in report.problems] == ["continuity-interrupted"]
    assert "killed after writing the file and before its commit" in report.problems[0].message
    assert "edited by hand" not in report.summary()

    with Store(db_path) as store:  # a write-capable open puts it right
        assert store.load_continuity(scope) == committed
        assert wrap_status(store, scope=scope) is not None  # the wrap never closed
        restored = read_entries(db_path, event="continuity_restored")
        assert [e["data"] for e in restored] == [
            {
                "discarded_hash": _sha(KILLED),
                "restored_hash": _sha(committed),
                "scoped": scope != "",
            }
        ]
        assert [
            e["data"]["content_hash"] for e in read_entries(db_path, event="continuity_saved")
        ] == [_sha(committed)]
        assert store.check(full=False).ok
        assert _leftovers(path) == []
        again = TEXT.format(what="saved after the restore")
        validated_save_continuity(store, again, wrap_token=token, scope=scope)
        assert store.load_continuity(scope) == again
    assert _leftovers(path) == []


def test_a_killed_first_save_leaves_no_file(db_path: Path) -> None:
    with Store(db_path) as store:
        _killed_save(store)
        path = store.continuity_file()
    assert _leftovers(path) == ["memory.continuity.md.none"]
    with Store(db_path) as store:
        assert store.load_continuity() is None
        assert not path.exists()
        [entry] = read_entries(db_path, event="continuity_restored")
        assert entry["data"]["restored_hash"] is None
    assert _leftovers(path) == []


def test_markers_left_after_the_commit_are_only_tidied(db_path: Path) -> None:
    with Store(db_path) as store:
        committed = _saved(store, "committed")
        path = store.continuity_file()
    path.with_name(path.name + ".prev").write_text("an older text")  # killed after COMMIT
    with Store(db_path) as store:
        assert store.load_continuity() == committed
        assert read_entries(db_path, event="continuity_restored") == []
    assert _leftovers(path) == []


def test_a_process_opened_before_the_kill_undoes_it_before_its_own_save(db_path: Path) -> None:
    with Store(db_path) as early:
        committed = _saved(early, "committed")
        with Store(db_path) as killed:  # another process, killed mid-save
            token = _killed_save(killed)
        assert early.load_continuity() == KILLED  # what a reader sees until someone repairs
        mine = TEXT.format(what="the early process's save")
        validated_save_continuity(early, mine, wrap_token=token)
        assert early.load_continuity() == mine
        events = [e["event"] for e in read_entries(db_path)]
        assert events.index("continuity_restored") < len(events) - 1
        assert committed != mine
