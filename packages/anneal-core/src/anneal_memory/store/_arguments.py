"""One check for every text argument of the public ``Store`` calls (issue #24 item 13).

Before a call reaches either engine, each ``str`` argument (and each ``str`` in a list or
tuple argument) is refused when it holds a NUL, a lone surrogate (not valid Unicode, so
neither engine can bind it) or more characters than its bound. The refusal is the call's own
input error naming the argument, raised before anything is read or written, and is the same
on SQLite and PostgreSQL (SQLite used to match nothing, PostgreSQL to report a database
failure, both a ``UnicodeEncodeError`` for a surrogate).

What each argument must otherwise look like (a scope, a source, a date) stays with the
call's own validation; this is only the floor every text shares.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from types import FunctionType
from typing import Any, TypeVar

from anneal_memory.errors import InvalidInputError

__all__ = [
    "MAX_ARGUMENT_CHARS",
    "OWN_CHECKS",
    "check_text_argument",
    "guard_text_arguments",
    "parameter_names",
]

MAX_ARGUMENT_CHARS = 4_096
"""The bound of a short text argument: ids, scopes, sources, keys, events, dates."""
OWN_CHECKS = frozenset({"content", "keyword"})
"""Texts with a check of their own: ``record``'s content (NUL, surrogates and its 64 KiB of
UTF-8, refused by name) and recall's keyword (any string is a valid keyword: its words are
matched literally, and a NUL or surrogate matches nothing, alike on both engines)."""

_F = TypeVar("_F", bound=Callable[..., Any])
_CO_VARARGS = 0x04  # inspect.CO_VARARGS, CO_VARKEYWORDS: flags of a code object
_CO_VARKEYWORDS = 0x08


def check_text_argument(
    value: str,
    name: str,
    *,
    error: type[InvalidInputError] = InvalidInputError,
    limit: int = MAX_ARGUMENT_CHARS,
) -> None:
    """Refuse ``value`` (the argument ``name``) when it is over-long, holds NUL or a surrogate.

    Raises:
        InvalidInputError: ``error`` (a subclass), naming the argument and what to do.
    """
    if len(value) > limit:
        raise error(f"{name} is {len(value):,} characters; the limit is {limit:,}")
    if "\x00" in value:
        raise error(f"{name} contains a NUL character at position {value.index(chr(0))}; remove it")
    if value.isascii():
        return
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise error(
            f"{name} contains a lone surrogate (U+{ord(value[exc.start]):04X}) at position "
            f"{exc.start}, which is not valid Unicode text; repair the string"
        ) from None


def _check(value: object, name: str, error: type[InvalidInputError]) -> None:
    if name in OWN_CHECKS:
        return
    if isinstance(value, str):
        check_text_argument(value, name, error=error)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            if isinstance(item, str):
                check_text_argument(item, f"{name}[{index}]", error=error)


def parameter_names(method: Callable[..., Any]) -> list[str]:
    """The names of ``method``'s parameters in ``inspect.signature`` order.

    Read from a plain function's code object (importing and running ``inspect`` for each
    guarded method cost the CLI's start-up, issue #25); anything else (a wrapper, a
    callable with its own ``__signature__``) goes through ``inspect.signature``.
    """
    if type(method) is not FunctionType or hasattr(method, "__wrapped__"):
        import inspect  # only for callables that are not plain functions

        return list(inspect.signature(method).parameters)
    code = method.__code__
    count, kwonly = code.co_argcount, code.co_kwonlyargcount
    names = list(code.co_varnames[:count])
    rest = count + kwonly
    if code.co_flags & _CO_VARARGS:
        names.append(code.co_varnames[rest])
        rest += 1
    names.extend(code.co_varnames[count : count + kwonly])
    if code.co_flags & _CO_VARKEYWORDS:
        names.append(code.co_varnames[rest])
    return names


def _guarded(method: _F, error: type[InvalidInputError]) -> _F:
    params = parameter_names(method)[1:]  # after self

    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        for name, value in zip(params, args, strict=False):
            _check(value, name, error)
        for name, value in kwargs.items():
            _check(value, name, error)
        return method(self, *args, **kwargs)

    return call  # type: ignore[return-value]


def guard_text_arguments(cls: type, methods: Mapping[str, type[InvalidInputError]]) -> None:
    """Wrap each named public method of ``cls`` so its text arguments are checked first.

    ``methods`` maps a method's name to the input error it raises for a bad argument.
    """
    for name, error in methods.items():
        setattr(cls, name, _guarded(getattr(cls, name), error))
