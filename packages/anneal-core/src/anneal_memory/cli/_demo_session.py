"""What the demo's steps share: :class:`DemoSession` (store, output) and :class:`DemoStep`.

Kept apart from ``_cmd_demo`` so the step modules (``_demo_wrap``, ``_demo_memory``) and the
command that lists them all import it from below, never from each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anneal_memory.cli._context import Context
    from anneal_memory.store import Store

__all__ = ["DEMO_SOURCE", "DemoSession", "DemoStep"]

DEMO_SOURCE = "demo"


class DemoSession:
    """What the demo steps share: the store, the output and the record of each step."""

    def __init__(self, ctx: Context, store: Store, *, temporary: bool) -> None:
        self.ctx = ctx
        self.store = store
        self.temporary = temporary
        self.episode_ids: list[str] = []

    def say(self, text: str = "") -> None:
        """Print a line of the tour (silent under ``--json``)."""
        if not self.ctx.json:
            print(text, file=self.ctx.out)


@dataclass(frozen=True, slots=True, kw_only=True)
class DemoStep:
    """One step of the tour.

    Attributes:
        name: Short key used in the ``--json`` output.
        run: Does the step, narrates it, and returns what happened (JSON-ready).
    """

    name: str
    run: Callable[[DemoSession], dict[str, Any]]
