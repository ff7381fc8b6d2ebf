r"""Generate the tool-integrity manifest from the tool table.

``python -m anneal_memory.mcp.gen_manifest`` prints it. In a source checkout, after changing
a tool's description or schema, regenerate the committed file and commit it::

    python -m anneal_memory.mcp.gen_manifest \
        --output packages/anneal-core/src/anneal_memory/mcp/tool-integrity.json

``--write`` writes the shipped file (``MANIFEST_PATH``) in place. ``--check [PATH]`` exits 1
when the shipped file (or PATH) is stale. The server never
writes the manifest, and this script writes only the path it is given.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from anneal_memory.mcp._integrity import MANIFEST_PATH, build_manifest, render_manifest
from anneal_memory.mcp._tools import TOOLS

__all__ = ["main", "manifest_text"]


def manifest_text() -> str:
    """The manifest of the current tool table, as the file's text."""
    return render_manifest(build_manifest(tool.to_dict() for tool in TOOLS))


def main(argv: Sequence[str] | None = None) -> int:
    """Print, write or check the manifest; return the exit code."""
    parser = argparse.ArgumentParser(prog="python -m anneal_memory.mcp.gen_manifest")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--output", metavar="PATH", type=Path, help="write the manifest to PATH")
    mode.add_argument(
        "--write",
        action="store_const",
        const=MANIFEST_PATH,
        dest="output",
        help=f"write the shipped {MANIFEST_PATH.name} (a source checkout)",
    )
    mode.add_argument(
        "--check",
        metavar="PATH",
        type=Path,
        nargs="?",
        const=MANIFEST_PATH,
        help=f"exit 1 when PATH (default: the shipped {MANIFEST_PATH.name}) is stale",
    )
    args = parser.parse_args(argv)
    text = manifest_text()
    if args.output is not None:
        from anneal_memory._fsio import atomic_write_text

        atomic_write_text(args.output, text)
        return 0
    if args.check is not None:
        path: Path = args.check
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != text:
            sys.stderr.write(f"{path} is stale: regenerate it with --output\n")
            return 1
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
