"""The SQLite backend: ``SqliteBackend`` (``_backend.py``) and what it is made of.

Connection policy, open and identity, schema and migrations, check, erase, per-type counts,
the dialect's own statements and the audit outbox. Never imports ``store/postgres``.
"""
