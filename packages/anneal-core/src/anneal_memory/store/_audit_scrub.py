"""What an audit entry may say: the one scrubbing rule of both backends' audit staging.

Episode and continuity text never reach the trail: a ``content`` (``text``) field becomes
``content_hash`` (``text_hash``) = ``hmac-sha256:<hex>``, keyed by the store's random salt;
a ``scope`` name becomes ``scope_hash`` the same way (an erased scope leaves no name).
A name (the actor, a ``session_id`` or ``previous`` in the data) reaches it as it is only
when it is a plain lowercase word like ``agent``, ``cli`` or ``langgraph``; anything else
(digits, capitals, spaces: a name that could be a secret or a person) becomes its salted
hash, since the append-only trail can never erase it. Pure: the caller hands over the key.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["content_hash", "scrub_entry"]

_HASHED_FIELDS = {"content": "content_hash", "text": "text_hash", "scope": "scope_hash"}
_PLAIN_NAME = re.compile(r"[a-z][a-z._:-]{0,31}")
_NAME_FIELDS = ("session_id", "previous")


def content_hash(keyed: hmac.HMAC, text: str) -> str:
    """The salted hash the trail records in place of ``text``.

    ``keyed`` is ``hmac.new(salt, digestmod="sha256")``, made once: copying a keyed HMAC is
    cheaper than keying a new one on every entry.
    """
    digest = keyed.copy()
    digest.update(text.encode("utf-8"))
    return f"hmac-sha256:{digest.hexdigest()}"


def scrub_entry(
    actor: str, data: Mapping[str, Any], keyed: Callable[[], hmac.HMAC]
) -> tuple[str, dict[str, Any]]:
    """The actor and data an entry records; ``keyed()`` is called only when a hash is needed."""
    key: list[hmac.HMAC] = []

    def hashed(text: str) -> str:
        if not key:
            key.append(keyed())
        return content_hash(key[0], text)

    def name(value: str) -> str:
        return value if _PLAIN_NAME.fullmatch(value) else hashed(value)

    clean = dict(data)
    for field, hashed_field in _HASHED_FIELDS.items():
        if field in clean:
            clean[hashed_field] = hashed(str(clean.pop(field)))
    for field in _NAME_FIELDS:
        if isinstance(clean.get(field), str):
            clean[field] = name(clean[field])
    return name(str(actor)), clean
