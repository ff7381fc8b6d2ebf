"""What an agent's events become as episodes, and how memory is rendered back for a model.

Pure functions only: the recording policy every adapter shares, text shaping (size caps with
an explicit marker, characters SQLite or UTF-8 would refuse), and the bounded text blocks
``AgentMemory`` hands to a model (startup context, recall block).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from anneal_memory.errors import InvalidInputError
from anneal_memory.store import MAX_CONTENT_BYTES
from anneal_memory.store.recall import STOPWORDS, tokenize
from anneal_memory.types import Episode, EpisodeType, Trust

__all__ = [
    "CONTEXT_HEADER",
    "STARTUP_HEADER",
    "RecordingPolicy",
    "episode_line",
    "has_content_words",
    "query_text",
    "render_context",
    "render_startup",
    "render_tool_failure",
    "render_tool_result",
    "shape_text",
    "truncate",
]

CONTEXT_HEADER = "Relevant memory:"
STARTUP_HEADER = "Memory from earlier sessions (continuity file):"
_MAX_LINE_CHARS = 400
_MIN_CUT_LINE = 60
# Worst case 4 UTF-8 bytes per character, minus room for the truncation marker.
_MAX_POLICY_CHARS = MAX_CONTENT_BYTES // 4 - 64


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordingPolicy:
    """Which agent events become episodes, of which type, and how large they may be.

    One policy serves every adapter, so a LangGraph agent and a Pydantic AI agent record the
    same things the same way.

    Attributes:
        record_tool_results: Record what tools return.
        record_answers: Record the agent's final answers.
        tool_result_type: Episode type of a tool result.
        answer_type: Episode type of a final answer.
        tool_source: ``source`` of tool-result episodes (tool output is data, not the agent's word).
        answer_source: ``source`` of answer episodes.
        max_chars: Longer text is cut to this many characters and ends with a marker that
            says how much was cut.
        skip_duplicates: Skip text already recorded with the same type by this session.
        ignore_tools: Tool names whose results are never recorded.
        query_chars: How much of a prompt ``context_for`` searches with (its start).
        tool_trust: Trust class of tool results (``tool``: data, never the agent's word).
        fetch_tools: Tool names that fetch outside content (web pages, search results);
            their results are recorded with ``external`` trust.
        answer_trust: Trust class of the agent's final answers.
        record_tool_failures: Record a failed tool call as an ``outcome`` episode saying
            that the tool failed (never its error text as if it were knowledge).
    """

    record_tool_results: bool = True
    record_answers: bool = True
    tool_result_type: EpisodeType = EpisodeType.OBSERVATION
    answer_type: EpisodeType = EpisodeType.OUTCOME
    tool_source: str = "tool"
    answer_source: str = "agent"
    max_chars: int = 4000
    skip_duplicates: bool = True
    ignore_tools: frozenset[str] = field(default_factory=frozenset)
    query_chars: int = 1000
    tool_trust: Trust = Trust.TOOL
    fetch_tools: frozenset[str] = field(
        default_factory=lambda: frozenset(
            {"fetch", "web_fetch", "fetch_url", "web_search", "search_web", "browse", "http_get"}
        )
    )
    answer_trust: Trust = Trust.AGENT
    record_tool_failures: bool = True

    def __post_init__(self) -> None:
        for name in ("max_chars", "query_chars"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInputError(f"RecordingPolicy.{name} must be a positive int")
        if self.max_chars > _MAX_POLICY_CHARS:
            raise InvalidInputError(
                f"RecordingPolicy.max_chars may be at most {_MAX_POLICY_CHARS:,} "
                f"(episodes hold {MAX_CONTENT_BYTES:,} bytes of UTF-8)"
            )
        object.__setattr__(self, "tool_result_type", EpisodeType.parse(self.tool_result_type))
        object.__setattr__(self, "answer_type", EpisodeType.parse(self.answer_type))
        object.__setattr__(self, "ignore_tools", frozenset(self.ignore_tools))
        object.__setattr__(self, "fetch_tools", frozenset(self.fetch_tools))
        for name in ("tool_trust", "answer_trust"):
            try:
                object.__setattr__(self, name, Trust.parse(getattr(self, name)))
            except ValueError as exc:
                raise InvalidInputError(f"RecordingPolicy.{name}: {exc}") from None

    def trust_for_tool(self, tool_name: str) -> Trust:
        """``external`` for a fetch tool's result, else :attr:`tool_trust`."""
        return Trust.EXTERNAL if tool_name in self.fetch_tools else self.tool_trust


def truncate(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters, ending with a marker saying how much went."""
    if len(text) <= limit:
        return text
    keep = limit
    marker = ""
    for _ in range(3):  # the marker's own length depends on the count it prints
        marker = f" … [truncated {len(text) - keep:,} chars]"
        if keep + len(marker) <= limit:
            break
        keep = max(limit - len(marker), 0)
    return text[:keep] + marker


def shape_text(text: str, max_chars: int) -> str | None:
    """Make text recordable: valid UTF-8 without NULs, stripped, capped. None when blank."""
    cleaned = text.replace("\x00", "\ufffd")
    cleaned = cleaned.encode("utf-8", "replace").decode("utf-8").strip()
    if not cleaned:
        return None
    return truncate(cleaned, max_chars)


def render_value(value: object) -> str:
    """Render any result or output as text: strings as they are, the rest as JSON.

    Objects with a ``model_dump`` method (pydantic models, as several frameworks return for
    structured outputs) are dumped first; what JSON cannot encode falls back to ``repr``.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            value = dump(mode="json")
        except Exception:  # a foreign object's dump may fail in any way; fall back to repr
            return repr(value)
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return repr(value)


def render_tool_result(tool_name: str, result: object) -> str:
    """Render a tool call's result as one episode text: ``name -> result``."""
    name = tool_name.strip() or "tool"
    return f"{name} -> {render_value(result)}"


def render_tool_failure(tool_name: str, error: object) -> str:
    """Render a failed tool call as one episode text: ``name failed: error``."""
    name = tool_name.strip() or "tool"
    return f"{name} failed: {render_value(error)}"


def query_text(prompt: object, max_chars: int) -> str:
    """A prompt made searchable: NULs as spaces, lone surrogates replaced, capped ("" if not text).

    The store refuses such characters in a recall keyword; a framework's prompt is searched
    as well as it can be instead (the agent loop never fails on its own prompt).
    """
    if not isinstance(prompt, str):
        return ""
    query = prompt[:max_chars].replace("\x00", " ")
    return query if query.isascii() else query.encode("utf-8", "replace").decode("utf-8")


def has_content_words(text: str) -> bool:
    """True when the text has at least one word that is not a stopword."""
    return any(token not in STOPWORDS for token in tokenize(text))


def _one_line(text: str, limit: int) -> str:
    return truncate(" ".join(text.split()), limit)


def episode_line(episode: Episode) -> str:
    """One recall-block line: ``- (id) [type] content``, at most 400 characters."""
    return _episode_line(episode)


def _episode_line(episode: Episode) -> str:
    head = f"- ({episode.id}) [{episode.type.value}] "
    return head + _one_line(episode.content, _MAX_LINE_CHARS - len(head))


def render_context(episodes: Sequence[Episode], max_chars: int) -> str:
    """Render recalled episodes as a compact block of at most ``max_chars`` characters.

    Each episode becomes ``- (id) [type] content`` on one line, best first; when the next
    line does not fit it is cut (if enough room is left) or left out, and a last line says
    how many were not shown. Returns "" when no episode fits.
    """
    lines: list[str] = []
    used = len(CONTEXT_HEADER)
    for index, episode in enumerate(episodes):
        line = _episode_line(episode)
        room = max_chars - used - 1
        if len(line) > room:
            after = len(episodes) - index - 1
            room -= len(f"\n(+{after} more not shown)") if after else 0
            if room >= _MIN_CUT_LINE:
                lines.append(truncate(line, room))
                used += 1 + room
            break
        lines.append(line)
        used += 1 + len(line)
    if not lines:
        return ""
    hidden = len(episodes) - len(lines)
    note = f"(+{hidden} more not shown)"
    if hidden and used + 1 + len(note) <= max_chars:
        lines.append(note)
    return "\n".join([CONTEXT_HEADER, *lines])


def render_startup(continuity: str | None, max_chars: int) -> str:
    """Render the continuity file as the session's startup block (bounded); "" when none."""
    if continuity is None or not continuity.strip():
        return ""
    body = truncate(continuity.strip(), max(max_chars - len(STARTUP_HEADER) - 2, 1))
    return f"{STARTUP_HEADER}\n\n{body}"
