"""Sending at volume: simulator weights (send, and verify with verify_before_send) over batches of
200, a batch of 1,000, and the free plan's daily cap of 100, against a `python -m devtools.local`
child of this module's own.

Why a child: hundreds of messages and their events would otherwise stay in the worker's shared
runtime for every later test (moto sorts a whole partition on each Query, and its queues slow as
they deepen); in a child they go when it stops.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from boto3.dynamodb.types import TypeDeserializer

from postline.accounts.domain import PLAN_LIMITS, Plan
from postline.domains.domain import DomainStatus, SendingDomain
from postline.domains.store import DynamoSendingDomains
from tests.conftest import REPO, RuntimeProcess, Spawn
from tests.e2e.sending_support import (
    DKIM_SELECTOR,
    accepted,
    dkim_private_pem,
    iso,
    message,
    recipient,
    settle,
    statuses,
)
from tests.e2e.support import Api, assert_error

pytestmark = pytest.mark.e2e
_deserialize = TypeDeserializer().deserialize


class Child:
    """The child runtime through its control surface and its emulator."""

    def __init__(self, process: RuntimeProcess) -> None:
        self.process = process
        self.dev = process.dev
        self.control = process.api()
        self.live = process.api(self.dev["keys"]["live"])
        self.test = process.api(self.dev["keys"]["test"])
        aws = self.dev["aws"]
        self.env: dict[str, str] = aws["env"]
        self.dynamodb = self.client("dynamodb")

    def client(self, service: str) -> Any:
        aws = self.dev["aws"]
        return boto3.client(
            service,
            endpoint_url=aws["endpoint_url"],
            region_name=aws["region"],
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    def drain(self, timeout: float) -> list[str]:
        # Below the HTTP client's 30 s read timeout.
        response = self.control.post("/_local/drain", json={"timeout": min(timeout, 25.0)})
        if response.status_code == 503:
            return [response.json()["error"]["message"]]
        assert response.status_code == 200, response.text
        return []

    def advance(self, seconds: float) -> datetime:
        response = self.control.post("/_local/clock/advance", json={"seconds": seconds})
        assert response.status_code == 200, response.text
        return datetime.fromisoformat(response.json()["now"])

    def now(self) -> datetime:
        return self.advance(0).astimezone(UTC)

    def statuses(self, message_ids: list[str]) -> dict[str, str]:
        return statuses(message_ids, db=self.dynamodb, table=self.env["MESSAGES_TABLE"])

    def events(self, message_id: str) -> list[dict[str, Any]]:
        """The message's events from the events table's by_message index (one page: a few events)."""
        page = self.dynamodb.query(
            TableName=self.env["EVENTS_TABLE"],
            IndexName="by_message",
            KeyConditionExpression="message_id = :id",
            ExpressionAttributeValues={":id": {"S": message_id}},
        )
        return [{name: _deserialize(value) for name, value in item.items()} for item in page["Items"]]

    def cli(self, *args: str) -> Any:
        """`postline ARGS` against the child, which it finds through the state dir's dev.json."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and k not in self.env}
        done = subprocess.run(
            [sys.executable, "-m", "devtools.cli", "--state-dir", str(self.process.state_dir), *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def verified_free_account(self) -> tuple[Api, str]:
        """A free-plan account with a live key and a verified sending domain; (its api, its domain)."""
        account = self.cli("account", "create", "--name", "capped", "--plan", "free")
        key = self.cli("key", "create", account["id"], "--env", "live")
        domain = f"e2e-{uuid.uuid4().hex[:10]}.test"
        domains = DynamoSendingDomains(
            self.dynamodb, self.env["RESOURCES_TABLE"], self.client("kms"), self.env["CONTENT_KEY_ID"]
        )
        domains.put_domain(
            SendingDomain(
                account_id=account["id"],
                id="dom_fixture",
                created_at=datetime.now(UTC),
                domain=domain,
                status=DomainStatus.VERIFIED,
                dkim_selector=DKIM_SELECTOR,
                dkim_private_key=dkim_private_pem(),
            )
        )
        return self.process.api(key["key"]), domain


@pytest.fixture(scope="module")
def child(spawn: Spawn, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Child]:
    state_dir: Path = tmp_path_factory.mktemp("volume-state")
    with spawn(state_dir) as process:
        yield Child(process)


def dev_sender(child: Child) -> str:
    return f"hello@{child.dev['sending_domain']['domain']}"


def batch(sender: str, recipients: list[dict[str, Any]]) -> dict[str, Any]:
    return {"from": sender, "subject": "Batch", "text": "Hello.", "recipients": recipients}


def test_test_outcome_weights_shape_the_simulated_outcomes(child: Child) -> None:
    """Weights delivered 3 : bounce 1 over 200 independent draws (each seeded by a new message id).
    Chi-square with one degree of freedom under 24 (about 1e-6 to fail under 75/25) never flakes,
    while 50/50 (about 0.3 % to pass) or ignored weights fail it."""
    created = child.live.post(
        "/v3/keys",
        json={"name": "weighted", "env": "test", "test_outcomes": {"send": {"delivered": 3, "bounce": 1}}},
    )
    assert created.status_code == 201, created.text
    weighted = child.live.with_key(created.json()["key"])
    n = 200
    recipients = [{"to": recipient(f"w{i}")} for i in range(n)]
    result = accepted(weighted.post("/v3/messages.batch", json=batch(dev_sender(child), recipients)))
    assert result["accepted"] == n
    # Every one of the 200 reaches its end: a batch is delivered to all its recipients.
    outcome = list(settle(child, *result["message_ids"], timeout=300, lookup=child.statuses).values())
    assert set(outcome) <= {"delivered", "bounced"}, set(outcome)
    bounced = outcome.count("bounced")
    chi_square = (bounced - n / 4) ** 2 / (n / 4) + (n - bounced - 3 * n / 4) ** 2 / (3 * n / 4)
    assert chi_square < 24, f"{bounced} of {n} bounced; about {n // 4} expected"


def test_verify_weights_shape_which_recipients_verify_before_send_rejects(child: Child) -> None:
    """Weights valid 3 : invalid 1 over 200 independent draws (one message each), with the key's
    verify_before_send on: about a quarter are rejected (failed_verification), the rest delivered.
    The same chi-square bound as the send weights above."""
    created = child.live.post(
        "/v3/keys",
        json={
            "name": "verifying",
            "env": "test",
            "verify_before_send": True,
            "test_outcomes": {"verify": {"valid": 3, "invalid": 1}},
        },
    )
    assert created.status_code == 201, created.text
    verifying = child.live.with_key(created.json()["key"])
    n = 200
    recipients = [{"to": recipient(f"v{i}")} for i in range(n)]
    result = accepted(verifying.post("/v3/messages.batch", json=batch(dev_sender(child), recipients)))
    assert result["accepted"] == n
    settled = settle(child, *result["message_ids"], timeout=300, lookup=child.statuses)
    outcome = list(settled.values())
    assert set(outcome) <= {"delivered", "rejected"}, set(outcome)
    rejected = outcome.count("rejected")
    first_rejected = next(m for m, status in settled.items() if status == "rejected")
    data = [e["data"] for e in child.events(first_rejected) if e["type"] == "rejected"]
    assert data == [{"reason": "failed_verification", "verification": data[0]["verification"], "test": True}]
    assert data[0]["verification"]["result"] == "invalid"
    chi_square = (rejected - n / 4) ** 2 / (n / 4) + (n - rejected - 3 * n / 4) ** 2 / (3 * n / 4)
    assert chi_square < 24, f"{rejected} of {n} rejected; about {n // 4} expected"


def test_a_batch_of_1000_is_accepted_in_one_request(child: Child) -> None:
    """1,000 personalized messages in one request, each stored. They come from a domain the
    account has not verified, so all are rejected before send: this is about acceptance;
    delivering 1,000 takes minutes on the emulator (see the module docstring). How long the
    request takes is the bench's business (a 5,000-recipient batch), not a wall-clock assertion
    here: a loaded CI machine would make it flaky."""
    recipients = [{"to": f"r{i}@example.com", "vars": {"i": i}} for i in range(1000)]
    body = batch("hello@not-verified.test", recipients)
    result = accepted(child.live.post("/v3/messages.batch", json=body, timeout=120))
    assert (result["accepted"], result["rejected"]) == (1000, 0) and result.get("rejected_recipients") is None
    assert len(set(result["message_ids"])) == 1000
    assert set(child.statuses(result["message_ids"]).values()) == {"rejected"}


def test_the_free_daily_cap_refuses_the_101st_email_with_retry_after(child: Child) -> None:
    api, domain = child.verified_free_account()
    cap = PLAN_LIMITS[Plan.FREE].daily_emails
    assert cap == 100
    current = child.now()
    midnight = datetime(current.year, current.month, current.day, tzinfo=UTC) + timedelta(days=1)
    if midnight - current < timedelta(minutes=5):  # a day cap must not reset mid-test
        current = child.advance((midnight - current).total_seconds() + 1).astimezone(UTC)
        midnight += timedelta(days=1)
    # Scheduled a day ahead, as quotas count at acceptance: nothing here is ever delivered.
    send_at = iso(current + timedelta(days=1))
    sender = f"hello@{domain}"
    accepted(
        api.post("/v3/messages", json=message(sender, *[f"d{i}@example.com" for i in range(cap - 1)], send_at=send_at))
    )
    accepted(api.post("/v3/messages", json=message(sender, send_at=send_at)))
    assert api.get("/v3/usage").json()["daily"] == {"limit": cap, "used": cap, "remaining": 0}

    refused = api.post("/v3/messages", json=message(sender, send_at=send_at))
    assert_error(refused, 429, "rate_limit_exceeded")
    retry_after = int(refused.headers["Retry-After"])
    assert 0 < retry_after <= (midnight - current).total_seconds() + 5
    assert_error(api.post("/v3/messages", json=message(sender)), 429, "rate_limit_exceeded")
    assert api.get("/v3/usage").json()["daily"]["used"] == cap  # refusals are not counted

    child.advance(retry_after + 1)  # the next day: the cap has reset
    accepted(api.post("/v3/messages", json=message(sender, send_at=iso(child.now() + timedelta(days=1)))))
