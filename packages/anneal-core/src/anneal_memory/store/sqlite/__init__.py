"""The SQLite backend.

Connection policy, open and identity, schema and migrations, check, erase, per-type counts.
"""
