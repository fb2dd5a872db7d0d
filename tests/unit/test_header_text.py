"""Header-bound text: one rule, the one the API validates with and the MIME builder applies."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from pydantic import ValidationError

from postline.sending.models import SendRequest
from postline.shared.header_text import check_header_text, header_text_problem
from postline.templates.models import TemplateCreate

# What str.splitlines breaks on, which is how the email package splits and folds headers.
LINE_BREAKS = [chr(code) for code in range(sys.maxunicode + 1) if len(f"a{chr(code)}b".splitlines()) > 1]
CONTROLS = [chr(code) for code in [*range(0x20), 0x7F] if code != 0x09]
UNSAFE = sorted(set(LINE_BREAKS) | set(CONTROLS))


def test_the_rule_refuses_exactly_the_line_breaks_nul_and_the_controls() -> None:
    assert {"\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"} <= set(LINE_BREAKS)
    refused = [chr(code) for code in range(sys.maxunicode + 1) if header_text_problem(f"a{chr(code)}b")]
    assert refused == UNSAFE


def test_tab_and_ordinary_text_pass() -> None:
    text = "Caf\u00e9\tcr\u00e8me \u2013 \U0001f600"
    assert check_header_text(text, "subject") == text


def test_the_error_names_the_field_and_the_character() -> None:
    with pytest.raises(ValueError, match=r"the subject holds U\+2028 at position 2"):
        check_header_text("ab\u2028cd", "the subject")


BASE: dict[str, Any] = {"from": "Acme <hello@acme.example>", "to": ["ann@example.com"], "subject": "Hi", "text": "t"}


@pytest.mark.parametrize("char", UNSAFE, ids=[f"U+{ord(c):04X}" for c in UNSAFE])
@pytest.mark.parametrize(
    "fields",
    [
        lambda c: {"subject": f"Hi{c}Bcc: x@evil.example"},
        lambda c: {"headers": {"X-Order": f"1{c}2"}},
        lambda c: {"from": f"Acme{c} <hello@acme.example>"},
        lambda c: {"reply_to": f"Help{c}desk <help@acme.example>"},
        lambda c: {"reply_to": f"help@acme.example{c}"},
        lambda c: {"to": [f"Ann{c} <ann@example.com>"]},
        lambda c: {"attachments": [{"filename": f"a{c}b.txt", "content": "aGk="}]},
    ],
    ids=["subject", "header-value", "from-name", "reply_to-name", "reply_to-address", "to", "filename"],
)
def test_every_header_bound_field_refuses_them(fields: Any, char: str) -> None:
    with pytest.raises(ValidationError):
        SendRequest.model_validate({**BASE, **fields(char)})


@pytest.mark.parametrize("field", ["from", "reply_to"])
def test_address_fields_refuse_cr_lf_alike(field: str) -> None:
    with pytest.raises(ValidationError, match="U\\+000D"):
        SendRequest.model_validate({**BASE, field: "Acme\r\n <hello@acme.example>"})


def test_a_template_subject_is_checked_at_save() -> None:
    with pytest.raises(ValidationError, match="U\\+2029"):
        TemplateCreate.model_validate({"name": "t", "subject": "Hi\u2029{{ name }}"})
