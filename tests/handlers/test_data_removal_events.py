"""The data removal routes through their Lambda handlers, from events/*.json."""

from __future__ import annotations

import uuid

from tests.handlers.conftest import Invoke, body


def test_a_removal_is_accepted_and_read_back_through_the_sample_events(invoke: Invoke) -> None:
    email = f"gone-{uuid.uuid4().hex[:8]}@example.com"
    created = invoke("create_data_removal", email=email)
    assert created["statusCode"] == 202, created["body"]
    accepted = body(created)
    assert set(accepted) == {"removal_id", "status"} and accepted["status"] == "pending"

    found = body(invoke("get_data_removal", removal=accepted["removal_id"]))
    assert found["removal_id"] == accepted["removal_id"] and found["email"] == email
    assert found["status"] == "pending" and found["counts"] is None and found["receipt"] is None
    assert found["address_hash"].startswith("hmac-sha256:") and found["completed_at"] is None

    batch = invoke("create_data_removals_batch", email=email, other=f"also-{email}")
    assert batch["statusCode"] == 202, batch["body"]
    assert [item["status"] for item in body(batch)["items"]] == ["pending", "pending"]


def test_an_unknown_removal_and_a_bad_address_have_their_codes(invoke: Invoke) -> None:
    for name, placeholders, status, code in [
        ("get_data_removal", {"removal": "nobody"}, 404, "not_found"),
        ("create_data_removal", {"email": "not an address"}, 400, "validation_error"),
    ]:
        response = invoke(name, **placeholders)
        assert (response["statusCode"], body(response)["error"]["code"]) == (status, code), name
