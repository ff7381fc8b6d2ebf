"""After delete, a canary string is in no file of the store: open, and after close."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.audit import iter_entries

pytestmark = pytest.mark.reliability

CANARY = "zqxcanary7f3a9"
SECRET_SOURCE = "Token-SK-4417-zqxsecret"


def _files_holding(folder: Path, needle: str) -> list[str]:
    forms = {needle.encode(), needle.lower().encode(), needle.upper().encode()}
    found = []
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            if any(form in data for form in forms):
                found.append(path.name)
    return found


@pytest.mark.parametrize("how", ["delete", "prune"])
def test_deleted_text_is_in_no_file_while_open_and_after_close(tmp_path: Path, how: str):
    db = tmp_path / "memory.db"
    store = Store(db)
    for i in range(300):
        store.record(f"ordinary note {i} about sockets and pools", "observation")
    secret = store.record(
        f"the password is {CANARY} keep it", "observation", timestamp="2020-01-01T00:00:00Z"
    )
    for i in range(50):
        store.record(f"later note {i}", "observation")
    assert _files_holding(tmp_path, CANARY)  # the test can see it before
    if how == "delete":
        assert store.delete(secret.id)
    else:
        assert store.prune(365 * 3).deleted == 1
    assert store.recall(CANARY).episodes == ()
    assert _files_holding(tmp_path, CANARY) == []
    store.record("one more after the delete", "observation")
    store.close()
    assert _files_holding(tmp_path, CANARY) == []


def test_a_free_text_source_never_reaches_the_audit_trail(tmp_path: Path):
    db = tmp_path / "memory.db"
    with Store(db) as store:
        episode = store.record("note", "observation", source=SECRET_SOURCE)
        store.record("plain", "observation", source="agent")
        store.delete(episode.id)
    audit_files = [p for p in tmp_path.iterdir() if ".audit" in p.name]
    assert audit_files
    assert not any(SECRET_SOURCE.encode() in p.read_bytes() for p in audit_files)
    assert _files_holding(tmp_path, SECRET_SOURCE) == []
    actors = [e["actor"] for e in iter_entries(db) if e["event"] == "record"]
    assert actors[0].startswith("hmac-sha256:")
    assert actors[1] == "agent"
    assert json.dumps(list(iter_entries(db))).count("hmac-sha256:") >= 2
