#!/usr/bin/env python3
"""MCP over HTTP under load: N concurrent clients against one ``serve --http`` process.

Starts a real ``anneal-memory serve --http`` (uvicorn) on the loopback with one token per
client, then each client (an ``httpx.AsyncClient`` of its own) sends --rounds rounds of three
2026-07-28 ``tools/call`` requests: ``record``, ``recall`` (a word of the corpus) and
``status``. Every reply is checked (HTTP 200, a JSON-RPC result, ``isError`` false); any other
outcome counts as an error. Beside it, the same calls through ``McpServer.handle`` in this
process (no HTTP, one caller) show what the transport adds.

Prints ONE JSON summary on stdout: per tool p50/p99 (ms) over HTTP and in-process, the
throughput and the error count. ``--quick``: 4 clients x 5 rounds (seconds, for CI); the
default: 16 clients x 50 rounds.

Usage:
  .venv/bin/python bench/bench_http.py [--quick] [--clients N] [--rounds R] [--out f.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
import httpx
from _common import Corpus, emit, log, machine_facts, summarize
from _http_server import running_server
from anneal_memory import Store
from anneal_memory.mcp import McpServer, ServerConfig

pc = time.perf_counter
MODERN = "2026-07-28"
TOOLS = ("record", "recall", "status")
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def call_body(tool: str, client: int, n: int, word: str) -> dict:
    arguments = {
        "record": {
            "content": f"client {client} note {n} about {word}",
            "episode_type": "observation",
        },
        "recall": {"keyword": word, "limit": 10},
        "status": {},
    }[tool]
    return {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": META},
    }


def ok(reply: dict) -> bool:
    result = reply.get("result")
    return isinstance(result, dict) and result.get("isError") is False


async def one_client(
    url: str, token: str, client: int, rounds: int, words: list[str], times: dict, errors: list
) -> None:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(headers=headers, timeout=120) as http:
        for n in range(rounds):
            word = words[(client + n) % len(words)]
            for tool in TOOLS:
                body = call_body(tool, client, n, word)
                extra = {
                    "MCP-Protocol-Version": MODERN,
                    "Mcp-Method": "tools/call",
                    "Mcp-Name": tool,
                }
                s = pc()
                try:
                    response = await http.post(url, json=body, headers=extra)
                    good = response.status_code == 200 and ok(response.json())
                except httpx.HTTPError as exc:
                    good, response = False, exc
                times[tool].append(pc() - s)
                if not good:
                    errors.append(f"{tool}: {response}")


async def drive(
    url: str, tokens: list[str], rounds: int, words: list[str]
) -> tuple[dict, list, float]:
    times: dict = {t: [] for t in TOOLS}
    errors: list = []
    s = pc()
    await asyncio.gather(
        *(one_client(url, tok, i, rounds, words, times, errors) for i, tok in enumerate(tokens))
    )
    return times, errors, pc() - s


def in_process(db: Path, rounds: int, words: list[str]) -> dict:
    times: dict = {t: [] for t in TOOLS}
    with Store(db) as store:
        server = McpServer(ServerConfig(db_path=db, session_id="bench"), store=store)
        for n in range(rounds):
            for tool in TOOLS:
                line = json.dumps(call_body(tool, 0, n, words[n % len(words)]))
                s = pc()
                reply = server.handle(line)
                times[tool].append(pc() - s)
                assert reply is not None, line
                assert ok(reply), reply
    return times


def cell(seconds: list[float]) -> dict:
    found = summarize(seconds)
    return {"n": found["n"], "p50_ms": found["median_ms"], "p99_ms": found["p99_ms"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--clients", type=int)
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--out")
    args = parser.parse_args()
    clients = args.clients or (4 if args.quick else 16)
    rounds = args.rounds or (5 if args.quick else 50)
    words = Corpus().query_words("common") + Corpus().query_words("mid")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "http.db"
        names = {f"agent{i}": "default" for i in range(clients)}
        log(f"serving {clients} clients x {rounds} rounds x {len(TOOLS)} calls")
        with running_server(db, names) as server:
            times, errors, wall = asyncio.run(
                drive(server.url, list(server.tokens.values()), rounds, words)
            )
        local = in_process(Path(tmp) / "local.db", rounds, words)
    calls = clients * rounds * len(TOOLS)
    summary = {
        "bench": "bench_http",
        "machine": machine_facts(),
        "clients": clients,
        "rounds": rounds,
        "calls": calls,
        "errors": len(errors),
        "first_errors": errors[:5],
        "calls_per_s": round(calls / wall, 1),
        "http": {t: cell(times[t]) for t in TOOLS},
        "in_process_handle": {t: cell(local[t]) for t in TOOLS},
    }
    emit(summary, args.out)
    if errors:
        sys.exit(1)


if __name__ == "__main__":
    main()
