"""Helpers for the sending, template and tracking end-to-end tests: accounts that may send live,
waiting for delivery, reading events and the local mailbox.

Waiting for delivery: `settle()` drains, and while a message it waits for is still short of the
wanted status although the runtime is idle, moves the clock past the send queue's visibility
timeout (180 s) and drains again. The API queues a message's job just before it stores the
message; a dispatcher that finds nothing stored looks again for 2 s, then hands the job back to
the queue, which the runtime parks for the visibility timeout *on its clock* (and drain() counts
as idle). That happens to batches stored more slowly than that, or after an emulator hiccup.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from email import message_from_string, policy
from email.message import EmailMessage
from functools import cache
from typing import Any, Protocol, cast

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from postline import wiring
from postline.accounts.domain import Plan
from postline.config import Messages
from postline.domains.domain import DnsRecord, DomainStatus, RecordPurpose, RecordType, SendingDomain
from postline.events.domain import Event
from postline.sending.store import message_key
from postline.wiring import domains
from postline.wiring import events as events_root
from tests.e2e.support import Api, TestAccount, make_account
from tests.support import eventually

FINAL = frozenset({"delivered", "bounced", "complained", "rejected", "failed"})
SEND_QUEUE_VISIBILITY = 180  # template.yaml SendQueue VisibilityTimeout
DKIM_SELECTOR = "e2e1"


class Clocked(Protocol):
    """The in-process Runtime, or anything else with its drain() and advance()."""

    def drain(self, timeout: float) -> list[str]: ...

    def advance(self, seconds: float) -> Any: ...


@cache
def _dkim_private_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def dkim_private_pem() -> str:
    return (
        _dkim_private_key()
        .private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        .decode()
    )


@dataclass
class Sender:
    """An isolated account with a verified sending domain of its own."""

    account: TestAccount
    domain: str
    live: Api
    test: Api

    @property
    def id(self) -> str:
        return self.account.id

    @property
    def address(self) -> str:
        return f"hello@{self.domain}"


def put_verified_domain(account_id: str, domain: str | None = None, *, tracked: bool = False) -> str:
    """A verified sending domain stored for the account (a fresh name unless given); `tracked`: with
    its tracking CNAME (t.<domain>) found by a check, so uploads get hosted links and links go
    through that host. Returns the domain."""
    domain = domain or f"e2e-{uuid.uuid4().hex[:10]}.test"
    tracking = DnsRecord(purpose=RecordPurpose.TRACKING, type=RecordType.CNAME, host=f"t.{domain}",
                         value="track.postline.test", ok=True)  # fmt: skip
    domains.sending_domains().put_domain(
        SendingDomain(
            account_id=account_id,
            id="dom_fixture",
            created_at=datetime.now(UTC),
            domain=domain,
            status=DomainStatus.VERIFIED,
            dkim_selector=DKIM_SELECTOR,
            dkim_private_key=dkim_private_pem(),
            tracking_subdomain="t" if tracked else None,
            records=[tracking] if tracked else [],
        )
    )
    return domain


def verified_sender(runtime: Any, *, plan: Plan = Plan.FREE) -> Sender:
    """make_account() plus a verified sending domain, as local/bootstrap.py seeds the dev account's."""
    account = make_account(plan=plan)
    domain = put_verified_domain(account.id)
    return Sender(account, domain, Api(runtime.base_url, account.live_key), Api(runtime.base_url, account.test_key))


def unverified_sender(runtime: Any, *, plan: Plan = Plan.FREE) -> Sender:
    """A fresh account: no sending domain, so its live sends are rejected before send."""
    account = make_account(plan=plan)
    domain = f"e2e-{uuid.uuid4().hex[:10]}.test"
    return Sender(account, domain, Api(runtime.base_url, account.live_key), Api(runtime.base_url, account.test_key))


def recipient(name: str = "rcpt", domain: str = "example.com") -> str:
    """A unique address, so mailbox and event lookups never see another test's mail."""
    return f"{name}.{uuid.uuid4().hex[:10]}@{domain}"


def simulator(outcome: str) -> str:
    return f"{outcome}@simulator.postline.dev"


def message(sender: str, *to: str, **fields: Any) -> dict[str, Any]:
    """A minimal valid send body; `fields` override or add."""
    body: dict[str, Any] = {"from": sender, "to": list(to) or [recipient()], "subject": "Hello", "text": "Hi there."}
    body.update(fields)
    return body


def accepted(response: Any) -> dict[str, Any]:
    assert response.status_code == 202, response.text
    body: dict[str, Any] = response.json()
    return body


def now(runtime: Any) -> datetime:
    """The runtime's clock (tests move it), which is what send_at and quotas are measured against."""
    moment: datetime = runtime.clock.now()
    return moment.astimezone(UTC)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def drain(runtime: Clocked, timeout: float = 120.0) -> None:
    busy = runtime.drain(timeout)
    assert busy == [], f"the runtime is still busy after {timeout} s: {busy}"


def statuses(message_ids: Iterable[str], *, db: Any = None, table: str | None = None) -> dict[str, str]:
    """Each stored message's status, read straight from the messages table (100 per call); the
    in-process runtime's table unless another emulator's client and table are given."""
    ids = list(dict.fromkeys(message_ids))
    db = db or wiring.client("dynamodb")
    table = table or wiring.settings(Messages).table
    found: dict[str, str] = {}
    for start in range(0, len(ids), 100):
        request: dict[str, Any] = {
            table: {
                "Keys": [message_key(m) for m in ids[start : start + 100]],
                "ProjectionExpression": "id, #s",
                "ExpressionAttributeNames": {"#s": "status"},
                "ConsistentRead": True,
            }
        }
        while request:
            response = db.batch_get_item(RequestItems=request)
            for item in response["Responses"].get(table, []):
                found[item["id"]["S"]] = item["status"]["S"]
            request = response.get("UnprocessedKeys") or {}
    return found


def settle(
    runtime: Clocked,
    *message_ids: str,
    wanted: Iterable[str] = FINAL,
    timeout: float = 120.0,
    lookup: Callable[[list[str]], dict[str, str]] = statuses,
) -> dict[str, str]:
    """Delivers what is due until every message's status is in `wanted` (see the module docstring):
    drains, and when the runtime is idle but a message is not there yet, moves the clock past the
    send queue's visibility timeout to release a parked job."""
    goal = set(wanted)

    def settled() -> dict[str, str]:
        busy = runtime.drain(min(20.0, timeout))
        current = lookup(list(message_ids))
        late = {m: current.get(m) for m in message_ids if current.get(m) not in goal}
        if late and not busy:
            runtime.advance(SEND_QUEUE_VISIBILITY + 1)
        if late:
            raise AssertionError(f"{len(late)} late (busy: {busy}): {late}")
        return current

    return eventually(settled, timeout, waiting_for=f"{len(message_ids)} message(s) to be {sorted(goal)}")


def events_of(message_id: str, *, until: Callable[[list[Event]], bool] = bool, timeout: float = 5.0) -> list[Event]:
    """The message's events, oldest first, once `until` holds for them (the index is read, so they
    may take a moment); fails when it does not within `timeout` seconds."""

    def found() -> list[Event]:
        events = events_root.event_store().for_message(message_id)
        if not until(events):
            raise AssertionError(f"events so far: {types_of(events)}")
        return events

    return eventually(found, timeout, waiting_for=f"the events of {message_id}")


def types_of(events: Iterable[Event], recipient_address: str | None = None) -> list[str]:
    return [e.type.value for e in events if recipient_address is None or e.recipient == recipient_address]


def has_types(*wanted: str, recipient_address: str | None = None) -> Callable[[list[Event]], bool]:
    def check(found: list[Event]) -> bool:
        present = types_of(found, recipient_address)
        return all(present.count(kind) >= list(wanted).count(kind) for kind in wanted)

    return check


def mailbox(runtime: Any) -> list[dict[str, Any]]:
    response = requests.get(f"{runtime.base_url}/_local/mailbox", timeout=30)
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items


def mail_for(runtime: Any, message_id: str) -> list[dict[str, Any]]:
    """What the mail sink received for one message (one item per recipient's copy)."""
    return [item for item in mailbox(runtime) if item["headers"].get("X-Postline-Message-Id") == message_id]


def mail_to(runtime: Any, address: str) -> list[dict[str, Any]]:
    return [item for item in mailbox(runtime) if address in item["rcpt_tos"]]


def parse(item: dict[str, Any]) -> EmailMessage:
    return cast(EmailMessage, message_from_string(item["raw"], policy=policy.default))


def body_of(item: dict[str, Any], subtype: str) -> str | None:
    """The decoded text/<subtype> part, with SMTP's CRLF line ends made plain newlines."""
    part = parse(item).get_body(preferencelist=(subtype,))
    return None if part is None else str(part.get_content()).replace("\r\n", "\n")
