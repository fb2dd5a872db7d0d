"""The sending-domain store on moto: plan count and unique names in one transaction with the audit
entry, revision-guarded writes that keep sending's count, sealed DKIM keys (a rotation's too), the
due-checks index read in time order, and the send path's reads."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from botocore.exceptions import ClientError

from postline.accounts.domain import Account, Plan
from postline.audit.domain import Actor, ActorType, AuditEntry, audit_entry
from postline.domains.domain import DomainStatus, SendingDomain
from postline.domains.store import DynamoSendingDomains, domain_sk
from postline.shared.dynamo import key
from postline.shared.errors import Forbidden, ValidationFailed
from postline.shared.resources_table import account_pk
from postline.wiring import accounts, domains
from postline.wiring import audit as audit_root
from tests.aws_stack import InProcessStack

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"
NEXT_PEM = PEM.replace("MIIE", "NEXT")


@pytest.fixture
def store(stack: InProcessStack) -> DynamoSendingDomains:
    return domains.sending_domains()


def _audit(account_id: str, action: str = "domain.test") -> AuditEntry:
    return audit_entry(
        entry_id=str(uuid.uuid4()), account_id=account_id, actor=Actor(ActorType.USER, "u"), action=action,
        target=None, now=NOW,
    )  # fmt: skip


@pytest.fixture
def account(stack: InProcessStack) -> Account:
    account = Account(id=f"acct_{uuid.uuid4().hex}", plan=Plan.PROFESSIONAL, created_at=NOW)
    accounts.account_store().create_account(account, _audit(account.id, "account.created"))
    return account


def _domain(account: Account, name: str | None = None, **fields: Any) -> SendingDomain:
    values: dict[str, Any] = {
        "id": f"dom_{uuid.uuid4().hex}", "account_id": account.id, "domain": name or f"{uuid.uuid4().hex[:12]}.example",
        "status": DomainStatus.PENDING, "dkim_selector": "pl202611", "dkim_private_key": PEM, "created_at": NOW,
    }  # fmt: skip
    return SendingDomain.model_validate({**values, **fields})


def _raw(stack: InProcessStack, domain: SendingDomain) -> dict[str, Any]:
    item: dict[str, Any] = stack.client("dynamodb").get_item(
        TableName=stack.env["RESOURCES_TABLE"], Key=key(account_pk(domain.account_id), domain_sk(domain.domain))
    )["Item"]
    return item


def test_the_plan_count_and_the_name_are_checked_with_the_audit_entry(
    store: DynamoSendingDomains, account: Account
) -> None:
    first = _domain(account, "one.example")
    store.create_domain(first, max_domains=2, audit=_audit(account.id, "domain.created"))
    with pytest.raises(ValidationFailed):
        store.create_domain(_domain(account, "one.example"), max_domains=2, audit=_audit(account.id))
    store.create_domain(_domain(account, "two.example"), max_domains=2, audit=_audit(account.id))
    with pytest.raises(Forbidden) as limit:
        store.create_domain(_domain(account, "three.example"), max_domains=2, audit=_audit(account.id))
    assert limit.value.code == "plan_limit_reached"
    assert [d.domain for d in store.list_domains(account.id)] == ["one.example", "two.example"]
    store.delete_domain(first, _audit(account.id, "domain.deleted"))
    store.create_domain(_domain(account, "three.example"), max_domains=2, audit=_audit(account.id))  # room again
    actions = [e.action for e in audit_root.audit_store().list_audit(account.id, page=1, per_page=100)[0]]
    assert actions.count("domain.created") == 1 and actions.count("domain.deleted") == 1 and len(actions) == 5


def test_keys_are_stored_sealed_and_read_back_with_a_rotations_next_key(
    stack: InProcessStack, store: DynamoSendingDomains, account: Account
) -> None:
    domain = _domain(account)
    store.create_domain(domain, max_domains=5, audit=_audit(account.id))
    raw = _raw(stack, domain)
    assert "PRIVATE KEY" not in str(raw) and "dkim_private_key_encrypted" in raw
    rotating = domain.model_copy(update={"next_dkim_selector": "pl2", "next_dkim_private_key": NEXT_PEM})
    assert store.save_domain(rotating, expected_revision=0, audit=None, rekeyed=True)
    read = store.get_domain(account.id, domain.id)
    assert read is not None and (read.dkim_private_key, read.next_dkim_private_key, read.revision) == (PEM, NEXT_PEM, 1)
    assert NEXT_PEM not in str(_raw(stack, domain))
    promoted = read.model_copy(update={"dkim_selector": "pl2", "dkim_private_key": NEXT_PEM, "next_dkim_selector": None,
                                       "next_dkim_private_key": None})  # fmt: skip
    assert store.save_domain(promoted, expected_revision=1, audit=None, rekeyed=True)
    after = store.get_domain(account.id, domain.id)
    assert after is not None and (after.dkim_private_key, after.next_dkim_private_key) == (NEXT_PEM, None)
    assert "next_dkim_private_key_encrypted" not in _raw(stack, domain)


def test_a_stale_write_is_refused_and_a_write_keeps_the_sent_count(
    store: DynamoSendingDomains, account: Account
) -> None:
    domain = _domain(account, status=DomainStatus.VERIFIED)
    store.create_domain(domain, max_domains=5, audit=_audit(account.id))
    store.count_sent(account.id, domain.domain)
    store.count_sent(account.id, domain.domain, 2)  # a queue batch's copies, added at once
    assert store.save_domain(domain.model_copy(update={"region": "eu-west-1"}), expected_revision=0, audit=None)
    assert not store.save_domain(domain.model_copy(update={"region": "us-east-1"}), expected_revision=0, audit=None)
    read = store.get_domain(account.id, domain.id)
    assert read is not None and (read.region, read.sent_count, read.revision) == ("eu-west-1", 3, 1)
    assert store.is_verified(account.id, domain.domain.upper())
    verified = store.verified_domain(account.id, domain.domain)
    assert verified is not None and verified.dkim_private_key == PEM


def test_due_domains_compare_times_as_times(store: DynamoSendingDomains, account: Account) -> None:
    # The index keys are ISO strings: a query bound written another way (a space for the T, say)
    # would compare wrong within the day.
    moment = datetime.now(UTC).replace(microsecond=0) + timedelta(days=3650)  # past every other test's
    due = _domain(account, next_check_at=moment - timedelta(minutes=1))
    later = _domain(account, next_check_at=moment + timedelta(minutes=1))
    never = _domain(account, next_check_at=None)
    for domain in (later, due, never):
        store.create_domain(domain, max_domains=5, audit=_audit(account.id))
    found = [d.id for d in store.due_domains(moment, 1000) if d.account_id == account.id]
    assert found == [due.id]


def test_a_domain_verified_by_another_container_sends_at_once(
    stack: InProcessStack, store: DynamoSendingDomains, account: Account
) -> None:
    # The send path caches what it read for a minute; a domain it saw unverified must not stay so
    # once the verify route's function (another container, another store) verified it.
    sender = DynamoSendingDomains(
        stack.client("dynamodb"), stack.env["RESOURCES_TABLE"], stack.client("kms"), stack.env["CONTENT_KEY_ID"]
    )
    domain = _domain(account)
    store.create_domain(domain, max_domains=5, audit=_audit(account.id))
    assert not sender.is_verified(account.id, domain.domain)
    assert store.save_domain(
        domain.model_copy(update={"status": DomainStatus.VERIFIED}), expected_revision=0, audit=None
    )
    assert sender.is_verified(account.id, domain.domain)
    assert sender.verified_domain(account.id, domain.domain) is not None


def test_an_unshare_by_another_container_is_read_at_once_by_current_domain(
    stack: InProcessStack, store: DynamoSendingDomains, account: Account
) -> None:
    # The owner's own sends keep the cache (verified_domain); another workspace's screening reads
    # current_domain, which sees the unshare the domains route's container (`store`) wrote.
    sender = DynamoSendingDomains(
        stack.client("dynamodb"), stack.env["RESOURCES_TABLE"], stack.client("kms"), stack.env["CONTENT_KEY_ID"]
    )
    domain = _domain(account, status=DomainStatus.VERIFIED, shared_with_company=True)
    store.create_domain(domain, max_domains=5, audit=_audit(account.id))
    assert sender.verified_domain(account.id, domain.domain).shared_with_company  # type: ignore[union-attr]
    unshared = domain.model_copy(update={"shared_with_company": False})
    assert store.save_domain(unshared, expected_revision=0, audit=None)
    current = sender.current_domain(account.id, domain.domain)
    assert current is not None and not current.shared_with_company
    assert sender.verified_domain(account.id, domain.domain) is not None  # the owner's own: still verified


def test_grants_to_outside_accounts_are_written_and_revoked_with_the_domain(
    stack: InProcessStack, store: DynamoSendingDomains, account: Account
) -> None:
    grantee, other = f"acct_{uuid.uuid4().hex}", f"acct_{uuid.uuid4().hex}"
    domain = _domain(account, status=DomainStatus.VERIFIED)
    store.create_domain(domain, max_domains=5, audit=_audit(account.id))
    assert store.granted_domain(grantee, domain.domain) is None and store.granted_domains(grantee) == []
    granted = domain.model_copy(update={"external_accounts": [grantee, other], "shared_external": True})
    assert store.save_domain(granted, expected_revision=0, audit=None, granted=[grantee, other])
    found = store.granted_domain(grantee, domain.domain.upper())
    assert found is not None and (found.account_id, found.dkim_private_key) == (account.id, PEM)  # the owner's key
    assert [d.id for d in store.granted_domains(other)] == [domain.id]
    # Revoked in the transaction that changes the list: the grantee's next read finds nothing.
    revoked = granted.model_copy(update={"external_accounts": [other]})
    assert store.save_domain(revoked, expected_revision=1, audit=None, revoked=[grantee])
    assert store.granted_domain(grantee, domain.domain) is None and store.granted_domains(grantee) == []
    # Its item stays, marked revoked: a message accepted under the grant still finds the owner's key.
    kept = store.granted_domain(grantee, domain.domain, revoked_too=True)
    assert kept is not None and (kept.account_id, kept.dkim_private_key) == (account.id, PEM)
    assert store.granted_domain(f"acct_{uuid.uuid4().hex}", domain.domain, revoked_too=True) is None
    # A grant item the domain's list no longer names grants nothing (the list is the authority).
    assert store.save_domain(revoked.model_copy(update={"external_accounts": []}), expected_revision=2, audit=None)
    assert store.granted_domain(other, domain.domain) is None
    # Deleting the domain deletes its grants, the current one and the revoked one's marker (the
    # service keeps revoked_accounts on the domain).
    again = store.get_domain(account.id, domain.id)
    assert again is not None
    last = again.model_copy(update={"external_accounts": [other], "revoked_accounts": [grantee]})
    assert store.save_domain(last, expected_revision=3, audit=None, granted=[other])
    stored = store.get_domain(account.id, domain.id)
    assert stored is not None and stored.revoked_accounts == [grantee]
    store.delete_domain(stored, _audit(account.id, "domain.deleted"))
    for grantee_id in (other, grantee):
        items = stack.client("dynamodb").query(
            TableName=stack.env["RESOURCES_TABLE"], KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": account_pk(grantee_id)}},
        )["Items"]  # fmt: skip
        assert items == []
    assert store.granted_domain(grantee, domain.domain, revoked_too=True) is None


def test_a_save_that_aws_throttles_is_tried_again_and_saved(
    store: DynamoSendingDomains, account: Account, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scheduled check's save follows the owner's warning: failing it on a transient error would
    leave the domain due and warn again at the next run."""
    domain = _domain(account, status=DomainStatus.VERIFIED)
    store.create_domain(domain, max_domains=5, audit=_audit(account.id))
    transact = store._db.transact_write_items
    throttled: list[str] = []

    def throttle_once(**kwargs: Any) -> Any:
        if not throttled:
            throttled.append("once")
            error = {"Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"}}
            raise ClientError(error, "TransactWriteItems")
        return transact(**kwargs)

    monkeypatch.setattr(store._db, "transact_write_items", throttle_once)
    assert store.save_domain(domain.model_copy(update={"region": "eu-west-1"}), expected_revision=0, audit=None)
    read = store.get_domain(account.id, domain.id)
    assert throttled and read is not None and (read.region, read.revision) == ("eu-west-1", 1)
