"""Run every code block of one markdown page in order, as written (used by test_code_blocks.py).

Usage: ``python _run_page.py PAGE.md``, from the temporary folder the page runs in. Python
blocks share one namespace (a page builds on its earlier blocks); bash/sh/console blocks run
with ``bash -euo pipefail`` in the same folder (exported variables carry over
to the next shell block). A block preceded by ``<!-- not run: reason -->``
is skipped; ``<!-- run with: name = module:attr, ... -->`` binds those names first (the page
says in its text what they stand for, e.g. the framework's fake model). Sockets are blocked:
a connect or name lookup fails the page. Once the blocks ran, every ``name.attr`` the page's
prose puts in backticks, where ``name`` is an object its code bound, must exist on it (so a
documented ``memory.failures`` on an object without ``failures`` fails the page).
"""

from __future__ import annotations

import importlib
import re
import socket
import subprocess
import sys
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).parent))

from _blocks import Block, blocks_of


def _block_network() -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(f"network access from a docs example: {args[1:2]!r}")

    real_connect = socket.socket.connect

    def connect(self: socket.socket, address: object) -> object:
        if self.family == socket.AF_UNIX:
            return real_connect(self, address)
        return refuse(self, address)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect  # type: ignore[method-assign,assignment]
    socket.getaddrinfo = refuse  # type: ignore[assignment]


def _bindings(spec: str) -> dict[str, object]:
    bound: dict[str, object] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, _, target = (s.strip() for s in part.partition("="))
        module, _, attr = target.partition(":")
        bound[name] = getattr(importlib.import_module(module), attr)
    return bound


def _shell(block: Block) -> None:
    code = block.code
    if block.lang == "console":
        code = "\n".join(line[2:] for line in code.splitlines() if line.startswith("$ "))
    # Exported variables carry over to the page's next shell block, as in one terminal.
    state = Path(".docs-shell-env")
    script = f"[ -f {state} ] && source {state}\nset -euo pipefail\n{code}\nexport -p > {state}\n"
    done = subprocess.run(["bash", "-c", script], stdin=subprocess.DEVNULL, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{block.where}: the shell block exited {done.returncode}")


def main(page: Path) -> None:
    _block_network()
    namespace: dict[str, object] = {"__name__": "__main__"}
    for block in blocks_of(page):
        if block.skip_reason is not None or not block.runnable:
            continue
        print(f"--- {block.where} ({block.lang})", file=sys.stderr, flush=True)
        if block.run_with:
            namespace.update(_bindings(block.run_with))
        if block.lang == "python":
            source = "\n" * (block.line - 1) + block.code
            exec(compile(source, str(page), "exec"), namespace)
        else:
            _shell(block)
    check_prose_attributes(page, namespace)


_DOTTED = re.compile(r"`([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)+)")


def _prose(page: Path) -> str:
    """The page without its code blocks."""
    return re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)


def check_prose_attributes(page: Path, namespace: dict[str, object]) -> None:
    """Fail on a backticked ``name.attr`` whose ``name`` the page bound but lacks ``attr``."""
    for match in _DOTTED.finditer(_prose(page)):
        obj = namespace.get(match.group(1))
        if obj is None or isinstance(obj, (ModuleType, type)):
            continue
        for attr in match.group(2).split(".")[1:]:
            if not hasattr(obj, attr):
                raise SystemExit(
                    f"{page}: the text names `{match.group(0)[1:]}`, but "
                    f"{match.group(1)} ({type(obj).__name__}) has no attribute {attr!r}"
                )
            obj = getattr(obj, attr)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
