"""The optional personal-data rules: e-mail addresses, phone numbers, payment card numbers.

Off unless a store turns them on (``anneal-memory redaction --personal on``): an agent's
memory of its user often needs a name or an address, so hiding them is the operator's call.
A card number must pass the Luhn check (ISO/IEC 7812-1) and start with an issuer prefix of a
card network; a phone number needs 9 to 15 digits (ITU-T E.164) in one of the usual groupings.
"""

from __future__ import annotations

from anneal_memory.redaction._rules import Rule

__all__ = ["PERSONAL_RULES", "luhn_valid"]

# Issuer prefixes of the networks: Visa 4; Mastercard 51-55, 2221-2720; Amex 34, 37;
# Discover 6011, 644-649, 65; Diners 300-305, 36, 38; JCB 3528-3589; UnionPay 62; Maestro 50,
# 56-58, 6.
_PREFIXES = (
    ("4", 13, 19),
    ("51", 16, 16), ("52", 16, 16), ("53", 16, 16), ("54", 16, 16), ("55", 16, 16),
    ("22", 16, 16), ("23", 16, 16), ("24", 16, 16), ("25", 16, 16), ("26", 16, 16),
    ("27", 16, 16),
    ("34", 15, 15), ("37", 15, 15),
    ("30", 14, 19), ("36", 14, 19), ("38", 14, 19), ("35", 16, 19),
    ("50", 12, 19), ("56", 12, 19), ("57", 12, 19), ("58", 12, 19), ("6", 12, 19),
)  # fmt: skip


def luhn_valid(digits: str) -> bool:
    """True when the digit string passes the Luhn (mod 10) check."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _card(value: str, quoted: bool) -> bool:
    del quoted
    digits = "".join(c for c in value if c.isdigit())
    if len(set(digits)) < 2:  # 0000 0000 0000 0000 and the like
        return False
    issued = any(
        digits.startswith(prefix) and low <= len(digits) <= high for prefix, low, high in _PREFIXES
    )
    return issued and luhn_valid(digits)


def _phone(value: str, quoted: bool) -> bool:
    del quoted
    return 9 <= sum(c.isdigit() for c in value) <= 15


# The digit groups of a phone number after its first digit: 2-4, 3-4, 3-4 (``415 555 0132``).
_GROUPS = r"[0-9]{1,3}[ .-][0-9]{3,4}[ .-]?[0-9]{3,4}(?![ .-]?[0-9])"

PERSONAL_RULES: tuple[Rule, ...] = (
    Rule(
        "card-number",
        r"[0-9](?<![0-9-][0-9])(?:[ -]?[0-9]){11,18}(?![0-9])",
        check=_card,
        whole_text=True,
    ),
    Rule(
        "email",
        r"(?<![A-Za-z0-9._%+/-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@"
        r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9-]{1,63}){0,8}"
        r"\.[A-Za-z]{2,24}(?![A-Za-z0-9-])",
        whole_text=True,
    ),
    Rule(
        "phone",
        # +CC then groups; (area) then groups; bare groups; +E.164 digits only. Each branch
        # starts with its literal and looks behind it: no digit, sign or dot glued before.
        r"\+(?<![0-9A-Za-z+./-]\+)[0-9]{1,3}[ .-]?"
        r"(?:\([0-9]{1,4}\)[ .-]?[0-9]{3,4}[ .-]?[0-9]{3,4}(?![ .-]?[0-9])|[0-9]" + _GROUPS + ")"
        r"|\((?<![0-9A-Za-z]\()[0-9]{1,4}\)[ .-]?[0-9]{3,4}[ .-]?[0-9]{3,4}(?![ .-]?[0-9])"
        r"|[0-9](?<![0-9.+/-][0-9])(?<![0-9][ .-][0-9])"
        + _GROUPS
        + r"|\+(?<![0-9A-Za-z+]\+)[0-9]{8,15}(?![0-9])",
        check=_phone,
        whole_text=True,
    ),
)
"""Personal-data rules, run after the secret rules when a store turns them on."""
