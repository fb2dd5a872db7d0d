from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from postline import wiring
from postline.accounts.domain import Plan
from postline.domains.domain import DomainStatus, SendingDomain
from postline.shared.clock import MovableClock
from postline.wiring import domains, operator
from tests.aws_stack import InProcessStack, in_process_stack

SENDER_DOMAIN = "verify.test"  # the sending domain `account_id` has verified


@pytest.fixture(scope="module")
def stack() -> Iterator[InProcessStack]:
    with in_process_stack() as stack:
        yield stack


@pytest.fixture
def clock(stack: InProcessStack) -> Iterator[MovableClock]:
    """The services' clock, movable by the test (a module may define its own)."""
    clock, previous = MovableClock(), wiring.clock()
    wiring.set_clock(clock)
    yield clock
    wiring.set_clock(previous)


@pytest.fixture
def account_id(clock: MovableClock) -> str:
    """A Professional account with SENDER_DOMAIN verified (a fresh DKIM key); a module may define its own."""
    account = operator.operator_service().create_account(name="verify", plan=Plan.PROFESSIONAL)
    pem = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    domains.sending_domains().put_domain(
        SendingDomain(
            account_id=account.id,
            id="dom_fixture",
            created_at=datetime.now(UTC),
            domain=SENDER_DOMAIN,
            status=DomainStatus.VERIFIED,
            dkim_selector="s1",
            dkim_private_key=pem.decode(),
        )
    )
    return account.id
