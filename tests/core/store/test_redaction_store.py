"""Secrets at the door, on SQLite and PostgreSQL: record, provenance, import, export, audit.

A secret in a record is replaced before the write, so it reaches neither the row, the
full-text index, the audit trail, an export nor (SQLite) the database and WAL files.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.errors import ImportFormatError, InvalidInputError, SecretRefusedError
from anneal_memory.redaction import RedactionPolicy, RedactionSettings
from anneal_memory.testing import FrozenClock
from backends import audit_entries, backend_store, pg_url, target  # noqa: F401 - fixtures

KEY = "AKIAIOSFODNN7EXAMPLE"
TOKEN = "ghp_" + "Zq8Lm3Vx7Rt2Kp9Wd4Hs6Jn1Bc5Gf0Ya3Ue8"
NOTE = f"deploy used {KEY} and the job logged {TOKEN}"


@pytest.fixture
def store(backend_store: Store) -> Store:  # noqa: F811
    return backend_store


def _export(store: Store) -> str:
    out = io.StringIO()
    store.export_json(out)
    return out.getvalue()


def test_record_redacts_text_and_metadata_before_writing(store: Store) -> None:
    episode = store.record(NOTE, "observation", metadata={"argv": ["aws", "--key", KEY]})
    assert episode.content == (
        "deploy used [redacted:aws-access-key] and the job logged [redacted:github-token]"
    )
    assert episode.metadata == {"argv": ["aws", "--key", "[redacted:aws-access-key]"]}
    assert store.get(episode.id) == episode
    assert store.recall(keyword=KEY).episodes == ()
    assert store.recall(keyword=TOKEN).episodes == ()
    assert [e.id for e in store.recall(keyword="deploy redacted").episodes] == [episode.id]
    (entry,) = audit_entries(store, "record")
    assert entry["data"]["redacted"] == ["aws-access-key", "github-token"]
    assert KEY not in json.dumps(entry)
    assert TOKEN not in json.dumps(entry)
    assert KEY not in _export(store)
    assert TOKEN not in _export(store)


def test_every_provenance_path_is_redacted(store: Store) -> None:
    page = store.record(f"fetched page: {KEY}", "observation", trust="external", scope="u1")
    first = store.record(
        "the build summary said node 18", "observation", trust="external", scope="u1"
    )
    note = store.record(
        f"the build summary said node 20, token {TOKEN}",
        "observation",
        scope="u1",
        derived_from=[page.id],
        supersedes=[first.id],
        state_key="user.city",
        trust="tool",
    )
    assert "[redacted:aws-access-key]" in page.content
    assert [e.id for e in store.recall(keyword="fetched page", scope="u1").episodes] == [page.id]
    assert note.content == "the build summary said node 20, token [redacted:github-token]"
    assert store.effective_trusts([note.id])[note.id].value == "external"
    assert store.get(first.id).superseded_by == note.id  # type: ignore[union-attr]
    entries = audit_entries(store, "record")
    assert [e["data"].get("redacted") for e in entries] == [
        ["aws-access-key"],
        None,
        ["github-token"],
    ]


def test_a_retry_with_the_same_key_returns_the_first_episode(store: Store) -> None:
    first = store.record(NOTE, "observation", idempotency_key="job-7")
    again = store.record(NOTE, "observation", idempotency_key="job-7")
    assert again == first
    assert store.status().total_episodes == 1


def test_refuse_writes_nothing_and_names_the_kind(store: Store) -> None:
    store.set_redaction("refuse")
    before = len(audit_entries(store))
    with pytest.raises(SecretRefusedError) as refused:
        store.record(NOTE, "observation")
    assert refused.value.kinds == ("aws-access-key", "github-token")
    assert KEY not in str(refused.value)
    assert TOKEN not in str(refused.value)
    assert store.status().total_episodes == 0
    assert len(audit_entries(store)) == before
    assert store.record("a clean note", "observation").content == "a clean note"


def test_off_keeps_the_text_and_personal_rules_are_opt_in(store: Store) -> None:
    store.set_redaction("off")
    assert store.record(NOTE, "observation").content == NOTE
    store.set_redaction("redact")
    mail = store.record("reply to jane.doe@example.org", "observation")
    assert mail.content == "reply to jane.doe@example.org"
    store.set_redaction(personal=True)
    assert store.record("reply to ann@example.org", "observation").content == (
        "reply to [redacted:email]"
    )


def test_settings_changes_are_audited_and_returned(store: Store) -> None:
    assert store.redaction_settings() == RedactionSettings()
    was = store.set_redaction("refuse", personal=True)
    assert was == RedactionSettings()
    assert store.set_redaction("refuse") == RedactionSettings(
        policy=RedactionPolicy.REFUSE, personal=True
    )
    (entry,) = audit_entries(store, "redaction_policy_set")  # the no-op change is not logged
    assert entry["actor"] == "operator"
    assert entry["data"] == {
        "policy": "refuse",
        "personal": True,
        "was": {"policy": "redact", "personal": False},
    }
    with pytest.raises(InvalidInputError, match="unknown redaction policy 'loud'"):
        store.set_redaction("loud")


def test_the_open_option_persists(target: str, clock: FrozenClock) -> None:  # noqa: F811
    with Store(target, clock=clock, redaction="off") as opened:
        assert opened.redaction_settings().policy is RedactionPolicy.OFF
    with Store(target, clock=clock) as reopened:
        assert reopened.redaction_settings().policy is RedactionPolicy.OFF
        assert reopened.record(NOTE, "observation").content == NOTE
    full = RedactionSettings(policy=RedactionPolicy.REDACT, personal=True)
    with Store(target, clock=clock, redaction=full) as again:
        assert again.redaction_settings() == full
    with Store(target, clock=clock, redaction="refuse") as policy_only:
        assert policy_only.redaction_settings().personal is True  # kept
    with pytest.raises(InvalidInputError, match="without read_only=True"):
        Store(target, clock=clock, read_only=True, redaction="off")


def test_a_bad_option_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "new" / "memory.db"
    with pytest.raises(InvalidInputError, match="unknown redaction policy"):
        Store(path, redaction="sometimes")
    assert not path.exists()


def test_import_applies_the_importing_stores_policy(
    store: Store, tmp_path: Path, clock: FrozenClock
) -> None:
    with Store(tmp_path / "raw.db", clock=clock, redaction="off") as raw:
        kept = raw.record(NOTE, "observation", metadata={"key": KEY})
        raw.record("nothing secret here", "decision")
        document = _export(raw)
    assert KEY in document
    result = store.import_json(document)
    assert (result.imported, dict(result.redacted)) == (2, {"aws-access-key": 1, "github-token": 1})
    copy = store.get(kept.id)
    assert copy is not None
    assert KEY not in copy.content
    assert copy.metadata == {"key": "[redacted:aws-access-key]"}
    assert store.recall(keyword=KEY).episodes == ()
    (entry,) = audit_entries(store, "import")
    assert entry["data"]["redacted"] == {"aws-access-key": 1, "github-token": 1}
    again = store.import_json(document)  # the redacted copy is the same episode
    assert (again.imported, again.skipped_existing) == (0, 2)


def test_import_into_a_refusing_store_writes_nothing(
    store: Store, tmp_path: Path, clock: FrozenClock
) -> None:
    with Store(tmp_path / "raw.db", clock=clock, redaction="off") as raw:
        raw.record("first, clean", "observation")
        raw.record(NOTE, "observation")
        document = _export(raw)
    store.set_redaction("refuse")
    with pytest.raises(
        ImportFormatError, match=r"episode #1 \(\w{8}\): episode refused"
    ) as refused:
        store.import_json(document)
    assert KEY not in str(refused.value)
    assert store.status().total_episodes == 0


@pytest.mark.sqlite_only(reason="reads the SQLite database and WAL files")
def test_no_secret_byte_reaches_the_files(store: Store, tmp_path: Path, clock: FrozenClock) -> None:
    store.record("\n".join([NOTE] * 20), "observation", metadata={"k": KEY})
    with Store(tmp_path / "raw.db", clock=clock, redaction="off") as raw:
        raw.record(NOTE, "decision")
        (tmp_path / "export.json").write_text(_export(raw), encoding="utf-8")
    report = store.import_from(tmp_path / "export.json")
    assert dict(report.redacted) == {"aws-access-key": 1, "github-token": 1}
    (entry,) = audit_entries(store, "import")
    assert entry["data"]["redacted"] == {"aws-access-key": 1, "github-token": 1}
    files = [store.path, *store.path.parent.glob(store.path.name + "-*")]
    files += list(store.path.parent.glob(store.path.stem + ".audit*"))
    for path in files:
        data = path.read_bytes()
        assert KEY.encode() not in data, path.name
        assert TOKEN.encode() not in data, path.name
