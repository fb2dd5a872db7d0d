"""The content check and the rendered copies, over HTTP against the embedded runtime and a real spamd
(started with the session's runtime: tests/conftest.py; .ci/run installs Debian's spamd).

POST /v3/messages/check takes a send's body; a test-key send keeps its copy and the same check (record,
`sent` event); GET /v3/messages/{id}/content gives back each copy, and a live one's matches what the
mail sink received."""

from __future__ import annotations

import base64
import os
import re
import uuid
from email import message_from_string, policy
from email.message import EmailMessage
from typing import Any, cast

import dkim
import pytest

from tests.e2e.sending_support import accepted, events_of, has_types, mail_for, recipient, settle
from tests.e2e.support import Api, make_account

pytestmark = pytest.mark.e2e

GTUBE = "XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X"
CLEAN_HTML = (
    "<html><body><p>Hi Ann,</p><p>Your order 1042 has shipped and should arrive on Thursday. "
    'You can follow it on <a href="https://postline.test/orders/1042">your order page</a>.</p>'
    "<p>Thank you for shopping with us.</p></body></html>"
)
CLEAN_TEXT = (
    "Hi Ann,\n\nYour order 1042 has shipped and should arrive on Thursday. You can follow it on your order "
    "page: https://postline.test/orders/1042\n\nThank you for shopping with us.\n"
)


@pytest.fixture(scope="module", autouse=True)
def _spamd(runtime: Any) -> None:
    if runtime.spamd is None:
        if os.environ.get("CI"):
            pytest.fail("spamd is not installed: .ci/run installs spamd and spamassassin")
        pytest.skip("spamd is not installed here (apt-get install spamd spamassassin)")


def dev_from(runtime: Any) -> str:
    return f"Postline Shop <orders@{runtime.dev['sending_domain']['domain']}>"


def check(api: Api, body: dict[str, Any]) -> dict[str, Any]:
    response = api.post("/v3/messages/check", json=body)
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def part(result: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [p for p in result["parts"] if p["name"] == name]
    return cast(dict[str, Any], found)


def rule(found: dict[str, Any], rule_id: str) -> dict[str, Any]:
    (matched,) = [r for r in found["rules"] if r["id"] == rule_id]
    return cast(dict[str, Any], matched)


def test_gtube_scores_at_least_1000_and_fails(api: Api, runtime: Any) -> None:
    result = check(api, {"from": dev_from(runtime), "to": [recipient()], "subject": "Test", "text": GTUBE})
    spam = part(result, "spamassassin")
    assert spam["spam_score"] >= 1000 and spam["status"] == "fail"
    assert "GTUBE" in [r["id"] for r in spam["rules"]]
    assert spam["fix"] and "GTUBE" in spam["fix"]
    assert result["verdict"] == "poor"


def test_a_clean_authenticated_message_from_the_dev_domain_scores_under_2_and_passes(api: Api, runtime: Any) -> None:
    body = {
        "from": dev_from(runtime),
        "to": [recipient("ann")],
        "subject": "Your order 1042 has shipped",
        "html": CLEAN_HTML,
        "text": CLEAN_TEXT,
    }
    result = check(api, body)
    spam = part(result, "spamassassin")
    assert spam["spam_score"] < 2 and spam["status"] == "pass", spam
    assert [r["status"] for r in part(result, "authentication")["rules"]] == ["pass", "pass", "pass"]
    assert {p["name"]: p["status"] for p in result["parts"]} == {
        "spamassassin": "pass",
        "authentication": "pass",
        "bulk_sender": "pass",
        "content": "pass",
    }, result
    assert result["score"] == 100 and result["verdict"] == "good"
    # Weights as documented: 35, 25, 20, 20.
    assert [(p["name"], p["weight"]) for p in result["parts"]] == [
        ("spamassassin", 35),
        ("authentication", 25),
        ("bulk_sender", 20),
        ("content", 20),
    ]


def test_an_unverified_domain_fails_authentication(api: Api, runtime: Any) -> None:
    domain = f"unverified-{uuid.uuid4().hex[:8]}.test"
    result = check(api, {"from": f"hi@{domain}", "to": [recipient()], "subject": "Hello", "text": CLEAN_TEXT})
    auth = part(result, "authentication")
    assert auth["status"] == "fail" and auth["earned"] == 0
    assert {r["id"]: r["status"] for r in auth["rules"]} == {"spf": "fail", "dkim": "fail", "dmarc": "fail"}
    assert domain in auth["fix"]
    assert rule(part(result, "bulk_sender"), "aligned_from")["status"] == "fail"
    assert result["verdict"] == "poor"


def test_no_text_part_and_a_150_kb_html_body_warn_on_both(api: Api, runtime: Any) -> None:
    paragraph = "<p>Your weekly account summary lists every order, refund and shipment of the week.</p>\n"
    html = "<html><body>" + paragraph * (150 * 1024 // len(paragraph) + 1) + "</body></html>"
    assert len(html.encode()) > 150 * 1024
    result = check(api, {"from": dev_from(runtime), "to": [recipient()], "subject": "Weekly summary", "html": html})
    content = part(result, "content")
    assert rule(content, "text_part")["status"] == "warn" and rule(content, "text_part")["fix"]
    assert rule(content, "html_size")["status"] == "warn" and rule(content, "html_size")["fix"]
    assert content["status"] == "warn" and content["earned"] == 10
    assert result["verdict"] in ("review", "poor")


def test_a_template_send_is_checked_as_rendered_with_its_vars(api: Api, runtime: Any) -> None:
    """`template_id` and `vars`, as a send takes them: the check scores what the template renders
    to with these vars (a variable that brings GTUBE, or a shortener link, is seen), and refuses what
    the template's vars_schema refuses."""
    made = api.post(
        "/v3/templates",
        json={
            "name": f"Shipped {uuid.uuid4().hex[:8]}",
            "subject": "Your order {{ order }} has shipped",
            "html": "<html><body><p>Hi {{ name }}, your order {{ order }} has shipped.</p>"
            '<p><a href="{{ link }}">Follow it</a>.</p><p>{{ note }}</p></body></html>',
            "text_body": "Hi {{ name }}, your order {{ order }} has shipped: {{ link }}\n{{ note }}\n",
            "vars_schema": {"type": "object", "required": ["order"], "properties": {"order": {"type": "string"}}},
        },
    )
    assert made.status_code == 201, made.text
    body = {"from": dev_from(runtime), "to": [recipient("ann")], "template_id": made.json()["id"]}
    shipped = {"name": "Ann", "order": "1042", "link": "https://postline.test/orders/1042", "note": ""}

    clean = check(api, {**body, "vars": shipped})
    assert part(clean, "spamassassin")["spam_score"] < 1000
    assert rule(part(clean, "content"), "text_part")["status"] == "pass"  # the template's text_body
    assert rule(part(clean, "content"), "url_shorteners")["status"] == "pass"

    spam = check(api, {**body, "vars": {**shipped, "note": GTUBE, "link": "https://bit.ly/3xYz"}})
    assert part(spam, "spamassassin")["spam_score"] >= 1000 and spam["verdict"] == "poor"
    shortened = rule(part(spam, "content"), "url_shorteners")
    assert shortened["status"] == "warn" and "bit.ly" in shortened["detail"]

    missing = api.post("/v3/messages/check", json={**body, "vars": {"name": "Ann"}})
    assert missing.status_code == 400 and missing.json()["error"]["code"] == "validation_error"
    assert "order" in missing.json()["error"]["message"], missing.text


def test_the_check_refuses_what_a_send_refuses(api: Api, runtime: Any) -> None:
    response = api.post("/v3/messages/check", json={"from": dev_from(runtime), "to": [], "subject": "x", "text": "y"})
    assert response.status_code == 400 and response.json()["error"]["code"] == "validation_error"


# -- the rendered copy: a test-key send and a live send of the same body ------------------------


ATTACHMENT = base64.b64encode(b"%PDF-1.4 an invoice\n").decode()
_TRACKING = re.compile(r"/v3/track/(click|open|unsubscribe)/[\w.~%-]+")


@pytest.fixture(scope="module")
def same_body(runtime: Any) -> dict[str, Any]:
    """One body sent with the dev account's test key and with its live key (to the mail sink)."""
    body = {
        "from": dev_from(runtime),
        "subject": "Your order 1042 has shipped",
        "html": CLEAN_HTML,
        "text": CLEAN_TEXT,
        "reply_to": "help@postline.test",
        "headers": {"X-Order": "1042"},
        "attachments": [{"filename": "invoice.pdf", "content": ATTACHMENT, "content_type": "application/pdf"}],
    }
    test_api = Api(runtime.base_url, runtime.dev["keys"]["test"])
    live_api = Api(runtime.base_url, runtime.dev["keys"]["live"])
    test_to, live_to = recipient("ann"), recipient("ann")
    test_sent = accepted(test_api.post("/v3/messages", json={**body, "to": [test_to]}))
    live_sent = accepted(live_api.post("/v3/messages", json={**body, "to": [live_to]}))
    settle(runtime, test_sent["id"])
    settle(runtime, live_sent["id"])
    return {
        "body": body,
        "test_api": test_api,
        "live_api": live_api,
        "test": test_sent,
        "live": live_sent,
        "test_to": test_to,
        "live_to": live_to,
    }


def content_of(api: Api, message_id: str) -> dict[str, Any]:
    response = api.get(f"/v3/messages/{message_id}/content")
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def _parsed(raw: str) -> EmailMessage:
    email = message_from_string(raw, policy=policy.default)
    assert isinstance(email, EmailMessage)
    return email


def _parts(email: EmailMessage) -> list[tuple[str, str | None, str | None, bytes]]:
    """(content type, disposition, filename, decoded payload) of every leaf part."""
    leaves = []
    for leaf in email.walk():
        if not leaf.is_multipart():
            payload = leaf.get_payload(decode=True)
            leaves.append(
                (
                    leaf.get_content_type(),
                    leaf.get_content_disposition(),
                    leaf.get_filename(),
                    payload if isinstance(payload, bytes) else b"",
                )
            )
    return leaves


def _without_tokens(value: str) -> str:
    return _TRACKING.sub(r"/v3/track/\1/TOKEN", value)


# Headers that name the message or the moment: the rest must be the same for the same body.
_PER_MESSAGE = {"message-id", "x-postline-message-id", "date", "dkim-signature", "to"}


def test_a_test_key_message_keeps_its_copy_and_its_check(same_body: dict[str, Any], runtime: Any) -> None:
    sent = same_body["test"]
    shown = content_of(same_body["test_api"], sent["id"])
    assert shown["test"] is True and shown["source"] == "kept"
    (copy,) = shown["recipients"]
    assert copy["recipient"] == same_body["test_to"]
    email = _parsed(copy["raw"])
    assert email["X-Postline-Message-Id"] == sent["id"] and email["To"] == same_body["test_to"]
    assert [(p["content_type"], p["filename"]) for p in copy["parts"]] == [
        ("text/plain", None),
        ("text/html", None),
        ("application/pdf", "invoice.pdf"),
    ]
    assert copy["parts"][2]["size_bytes"] == len(base64.b64decode(ATTACHMENT))
    html = copy["parts"][1]["content"]
    assert f"{runtime.base_url}/v3/track/click/" in html and "postline.test/orders" not in html  # tracked
    # Signed by the domain's key as a live copy is: the signature verifies against its DKIM record.
    domain = runtime.dev["sending_domain"]

    def dns(name: bytes, timeout: int = 5) -> bytes:
        assert name.decode().rstrip(".") == domain["dkim_record"]
        return str(domain["dkim_txt"]).encode()

    assert dkim.verify(copy["raw"].encode(), dnsfunc=dns)
    # The check: on the record, on the content, and summed up on the `sent` event.
    check = shown["check"]
    assert check is not None and check["verdict"] in ("good", "review", "poor")
    record = same_body["test_api"].get(f"/v3/messages/{sent['id']}").json()
    assert record["content_check"] == check
    (sent_event,) = [e for e in events_of(sent["id"], until=has_types("sent")) if e.type.value == "sent"]
    assert sent_event.data["score"] == check["score"] and sent_event.data["verdict"] == check["verdict"]
    spam = part(check, "spamassassin")
    assert sent_event.data["spam_score"] == spam["spam_score"] and spam["spam_score"] < 2
    assert isinstance(sent_event.data["rules"], list)


def test_the_content_of_a_test_send_is_what_the_mail_sink_gets_for_a_live_send(
    same_body: dict[str, Any], runtime: Any
) -> None:
    (copy,) = content_of(same_body["test_api"], same_body["test"]["id"])["recipients"]
    (received,) = mail_for(runtime, same_body["live"]["id"])
    kept, sunk = _parsed(copy["raw"]), _parsed(received["raw"])
    assert [name.lower() for name in kept] == [name.lower() for name in sunk]
    for name in kept:
        if name.lower() in _PER_MESSAGE:
            continue
        if name.lower() == "content-type":  # multipart boundaries are random
            assert kept.get_content_type() == sunk.get_content_type()
        else:
            assert _without_tokens(str(kept[name])) == _without_tokens(str(sunk[name])), name
    assert kept["DKIM-Signature"] is not None and sunk["DKIM-Signature"] is not None
    kept_parts, sunk_parts = _parts(kept), _parts(sunk)
    assert [p[:3] for p in kept_parts] == [p[:3] for p in sunk_parts]
    for (kind, _, _, mine), (_, _, _, theirs) in zip(kept_parts, sunk_parts, strict=True):
        if kind.startswith("text/"):
            assert _without_tokens(mine.decode()) == _without_tokens(theirs.decode())
        else:
            assert mine == theirs


def test_the_content_of_a_live_send_is_built_again_as_the_mail_sink_got_it(
    same_body: dict[str, Any], runtime: Any
) -> None:
    shown = content_of(same_body["live_api"], same_body["live"]["id"])
    assert shown["test"] is False and shown["source"] == "rebuilt" and shown["check"] is None
    (copy,) = shown["recipients"]
    (received,) = mail_for(runtime, same_body["live"]["id"])
    rebuilt, sunk = _parsed(copy["raw"]), _parsed(received["raw"])
    # The same links (tokens are signed, not random), parts and headers; Date and the signature are new.
    for name in sunk:
        if name.lower() in ("date", "dkim-signature", "content-type"):
            continue
        assert str(rebuilt[name]) == str(sunk[name]), name
    assert [p[:3] for p in _parts(rebuilt)] == [p[:3] for p in _parts(sunk)]
    assert [p[3] for p in _parts(rebuilt)] == [p[3] for p in _parts(sunk)]


def test_another_accounts_message_is_not_found(same_body: dict[str, Any], runtime: Any) -> None:
    other = Api(runtime.base_url, make_account().live_key)
    response = other.get(f"/v3/messages/{same_body['test']['id']}/content")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
