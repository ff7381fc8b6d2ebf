"""JSON-RPC 2.0 framing for MCP over stdio: one message per line, checked before dispatch.

Everything here is pure except :func:`read_line` and :func:`write_message`, which take the
stream they work on. A line is decoded in this order, and the first failure decides the reply:

1. bytes that are not UTF-8, or text that is not JSON (``NaN`` and ``Infinity`` included)
   -> ``-32700`` with id null;
2. JSON nested more than 512 levels (too deep to parse safely) -> ``-32600`` with id null;
3. not a single object (a batch array, a number, ...) or an invalid ``id`` -> ``-32600``
   with id null;
4. ``jsonrpc`` not ``"2.0"`` or no string ``method`` -> ``-32600`` with the request's id;
5. nesting deeper than :data:`MAX_DEPTH`, lone surrogates, integers too long to be meant
   or numbers beyond the float range anywhere in ``params`` -> ``-32602``.

A message without ``id`` is a notification and never gets a reply, not even an error.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Mapping
from typing import IO, Any, NamedTuple

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "MAX_DEPTH",
    "MAX_LINE_BYTES",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "RESOURCE_NOT_FOUND",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "Incoming",
    "ProtocolError",
    "decode",
    "encode",
    "error_response",
    "read_line",
    "result_response",
    "write_message",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002
UNSUPPORTED_PROTOCOL_VERSION = -32022

MAX_LINE_BYTES = 10 * 1024 * 1024
"""The longest line accepted (10 MiB); longer lines are discarded unread and refused."""

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects accepted in one message."""

_PARSE_DEPTH = 512
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_BRACKET_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_MAX_INT_DIGITS = 40
_ID_LIMIT = 2**63
_READ_CHUNK = 1024 * 1024

RequestId = str | int


class _TooLongInt:
    """Stands in for an integer literal too long to be a real value (never a Python int)."""

    __slots__ = ()


_TOO_LONG_INT = _TooLongInt()


class ProtocolError(Exception):
    """A message that cannot be dispatched, and the error reply it gets.

    Attributes:
        code: The JSON-RPC error code.
        message: One line saying what was wrong.
        id: The request id to answer, or None when it is unknown (the reply carries null).
        notify: True when the message was a notification, so no reply is sent.
        data: The error's ``data`` member, or None for none.
    """

    def __init__(
        self,
        *,
        code: int,
        message: str,
        id: RequestId | None = None,
        notify: bool = False,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.id = id
        self.notify = notify
        self.data = data

    def reply(self) -> dict[str, Any] | None:
        """The error reply to send, or None for a notification."""
        if self.notify:
            return None
        return error_response(self.id, self.code, self.message, data=self.data)


# A NamedTuple, not a dataclass: ``dataclasses`` imports ``inspect`` and would add ~10 ms
# to the server's start-up, which clients wait for.
class Incoming(NamedTuple):
    """A well-formed request or notification.

    Attributes:
        method: The method name.
        params: The params object (empty when absent).
        id: The request id, or None for a notification.
    """

    method: str
    params: Mapping[str, Any]
    id: RequestId | None

    @property
    def is_notification(self) -> bool:
        """True when no reply is expected."""
        return self.id is None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _parse_int(text: str) -> int | _TooLongInt:
    digits = len(text) - (text[0] == "-")
    return _TOO_LONG_INT if digits > _MAX_INT_DIGITS else int(text)


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _leaf_problem(item: object) -> str | None:
    if isinstance(item, str) and _has_lone_surrogate(item):
        return "a string contains a lone surrogate (not valid Unicode)"
    if item is _TOO_LONG_INT:
        return f"an integer has more than {_MAX_INT_DIGITS} digits"
    if isinstance(item, float) and not math.isfinite(item):
        return "a number is too large for a 64-bit float"
    return None


def _scan(value: object) -> str | None:
    """Say what is wrong with a parsed value (depth, surrogates, huge numbers), or None."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                return f"nesting deeper than {MAX_DEPTH} levels"
            if isinstance(item, dict):
                if any(_has_lone_surrogate(key) for key in item):
                    return "a key contains a lone surrogate (not valid Unicode)"
                item = list(item.values())
            stack.extend((child, depth + 1) for child in item)
            continue
        problem = _leaf_problem(item)
        if problem is not None:
            return problem
    return None


def _too_deep_to_parse(text: str) -> bool:
    """True when the JSON nests more than :data:`_PARSE_DEPTH` levels.

    Checked before parsing so the outcome does not depend on the interpreter's recursion
    limit. Strings are cut out, brackets become +1/-1 bytes, and the deepest running sum is
    the nesting depth: linear, and done in C (under a second for a 10 MiB line).
    """
    if text.count("[") + text.count("{") <= _PARSE_DEPTH:
        return False
    skeleton = _NOT_BRACKET.sub("", _STRING.sub("", text)).encode("ascii")
    steps = memoryview(skeleton.translate(_BRACKET_STEPS)).cast("b")
    return max(itertools.accumulate(steps), default=0) > _PARSE_DEPTH


def _parse(line: bytes | str) -> object:
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(
                code=PARSE_ERROR, message=f"Parse error: the line is not UTF-8 ({exc.reason})"
            ) from None
    too_deep = ProtocolError(
        code=INVALID_REQUEST,
        message=f"Invalid Request: JSON nested deeper than {_PARSE_DEPTH} levels",
    )
    if _too_deep_to_parse(line):
        raise too_deep
    try:
        return json.loads(line, parse_constant=_reject_constant, parse_int=_parse_int)
    except RecursionError:  # a backstop: the pre-check should have caught it
        raise too_deep from None
    except ValueError as exc:
        raise ProtocolError(code=PARSE_ERROR, message=f"Parse error: {exc}") from None


def _request_id(message: Mapping[str, Any]) -> RequestId | None:
    if "id" not in message:
        return None
    value = message["id"]
    valid = (
        isinstance(value, int) and not isinstance(value, bool) and -_ID_LIMIT <= value < _ID_LIMIT
    ) or (isinstance(value, str) and not _has_lone_surrogate(value))
    if not valid:
        raise ProtocolError(
            code=INVALID_REQUEST,
            message="Invalid Request: id must be a string or an integer within 64 bits",
        )
    return value  # type: ignore[no-any-return]


def _check_envelope(message: object) -> tuple[Mapping[str, Any], RequestId | None]:
    if isinstance(message, list):
        raise ProtocolError(
            code=INVALID_REQUEST, message="Invalid Request: batch arrays are not supported"
        )
    if not isinstance(message, dict):
        raise ProtocolError(
            code=INVALID_REQUEST, message="Invalid Request: a message must be a JSON object"
        )
    request_id = _request_id(message)
    notify = request_id is None
    if message.get("jsonrpc") != "2.0":
        raise ProtocolError(
            code=INVALID_REQUEST,
            message='Invalid Request: "jsonrpc" must be "2.0"',
            id=request_id,
            notify=notify,
        )
    return message, request_id


def decode(line: bytes | str) -> Incoming | None:
    r"""Turn one line into a request or notification.

    Args:
        line: One line as read, with or without its line ending (``\\n`` or ``\\r\\n``).

    Returns:
        The message, or None when the line is blank or is a response (this server sends no
        requests, so responses from a client carry nothing to act on).

    Raises:
        ProtocolError: The line is not a valid JSON-RPC request; its fields say how to reply.
    """
    if not line.strip():
        return None
    parsed = _parse(line)
    problem = _scan(parsed)
    if problem is not None and not isinstance(parsed, dict):
        raise ProtocolError(code=INVALID_REQUEST, message=f"Invalid Request: {problem}")
    message, request_id = _check_envelope(parsed)
    notify = request_id is None
    if "method" not in message and ("result" in message or "error" in message):
        return None
    method = message.get("method")
    if not isinstance(method, str) or _has_lone_surrogate(method):
        raise ProtocolError(
            code=INVALID_REQUEST,
            message='Invalid Request: "method" must be a string',
            id=request_id,
            notify=notify,
        )
    params = message.get("params", {})
    if params is None:
        params = {}
    if problem is not None or not isinstance(params, dict):
        detail = problem or "params must be an object"
        raise ProtocolError(
            code=INVALID_PARAMS, message=f"Invalid params: {detail}", id=request_id, notify=notify
        )
    return Incoming(method=method, params=params, id=request_id)


def result_response(request_id: RequestId, result: Mapping[str, Any]) -> dict[str, Any]:
    """Build a success reply."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_response(
    request_id: RequestId | None,
    code: int,
    message: str,
    *,
    data: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Build an error reply (``id`` null when the request's id is unknown)."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = dict(data)
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def encode(message: Mapping[str, Any]) -> bytes:
    r"""Serialise one message as a compact UTF-8 line ending in ``\n``.

    A reply that cannot be serialised (a bug: NaN or a non-JSON value in a result) becomes a
    ``-32603`` error for the same id, so the client is never left waiting.
    """
    payload: Mapping[str, Any] = message
    try:
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        request_id = message.get("id")
        payload = error_response(
            request_id if isinstance(request_id, (str, int)) else None,
            INTERNAL_ERROR,
            f"Internal error: the reply could not be encoded ({exc})",
        )
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # a lone surrogate in a reply: escape everything as \uXXXX
        return json.dumps(payload, separators=(",", ":")).encode("ascii") + b"\n"


def read_line(stream: IO[bytes], limit: int = MAX_LINE_BYTES) -> bytes | None:
    """Read one line of at most ``limit`` bytes (plus its line ending).

    Returns:
        The line (without a trailing newline when input ends mid-line), or None at end
        of input.

    Raises:
        ProtocolError: The line was longer than ``limit``. It has been consumed to its end
            in bounded chunks, never held in memory whole, so the next read is the next line.
    """
    line = stream.readline(limit + 2)
    if not line:
        return None
    if len(line.rstrip(b"\r\n")) <= limit:
        return line
    while not line.endswith(b"\n"):
        line = stream.readline(_READ_CHUNK)
        if not line:
            break
    raise ProtocolError(
        code=INVALID_REQUEST,
        message=f"Invalid Request: the line is longer than {limit:,} bytes",
    )


def write_message(stream: IO[bytes], message: Mapping[str, Any]) -> None:
    """Write one message and flush it."""
    stream.write(encode(message))
    stream.flush()
