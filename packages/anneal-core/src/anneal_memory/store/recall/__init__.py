"""Recall: filters, keyword parsing, the one stage order, and SQLite's FTS5 ranker."""
