from __future__ import annotations

import stat

import pytest
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.continuity import continuity_path

TEXT = "## State\n## Patterns\n## Decisions\n## Context\n- wrap {n}\n"


@pytest.mark.sqlite_only
def test_file_beside_the_db_private_with_a_stable_lock_file(store: Store) -> None:
    path = continuity_path(store)
    assert path.name == "memory.continuity.md"
    assert not path.exists()
    assert store.load_continuity() is None
    inodes = []
    for n in range(2):
        store.record(f"episode {n}", "observation")
        prepare_wrap(store)
        validated_save_continuity(store, TEXT.format(n=n))
        lock = path.with_name("memory.continuity.md.lock")
        inodes.append(lock.stat().st_ino)
    assert inodes[0] == inodes[1]  # the lock file is never replaced
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert store.load_continuity() == TEXT.format(n=1)
    leftovers = [p for p in path.parent.iterdir() if ".tmp-" in p.name]
    assert leftovers == []
