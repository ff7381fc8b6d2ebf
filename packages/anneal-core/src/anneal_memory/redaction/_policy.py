"""A store's redaction policy and what it does to an episode's text and metadata.

``redact`` (the default) writes the episode with each secret replaced by its marker;
``refuse`` raises :class:`~anneal_memory.errors.SecretRefusedError` naming the kinds, never
the secret; ``off`` writes the text as given. Metadata string values (nested ones too) are
treated like the text; keys are left alone.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import Any

from anneal_memory.errors import InvalidInputError, SecretRefusedError
from anneal_memory.redaction._scan import PERSONAL_KINDS, redact

__all__ = ["CleanedFields", "RedactionPolicy", "RedactionSettings", "clean_fields"]


class RedactionPolicy(str, enum.Enum):
    """What a store does with a secret found in a record: redact it, refuse it, or keep it."""

    REDACT = "redact"
    REFUSE = "refuse"
    OFF = "off"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, value: RedactionPolicy | str) -> RedactionPolicy:
        """The policy named ``value``.

        Raises:
            InvalidInputError: Not one of ``redact``, ``refuse``, ``off``.
        """
        try:
            return cls(value)
        except ValueError:
            names = ", ".join(p.value for p in cls)
            raise InvalidInputError(
                f"unknown redaction policy {value!r}; use one of {names}"
            ) from None


@dataclass(frozen=True, slots=True, kw_only=True)
class RedactionSettings:
    """A store's redaction settings.

    Attributes:
        policy: What happens to a record holding a secret.
        personal: Whether e-mail addresses, phone numbers and card numbers count too.
    """

    policy: RedactionPolicy = RedactionPolicy.REDACT
    personal: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``{"policy": "redact", "personal": false}``."""
        return {"policy": self.policy.value, "personal": self.personal}


@dataclass(frozen=True, slots=True, kw_only=True)
class CleanedFields:
    """An episode's text and metadata after the policy ran, and the kinds it replaced."""

    content: str
    metadata_json: str | None
    kinds: tuple[str, ...] = ()


def _clean_value(value: object, personal: bool, kinds: set[str]) -> object:
    if isinstance(value, str):
        done = redact(value, personal=personal)
        kinds.update(done.kinds)
        return done.text
    if isinstance(value, dict):
        return {k: _clean_value(v, personal, kinds) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean_value(v, personal, kinds) for v in value]
    return value


def _clean_metadata(metadata_json: str | None, personal: bool) -> tuple[str | None, set[str]]:
    kinds: set[str] = set()
    if metadata_json is None:
        return None, kinds
    cleaned = _clean_value(json.loads(metadata_json), personal, kinds)
    if not kinds:
        return metadata_json, kinds
    return json.dumps(cleaned, ensure_ascii=False, allow_nan=False, sort_keys=True), kinds


def _refusal(in_content: set[str], in_metadata: set[str]) -> SecretRefusedError:
    kinds = tuple(sorted(in_content | in_metadata))
    where = " and ".join(
        name for name, found in (("content", in_content), ("metadata", in_metadata)) if found
    )
    what = "personal data" if set(kinds) <= set(PERSONAL_KINDS) else "a secret"
    return SecretRefusedError(
        f"episode refused: its {where} holds {what} ({', '.join(kinds)}) and this store's "
        "redaction policy is 'refuse'. Remove it and record again, or have an operator run "
        "'anneal-memory redaction --set redact' to store it redacted. Nothing was written.",
        kinds=kinds,
    )


def clean_fields(
    content: str, metadata_json: str | None, settings: RedactionSettings
) -> CleanedFields:
    """Apply ``settings`` to an episode's text and its metadata (JSON text, or None).

    Raises:
        SecretRefusedError: The policy is ``refuse`` and something was found.
    """
    if settings.policy is RedactionPolicy.OFF:
        return CleanedFields(content=content, metadata_json=metadata_json)
    text = redact(content, personal=settings.personal)
    metadata, in_metadata = _clean_metadata(metadata_json, settings.personal)
    in_content = set(text.kinds)
    if not (in_content or in_metadata):
        return CleanedFields(content=content, metadata_json=metadata_json)
    if settings.policy is RedactionPolicy.REFUSE:
        raise _refusal(in_content, in_metadata)
    return CleanedFields(
        content=text.text, metadata_json=metadata, kinds=tuple(sorted(in_content | in_metadata))
    )
