"""The wire-torture table, shared by the in-memory and the real-process tests.

Each case is a raw chunk of bytes sent as one line and what must come back: an error with a
given code and id, a result, or nothing. After every case the server must still answer a
``ping``, which proves it kept serving.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

PING_ID = 424242
PING = b'{"jsonrpc":"2.0","id":424242,"method":"ping"}\n'


@dataclass(frozen=True)
class Case:
    name: str
    line: bytes
    code: int | None  # expected error code; None = a result (if reply_id is set) or no reply
    reply_id: int | str | None = None  # id of the expected reply (None = null / no reply)
    replies: bool = True


def _request(request_id: object, method: str, params: str = "{}") -> bytes:
    return (
        b'{"jsonrpc":"2.0","id":'
        + json.dumps(request_id).encode()
        + b',"method":"'
        + method.encode()
        + b'","params":'
        + params.encode()
        + b"}\n"
    )


_DEEP = b"[" * 10_000 + b"]" * 10_000
_DEEP_PARAMS = b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":' + _DEEP + b"}}\n"
_SEVENTY_DEEP = "[" * 70 + "]" * 70

CASES: tuple[Case, ...] = (
    Case("not JSON", b"hello, server\n", -32700),
    Case("truncated JSON", b'{"jsonrpc":"2.0","id":1,\n', -32700),
    Case("invalid UTF-8", b'{"jsonrpc":"2.0","id":1,"method":"ping","x":"\xff\xfe"}\n', -32700),
    Case("number, not an object", b"42\n", -32600),
    Case("string, not an object", b'"ping"\n', -32600),
    Case("null, not an object", b"null\n", -32600),
    Case("batch array", b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n', -32600),
    Case("empty batch", b"[]\n", -32600),
    Case("missing method", b'{"jsonrpc":"2.0","id":7}\n', -32600, 7),
    Case("missing jsonrpc", b'{"id":8,"method":"ping"}\n', -32600, 8),
    Case("wrong jsonrpc version", b'{"jsonrpc":"1.0","id":"v","method":"ping"}\n', -32600, "v"),
    Case("method not a string", b'{"jsonrpc":"2.0","id":9,"method":7}\n', -32600, 9),
    Case("params an array", _request(10, "ping", "[1,2]"), -32602, 10),
    Case("depth 10,000 bare", _DEEP + b"\n", -32600),
    Case("depth 10,000 in params", _DEEP_PARAMS, -32600),
    Case("depth 70 in params", _request(11, "ping", '{"x":' + _SEVENTY_DEEP + "}"), -32602, 11),
    Case(
        "50 MB line",
        b'{"jsonrpc":"2.0","id":1,"method":"ping","x":"' + b"a" * 50_000_000 + b'"}\n',
        -32600,
    ),
    Case("NaN", _request(12, "ping", '{"x":NaN}'), -32700),
    Case("Infinity", _request(13, "ping", '{"x":-Infinity}'), -32700),
    Case(
        "5,000-digit id", b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"ping"}\n', -32600
    ),
    Case("id beyond 64 bits", _request(2**64, "ping"), -32600),
    Case("float id", b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}\n', -32600),
    Case("null id", b'{"jsonrpc":"2.0","id":null,"method":"ping"}\n', -32600),
    Case(
        "5,000-digit number in params", _request(14, "ping", '{"n":' + "7" * 5000 + "}"), -32602, 14
    ),
    Case("1e400 in params", _request(22, "ping", '{"x":1e400}'), -32602, 22),
    Case(
        "lone surrogate in a tool argument",
        _request(
            15,
            "tools/call",
            '{"name":"record","arguments":{"content":"\\ud800","episode_type":"context"}}',
        ),
        -32602,
        15,
    ),
    Case("lone surrogate id", b'{"jsonrpc":"2.0","id":"\\udfff","method":"ping"}\n', -32600),
    Case("lone surrogate method", b'{"jsonrpc":"2.0","id":16,"method":"\\ud800"}\n', -32600, 16),
    Case("CRLF line ending", b'{"jsonrpc":"2.0","id":17,"method":"ping"}\r\n', None, 17),
    Case("blank line", b"   \n", None, replies=False),
    Case(
        "notification",
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
        None,
        replies=False,
    ),
    Case("unknown notification", b'{"jsonrpc":"2.0","method":"no/such"}\n', None, replies=False),
    Case("bad notification", b'{"jsonrpc":"1.0","method":"no/such"}\n', None, replies=False),
    Case("client response", b'{"jsonrpc":"2.0","id":3,"result":{}}\n', None, replies=False),
    Case("unknown method", _request(18, "no/such"), -32601, 18),
    Case("server/discover without _meta", _request(19, "server/discover"), -32602, 19),
    Case(
        "server/discover",
        _request(
            23,
            "server/discover",
            '{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            '"io.modelcontextprotocol/clientCapabilities":{}}}',
        ),
        None,
        23,
    ),
    Case(
        "unknown modern version",
        _request(
            24,
            "tools/list",
            '{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01",'
            '"io.modelcontextprotocol/clientCapabilities":{}}}',
        ),
        -32022,
        24,
    ),
    Case("unknown tool", _request(20, "tools/call", '{"name":"nope"}'), -32602, 20),
)

EOF_MID_LINE = b'{"jsonrpc":"2.0","id":21,"meth'


def stream(cases: tuple[Case, ...] = CASES) -> bytes:
    """Every case followed by a ping, then a line cut off by the end of input."""
    return b"".join(case.line + PING for case in cases) + EOF_MID_LINE


def check_replies(replies: list[dict[str, object]], cases: tuple[Case, ...] = CASES) -> None:
    """Assert the replies to :func:`stream` case by case (with the case name on failure)."""
    pending = list(replies)
    for case in cases:
        if case.replies:
            reply = pending.pop(0)
            assert reply.get("id") == case.reply_id, (case.name, reply)
            if case.code is None:
                assert "result" in reply, (case.name, reply)
            else:
                error = reply.get("error")
                assert isinstance(error, dict), (case.name, reply)
                assert error["code"] == case.code, (case.name, reply)
                assert isinstance(error["message"], str), case.name
                assert error["message"], case.name
        ping = pending.pop(0)
        assert ping == {"jsonrpc": "2.0", "id": PING_ID, "result": {}}, (case.name, ping)
    assert len(pending) == 1, pending
    assert pending[0]["id"] is None
    assert pending[0]["error"]["code"] == -32700  # type: ignore[index]
