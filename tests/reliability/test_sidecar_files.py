"""Files that are not what they seem: a link, a FIFO or a folder at every file beside a store.

For each file the store reads or appends (each scope's continuity, the continuity lock, the
audit trail, its manifest and append lock, the token file, an import input), the probe runs
every entry point (library, CLI ``main(argv)``, MCP handler). Nothing may read or append
through a link (the outside file keeps its text and never reaches an answer), a FIFO may
never hang (run in a child under a timeout), and each entry point that reads the file refuses
it with an error naming it; ``check`` names it as damage.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _sidefile_probe import PLACES, SECRET, judge, place_path, plant, probe, seed
from backends import pg_url, target  # noqa: F401 - fixtures

pytestmark = pytest.mark.reliability

PROBE = Path(__file__).with_name("_sidefile_probe.py")
KINDS = ["symlink", "fifo", "dir"]


def _run(db: Path, place: str, kind: str) -> dict[str, str]:
    if kind != "fifo":
        return probe(db, place)
    env = {**os.environ, "HOME": str(db.parent / "home")}
    done = subprocess.run(
        [sys.executable, str(PROBE), str(db), place],
        capture_output=True,
        text=True,
        timeout=60,  # hanging on the FIFO is the failure
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("place", list(PLACES))
def test_nothing_is_read_or_appended_through_a_file_that_is_not_one(
    tmp_path: Path, place: str, kind: str
):
    db = tmp_path / "store" / "memory.db"
    outside = seed(db)
    path = place_path(db, place)
    if place == "import-input":  # a link to a real export: following it would import it
        outside = outside.with_name("export.json")
        outside.write_bytes(path.read_bytes())
    kept = outside.read_bytes()
    plant(path, kind, outside)

    answers = _run(db, place, kind)

    found = judge(answers, place, path.name, SECRET)
    assert not any(found.values()), {
        what: {n: answers[n][:300] for n in names} for what, names in found.items() if names
    }
    assert outside.read_bytes() == kept  # nothing appended through
    assert os.path.lexists(path)  # refused, never removed or replaced behind the user


def test_a_link_at_the_trail_gets_no_entry_and_the_entries_wait_in_the_database(tmp_path: Path):
    from anneal_memory import Store
    from anneal_memory.audit import AuditTrail

    db = tmp_path / "store" / "memory.db"
    outside = seed(db)
    trail = db.with_name("memory.audit.jsonl")
    kept = trail.read_bytes()
    trail.unlink()
    os.symlink(outside, trail)
    with Store(db) as store:
        store.record("written while the trail is a link", "observation")
        assert store.status().audit_write_failures >= 1
    assert outside.read_text(encoding="utf-8") == SECRET + "\n"
    trail.unlink()
    trail.write_bytes(kept)  # the operator puts the real trail back
    Store(db).close()  # the next open appends what waited
    result = AuditTrail.verify(db)
    assert result.valid, result.summary()
    assert result.complete, result.summary()
    assert result.total_entries == 4


def test_check_names_a_sealed_week_that_is_a_link(tmp_path: Path):
    import datetime as dt

    from anneal_memory import Store
    from anneal_memory.audit import AuditTrail
    from anneal_memory.testing import FrozenClock

    db = tmp_path / "store" / "memory.db"
    clock = FrozenClock(dt.datetime(2026, 3, 2, 9, tzinfo=dt.timezone.utc))
    with Store(db, clock=clock) as store:
        store.record("week one", "observation")
        clock.advance(days=7)
        store.record("week two", "observation")
    (sealed,) = db.parent.glob("memory.audit.*.jsonl.gz")
    outside = tmp_path / "foreign.gz"
    outside.write_bytes(sealed.read_bytes())
    sealed.unlink()
    os.symlink(outside, sealed)
    result = AuditTrail.verify(db)
    assert not result.valid
    assert sealed.name in str(result.error)
    assert "symbolic link" in str(result.error)
    with Store(db, read_only=True) as store:
        report = store.check(full=False)
    assert not report.ok
    assert any(p.code == "file-not-regular" and sealed.name in p.message for p in report.problems)


@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_cli_import_refuses_a_link_or_fifo_on_both_backends(
    target: str,  # noqa: F811 - the fixture
    tmp_path: Path,
    kind: str,
    capsys: pytest.CaptureFixture[str],
):
    from anneal_memory import Store
    from anneal_memory.cli import main

    with Store(target) as store:
        store.record("already here", "observation")
        real = tmp_path / "real-export.json"
        with real.open("w", encoding="utf-8") as out:
            store.export_json(out)
    named = tmp_path / "named.json"
    plant(named, kind, real)
    assert main(["--db", target, "import", str(named)]) == 1
    err = capsys.readouterr().err
    assert named.name in err
    assert ("symbolic link" if kind == "symlink" else "FIFO") in err
