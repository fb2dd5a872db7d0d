"""Header-bound fields over HTTP: what the MIME builder could not build is refused at the API (400)
instead of being accepted and left queued, and every address field is treated alike."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.sending_support import accepted, message, recipient
from tests.e2e.support import Api, assert_error

pytestmark = pytest.mark.e2e

BREAKS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x00", "\r\n"]


@pytest.fixture
def sender(runtime: Any) -> str:
    return f"hello@{runtime.dev['sending_domain']['domain']}"


@pytest.mark.parametrize("char", BREAKS, ids=[f"U+{ord(c[0]):04X}" for c in BREAKS])
@pytest.mark.parametrize(
    "fields",
    [
        lambda c, sender: {"subject": f"Hi{c}there"},
        lambda c, sender: {"headers": {"X-Order": f"42{c}43"}},
        lambda c, sender: {"reply_to": f"Help{c}desk <help@example.com>"},
        lambda c, sender: {"from": f"Acme{c} <{sender}>"},
    ],
    ids=["subject", "custom-header", "reply_to", "from"],
)
def test_a_header_field_with_a_line_break_or_nul_is_a_400(api: Api, sender: str, fields: Any, char: str) -> None:
    body = {**message(sender), **fields(char, sender)}
    refused = assert_error(api.post("/v3/messages", json=body), 400, "validation_error")
    assert "U+" in refused["error"]["message"]


def test_a_rendered_subject_with_a_line_break_is_a_400_and_a_batch_rejects_only_that_recipient(
    api: Api, sender: str
) -> None:
    created = api.post("/v3/templates", json={"name": "t", "subject": "Hi {{ name }}", "text_body": "t"})
    assert created.status_code == 201, created.text
    template = created.json()["id"]
    single = {
        "from": sender,
        "to": [recipient()],
        "template_id": template,
        "vars": {"name": "Ann\u2028Bcc: x@evil.example"},
    }
    refused = assert_error(api.post("/v3/messages", json=single), 400, "validation_error")
    assert refused["error"]["message"].startswith("subject: the rendered subject is unfit for a header")
    good, bad, override = recipient("good"), recipient("bad"), recipient("override")
    batch = {
        "from": sender,
        "template_id": template,
        "recipients": [
            {"to": good, "vars": {"name": "Ann"}},
            {"to": bad, "vars": {"name": "Bob\x85"}},
            {"to": override, "vars": {"name": "Cy"}, "subject": "Own\u2029subject"},
        ],
    }
    result = accepted(api.post("/v3/messages.batch", json=batch))
    assert (result["accepted"], result["rejected"]) == (1, 2)
    assert [(r["index"], r["to"]) for r in result["rejected_recipients"]] == [(1, bad), (2, override)]
