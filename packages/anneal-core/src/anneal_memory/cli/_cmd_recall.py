"""Finding episodes: ``search`` (alias ``recall``) ranks by relevance, ``episodes`` lists."""

from __future__ import annotations

from collections.abc import Sequence

from anneal_memory.cli._args import (
    EPISODE_TYPES,
    add_session_id,
    non_negative_int,
    positive_int,
    session_id,
)
from anneal_memory.cli._context import Context, ExitCode

TYPE_CHECKING = False  # typing's constant without importing typing
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from anneal_memory.store import Store
    from anneal_memory.types import RecallResult

__all__ = [
    "add_commands",
    "add_no_exposure",
    "add_recall_filters",
    "add_session_id",
    "exposure_line",
    "recall_data",
    "recall_text",
    "session_id",
]


def add_recall_filters(
    parser: argparse.ArgumentParser,
    *,
    default_limit: int,
    paging: bool = True,
    limit_help: str | None = None,
) -> None:
    """Recall's filters (type, time, source, superseded) and its page size (and offset)."""
    parser.add_argument("-t", "--type", choices=EPISODE_TYPES, help="only this episode type")
    parser.add_argument(
        "--since",
        metavar="WHEN",
        help="not before: a date (2026-03-01), an ISO-8601 time (UTC without a zone), or an "
        "age like 7d, 12h",
    )
    parser.add_argument(
        "--until",
        metavar="WHEN",
        help="not after: a date (through its end), an ISO-8601 time, or an age like 1d",
    )
    parser.add_argument("--source", help="only episodes recorded by this source")
    parser.add_argument(
        "-n",
        "--limit",
        type=positive_int,
        default=default_limit,
        help=limit_help
        or f"at most this many (default: {default_limit}; more than 1000 give 1000)",
    )
    if paging:
        parser.add_argument(
            "--offset", type=non_negative_int, default=0, help="skip this many first (paging)"
        )
    parser.add_argument(
        "--include-superseded",
        action="store_true",
        help="also list episodes a newer one replaced (with superseded_by)",
    )


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``search`` (alias ``recall``) and ``episodes``."""
    search = subparsers.add_parser(
        "search",
        aliases=["recall"],
        parents=parents,
        help="find episodes relevant to a question or keywords",
        description="Rank episodes by relevance to QUERY: the exact phrase first, then any "
        "of its words (full-text, stemmed). Any text is a valid query.",
    )
    search.add_argument("query", metavar="QUERY", help="a question or keywords")
    add_recall_filters(search, default_limit=20)
    add_no_exposure(search)
    add_session_id(search, "the session the exposure is recorded for")
    search.set_defaults(handler=run_search)

    episodes = subparsers.add_parser(
        "episodes",
        parents=parents,
        help="list episodes, newest first",
        description="List episodes newest first, optionally filtered. With --keyword, the "
        "best matches for it are listed, newest first.",
    )
    episodes.add_argument("-k", "--keyword", help="only episodes matching these words")
    add_recall_filters(episodes, default_limit=50)
    episodes.set_defaults(handler=run_episodes)


def _recall(
    ctx: Context, args: argparse.Namespace, keyword: str | None, store: Store | None = None
) -> RecallResult:
    return (store or ctx.store(read_only=True)).recall(
        keyword=keyword,
        episode_type=args.type,
        since=args.since,
        until=args.until,
        source=args.source,
        limit=args.limit,
        offset=args.offset,
        include_superseded=args.include_superseded,
    )


def recall_data(
    result: RecallResult, *, query: str | None, offset: int, facts: Sequence[str] = ()
) -> dict[str, Any]:
    """The ``--json`` document of ``search`` and ``episodes`` (public keys)."""
    return {
        "query": query,
        "total_matching": result.total_matching,
        "count": len(result.episodes),
        "offset": offset,
        "episodes": [episode.to_dict() for episode in result.episodes],
        "facts": list(facts),
    }


def recall_text(result: RecallResult, *, offset: int, empty: str, page: int | None = None) -> str:
    """Listing lines plus a footer that says how to page on.

    ``page``: how many rows the page held when fewer are listed (recalled copies left out).
    """
    from anneal_memory.cli._render import episode_line

    if not result.episodes:
        return empty if not offset else f"{empty} (offset {offset} of {result.total_matching})"
    lines = [episode_line(episode) for episode in result.episodes]
    last = offset + (len(result.episodes) if page is None else page)
    footer = f"{offset + 1}-{last} of {result.total_matching}"
    if last < result.total_matching:
        footer += f" (more with --offset {last})"
    lines.append(footer)
    return "\n".join(lines)


def _copies_note(result: RecallResult, listed: RecallResult) -> str:
    gone = len(result.episodes) - len(listed.episodes)
    if not gone:
        return ""
    return (
        f"\n({gone} recalled copies of the episodes above not listed: each repeats one and"
        " derives from it; --json lists them)"
    )


def run_search(ctx: Context, args: argparse.Namespace) -> int:
    """Rank episodes by relevance to the query (one listing per recalled text)."""
    from anneal_memory.continuity._cues import cued_facts
    from anneal_memory.store.provenance import without_copies
    from anneal_memory.types import RecallResult
    from anneal_memory.worth._exposures import expose

    # One open per search (#25): the store that records the exposure also answers the
    # recall; with --no-exposure nothing is written, so a read-only store answers it all.
    store = ctx.store(create=False, read_only=args.no_exposure)
    result = _recall(ctx, args, args.query, store)
    session = session_id(ctx, args)
    facts = cued_facts(store, args.query)
    kept, _gone = without_copies(result.episodes)
    listed = RecallResult(episodes=tuple(kept), total_matching=result.total_matching)
    text = recall_text(
        listed, offset=args.offset, empty="No episodes match.", page=len(result.episodes)
    )
    if listed.episodes:
        text += _copies_note(result, listed)
    if facts:
        text += "\nDurable facts:\n" + "\n".join(f"- {fact}" for fact in facts)
    shown = [] if args.no_exposure else [f"e:{episode.id}" for episode in listed.episodes]
    exposure = expose(store, "cli search", shown, session_id=session)
    data = recall_data(result, query=args.query, offset=args.offset, facts=facts)
    data["exposure_id"] = exposure  # None: nothing shown, --no-exposure, or not writable
    if exposure is not None:
        text += f"\n{exposure_line(exposure)}"
    ctx.emit(data, text)
    return ExitCode.OK


def add_no_exposure(parser: argparse.ArgumentParser) -> None:
    """The ``--no-exposure`` flag of the commands whose listing is an exposure."""
    parser.add_argument(
        "--no-exposure",
        action="store_true",
        help="do not record this listing as an exposure (an operator's look: the command "
        "then writes nothing)",
    )


def exposure_line(exposure: str) -> str:
    """The last line of a listing that reached the reader: the exposure to report on."""
    return (
        f"Exposure {exposure} (say how it went: anneal-memory outcome {exposure} "
        "--result success|failure --item episode:ID=followed|ignored)"
    )


def run_episodes(ctx: Context, args: argparse.Namespace) -> int:
    """List episodes newest first."""
    from anneal_memory.types import RecallResult

    result = _recall(ctx, args, args.keyword)
    if args.keyword:
        newest = sorted(result.episodes, key=lambda e: e.timestamp, reverse=True)
        result = RecallResult(episodes=tuple(newest), total_matching=result.total_matching)
    ctx.emit(
        recall_data(result, query=args.keyword, offset=args.offset),
        recall_text(result, offset=args.offset, empty="No episodes."),
    )
    return ExitCode.OK
