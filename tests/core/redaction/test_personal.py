"""The optional personal-data rules: e-mail, phone numbers (E.164), card numbers (Luhn)."""

from __future__ import annotations

import pytest
from anneal_memory.redaction import PERSONAL_KINDS, redact, scan
from anneal_memory.redaction._personal import luhn_valid


def test_personal_rules_are_off_unless_asked() -> None:
    text = "write to jane.doe@example.org or call +44 20 7946 0958"
    assert scan(text) == ()
    assert redact(text, personal=True).kinds == ("email", "phone")
    assert set(PERSONAL_KINDS) == {"card-number", "email", "phone"}


@pytest.mark.parametrize(
    "address",
    ["jane.doe@example.org", "ops+alerts@mail.internal.example.co.uk", "a_b-c%d@x-y.io"],
)
def test_email_addresses(address: str) -> None:  # RFC 5322 addr-spec, dot-atom form
    assert redact(f"from <{address}>:", personal=True).text == "from <[redacted:email]>:"


@pytest.mark.parametrize(
    "number",
    ["+14155550132", "+44 20 7946 0958", "(415) 555-0132", "415-555-0132", "+49 30 901820"],
)
def test_phone_numbers(number: str) -> None:  # ITU-T E.164 and the usual national groupings
    assert redact(f"call {number} today", personal=True).text == "call [redacted:phone] today"


@pytest.mark.parametrize(
    "number",
    [
        "4242 4242 4242 4242",  # Visa test card (docs.stripe.com/testing)
        "5555-5555-5555-4444",  # Mastercard test card
        "378282246310005",  # American Express test card
        "6011111111111117",  # Discover test card
    ],
)
def test_card_numbers_pass_luhn(number: str) -> None:  # ISO/IEC 7812-1
    assert redact(f"card {number} exp 12/29", personal=True).kinds == ("card-number",)


def test_luhn() -> None:
    assert luhn_valid("79927398713")
    assert not luhn_valid("79927398710")


@pytest.mark.parametrize(
    "text",
    [
        "order 4242 4242 4242 4241 failed",  # fails the Luhn check
        "invoice 1234567890123456",  # no card network starts with 1
        "on 2026-03-02 at 09:00:00, release 1.0.2",
        "the server at 192.168.100.200 answered",
        "ISBN 978-3-16-148410-0 and room 4.12",
        "12,345,678 episodes in 3.5 seconds",
        "user@localhost has no domain suffix",
    ],
)
def test_numbers_and_text_that_are_not_personal_data(text: str) -> None:
    assert scan(text, personal=True) == ()
