"""The uploads' store and files against moto on template.yaml's resources table and bucket: the quota's
condition under concurrent reservations, settling with the size S3 holds after a real presigned POST,
releases and expiry giving bytes back, the due index, hits, and the branded tracking host."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import requests
from botocore.exceptions import ClientError

from postline.accounts.domain import Account, Plan
from postline.audit.domain import Actor, ActorType, AuditEntry, audit_entry
from postline.domains.domain import DnsRecord, DomainStatus, RecordPurpose, RecordType, SendingDomain
from postline.shared.errors import Conflict, Forbidden
from postline.uploads.domain import Upload, UploadStatus
from postline.uploads.files import S3UploadFiles
from postline.uploads.store import DynamoUploadStore
from postline.wiring import accounts, domains
from postline.wiring import uploads as uploads_root
from tests.aws_stack import InProcessStack

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
QUOTA = 1000


@pytest.fixture
def store(stack: InProcessStack) -> DynamoUploadStore:
    return uploads_root.upload_store()


@pytest.fixture
def files(stack: InProcessStack) -> S3UploadFiles:
    return uploads_root.upload_files()


def _audit(account_id: str, action: str = "upload.created") -> AuditEntry:
    actor = Actor(ActorType.USER, "key_1", "127.0.0.1")
    return audit_entry(entry_id=str(uuid.uuid4()), account_id=account_id, actor=actor, action=action, target=None,
                       now=NOW)  # fmt: skip


def _upload(account_id: str, size: int, **fields: object) -> Upload:
    return Upload.model_validate(
        {"id": f"up_{uuid.uuid4().hex}", "account_id": account_id, "filename": "f.bin", "size_bytes": size,
         "reserved_bytes": size, "created_at": NOW, "upload_expires_at": NOW + timedelta(hours=1), **fields}
    )  # fmt: skip


def test_reservations_never_hold_more_than_the_quota(store: DynamoUploadStore) -> None:
    """The condition on the one quota item (concurrent creates over HTTP: tests/e2e/test_uploads.py,
    on the emulator, which serializes DynamoDB as the service does; moto in-process is not thread-safe)."""
    account_id = f"acct_{uuid.uuid4().hex}"
    results: list[str] = []
    for _ in range(5):
        try:
            store.reserve(_upload(account_id, 300), QUOTA, _audit(account_id))
            results.append("ok")
        except Forbidden as refused:
            results.append(refused.code)
    assert results == ["ok"] * 3 + ["upload_quota_exceeded"] * 2
    assert len(store.list_uploads(account_id, 100)) == 3 and store.used_bytes(account_id) == 0
    store.reserve(_upload(account_id, 100), QUOTA, _audit(account_id))  # exactly to the quota


class _Conflicting:
    """A DynamoDB client whose transactions cross another's `conflicts` times, then go through."""

    def __init__(self, conflicts: int) -> None:
        self.conflicts = conflicts
        self.calls = 0

    def transact_write_items(self, **_: Any) -> None:
        self.calls += 1
        if self.calls <= self.conflicts:
            error = {"Code": "TransactionCanceledException", "Message": "Transaction cancelled",
                     "CancellationReasons": [{"Code": "TransactionConflict"}, {"Code": "None"}]}  # fmt: skip
            raise ClientError({"Error": error, "CancellationReasons": error["CancellationReasons"]},
                              "TransactWriteItems")  # fmt: skip


def test_a_transaction_crossing_another_is_retried_then_409() -> None:
    account_id = f"acct_{uuid.uuid4().hex}"
    client = _Conflicting(conflicts=2)
    DynamoUploadStore(client, "table").reserve(_upload(account_id, 10), QUOTA, _audit(account_id))
    assert client.calls == 3
    with pytest.raises(Conflict):
        DynamoUploadStore(_Conflicting(conflicts=99), "table").reserve(
            _upload(account_id, 10), QUOTA, _audit(account_id)
        )


def test_a_presigned_post_is_settled_with_the_size_s3_holds(store: DynamoUploadStore, files: S3UploadFiles) -> None:
    account_id = f"acct_{uuid.uuid4().hex}"
    upload = _upload(account_id, 500)
    store.reserve(upload, QUOTA, _audit(account_id))
    url, fields = files.presigned_post(upload, 500, 3600)
    assert files.size(upload) is None
    posted = requests.post(url, data=fields, files={"file": ("x.pdf", b"%PDF-1.7\n" + b"x" * 91)}, timeout=30)
    assert posted.status_code in (200, 204), posted.text
    assert files.size(upload) == 100 and files.head_bytes(upload, 8) == b"%PDF-1.7"
    settled = store.settle(upload, 100, "application/pdf", NOW, QUOTA)
    assert settled is not None and settled == store.get_upload(account_id, upload.id)
    assert (settled.status, settled.size_bytes, settled.reserved_bytes) == (UploadStatus.READY, 100, 100)
    assert store.used_bytes(account_id) == 100
    assert store.settle(upload, 100, "application/pdf", NOW, QUOTA) is None  # settled once
    # Room again for 900 bytes: the reservation shrank to what arrived.
    store.reserve(_upload(account_id, 900), QUOTA, _audit(account_id))
    with pytest.raises(Forbidden):
        store.reserve(_upload(account_id, 1), QUOTA, _audit(account_id))


def test_settling_more_than_reserved_needs_room(store: DynamoUploadStore) -> None:
    account_id = f"acct_{uuid.uuid4().hex}"
    first, second = _upload(account_id, 600), _upload(account_id, 10)
    store.reserve(first, QUOTA, _audit(account_id))
    store.reserve(second, QUOTA, _audit(account_id))
    with pytest.raises(Forbidden):
        store.settle(second, 500, "text/plain", NOW, QUOTA)  # 600 + 500 > 1000
    assert store.get_upload(account_id, second.id) == second  # unchanged
    assert store.settle(second, 400, "text/plain", NOW, QUOTA) is not None  # 600 + 400 fits
    assert store.release(second) is False  # no longer pending
    assert store.release(first) is True and store.get_upload(account_id, first.id) is None
    store.reserve(_upload(account_id, 600), QUOTA, _audit(account_id))  # the 600 came back


def test_expire_and_delete_give_the_bytes_back(store: DynamoUploadStore) -> None:
    account_id = f"acct_{uuid.uuid4().hex}"
    kept, gone = _upload(account_id, 400), _upload(account_id, 500, expires_at=NOW + timedelta(days=1))
    for upload in (kept, gone):
        store.reserve(upload, QUOTA, _audit(account_id))
    kept = store.settle(kept, 400, "image/png", NOW, QUOTA) or kept
    gone = store.settle(gone, 500, "image/png", NOW, QUOTA) or gone
    assert store.used_bytes(account_id) == 900
    assert store.expire(gone) is True and store.expire(gone) is False
    expired = store.get_upload(account_id, gone.id)
    assert expired is not None and expired.status is UploadStatus.EXPIRED  # kept: the API answers 410
    assert [u.id for u in store.list_uploads(account_id, 10)] == [kept.id]
    later = NOW + timedelta(days=31)  # its record is due for purging 30 days after it expired
    # due then: its upload window's end, its expiry, its purge (the sweep skips what is stale)
    assert [entry[1] for entry in store.due(later, 1000) if entry[1] == gone.id] == [gone.id] * 3
    assert store.purge(kept) is False and store.purge(expired) is True
    assert store.get_upload(account_id, gone.id) is None
    store.delete(kept, _audit(account_id, "upload.deleted"))
    assert store.used_bytes(account_id) == 0 and store.list_uploads(account_id, 10) == []
    store.reserve(_upload(account_id, QUOTA), QUOTA, _audit(account_id))


def test_the_due_index_and_hits(store: DynamoUploadStore) -> None:
    account_id = f"acct_{uuid.uuid4().hex}"
    upload = _upload(account_id, 10, upload_expires_at=datetime(2000, 1, 1, tzinfo=UTC))  # long overdue
    store.reserve(upload, QUOTA, _audit(account_id))
    due = [entry for entry in store.due(NOW, 1000) if entry[1] == upload.id]
    assert len(due) == 1 and due[0][0] == account_id
    store.clear_due(due[0][2])
    assert not [entry for entry in store.due(NOW, 1000) if entry[1] == upload.id]
    store.record_hit(upload, human=True, reason=None, ip="198.51.100.7", user_agent="Mozilla", at=NOW)
    store.record_hit(upload, human=False, reason="head", ip="198.51.100.7", user_agent="Mozilla", at=NOW)
    stored = store.get_upload(account_id, upload.id)
    assert stored is not None and (stored.download_count, stored.scanner_count) == (1, 1)
    hits = sorted((hit["human"], hit.get("reason") or "") for hit in store.hits(account_id, upload.id))
    assert hits == [(False, "head"), (True, "")]
    store.delete(stored, _audit(account_id, "upload.deleted"))
    assert store.hits(account_id, upload.id) == []  # its hit records go with it


def test_the_branded_tracking_host_is_a_verified_domains_whose_cname_was_found(stack: InProcessStack) -> None:
    account = Account(id=f"acct_{uuid.uuid4().hex}", plan=Plan.PROFESSIONAL, created_at=NOW)
    accounts.account_store().create_account(account, _audit(account.id, "account.created"))
    hosts = uploads_root.tracking_hosts()
    assert hosts.branded_host(account.id) is None

    def domain(name: str, found: bool) -> SendingDomain:
        record = DnsRecord(purpose=RecordPurpose.TRACKING, type=RecordType.CNAME, host=f"t.{name}",
                           value="track.postline.test", ok=found)  # fmt: skip
        return SendingDomain(account_id=account.id, id=f"dom_{name}", created_at=NOW, domain=name,
                             status=DomainStatus.VERIFIED, dkim_selector="s1", dkim_private_key="pem",
                             tracking_subdomain="t", records=[record])  # fmt: skip

    domains.sending_domains().put_domain(domain("a-shop.test", False))
    assert hosts.branded_host(account.id) is None  # its CNAME not found
    domains.sending_domains().put_domain(domain("b-shop.test", True))
    assert hosts.branded_host(account.id) == "t.b-shop.test"
