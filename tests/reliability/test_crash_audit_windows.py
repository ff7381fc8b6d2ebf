"""kill -9 at the audit window of the changes whose entry was appended after their commit.

Prepare, cancel and reclaim of a wrap, a refused save, a save's supersede links, crystal and
spore updates, and ``import_from``.

A child process makes one change and is SIGKILLed at one of two points: when the change's
audit entry is staged (``stage``), or when the staged entry is about to be appended to the
trail (``append``). After reopening, the change and its entry are both present or both
absent, and ``verify`` passes.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.audit import AuditTrail, iter_entries

pytestmark = [pytest.mark.reliability, pytest.mark.e2e]

# argv: db, scenario, kill point ("stage" | "append"), event, [import file]
CHILD = r"""
import os, signal, sys
from anneal_memory import Store, prepare_wrap, validated_save_continuity, wrap_cancel
from anneal_memory.audit import _trail
from anneal_memory.store.sqlite import _outbox as _sink
from anneal_memory.crystal import crystallize, update_crystal
from anneal_memory.errors import ContinuityRejectedError
from anneal_memory.spores import add_spore, update_spore
from anneal_memory.testing import FrozenClock

db, scenario, point, event = sys.argv[1:5]
TEXT = "## State\n- crash test\n## Patterns\n## Decisions\n## Context\n{context}\n"


def die():
    os.kill(os.getpid(), signal.SIGKILL)


def arm():
    if point == "stage":
        real_stage = _sink.StoreAuditSink.stage

        def stage(self, conn, kind, actor, data):
            if kind == event:
                die()
            real_stage(self, conn, kind, actor, data)

        _sink.StoreAuditSink.stage = stage
    else:
        real_write = _trail.write_all
        needle = b'"event":"' + event.encode() + b'"'

        def write_all(fd, payload):
            if needle in payload:
                die()
            real_write(fd, payload)

        _trail.write_all = write_all


clock = FrozenClock()
with Store(db, clock=clock) as store:
    if scenario == "started":
        store.record("an episode to wrap", "observation")
        arm()
        prepare_wrap(store)
    elif scenario == "cancelled":
        store.record("an episode to wrap", "observation")
        prepare_wrap(store)
        arm()
        wrap_cancel(store)
    elif scenario == "reclaimed":
        store.record("an episode to wrap", "observation")
        prepare_wrap(store, owner_process=False)
        clock.advance(hours=2)  # the lease has ended
        arm()
        prepare_wrap(store)
    elif scenario == "refused":
        store.record("an episode to wrap", "observation")
        prep = prepare_wrap(store)
        clock.advance(minutes=10)  # the refusal renews the lease from here
        arm()
        try:
            validated_save_continuity(store, "no sections at all", wrap_token=prep.wrap_token)
        except ContinuityRejectedError:
            pass
    elif scenario == "supersede":
        old = store.record("The user lives in Porto and works remotely", "observation")
        new = store.record("The user now lives in Lisbon and works remotely", "observation")
        prep = prepare_wrap(store)
        arm()
        context = f"- moved to Lisbon [supersedes: {old.id} by {new.id}]"
        validated_save_continuity(store, TEXT.format(context=context), wrap_token=prep.wrap_token)
    elif scenario == "crystal_update":
        cited = store.record("the pool ran out of sockets", "observation")
        crystallize(store, "pool_sizing", level=2, explanation="size the pool", evidence=[cited.id])
        arm()
        update_crystal(store, "pool_sizing", explanation="size the pool for peak load")
    elif scenario == "spore_update":
        spore = add_spore(store, type="task", text="check the pool size")
        arm()
        update_spore(store, spore.id, text="check the pool size at peak")
    elif scenario == "import":
        arm()
        store.import_from(sys.argv[5])
    else:
        raise SystemExit(f"unknown scenario {scenario}")
print("survived", flush=True)
"""

SCENARIOS = {
    "started": "wrap_started",
    "cancelled": "wrap_cancelled",
    "reclaimed": "wrap_cancelled",
    "refused": "continuity_refused",
    "supersede": "supersede",
    "crystal_update": "crystal_changed",
    "spore_update": "spore_changed",
    "import": "import",
}


def _kill_at(db: Path, scenario: str, point: str, *extra: str) -> None:
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(db), scenario, point, SCENARIOS[scenario], *extra],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert child.returncode == -9, (child.returncode, child.stdout, child.stderr)


def _rows(db: Path, sql: str) -> set[str]:
    conn = sqlite3.connect(db)
    try:
        return {str(r[0]) for r in conn.execute(sql)}
    finally:
        conn.close()


def _logged(db: Path, event: str, key: str, **match: str) -> set[str]:
    return {
        str(e["data"][key])
        for e in iter_entries(db)
        if e["event"] == event and all(e["data"].get(k) == v for k, v in match.items())
    }


def _export(tmp_path: Path) -> Path:
    source = tmp_path / "source.db"
    out = tmp_path / "export.json"
    with Store(source) as store:
        for i in range(3):
            store.record(f"imported note {i}", "observation")
        with out.open("w", encoding="utf-8") as handle:
            store.export_json(handle)
    return out


def _changes_and_entries(db: Path, scenario: str) -> tuple[set[str], set[str]]:
    """What the scenario changed in the database, and what the trail says it changed."""
    if scenario == "started":
        return _rows(db, "SELECT id FROM wraps"), _logged(db, "wrap_started", "wrap_id")
    if scenario in ("cancelled", "reclaimed"):
        cancelled = _rows(db, "SELECT id FROM wraps WHERE status = 'cancelled'")
        return cancelled, _logged(db, "wrap_cancelled", "wrap_id")
    if scenario == "refused":
        renewed = _rows(
            db,
            "SELECT id FROM wraps"
            " WHERE julianday(lease_expires_at) > julianday(started_at, '+31 minutes')",
        )
        return renewed, _logged(db, "continuity_refused", "wrap_id")
    if scenario == "supersede":
        links = _rows(db, "SELECT old_id || ' ' || new_id FROM supersessions WHERE via = 'wrap'")
        old = _logged(db, "supersede", "old_id", via="wrap")
        new = _logged(db, "supersede", "new_id", via="wrap")
        entries = {f"{o} {n}" for o, n in zip(sorted(old), sorted(new), strict=True)}
        return links, entries
    if scenario == "crystal_update":
        updated = _rows(db, "SELECT name FROM crystals WHERE revision > 1")
        return updated, _logged(db, "crystal_changed", "name", op="update")
    if scenario == "spore_update":
        updated = _rows(db, "SELECT printf('spore-%03d', num) FROM spores WHERE revision > 1")
        return updated, _logged(db, "spore_changed", "spore_id", op="update")
    imported = _rows(db, "SELECT id FROM episodes WHERE content LIKE 'imported note%'")
    changes = {"import"} if imported else set()
    return changes, {"import"} if any(e["event"] == "import" for e in iter_entries(db)) else set()


@pytest.mark.parametrize("point", ["stage", "append"])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_a_kill_at_the_audit_window_keeps_change_and_entry_together(
    tmp_path: Path, scenario: str, point: str
):
    db = tmp_path / "memory.db"
    Store(db).close()
    extra = (str(_export(tmp_path)),) if scenario == "import" else ()
    _kill_at(db, scenario, point, *extra)
    Store(db).close()  # the reopen appends whatever was staged and not appended
    changes, entries = _changes_and_entries(db, scenario)
    assert changes == entries
    if point == "append":
        assert changes, "a kill after the commit keeps the change"
    else:
        assert not changes, "a kill while the entry is staged rolls the change back"
    result = AuditTrail.verify(db)
    assert result.valid, result.error
    assert result.pending_entries == 0
    assert result.missing_entries == 0
