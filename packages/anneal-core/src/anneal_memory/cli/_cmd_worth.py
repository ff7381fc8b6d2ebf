"""``anneal-memory outcome`` and ``anneal-memory worth``: did a recalled memory help?

``outcome`` merges one report into an exposure's outcome (``anneal_memory.worth``);
``worth`` prints the per-item counts. Report-only: nothing ranks from them.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from anneal_memory.cli._context import Context, ExitCode

__all__ = ["add_commands"]

_COLUMNS = (
    ("surfaced", "surf"),
    ("followed", "fol"),
    ("ignored", "ign"),
    ("not_applicable", "n/a"),
    ("unlabelled", "unl"),
    ("followed_success", "fol+s"),
    ("followed_failure", "fol+f"),
    ("ignored_success", "ign+s"),
    ("ignored_failure", "ign+f"),
    ("unlabelled_success", "unl+s"),
    ("unlabelled_failure", "unl+f"),
)


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``outcome`` and ``worth``."""
    from anneal_memory.worth._report import SORT_KEYS

    outcome = subparsers.add_parser(
        "outcome",
        parents=parents,
        help="say how the work after a recall went (followed/ignored, success/failure)",
        description="Merge an outcome into an exposure (the id a recall printed): label the "
        "items it showed and give the result. Later outcomes of the same exposure merge: a "
        "new label replaces an item's label, a result replaces the result.",
    )
    outcome.add_argument("exposure", metavar="EXPOSURE_ID", help="e.g. x3f9a0c1b2d4e")
    outcome.add_argument("--result", choices=("success", "failure", "unknown"))
    outcome.add_argument(
        "--item",
        action="append",
        default=[],
        metavar="KIND:REF=LABEL",
        help="e.g. episode:1a2b3c4d=followed, crystal:NAME=ignored, pattern:NAME=not_applicable "
        "(repeatable)",
    )
    outcome.add_argument("--note", default="", help="free text kept with the outcome")
    outcome.set_defaults(handler=run_outcome)

    worth = subparsers.add_parser(
        "worth",
        parents=parents,
        help="per episode, pattern and crystal: times surfaced, followed, ignored, results",
        description="What the outcomes say per item. Report-only: nothing ranks, decays or "
        "retires from these counts (docs/outcomes.md says why).",
    )
    worth.add_argument("--sort", choices=SORT_KEYS, default="surfaced")
    worth.add_argument(
        "--kind", action="append", choices=("episode", "pattern", "crystal"), help="repeatable"
    )
    worth.add_argument("-n", "--limit", type=int, default=None)
    worth.set_defaults(handler=run_worth)


def _items(values: Sequence[str]) -> dict[str, str]:
    from anneal_memory.errors import InvalidOutcomeError

    out: dict[str, str] = {}
    for value in values:
        item, sep, label = value.rpartition("=")
        if not sep or not item:
            raise InvalidOutcomeError(
                f"--item {value!r} must be KIND:REF=LABEL (for example episode:1a2b3c4d=followed)"
            )
        out[item] = label
    return out


def run_outcome(ctx: Context, args: argparse.Namespace) -> int:
    """Merge one outcome into an exposure's."""
    from anneal_memory.cli._render import safe
    from anneal_memory.worth._outcomes import record_outcome

    merged = record_outcome(
        ctx.store(create=False),
        args.exposure,
        result=args.result,
        items=_items(args.item),
        note=args.note,
        actor="operator" if ctx.env.get("ANNEAL_OPERATOR") == "1" else "agent",
    )
    labels = ", ".join(f"{k}={v.value}" for k, v in sorted(merged.labels.items()))
    text = (
        f"Outcome of {merged.exposure_id} (revision {merged.revision}): "
        f"{merged.result.value}; {safe(labels) or 'no labels'}"
    )
    ctx.emit(merged.to_dict(), text)
    return ExitCode.OK


def run_worth(ctx: Context, args: argparse.Namespace) -> int:
    """Print the worth report."""
    from anneal_memory.cli._render import safe
    from anneal_memory.worth._report import worth_report

    rows = worth_report(
        ctx.store(read_only=True), kinds=args.kind, sort=args.sort, limit=args.limit
    )
    if not rows:
        ctx.emit({"items": []}, "No exposures yet: nothing recalled has reached a model.")
        return ExitCode.OK
    head = ["kind", "ref"] + [short for _f, short in _COLUMNS]
    table = [
        [r.kind.value, safe(r.ref if len(r.ref) <= 40 else r.ref[:39] + "…")]
        + [str(r.counts[f]) for f, _s in _COLUMNS]
        for r in rows
    ]
    widths = [max(len(row[i]) for row in [head, *table]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in
                       enumerate(zip(row, widths, strict=True))).rstrip()
             for row in [head, *table]]  # fmt: skip
    lines.append("Report-only: nothing ranks, decays or retires from these counts.")
    ctx.emit({"items": [r.to_dict() for r in rows]}, "\n".join(lines))
    return ExitCode.OK
