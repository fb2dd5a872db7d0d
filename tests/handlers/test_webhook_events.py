"""The webhook sample events through their Lambda handlers, on the template's default settings
(private webhook URLs not allowed; the system resolver answers for hooks.example.com here: see
conftest.py's ZONE)."""

from __future__ import annotations

import pytest

from postline import wiring
from postline.config import EgressPolicy
from tests.aws_stack import InProcessStack
from tests.handlers.conftest import Invoke, body


@pytest.mark.parametrize(
    ("name", "status", "code"),
    [
        ("create_webhook_private_url", 400, "validation_error"),
        ("create_webhook_two_auth_modes", 400, "validation_error"),
        ("get_webhook", 404, "not_found"),
    ],
)
def test_webhook_failures_have_their_codes(invoke: Invoke, name: str, status: int, code: str) -> None:
    response = invoke(name, webhook_id="wh_missing")
    assert (response["statusCode"], body(response)["error"]["code"]) == (status, code), response["body"]


def test_private_urls_are_not_allowed_by_default(stack: InProcessStack) -> None:
    """The functions as template.yaml configures them by default (the stack sets their environment)."""
    assert wiring.settings(EgressPolicy).allow_private is False


def test_webhook_lifecycle_through_the_sample_events(invoke: Invoke) -> None:
    created = invoke("create_webhook")
    assert created["statusCode"] == 201, created["body"]
    endpoint = body(created)
    secret = endpoint["secret"]
    assert secret.startswith("whsec_") and endpoint["auth"]["key_id"] == "whsec_" + secret[-4:]
    assert endpoint["auth"]["header"] == "X-Acme-Signature" and endpoint["status"] == "active"

    read = invoke("get_webhook", webhook_id=endpoint["id"])
    assert read["statusCode"] == 200 and secret not in read["body"]
    assert endpoint["id"] in [item["id"] for item in body(invoke("list_webhooks"))["items"]]

    sample = invoke("send_webhook_sample", webhook_id=endpoint["id"])
    assert sample["statusCode"] == 202, sample["body"]
    assert (body(sample)["event"], body(sample)["manual"], body(sample)["status"]) == ("bounced", True, "pending")

    paused = body(invoke("update_webhook", webhook_id=endpoint["id"]))
    assert (paused["status"], paused["disabled_reason"], paused["description"]) == (
        "disabled",
        "manual",
        "Paused for maintenance",
    )

    rotated = body(invoke("rotate_webhook_secret", webhook_id=endpoint["id"]))
    assert rotated["secret"] != secret and rotated["auth"]["previous_key_id"] == endpoint["auth"]["key_id"]

    assert invoke("delete_webhook", webhook_id=endpoint["id"])["statusCode"] == 200
    assert invoke("get_webhook", webhook_id=endpoint["id"])["statusCode"] == 404

    actions = [entry["action"] for entry in body(invoke("list_audit"))["items"][:4]]
    assert actions == ["webhook.deleted", "webhook.secret_rotated", "webhook.updated", "webhook.created"]
