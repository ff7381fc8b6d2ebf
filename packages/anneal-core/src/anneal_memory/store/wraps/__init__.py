"""Wrap rows, pattern history and association links, and where the continuity text is kept."""
