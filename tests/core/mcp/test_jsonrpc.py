"""Framing: decoding lines, the line cap, and the wire-torture table through the stdio loop."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest
from anneal_memory.mcp import McpServer, ServerConfig, serve_stdio
from anneal_memory.mcp import _jsonrpc as rpc


def _load_torture() -> ModuleType:
    path = Path(__file__).with_name("wire_torture.py")
    spec = importlib.util.spec_from_file_location("anneal_wire_torture", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


torture = _load_torture()


def _serve(data: bytes, db_path: Path) -> tuple[int, list[dict[str, object]]]:
    out = io.BytesIO()
    code = serve_stdio(McpServer(ServerConfig(db_path=db_path)), io.BytesIO(data), out)
    return code, [json.loads(line) for line in out.getvalue().splitlines()]


def test_wire_torture_table_in_memory(db_path: Path) -> None:
    code, replies = _serve(torture.stream(), db_path)
    assert code == 0
    torture.check_replies(replies)


@pytest.mark.parametrize("case", torture.CASES, ids=lambda c: c.name)
def test_each_torture_case_alone(case: object, db_path: Path) -> None:
    code, replies = _serve(torture.stream((case,)), db_path)
    assert code == 0
    torture.check_replies(replies, (case,))


def test_decode_returns_the_request() -> None:
    message = rpc.decode(b'{"jsonrpc":"2.0","id":"a","method":"tools/list","params":null}\r\n')
    assert message == rpc.Incoming(method="tools/list", params={}, id="a")
    assert not message.is_notification


def test_decode_notification_has_no_id() -> None:
    message = rpc.decode('{"jsonrpc":"2.0","method":"notifications/initialized"}')
    assert message is not None
    assert message.is_notification


def test_nesting_at_the_cap_is_accepted_and_one_deeper_is_refused() -> None:
    def line(depth: int) -> str:
        inner = "[" * (depth - 2) + "]" * (depth - 2)
        return '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":' + inner + "}}"

    assert rpc.decode(line(rpc.MAX_DEPTH)) is not None
    with pytest.raises(rpc.ProtocolError) as info:
        rpc.decode(line(rpc.MAX_DEPTH + 1))
    assert info.value.code == rpc.INVALID_PARAMS
    assert info.value.id == 1


def test_read_line_refuses_a_long_line_and_resumes_at_the_next() -> None:
    data = io.BytesIO(b"x" * 100 + b"\nnext\nexact\r\ntail")
    with pytest.raises(rpc.ProtocolError) as info:
        rpc.read_line(data, limit=50)
    assert info.value.code == rpc.INVALID_REQUEST
    assert info.value.reply() == rpc.error_response(None, -32600, info.value.message)
    assert rpc.read_line(data, limit=50) == b"next\n"
    assert rpc.read_line(data, limit=5) == b"exact\r\n"
    assert rpc.read_line(data, limit=5) == b"tail"
    assert rpc.read_line(data, limit=5) is None


def test_read_line_refuses_a_long_last_line_without_newline() -> None:
    data = io.BytesIO(b"y" * 100)
    with pytest.raises(rpc.ProtocolError):
        rpc.read_line(data, limit=10)
    assert rpc.read_line(data, limit=10) is None


def test_encode_is_one_compact_utf8_line() -> None:
    data = rpc.encode({"jsonrpc": "2.0", "id": 1, "result": {"text": "über ✓"}})
    assert data == '{"jsonrpc":"2.0","id":1,"result":{"text":"über ✓"}}\n'.encode()


def test_encode_escapes_what_utf8_cannot_carry() -> None:
    data = rpc.encode({"text": "\ud800"})
    assert data == b'{"text":"\\ud800"}\n'
    data.decode("ascii")


def test_notifications_never_get_replies_even_when_malformed() -> None:
    with pytest.raises(rpc.ProtocolError) as info:
        rpc.decode('{"jsonrpc":"2.0","method":"ping","params":[1]}')
    assert info.value.notify
    assert info.value.reply() is None


def test_encode_turns_an_unencodable_reply_into_an_internal_error() -> None:
    line = rpc.encode({"jsonrpc": "2.0", "id": 4, "result": {"x": float("nan")}})
    reply = json.loads(line)
    assert reply["id"] == 4
    assert reply["error"]["code"] == rpc.INTERNAL_ERROR
    line = rpc.encode({"jsonrpc": "2.0", "id": 5, "result": {"x": object()}})
    assert json.loads(line)["error"]["code"] == rpc.INTERNAL_ERROR


class _ClosedPipe(io.BytesIO):
    def write(self, data: object) -> int:
        raise BrokenPipeError


def test_serve_stops_quietly_when_the_client_goes_away(db_path: Path) -> None:
    server = McpServer(ServerConfig(db_path=db_path))
    data = io.BytesIO(torture.PING * 3)
    assert serve_stdio(server, data, _ClosedPipe()) == 0
    assert data.tell() == len(torture.PING)  # stopped after the first failed reply


def _nested_params(depth: int) -> str:
    inner = "[" * depth + "]" * depth
    return '{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":' + inner + "}}"


def test_very_deep_json_is_refused_before_parsing_whatever_the_interpreter() -> None:
    # 2 levels (message, params) + 510 arrays = 512: parsed, then refused as params (-32602)
    with pytest.raises(rpc.ProtocolError) as info:
        rpc.decode(_nested_params(510))
    assert (info.value.code, info.value.id) == (rpc.INVALID_PARAMS, 3)
    # one more level is too deep to parse at all: -32600 with id null
    with pytest.raises(rpc.ProtocolError) as info:
        rpc.decode(_nested_params(511))
    assert (info.value.code, info.value.id) == (rpc.INVALID_REQUEST, None)
    assert "deeper than 512" in info.value.message


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    text = '"a \\" ' + "[{" * 600 + '"'
    line = '{"jsonrpc":"2.0","id":4,"method":"ping","params":{"s":' + text + "}}"
    message = rpc.decode(line)
    assert message is not None
    assert message.params["s"].startswith('a " [{[{')
