"""Data removals' adapters on moto: the removal jobs (created with their audit entry, leased, their
saved batch read back), and the suppression lists' erasure: the plaintext entries go, an objection
stays as a keyed-hash entry that the send path's check still honours and no list shows."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from postline import wiring
from postline.audit.domain import Actor
from postline.audit.service import new_audit_entry
from postline.config import Suppressions
from postline.data_removals.domain import Batch, DataRemovalJob, RemovalCounts, RemovalStatus, mask
from postline.data_removals.store import PepperedAddressHasher
from postline.suppressions.domain import SuppressionType
from postline.suppressions.models import SuppressionFilters
from postline.suppressions.store import DynamoSuppressions
from postline.wiring import audit as audit_root
from postline.wiring import data_removals, keys, shared, suppressions
from tests.aws_stack import InProcessStack

NOW = datetime(2026, 11, 1, 12, 0, 5, tzinfo=UTC)


@pytest.fixture
def account_id(stack: InProcessStack) -> str:
    return f"acct_{uuid.uuid4().hex[:12]}"


@pytest.fixture
def store(stack: InProcessStack) -> DynamoSuppressions:
    return suppressions.suppressions()


def _partition(account_id: str) -> list[dict[str, object]]:
    db = wiring.client("dynamodb")
    return list(
        db.query(
            TableName=wiring.settings(Suppressions).table,
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": f"SUP#{account_id}"}},
        )["Items"]
    )


def _erase(store: DynamoSuppressions, account_id: str, address: str) -> int:
    return store.erase(account_id, address, PepperedAddressHasher(keys.hasher()).hash(account_id, address))


def test_an_erased_objection_is_kept_as_a_keyed_hash_the_send_check_honours(
    store: DynamoSuppressions, account_id: str
) -> None:
    address, other = "Ann.Lee@Example.com", "bo@example.com"
    store.add(account_id, address, SuppressionType.UNSUBSCRIBES, NOW)
    store.add(account_id, address, SuppressionType.BOUNCES, NOW)
    store.add(account_id, other, SuppressionType.COMPLAINTS, NOW)
    assert store.suppressed(account_id, [address, other]) == {"ann.lee@example.com", other}

    assert _erase(store, account_id, address) == 2
    held = json.dumps(_partition(account_id))
    assert "ann.lee" not in held.lower() and other in held
    (erased,) = [item for item in _partition(account_id) if str(item["sk"]).find("ERASED#") >= 0]
    assert sorted(erased["types"]["SS"]) == ["bounces", "unsubscribes"]  # type: ignore[index]
    # Still never mailed, in any case of the address; invisible to the lists and the lookups.
    assert store.suppressed(account_id, ["ANN.LEE@example.com", other]) == {"ann.lee@example.com", other}
    listed, total = store.list_page(account_id, SuppressionFilters(), page=1, per_page=100)
    assert [entry.email for entry in listed] == [other] and total == 1
    assert store.find(account_id, SuppressionType.UNSUBSCRIBES, "ann.lee@example.com") is None
    # Another account's hash differs: the entry holds nowhere else.
    assert store.suppressed(f"{account_id}x", [address]) == set()
    assert _erase(store, account_id, address) == 0  # a repeat changes nothing


def test_an_address_nothing_blocked_leaves_no_entry_at_all(store: DynamoSuppressions, account_id: str) -> None:
    address = "allowed@example.com"
    store.add(account_id, address, SuppressionType.ALLOWLIST, NOW)
    assert _erase(store, account_id, address) == 1
    assert _partition(account_id) == []
    assert store.suppressed(account_id, [address]) == set()


def test_a_store_without_the_hash_reads_only_plaintext(stack: InProcessStack, account_id: str) -> None:
    plain = DynamoSuppressions(wiring.client("dynamodb"), wiring.settings(Suppressions).table, audit_table="")
    hashed = suppressions.suppressions()
    hashed.add(account_id, "gone@example.com", SuppressionType.COMPLAINTS, NOW)
    _erase(hashed, account_id, "gone@example.com")
    assert plain.suppressed(account_id, ["gone@example.com"]) == set()
    assert hashed.suppressed(account_id, ["gone@example.com"]) == {"gone@example.com"}


def test_a_removal_job_is_stored_with_its_audit_leased_and_its_saved_batch_read_back(
    stack: InProcessStack, account_id: str
) -> None:
    jobs = data_removals.removal_jobs()
    ids = shared.ids()
    job = DataRemovalJob(
        id=ids.new_id(),
        account_id=account_id,
        email="ann@example.com",
        masked=mask("ann@example.com"),
        address_hash="ab" * 32,
        accounts=[account_id],
        hashes={account_id: "ab" * 32},
        created_at=NOW,
    )
    jobs.create(job, new_audit_entry(ids, Actor.system(), account_id, "data_removal.requested", job.id, now=NOW))
    audit = audit_root.audit_store().list_audit(account_id, page=1, per_page=10)[0]
    assert [(entry.action, entry.target) for entry in audit] == [("data_removal.requested", job.id)]

    claimed = jobs.claim(job, NOW, timedelta(minutes=16))
    assert claimed is not None and claimed.status is RemovalStatus.PROCESSING and claimed.attempt == 1
    assert jobs.claim(job, NOW + timedelta(minutes=1), timedelta(minutes=16)) is None  # leased
    batch = Batch(work={"events": [["EVT#a#2026-11-01", "x"]]}, tally={"events": 1}, next={"after": {"pk": {"S": "p"}}})
    saved = claimed.model_copy(update={"pending": batch, "counts": RemovalCounts(events=1), "step": 2})
    assert jobs.advance(saved)
    stored = jobs.get(account_id, job.id)
    assert stored is not None and stored.pending == batch and stored.counts.events == 1 and stored.step == 2
    assert stored.email == "ann@example.com"
    assert jobs.advance(saved.model_copy(update={"pending": None}))
    assert jobs.get(account_id, job.id).pending is None  # type: ignore[union-attr]

    jobs.release(saved)
    again = jobs.claim(job, NOW + timedelta(minutes=2), timedelta(minutes=16))
    assert again is not None and again.attempt == 2
    assert not jobs.advance(saved)  # the first attempt no longer holds it
    done = again.model_copy(update={"status": RemovalStatus.DONE, "email": None, "completed_at": NOW})
    completed = new_audit_entry(ids, Actor.system(), account_id, "data_removal.completed", job.id, now=NOW)
    assert jobs.finish(done, completed)
    final = jobs.get(account_id, job.id)
    assert final is not None and final.status is RemovalStatus.DONE and final.email is None

    assert not jobs.erased_before(account_id, "ab" * 32)
    jobs.mark_erased(account_id, "ab" * 32, job.id, NOW)
    assert jobs.erased_before(account_id, "ab" * 32) and not jobs.erased_before(account_id, "cd" * 32)
