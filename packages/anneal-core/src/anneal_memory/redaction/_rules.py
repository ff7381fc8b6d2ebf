"""The secret rules: one per well-known key or token format, then the key-name rules.

Formats follow each vendor's documentation (the tests cite it per rule); the prefixes and
lengths were checked against gitleaks' rule set (MIT, github.com/gitleaks/gitleaks,
``cmd/generate/config/rules``) and the detect-secrets plugins (Apache-2.0,
github.com/Yelp/detect-secrets, ``detect_secrets/plugins``). The expressions are written
here, not copied; ``docs/trust.md`` says which sources were evaluated.

Two kinds of rule, so that honest prose costs almost nothing to scan:

* a **token** rule (a vendor format) runs only inside the text's long runs of token
  characters (:func:`token_runs`: 16 or more letters, digits and ``_-.+/=:~``), where every
  such secret lives; it starts with its literal prefix, with no word character before it;
* an **anchored** rule (a key name: ``password=``, ``api_key:``, a URL's ``://``) is tried
  only where one of its anchors occurs in the text with A-Z lowered, and starts there.

Every expression is linear on hostile input: quantifiers are bounded and no rule rescans a
run of characters from many starting points.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from anneal_memory.redaction._entropy import is_placeholder, looks_generated

__all__ = ["SECRET_RULES", "TOKEN_CHARS", "Rule", "Subject", "fold", "pem_blocks", "token_runs"]

# string.ascii_lowercase / ascii_uppercase / digits, spelled out: importing ``string`` builds
# its Template class (a regex compiled at import) on every record (start-up, #25).
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
TOKEN_CHARS = _LOWER + _UPPER + "0123456789" + "_-.+/=:~"
"""What token-format secrets are made of; they live in runs of 16 or more of these."""
_RUN = 16
_WHOLE_TEXT_RUNS = 64  # past this many runs, scanning the whole text once is cheaper
# Token characters become b"a", everything else b" ": runs are then found with bytes.find,
# far faster than a regular expression over prose.
_RUN_BYTES = bytes(ord("a") if chr(b) in TOKEN_CHARS else ord(" ") for b in range(256))


def token_runs(text: str) -> tuple[tuple[int, int], ...]:
    """``(start, end)`` of every run of at least 16 token characters in ``text``."""
    # One byte per code point ("?" for non-ASCII, not a token character): offsets agree.
    marks = text.encode("ascii", "replace").translate(_RUN_BYTES)
    runs = []
    at = marks.find(b"a" * _RUN)
    while at >= 0:
        end = marks.find(b" ", at)
        end = len(marks) if end < 0 else end
        runs.append((at, end))
        at = marks.find(b"a" * _RUN, end)
    return tuple(runs)


_E = r"(?![A-Za-z0-9_])"  # a token ends here
# ``key = value``, ``key: "value"``, ``"key": 'value'``, ``key := value``, ``key => value``
# (lower case: the anchored rules read the text with A-Z lowered).
_ASSIGN = r"""["'\]]{0,2}\s{0,3}(?:=|:=|:|=>|->)\s{0,3}"""
_VALUE = (
    r"""(?:(?P<q>["'`])(?P<quoted>[^"'`\r\n]{1,200})(?P=q)"""
    r"""|(?P<bare>[a-z0-9_\-+/.~!@#$%^*]{1,200}={0,2}))"""
)
_ASCII_LOWER = str.maketrans(_UPPER, _LOWER)


def fold(text: str) -> str:
    """``text`` with A-Z lowered and nothing else changed (same length, same offsets)."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


# Named tuples, not frozen dataclasses: immutable all the same, and about a tenth of the
# cost to define at import (a record scans its text; start-up, #25).
class Subject(NamedTuple):
    """A text being scanned, with what every rule needs of it (computed once)."""

    text: str
    folded: str
    runs: tuple[tuple[int, int], ...]

    @classmethod
    def of(cls, text: str) -> Subject:
        """The subject for ``text``."""
        return cls(text=text, folded=fold(text), runs=token_runs(text))


def _tok(literal: str, rest: str) -> str:
    """A token starting with ``literal`` (no word character before it), then ``rest``.

    The literal comes first so the regex engine jumps between its occurrences; the
    boundary is checked behind it.
    """
    escaped = re.escape(literal)
    return f"{escaped}(?<![A-Za-z0-9_]{escaped}){rest}"


class Rule(NamedTuple):
    """One kind of secret: an expression, where it is tried, and an optional check.

    ``anchors`` empty: a token rule, searched inside the subject's token runs (``folded``
    False). Else the expression is matched at each occurrence of an anchor in the folded
    text (and is written in lower case). ``whole_text``: searched over the whole text (the
    personal-data rules). The replaced span is the ``secret`` group, else the ``quoted`` or
    ``bare`` value, else the whole match; ``check`` gets that span's text (as written) and
    whether it was quoted.
    """

    kind: str
    source: str
    anchors: tuple[str, ...] = ()
    check: Callable[[str, bool], bool] | None = None
    whole_text: bool = False

    @property
    def pattern(self) -> re.Pattern[str]:
        """The compiled expression (compiled once, on first use)."""
        return _compile(self.source)

    def applies(self, subject: Subject) -> bool:
        """False when the subject cannot hold this rule's secret (a cheap test)."""
        if self.anchors:
            return any(anchor in subject.folded for anchor in self.anchors)
        return self.whole_text or bool(subject.runs)

    def spans(self, subject: Subject) -> Iterator[tuple[int, int]]:
        """Where this rule finds a secret: ``(start, end)`` pairs in the subject's text."""
        text = subject.text
        for match in self._matches(subject):
            group = _secret_group(match)
            start, end = match.span(group)
            if end > start and (
                self.check is None or self.check(text[start:end], group == "quoted")
            ):
                yield start, end

    def _matches(self, subject: Subject) -> Iterator[re.Match[str]]:
        pattern = self.pattern
        if self.anchors:
            folded = subject.folded
            for anchor in self.anchors:
                at = folded.find(anchor)
                while at >= 0:
                    next_at = at + 1
                    if (match := pattern.match(folded, at)) is not None:
                        yield match
                        next_at = max(next_at, match.end())  # an anchor inside is its value
                    at = folded.find(anchor, next_at)
        elif self.whole_text or len(subject.runs) > _WHOLE_TEXT_RUNS:
            yield from pattern.finditer(subject.text)
        else:
            for start, end in subject.runs:
                yield from pattern.finditer(subject.text, start, end)


@functools.cache
def _compile(source: str) -> re.Pattern[str]:
    return re.compile(source)


def _secret_group(match: re.Match[str]) -> str | int:
    names = match.re.groupindex
    if "secret" in names:
        return "secret"
    if "quoted" in names:
        return "quoted" if match.group("quoted") is not None else "bare"
    return 0


def _real(value: str, quoted: bool) -> bool:
    del quoted
    return not is_placeholder(value)


def _password(value: str, quoted: bool) -> bool:
    """A password value: quoted text, or a bare token mixing letters and digits."""
    if len(value) < 6 or is_placeholder(value) or value.startswith("[redacted:"):
        return False
    if quoted:
        return not value.isspace()
    return any(c.isalpha() for c in value) and any(c.isdigit() for c in value)


def _generated(value: str, quoted: bool) -> bool:
    """A key, token or secret value: long and random enough to be generated."""
    del quoted
    return looks_generated(value, min_length=12, min_entropy=3.0)


def _long_token(value: str, quoted: bool) -> bool:
    del quoted
    return looks_generated(value, min_length=20, min_entropy=3.0)


def _has_letter(value: str, quoted: bool) -> bool:
    del quoted
    return any(c.isalpha() for c in value)


def _token(
    kind: str, literal: str, rest: str, check: Callable[[str, bool], bool] | None = None
) -> Rule:
    return Rule(kind, _tok(literal, rest), check=check)


_GITLAB = r"(?:pat|dt|rt|cbt|ft|imt|soat|ffct|oas|agent)-[A-Za-z0-9_.-]{20,300}|ptt-[0-9a-f]{40}"
# Key names that hold no secret: ``state_key="user.city"``, ``idempotency_key``, ...
_NOT_SECRET_KEYS: tuple[str, ...] = ("state", "idempotency", "primary", "foreign", "sort")
_NOT_SECRET_KEYS += ("partition", "cache", "public", "lookup", "group", "routing", "object")
_NOT_SECRET_KEYS += ("row", "map", "dict")
_PLAIN_KEY = "".join(f"(?<!{name}.key)" for name in _NOT_SECRET_KEYS)
_SECRET_KEYS = (
    r"(?:secret|token|credentials?|key(?<=[a-z][_.\-]key)" + _PLAIN_KEY + r"|key(?<=apikey))"
    r"(?:[_.-]?[a-z0-9]{1,20})?"
)

SECRET_RULES: tuple[Rule, ...] = (
    _token("aws-access-key", "A", r"(?:3T[A-Z0-9]|KIA|SIA|BIA|CCA)[A-Z0-9]{16}" + _E),
    Rule(
        "aws-secret-key",
        r"(?:aws[_.-]?secret[_.-]?(?:access[_.-]?)?key|secret[_.-]?access[_.-]?key)"
        + _ASSIGN
        + r"""["']?(?P<secret>[a-z0-9/+=]{40})(?![a-z0-9/+=])""",
        anchors=("aws", "secret"),
    ),
    _token("github-token", "gh", r"(?:[pousr]_[A-Za-z0-9]{36}|ithub_pat_[A-Za-z0-9_]{82})" + _E),
    _token("gitlab-token", "gl", f"(?:{_GITLAB})"),
    _token("gitlab-token", "GR1348941", r"[A-Za-z0-9_-]{20}"),
    _token("slack-token", "x", r"(?:ox[abposre]|oxe\.xox[bp]|app)-[0-9]{1,14}-[A-Za-z0-9-]{8,300}"),
    _token(
        "slack-webhook",
        "https://hooks.slack.com/",
        r"(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,300}",
    ),
    _token("stripe-key", "sk_", r"(?:live|test)_[A-Za-z0-9]{10,99}" + _E),
    _token("stripe-key", "rk_", r"(?:live|test)_[A-Za-z0-9]{10,99}" + _E),
    _token("stripe-key", "whsec_", r"[A-Za-z0-9+/=]{24,100}" + _E),
    _token(
        "anthropic-api-key", "sk-ant-", r"(?:api|admin|oat|ort|sid)[0-9]{2}-[A-Za-z0-9_-]{20,300}"
    ),
    _token(
        "openai-api-key",
        "sk-",
        r"(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,300}"
        r"|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{48}" + _E + ")",
    ),
    _token("google-api-key", "AIza", r"[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
    _token("google-oauth-token", "ya29.", r"[0-9A-Za-z_-]{20,2000}"),
    _token("google-oauth-token", "GOCSPX-", r"[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])"),
    _token("jwt", "eyJ", r"[A-Za-z0-9_-]{8,4000}\.eyJ[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{0,4000}"),
    _token("npm-token", "npm_", r"[A-Za-z0-9]{36}" + _E),
    _token("pypi-token", "pypi-AgEIcHlwaS5vcmc", r"[A-Za-z0-9_-]{50,1000}"),
    _token("huggingface-token", "hf_", r"[A-Za-z0-9]{34}" + _E),
    _token("sendgrid-key", "SG.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"),
    _token("twilio-api-key", "SK", r"[0-9a-fA-F]{32}" + _E),
    _token("digitalocean-token", "do", r"[por]_v1_[a-f0-9]{64}" + _E),
    _token("shopify-token", "shp", r"(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _E),
    Rule(
        "azure-storage-key",
        r"accountkey=(?P<secret>[a-z0-9+/]{86}==)",
        anchors=("accountkey=",),
    ),
    Rule(
        "telegram-bot-token",
        r":(?<=[0-9]{5}:)(?P<secret>[A-Za-z0-9_-]{30,40})(?![A-Za-z0-9_-])",
        check=_has_letter,
    ),
    _token("age-secret-key", "AGE-SECRET-KEY-1", r"[0-9A-Z]{58}" + _E),
    Rule(
        "url-credentials",
        r"://(?<=[a-z0-9+.-]://)[^\s/?#@:'\"<>]{0,128}:(?P<secret>[^\s/?#@'\"<>]{1,256})@",
        anchors=("://",),
        check=_real,
    ),
    Rule(
        "authorization-header",
        r"authorization[\"']?\s{0,3}[:=]\s{0,3}[\"']?(?:bearer|token|basic|bot)\s+"
        r"(?P<secret>[a-z0-9._~+/=-]{8,4096})",
        anchors=("authorization",),
        check=_real,
    ),
    Rule(
        "bearer-token",
        r"bearer(?<![a-z0-9]bearer)\s+(?P<secret>[a-z0-9._~+/-]{20,4096}=*)",
        anchors=("bearer",),
        check=_long_token,
    ),
    Rule(
        "password",
        r"p(?:assword|asswd|assphrase|wd)" + _ASSIGN + _VALUE,
        anchors=("pass", "pwd"),
        check=_password,
    ),
    Rule(
        "secret-assignment",
        _SECRET_KEYS + _ASSIGN + _VALUE,
        anchors=("key", "secret", "token", "credential"),
        check=_generated,
    ),
)
"""Every secret rule, most specific first: where two overlap, the earlier one wins."""

_PEM_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")


def pem_blocks(text: str) -> Iterator[tuple[int, int]]:
    """Spans of PEM private-key blocks (RFC 7468), each from BEGIN through its END line.

    A block whose END line is missing (the text was cut) runs to the end of the text.
    """
    pos = 0
    while (begin := _PEM_BEGIN.search(text, pos)) is not None:
        end = text.find("-----END", begin.end())
        if end < 0:
            yield begin.start(), len(text)
            return
        close = text.find("-----", end + 8)
        stop = len(text) if close < 0 else close + 5
        yield begin.start(), stop
        pos = stop
