"""A light parser for the plain command lines, without importing argparse (start-up, #25).

``quick_parse(argv)`` returns the namespace argparse would build for ``argv``, or None when it
is not sure; ``main`` then runs argparse as before, so help, ``--version`` and every usage
error (and its exit code 2) still come from argparse. The command's own ``add_commands`` runs
against a small recorder of its ``add_argument`` calls, so each option is declared once.

It takes the plain forms only: the global options, the command, exact option names (long ones
also as ``--name=value``), option values that do not start with ``-``, and positional values in
one run (or a command whose positionals all take exactly one value). It declines
abbreviations, ``--``, attached short values, values starting with ``-``, any value its type
or choices refuse, missing required options, two options of one exclusive group, nested
subcommands and any argparse feature it does not model. ``tests/core/cli/test_quickparse.py``
checks that every command line it accepts gives argparse's namespace.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

TYPE_CHECKING = False  # typing's constant without importing typing
if TYPE_CHECKING:
    from argparse import Namespace
else:

    class Namespace:
        """Parsed arguments: attributes, ``in`` and equality as ``argparse.Namespace``."""

        def __init__(self, **kwargs: object) -> None:
            for name, value in kwargs.items():
                setattr(self, name, value)

        def __eq__(self, other: object) -> bool:
            if not isinstance(other, Namespace):
                return NotImplemented
            return vars(self) == vars(other)

        __hash__ = None  # unhashable, as argparse's

        def __contains__(self, key: str) -> bool:
            return key in self.__dict__

        def __repr__(self) -> str:
            fields = ", ".join(f"{k}={v!r}" for k, v in sorted(vars(self).items()))
            return f"Namespace({fields})"


__all__ = ["SUPPRESS", "Declined", "quick_parse"]

SUPPRESS = "==SUPPRESS=="  # argparse's marker, compared by value here (a test keeps it equal)
_ADD_ARGUMENT_KEYS = frozenset(
    {
        "action",
        "choices",
        "const",
        "default",
        "dest",
        "help",
        "metavar",
        "nargs",
        "required",
        "type",
    }
)
_ADD_PARSER_KEYS = frozenset(  # the rest only shape the help, or are argparse's
    {"add_help", "aliases", "allow_abbrev", "description", "epilog", "formatter_class", "help"}
    | {"parents", "prog", "usage"}
)
_CONST_ACTIONS = {"store_true": (False, True), "store_false": (True, False)}


class Declined(Exception):  # noqa: N818 - a decision, not an error: argparse takes over
    """The command line is argparse's to parse (help, an error, or a form not modelled here)."""


class _Action:
    """One ``add_argument`` call, as far as parsing goes."""

    __slots__ = (
        "choices",
        "const",
        "convert",
        "default",
        "dest",
        "kind",
        "nargs",
        "required",
        "strings",
    )

    def __init__(self, flags: tuple[str, ...], kw: dict[str, object]) -> None:
        action = kw.get("action", "store")
        if not set(kw) <= _ADD_ARGUMENT_KEYS or not flags or not isinstance(action, str):
            raise Declined
        self.strings = flags if flags[0].startswith("-") else ()
        self.nargs = kw.get("nargs")
        self.required = bool(kw.get("required", not self.strings and self.nargs is None))
        self.choices = kw.get("choices")
        self.dest = str(kw.get("dest") or _dest(flags))
        self.kind, self.default, self.const = _kind(action, kw)
        self.convert: Callable[[str], object] | None = kw.get("type")  # type: ignore[assignment]
        if self.nargs not in (None, "?") or (self.strings and self.nargs is not None):
            raise Declined

    def value(self, text: str) -> object:
        """``text`` through the action's type and choices, as argparse checks it."""
        try:
            value = text if self.convert is None else self.convert(text)
        except Exception:  # its error message is argparse's to print
            raise Declined from None
        if self.choices is not None and value not in self.choices:  # type: ignore[operator]
            raise Declined
        return value


def _dest(flags: tuple[str, ...]) -> str:
    if not flags[0].startswith("-"):
        if len(flags) > 1:
            raise Declined
        return flags[0]
    longs = [f for f in flags if f.startswith("--")]
    return (longs or list(flags))[0].lstrip("-").replace("-", "_")


def _kind(action: str, kw: dict[str, object]) -> tuple[str, object, object]:
    """(kind, default, const) of an argparse action name; Declined for the rest."""
    if action in ("store", "append"):
        return action, kw.get("default"), None
    if action in _CONST_ACTIONS:
        default, const = _CONST_ACTIONS[action]
        return "const", kw.get("default", default), const
    if action == "store_const" and "const" in kw:
        return "const", kw.get("default"), kw["const"]
    raise Declined  # version, help, count, custom actions: argparse's


class _Parser:
    """Records what a command declares: its options, positionals and defaults."""

    def __init__(self, parents: Sequence[_Parser] = (), **kw: object) -> None:
        self.actions: list[_Action] = [a for p in parents for a in p.actions]
        self.defaults: dict[str, object] = {k: v for p in parents for k, v in p.defaults.items()}
        self.groups: list[list[_Action]] = [g for p in parents for g in p.groups]
        self.unsupported = not set(kw) <= _ADD_PARSER_KEYS

    def add_argument(self, *flags: str, **kw: object) -> _Action | None:
        """Record one argument; an unmodelled one makes this parser argparse's."""
        try:
            action = _Action(flags, kw)
        except Declined:
            self.unsupported = True
            return None
        self.actions.append(action)
        return action

    def set_defaults(self, **kw: object) -> None:
        """Record the parser-level defaults (the handler)."""
        self.defaults.update(kw)

    def add_argument_group(self, *_args: object, **_kw: object) -> _Parser:
        """Groups only change the help: their arguments are the parser's."""
        return self

    def add_mutually_exclusive_group(self, *, required: bool = False) -> _Group:
        """An exclusive group: recorded to decline two of its options (or none, if required)."""
        group = _Group(self, required=required)
        self.groups.append(group.members)
        return group

    def add_subparsers(self, **_kw: object) -> _Subparsers:
        """Nested subcommands are argparse's."""
        self.unsupported = True
        return _Subparsers()


class _Group:
    def __init__(self, parser: _Parser, *, required: bool) -> None:
        self.parser = parser
        self.members: list[_Action] = []
        if required:
            parser.unsupported = True

    def add_argument(self, *flags: str, **kw: object) -> _Action | None:
        action = self.parser.add_argument(*flags, **kw)
        if action is not None:
            self.members.append(action)
        return action


class _Subparsers:
    """Collects ``add_parser`` calls by command name (aliases included)."""

    def __init__(self) -> None:
        self.parsers: dict[str, _Parser] = {}
        self.required = False

    def add_parser(self, name: str, **kw: object) -> _Parser:
        parents = kw.pop("parents", ())
        aliases = kw.pop("aliases", ())
        parser = _Parser(parents, **kw)  # type: ignore[arg-type]
        for each in (name, *aliases):  # type: ignore[misc]
            self.parsers[each] = parser
        return parser


def _lookup(parser: _Parser, token: str) -> tuple[_Action, str | None]:
    """The action an option token names, and its ``=value`` if any; Declined otherwise."""
    for action in parser.actions:
        if token in action.strings:
            return action, None
    name, eq, value = token.partition("=")
    if eq and name.startswith("--"):
        for action in parser.actions:
            if name in action.strings:
                return action, value
    raise Declined  # an abbreviation, -h, an attached short value, a negative number...


def _option(parser: _Parser, ns: Namespace, tokens: list[str], i: int) -> tuple[_Action, int]:
    """Apply the option at ``tokens[i]``; return it and the index after it (and its value)."""
    action, explicit = _lookup(parser, tokens[i])
    if action.kind == "const":
        if explicit is not None:
            raise Declined
        setattr(ns, action.dest, action.const)
        return action, i + 1
    text, after = explicit, i + 1
    if text is None:
        if i + 1 >= len(tokens) or tokens[i + 1].startswith("-"):
            raise Declined
        text, after = tokens[i + 1], i + 2
    value = action.value(text)
    if action.kind == "append":
        items = getattr(ns, action.dest, None)
        if items is not None and type(items) is not list:
            raise Declined
        value = [*(items or []), value]
    setattr(ns, action.dest, value)
    return action, after


def _positionals(parser: _Parser, ns: Namespace, values: list[str], runs: int) -> None:
    """Give the positional values to the positionals, greedily, as argparse does in one run."""
    wanted = [a for a in parser.actions if not a.strings]
    if runs > 1 and any(a.nargs is not None for a in wanted):
        raise Declined  # argparse fills an optional positional from the first run
    minimum = sum(a.nargs is None for a in wanted)
    if not minimum <= len(values) <= len(wanted):
        raise Declined
    spare = len(values) - minimum
    for action in wanted:
        if action.nargs is None or spare > 0:
            spare -= action.nargs is not None
            setattr(ns, action.dest, action.value(values.pop(0)))
        elif isinstance(action.default, str):
            setattr(ns, action.dest, action.value(action.default))
        else:
            setattr(ns, action.dest, action.default)


def _defaults(parser: _Parser, ns: Namespace) -> None:
    for action in parser.actions:
        if not hasattr(ns, action.dest) and action.default != SUPPRESS:
            setattr(ns, action.dest, action.default)
    for name, value in parser.defaults.items():
        if not hasattr(ns, name):
            setattr(ns, name, value)


def _finish(parser: _Parser, ns: Namespace, seen: set[int]) -> None:
    """The end of argparse's parsing: required options, exclusive groups, typed str defaults."""
    for action in parser.actions:
        if not action.strings or id(action) in seen:
            continue
        if action.required:
            raise Declined
        default = action.default
        unchanged = getattr(ns, action.dest, None) is default
        if unchanged and isinstance(default, str) and action.convert is not None:
            setattr(ns, action.dest, action.value(default))
    for group in parser.groups:
        if sum(id(a) in seen for a in group) > 1:
            raise Declined


def _parse_into(parser: _Parser, ns: Namespace, tokens: list[str]) -> None:
    """Parse ``tokens`` with ``parser`` into ``ns`` (defaults first, as argparse)."""
    _defaults(parser, ns)
    values: list[str] = []
    seen: set[int] = set()
    runs, i, last_positional = 0, 0, -2
    while i < len(tokens):
        token = tokens[i]
        if token.startswith("-") and token != "-":
            action, i = _option(parser, ns, tokens, i)
            seen.add(id(action))
            continue
        runs += last_positional != i - 1
        values.append(token)
        last_positional, i = i, i + 1
    _positionals(parser, ns, values, runs)
    _finish(parser, ns, seen)


def _command_parser(name: str) -> _Parser:
    """The recorded parser of command ``name`` (Declined when not one light parsing knows)."""
    from anneal_memory.cli._parser import COMMAND_MODULES, add_json_flag

    modules = [e[0] for e in COMMAND_MODULES if not isinstance(e, str) and name in e[1:]]
    if len(modules) != 1:
        raise Declined
    json_parent = _Parser()
    add_json_flag(json_parent, SUPPRESS)  # type: ignore[arg-type]
    subparsers = _Subparsers()
    module = importlib.import_module(modules[0])
    try:
        module.add_commands(subparsers, [json_parent])
    except (AttributeError, TypeError):  # an argparse call not recorded here: argparse's
        raise Declined from None  # (it runs the same add_commands, so a real bug still shows)
    parser = subparsers.parsers.get(name)
    if parser is None or parser.unsupported:
        raise Declined
    return parser


def _split_command(argv: list[str], top: _Parser, ns: Namespace) -> int:
    """Parse the global options before the command; return the command's index."""
    i = 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
        i = _option(top, ns, argv, i)[1]
    if i >= len(argv):
        raise Declined  # no command: the usage (or serve, decided before parsing)
    return i


def _parse(argv: list[str]) -> Namespace:
    from anneal_memory.cli._parser import add_global_options

    top = _Parser()
    add_global_options(top)  # type: ignore[arg-type]
    ns = Namespace()
    _defaults(top, ns)
    ns.command = None
    at = _split_command(argv, top, ns)
    parser = _command_parser(argv[at])
    ns.command = argv[at]
    sub = Namespace()
    _parse_into(parser, sub, argv[at + 1 :])
    for name, value in vars(sub).items():
        setattr(ns, name, value)
    if not callable(getattr(ns, "handler", None)):
        raise Declined
    return ns


def quick_parse(argv: Sequence[str]) -> Namespace | None:
    """The namespace argparse would give for ``argv``, or None: let argparse parse it.

    Args:
        argv: The arguments after the program name.
    """
    try:
        return _parse(list(argv))
    except Declined:
        return None
