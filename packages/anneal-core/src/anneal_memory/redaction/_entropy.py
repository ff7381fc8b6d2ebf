"""How random a value looks: Shannon entropy, character classes, placeholders.

Used by the rules that have only a key name to go on (``password=``, ``api_key:``) to tell a
generated secret from a word, a number or a placeholder such as ``<your-key>``.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter

__all__ = ["char_classes", "is_placeholder", "looks_generated", "shannon_entropy"]

# Values that stand for a secret without being one: templates, masks, examples, markers.
# Compiled on first use (a key-name rule's match): a plain record never pays for it (#25).
_PLACEHOLDER_SOURCE = r"""(?ix)
    (?: x{3,} | \*{3,} | \.{3,} | -{3,} | _{3,} | \#{3,}
      | <[^>]*> | \[[^\]]*\] | \{\{.*\}\} | \$\{?[a-z_][a-z0-9_]*\}? | %\(?[a-z_]*\)?s
      | (?:your|my|the|some|example|sample|dummy|fake|test)[_-][a-z0-9_-]*
      | changeme | placeholder | redacted | secret | password | passwd | token | none | null
      | undefined | true | false | string )
    """


@functools.cache
def _placeholder() -> re.Pattern[str]:
    return re.compile(_PLACEHOLDER_SOURCE)


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value`` (0.0 for an empty string)."""
    if not value:
        return 0.0
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in Counter(value).values())


def char_classes(value: str) -> int:
    """How many of lower case, upper case, digits and other characters ``value`` uses."""
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )


def is_placeholder(value: str) -> bool:
    """True for a template, mask or example value (``${TOKEN}``, ``<key>``, ``xxxx``)."""
    return bool(_placeholder().fullmatch(value)) or len(set(value)) <= 2


def looks_generated(value: str, *, min_length: int, min_entropy: float) -> bool:
    """True when ``value`` reads as a generated secret rather than a word or a number.

    It must be at least ``min_length`` long, not a placeholder, hold a letter, and carry at
    least ``min_entropy`` bits per character; without a digit it needs half a bit more and
    both cases (``ZqVpLrTkWmXbNcQd``, not ``user.home_city``).
    """
    if len(value) < min_length or is_placeholder(value):
        return False
    if not any(c.isalpha() for c in value):
        return False
    entropy = shannon_entropy(value)
    if any(c.isdigit() for c in value):
        return entropy >= min_entropy
    mixed_case = any(c.islower() for c in value) and any(c.isupper() for c in value)
    return mixed_case and entropy >= min_entropy + 0.5
