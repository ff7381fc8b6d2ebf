"""The analytic view behind ``anneal-memory stats``: read-only aggregate queries."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anneal_memory.store import Store

__all__ = ["collect_stats", "stats_text"]


def collect_stats(store: Store, *, days: int) -> dict[str, Any]:
    """Aggregate counts by type, source and day, plus content and file sizes.

    Args:
        store: An open store.
        days: How many of the most recent days with activity to list.

    Returns:
        A JSON-ready dict; its keys are public API (``docs/cli.md``).
    """
    from anneal_memory.store import episode_stats

    status = store.status()
    found = episode_stats(store, days=days)
    total = status.total_episodes
    return {
        "path": status.path,
        "total_episodes": total,
        "deleted_episodes": status.deleted_episodes,
        "episodes_since_wrap": status.episodes_since_wrap,
        "by_type": dict(status.episodes_by_type),
        "by_source": dict(found.by_source),
        "by_day": [{"date": day, "episodes": n} for day, n in found.by_day],
        "first_episode_at": found.first_at,
        "last_episode_at": found.last_at,
        "content_bytes": {
            "total": found.content_bytes,
            "mean": round(found.content_bytes / total) if total else 0,
            "max": found.largest_bytes,
        },
        "db_bytes": status.db_bytes,
        "wal_bytes": status.wal_bytes,
    }


def _bar(count: int, peak: int, width: int = 30) -> str:
    return "#" * max(1, round(width * count / peak)) if peak and count else ""


def stats_text(data: dict[str, Any]) -> str:
    """Render :func:`collect_stats` output for people."""
    from anneal_memory.cli._render import human_bytes, safe

    lines = [f"Store: {data['path']}", f"Episodes: {data['total_episodes']}", "", "By type:"]
    lines += [f"  {name:<12} {n:>7}" for name, n in data["by_type"].items()]
    lines += ["", "By source:"]
    lines += [f"  {safe(name):<12} {n:>7}" for name, n in data["by_source"].items()] or ["  (none)"]
    lines += ["", "Most recent active days:"]
    peak = max((row["episodes"] for row in data["by_day"]), default=0)
    lines += [
        f"  {row['date']}  {row['episodes']:>6}  {_bar(row['episodes'], peak)}"
        for row in data["by_day"]
    ] or ["  (none)"]
    sizes = data["content_bytes"]
    lines += [
        "",
        f"First / last episode: {data['first_episode_at'] or '-'} / "
        f"{data['last_episode_at'] or '-'}",
        f"Content: {human_bytes(sizes['total'])} total, {human_bytes(sizes['mean'])} mean, "
        f"{human_bytes(sizes['max'])} largest",
        f"Files: {human_bytes(data['db_bytes'])} database, {human_bytes(data['wal_bytes'])} WAL",
        f"Deleted: {data['deleted_episodes']}; since last wrap: {data['episodes_since_wrap']}",
    ]
    return "\n".join(lines)
