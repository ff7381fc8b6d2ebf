"""The page's files, shipped inside the wheel (``inspect/static``), served from a fixed list.

Only names in :data:`FILES` are ever read, so no request path reaches the file system.
"""

from __future__ import annotations

import importlib.resources

__all__ = ["FILES", "StaticFiles"]

FILES: dict[str, str] = {
    "index.html": "text/html; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "dom.js": "text/javascript; charset=utf-8",
    "markdown.js": "text/javascript; charset=utf-8",
    "charts.js": "text/javascript; charset=utf-8",
    "graph.js": "text/javascript; charset=utf-8",
    "views.js": "text/javascript; charset=utf-8",
    "views_memory.js": "text/javascript; charset=utf-8",
    "views_worth.js": "text/javascript; charset=utf-8",
    "icon.svg": "image/svg+xml",
}
"""Every file the page is made of, with its content type."""


class StaticFiles:
    """The page's files, read once from the package."""

    def __init__(self) -> None:
        folder = importlib.resources.files("anneal_memory.inspect") / "static"
        self._files = {name: (folder / name).read_bytes() for name in FILES}

    def has(self, name: str) -> bool:
        """True when ``name`` is one of the page's files."""
        return name in self._files

    def reply(self, name: str) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
        """``(200, bytes, headers)`` of one file."""
        return 200, self._files[name], [(b"content-type", FILES[name].encode())]
