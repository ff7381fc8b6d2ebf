"""Helpers of the explain and inspector tests: real wraps compressed by the demo compressor."""

from __future__ import annotations

from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.continuity import SaveResult
from anneal_memory.testing import demo_compress


def demo_wrap(store: Store, scope: str = "", extra: str = "") -> SaveResult:
    """One wrap compressed by the demo compressor (``extra`` appended to the text)."""
    prepared = prepare_wrap(store, scope=scope)
    text = demo_compress(prepared.text or "") + extra
    return validated_save_continuity(store, text, wrap_token=prepared.wrap_token, scope=scope)


SESSION = (
    ("observation", "The parallel pytest workers share one Postgres database and see rows"),
    ("decision", "Give each parallel pytest worker its own Postgres database from a template"),
    ("outcome", "Per worker Postgres databases made the parallel pytest suite pass 50 of 50"),
)
FOLLOW_UP = (
    ("outcome", "With per worker Postgres databases the parallel pytest workers stay isolated"),
    ("observation", "The template keeps per worker Postgres setup fast for parallel pytest runs"),
)


def record_all(store: Store, episodes: tuple[tuple[str, str], ...], **options: object) -> list[str]:
    return [store.record(text, kind, **options).id for kind, text in episodes]  # type: ignore[arg-type]
