"""Run the ``anneal-memory`` command line for a test: in this process, or as a real process.

In process, ``main()`` runs as ``python -m anneal_memory`` would: its own ``sys.argv``, an
environment made of exactly the given variables, the test's folder as working directory, and
stdin/stdout/stderr that are real files (``read_bounded`` reads stdin's descriptor), decoded
as UTF-8. Warnings the library logs reach stderr as in a process without logging set up. A
real process is for what only a process shows: signals, terminals, the interpreter's own
environment handling (``PYTHONIOENCODING``), crashes and stdio transports. An exception that
escapes ``main()`` ends the run as it ends a process: its traceback on stderr, exit code 1.
"""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "CliResult",
    "CliRunner",
    "clean_env",
    "cli_runner",
    "run_in_process",
    "run_in_subprocess",
]


@dataclass(frozen=True)
class CliResult:
    """What one ``anneal-memory`` run did."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def assert_ok(self) -> CliResult:
        assert self.code == 0, (self.code, self.out, self.err)
        assert "Traceback" not in self.err
        return self

    def assert_error(self, code: int = 1) -> str:
        """Exit ``code``, no traceback; for exit 1 exactly one ``Error:`` line. Returns stderr."""
        assert self.code == code, (self.code, self.out, self.err)
        assert "Traceback" not in self.err
        if code == 1:
            lines = self.err.strip().splitlines()
            assert len(lines) == 1, self.err
            assert lines[0].startswith("Error: "), self.err
        return self.err


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A minimal environment: no ANNEAL_* variables from the developer's shell."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path / "home")}
    if "SYSTEMROOT" in os.environ:  # Windows needs it to start Python
        env["SYSTEMROOT"] = os.environ["SYSTEMROOT"]
    for name in ("TMPDIR", "TEMP", "TMP"):  # temporary folders (the demo's) stay in tmp_path
        env[name] = str(tmp_path)
    env.update(extra)
    return env


def _as_bytes(stdin: str | bytes | None) -> bytes:
    if stdin is None:
        return b""
    return stdin.encode("utf-8") if isinstance(stdin, str) else stdin


def run_in_subprocess(
    argv: Sequence[str],
    *,
    stdin: str | bytes | None,
    env: Mapping[str, str],
    cwd: Path,
    timeout: float = 30,
) -> CliResult:
    """``python -m anneal_memory ARGV`` in a child process."""
    proc = subprocess.run(
        [sys.executable, "-m", "anneal_memory", *argv],
        input=_as_bytes(stdin),
        capture_output=True,
        env=dict(env),
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    return CliResult(
        code=proc.returncode, out=proc.stdout.decode("utf-8"), err=proc.stderr.decode("utf-8")
    )


@contextmanager
def _only_environment(env: Mapping[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    saved_tempdir = tempfile.tempdir
    os.environ.clear()
    os.environ.update(env)
    tempfile.tempdir = None  # re-read TMPDIR, as a new process would
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
        tempfile.tempdir = saved_tempdir


@contextmanager
def _process_state(argv: Sequence[str], cwd: Path) -> Iterator[None]:
    saved_argv, saved_cwd = sys.argv, os.getcwd()
    root = logging.getLogger()
    saved_handlers = root.handlers[:]
    sys.argv = ["anneal-memory", *argv]
    os.chdir(cwd)
    root.handlers = []  # as in a fresh process: library warnings go to stderr (lastResort)
    try:
        yield
    finally:
        root.handlers = saved_handlers
        os.chdir(saved_cwd)
        sys.argv = saved_argv


@contextmanager
def _std_streams(stdin: bytes) -> Iterator[tuple[io.TextIOWrapper, io.TextIOWrapper]]:
    saved = sys.stdin, sys.stdout, sys.stderr
    files = [tempfile.TemporaryFile() for _ in range(3)]  # noqa: SIM115 - closed below
    files[0].write(stdin)
    files[0].seek(0)
    streams = [io.TextIOWrapper(f, encoding="utf-8", write_through=True) for f in files]
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        yield streams[1], streams[2]
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        for stream in streams:
            stream.close()


def _written(stream: io.TextIOWrapper) -> str:
    stream.flush()
    stream.buffer.seek(0)
    return stream.buffer.read().decode("utf-8")


def run_in_process(
    argv: Sequence[str], *, stdin: str | bytes | None, env: Mapping[str, str], cwd: Path
) -> CliResult:
    """``anneal_memory.cli.main()`` in this process, as ``python -m anneal_memory ARGV``."""
    from anneal_memory.cli import main

    with (
        _only_environment(env),
        _process_state(argv, cwd),
        _std_streams(_as_bytes(stdin)) as (out, err),
    ):
        try:
            code = main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        except Exception:  # what the interpreter does with an uncaught exception
            traceback.print_exc(file=err)
            code = 1
        return CliResult(code=code, out=_written(out), err=_written(err))


CliRunner = Callable[..., CliResult]


def cli_runner(tmp_path: Path, cli_db: Path, *, in_process: bool) -> CliRunner:
    """``run(*args, stdin=None, env=None, db=True, timeout=30)``: one run of the CLI.

    ``--db cli_db`` goes first unless ``db=False``; ``env`` replaces the clean environment;
    the working directory is ``tmp_path``. ``timeout`` bounds a real process only.
    """

    def run(
        *args: str,
        stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None,
        db: bool = True,
        timeout: float = 30,
    ) -> CliResult:
        argv = ["--db", str(cli_db), *args] if db else list(args)
        environment = env if env is not None else clean_env(tmp_path)
        if in_process:
            return run_in_process(argv, stdin=stdin, env=environment, cwd=tmp_path)
        return run_in_subprocess(argv, stdin=stdin, env=environment, cwd=tmp_path, timeout=timeout)

    return run
