"""Start a real ``anneal-memory serve --http`` process on the loopback (tests and bench)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple


class HttpServer(NamedTuple):
    url: str
    db: Path | str
    tokens: dict[str, str]
    process: subprocess.Popen[bytes]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cli(db: Path | str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "anneal_memory", "--db", str(db), *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def add_token(
    db: Path | str, name: str, *, scope: str = "default", session_id: str = "", tokens: str = ""
) -> str:
    out = cli(
        db,
        "--json",
        "http-token",
        "add",
        name,
        "--scope",
        scope,
        "--session-id",
        session_id or f"{name}-session",
        *(["--tokens", tokens] if tokens else []),
    )
    return str(json.loads(out)["token"])


def _wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    for _ in range(600):  # readiness, not a speed assertion: up to 60 s on a busy machine
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {process.stderr.read().decode()}")  # type: ignore[union-attr]
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.1)
    raise RuntimeError("server did not start listening")


@contextlib.contextmanager
def running_server(
    db: Path | str, names: Mapping[str, str] | None = None, *extra: str, tokens_file: str = ""
) -> Iterator[HttpServer]:
    """Tokens ``{name: scope}`` (default: one ``alice`` token), then the server until exit."""
    if tokens_file:
        extra = (*extra, "--tokens", tokens_file)
    tokens = {
        name: add_token(db, name, scope=scope, tokens=tokens_file)
        for name, scope in (names or {"alice": "default"}).items()
    }
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "anneal_memory",
            "--db",
            str(db),
            "--project-name",
            "HTTP",
            "serve",
            "--http",
            f"127.0.0.1:{port}",
            *extra,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        _wait_listening(port, process)
        yield HttpServer(f"http://127.0.0.1:{port}/mcp", db, tokens, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


class Reply(NamedTuple):
    status: int
    headers: dict[str, str]
    body: Any


def post(
    url: str,
    body: bytes | Mapping[str, Any],
    *,
    token: str | None = None,
    headers: Mapping[str, str] | None = None,
    method: str = "POST",
) -> Reply:
    """One raw HTTP request; the JSON body decoded when there is one."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    sent.update(headers or {})
    request = urllib.request.Request(
        url, data=data if method == "POST" else None, headers=sent, method=method
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, raw, got = response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as exc:
        status, raw, got = exc.code, exc.read(), dict(exc.headers)
    lowered = {k.lower(): v for k, v in got.items()}
    return Reply(status, lowered, json.loads(raw) if raw else None)
