"""Secrets and personal data kept out of the store: the rules, the scanner, the policy.

Also the door's content rule for text shaped like an instruction to a future agent
(:func:`instruction_signals`, ``_instructions``): the store records such agent text as data.

Pure and stdlib only: text in, redacted text (or a refusal) out. The store applies a store's
:class:`RedactionSettings` to every record and import before anything is written, so a
secret never reaches the database, its full-text index, the audit trail or an export::

    >>> from anneal_memory.redaction import redact
    >>> redact("key AKIAZ7QW3RT5YU2PLK4M in the log").text
    'key [redacted:aws-access-key] in the log'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.redaction._instructions import (
        HELD_AS_DATA,
        HELD_RULE,
        INSTRUCTION_KINDS,
        held_note,
        held_raise,
        instruction_signals,
    )
    from anneal_memory.redaction._policy import (
        CleanedFields,
        RedactionPolicy,
        RedactionSettings,
        clean_fields,
    )
    from anneal_memory.redaction._scan import (
        PERSONAL_KINDS,
        SECRET_KINDS,
        Detection,
        Redaction,
        marker,
        redact,
        scan,
    )

_EXPORTS: dict[str, str] = {
    "HELD_AS_DATA": "anneal_memory.redaction._instructions",
    "HELD_RULE": "anneal_memory.redaction._instructions",
    "INSTRUCTION_KINDS": "anneal_memory.redaction._instructions",
    "held_note": "anneal_memory.redaction._instructions",
    "held_raise": "anneal_memory.redaction._instructions",
    "instruction_signals": "anneal_memory.redaction._instructions",
    "PERSONAL_KINDS": "anneal_memory.redaction._scan",
    "SECRET_KINDS": "anneal_memory.redaction._scan",
    "CleanedFields": "anneal_memory.redaction._policy",
    "Detection": "anneal_memory.redaction._scan",
    "Redaction": "anneal_memory.redaction._scan",
    "RedactionPolicy": "anneal_memory.redaction._policy",
    "RedactionSettings": "anneal_memory.redaction._policy",
    "clean_fields": "anneal_memory.redaction._policy",
    "marker": "anneal_memory.redaction._scan",
    "redact": "anneal_memory.redaction._scan",
    "scan": "anneal_memory.redaction._scan",
}

__all__ = [
    "HELD_AS_DATA",
    "HELD_RULE",
    "INSTRUCTION_KINDS",
    "PERSONAL_KINDS",
    "SECRET_KINDS",
    "CleanedFields",
    "Detection",
    "Redaction",
    "RedactionPolicy",
    "RedactionSettings",
    "clean_fields",
    "held_note",
    "held_raise",
    "instruction_signals",
    "marker",
    "redact",
    "scan",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
