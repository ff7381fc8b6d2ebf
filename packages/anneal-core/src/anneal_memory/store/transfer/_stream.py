"""Bounded, streaming readers for files given to ``import``.

A source is read in chunks and hashed as it goes; no reader holds more than one value (one
episode, one line) plus one chunk. Every failure is an ``ImportFormatError`` naming the place
(``episodes[12]``, ``line 7``) and what was wrong with it.
"""

from __future__ import annotations

import codecs
import hashlib
import io
import json
from collections.abc import Iterator
from typing import IO, Any

from anneal_memory.errors import ImportFormatError

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_VALUE_CHARS",
    "HashingSource",
    "JsonDocument",
    "iter_json_lines",
]

MAX_VALUE_CHARS = 16 * 1024 * 1024
MAX_LINE_BYTES = 16 * 1024 * 1024
_CHUNK = 1024 * 1024
_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


class HashingSource(io.RawIOBase):
    """A binary stream that serves ``prefix`` first, then ``raw``, hashing every byte once."""

    def __init__(self, prefix: bytes, raw: IO[bytes]) -> None:
        super().__init__()
        self._prefix = memoryview(prefix)
        self._raw = raw
        self.sha256 = hashlib.sha256(prefix)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self._prefix:
            n = min(len(view), len(self._prefix))
            view[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        data = self._raw.read(len(view))
        if not data:
            return 0
        self.sha256.update(data)
        view[: len(data)] = data
        return len(data)

    def drain(self) -> None:
        """Read (and hash) whatever is left."""
        while self.read(_CHUNK):
            pass


def _check_depth(exc: RecursionError, place: str) -> ImportFormatError:
    del exc
    return ImportFormatError(f"{place} is nested too deeply; this is not an export")


class JsonDocument:
    """One JSON object read member by member; arrays named by the caller are streamed."""

    def __init__(self, source: IO[bytes], *, name: str) -> None:
        self._source = source
        self._name = name
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._buf = ""
        self._pos = 0
        self._eof = False
        self._read_bytes = 0
        self._pending = False

    def _fill(self) -> None:
        data = self._source.read(_CHUNK)
        try:
            text = self._decoder.decode(data or b"", final=not data)
        except UnicodeDecodeError as exc:
            raise ImportFormatError(
                f"{self._name} is not UTF-8 (bad byte near byte {self._read_bytes + exc.start})"
            ) from None
        if not self._read_bytes:
            text = text.removeprefix("\ufeff")
        self._read_bytes += len(data or b"")
        if not data:
            self._eof = True
        if self._pos > _CHUNK:
            self._buf, self._pos = self._buf[self._pos :], 0
        self._buf += text

    def _peek(self) -> str:
        while True:
            while self._pos < len(self._buf) and self._buf[self._pos] in _WS:
                self._pos += 1
            if self._pos < len(self._buf):
                return self._buf[self._pos]
            if self._eof:
                return ""
            self._fill()

    def _expect(self, chars: str, place: str) -> str:
        found = self._peek()
        if not found or found not in chars:
            what = "the end of the file" if not found else repr(found)
            raise ImportFormatError(
                f"{self._name}: expected {' or '.join(map(repr, chars))} {place}, found {what}"
                + (" (the file is truncated)" if not found else "")
            )
        self._pos += 1
        return found

    def value(self, place: str) -> Any:
        """Decode the next JSON value (at most :data:`MAX_VALUE_CHARS` characters)."""
        self._pending = False
        self._peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError as exc:
                if not self._eof and len(self._buf) - self._pos <= MAX_VALUE_CHARS:
                    self._fill()
                    continue
                raise self._bad(place, exc) from None
            except RecursionError as exc:
                raise _check_depth(exc, place) from None
            if end >= len(self._buf) and not self._eof:
                self._fill()  # a number or literal may go on in the next chunk
                continue
            if end - self._pos > MAX_VALUE_CHARS:
                raise self._too_big(place)
            self._pos = end
            return value

    def _too_big(self, place: str) -> ImportFormatError:
        return ImportFormatError(
            f"{self._name}: {place} is over {MAX_VALUE_CHARS // (1024 * 1024)} MiB; "
            "no single record of an export is that large"
        )

    def _bad(self, place: str, exc: json.JSONDecodeError) -> ImportFormatError:
        if len(self._buf) - self._pos > MAX_VALUE_CHARS:
            return self._too_big(place)
        if self._eof and (exc.msg.startswith("Unterminated") or exc.pos >= len(self._buf.rstrip())):
            return ImportFormatError(f"{self._name} ends in the middle of {place} (truncated)")
        return ImportFormatError(f"{self._name}: {place} is not valid JSON ({exc.msg})")

    def members(self) -> Iterator[str]:
        """Yield each top-level key; the caller reads its value with ``value`` or ``items``.

        A value the caller leaves unread is read and dropped.
        """
        self._expect("{", "at the start of the document")
        if self._peek() == "}":
            self._pos += 1
        else:
            while True:
                key = self.value("a member name")
                if not isinstance(key, str):
                    raise ImportFormatError(f"{self._name}: a member name is not a string")
                self._expect(":", f"after {key!r}")
                self._pending = True
                yield key
                if self._pending:
                    self.value(repr(key))
                if self._expect(",}", f"after the value of {key!r}") == "}":
                    break
        if self._peek():
            raise ImportFormatError(f"{self._name} has data after the end of the document")

    def items(self, place: str) -> Iterator[Any]:
        """Stream the elements of the array that comes next."""
        self._pending = False
        self._expect("[", f"at the start of {place} (it must be a list)")
        if self._peek() == "]":
            self._pos += 1
            return
        index = 0
        while True:
            yield self.value(f"{place}[{index}]")
            index += 1
            if self._expect(",]", f"after {place}[{index - 1}]") == "]":
                return


def iter_json_lines(source: IO[bytes], *, name: str) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, value)`` for each non-blank line of a JSON Lines file."""
    number = 0
    while True:
        line = source.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE_BYTES:
            raise ImportFormatError(
                f"{name}: line {number} is longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB; "
                "no record of this format is that large"
            )
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ImportFormatError(
                f"{name}: line {number} is not UTF-8 (bad byte at column {exc.start + 1})"
            ) from None
        if number == 1:
            text = text.removeprefix("\ufeff")
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            cut = "" if line.endswith(b"\n") else " (the file may be truncated)"
            raise ImportFormatError(
                f"{name}: line {number} is not valid JSON ({exc.msg}){cut}"
            ) from None
        except RecursionError as exc:
            raise _check_depth(exc, f"{name}: line {number}") from None
        yield number, value
