"""The upload service over the fakes of its ports: plans and quota, reservations settled with what S3
holds, sniffed types, hosted links (people counted, scanners recorded apart), expiry and the sweep."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

import pytest

from postline.accounts.domain import Account, Plan, QuotaSource, StorageAddon
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.shared.errors import Conflict, Forbidden, Gone, NotFound, ValidationFailed
from postline.shared.scanners import Visitor
from postline.uploads.domain import DOWNLOAD_PATH, EXPIRED_KEPT, UPLOAD_WINDOW, read_download_token
from postline.uploads.models import UploadCreate, UploadUpdate
from postline.uploads.service import UploadService
from tests.fakes.shared import FixedClock, SequentialIds
from tests.fakes.uploads import Accounts, FixedHosts, InMemoryFiles, InMemoryUploads

SECRET = b"tracking-secret"
CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 200


class World:
    def __init__(self, account: Account, host: str | None = "track.acme.test") -> None:
        self.account = account
        self.clock = FixedClock(datetime(2026, 11, 28, 12, 0, tzinfo=UTC))
        self.store = InMemoryUploads()
        self.files = InMemoryFiles()
        self.service = UploadService(
            uploads=self.store,
            files=self.files,
            hosts=FixedHosts({account.id: host} if host else {}),
            accounts=Accounts(account),
            secret=lambda: SECRET,
            ids=SequentialIds(),
            clock=self.clock,
        )
        self.principal = Principal(
            account=account, scope=Scope.FULL_ACCESS, env=Environment.LIVE, source_ip="192.0.2.9"
        )

    def direct(self, data: bytes, filename: str = "report.pdf", **fields: object) -> str:
        request = UploadCreate.model_validate(
            {"filename": filename, "content": base64.b64encode(data).decode(), **fields}
        )
        return self.service.create(self.principal, request).id


def account(plan: Plan = Plan.PROFESSIONAL, **fields: object) -> Account:
    return Account.model_validate(
        {"id": "acct_1", "plan": plan, "created_at": datetime(2026, 1, 1, tzinfo=UTC), **fields}
    )


HUMAN = Visitor(user_agent=CHROME, purpose=None, ip="198.51.100.7")


def test_the_free_plan_holds_nothing_and_paid_plans_hold_100_mb_raised_by_an_add_on() -> None:
    free = World(account(Plan.FREE))
    with pytest.raises(Forbidden) as refused:
        free.direct(b"hello")
    assert refused.value.code == "uploads_not_in_plan"
    assert free.store.uploads == {}
    assert account(Plan.FREE, quota_source=QuotaSource.PAYG_CREDITS).upload_quota_bytes == 100_000_000  # pay-as-you-go
    assert account().upload_quota_bytes == 100_000_000
    assert account(storage_addon=StorageAddon.GB_10).upload_quota_bytes == 10_000_000_000
    assert account(storage_addon=StorageAddon.GB_100).upload_quota_bytes == 100_000_000_000
    assert account(Plan.FREE, storage_addon=StorageAddon.GB_100).upload_quota_bytes == 0


def test_a_small_file_in_the_body_is_ready_at_once_its_type_sniffed_and_its_name_made_safe() -> None:
    world = World(account())
    html = b"<!DOCTYPE html><html><script>alert(document.cookie)</script></html>"
    request = UploadCreate(filename='../../etc/"evil"\r\n.png', content=base64.b64encode(html).decode())
    created = world.service.create(world.principal, request)
    assert (created.status, created.size_bytes, created.upload) == ("ready", len(html), None)
    assert created.content_type == "text/html"  # sniffed: the .png name is not believed
    assert created.filename == "_evil_ .png"  # the path gone, the quotes made harmless, CR LF a space
    assert created.url is not None and created.url.startswith(f"https://track.acme.test{DOWNLOAD_PATH}/")
    listed = world.service.list(world.principal)
    assert (listed.used_bytes, listed.quota_bytes, [u.id for u in listed.items]) == (
        len(html),
        100_000_000,
        [created.id],
    )


def test_no_branded_tracking_host_no_url() -> None:
    world = World(account(), host=None)
    upload_id = world.direct(PNG, "a.png")
    got = world.service.get(world.principal, upload_id)
    assert (got.url, got.content_type) == (None, "image/png")


def test_a_presigned_upload_is_reserved_then_settled_with_the_size_s3_holds() -> None:
    world = World(account())
    created = world.service.create(world.principal, UploadCreate(filename="big.bin", size_bytes=60_000_000))
    assert created.status == "pending" and created.url is None and created.upload is not None
    assert created.upload.max_bytes == 60_000_000 and created.upload.fields["key"].endswith(created.id)
    assert created.upload.expires_at == world.clock.now() + UPLOAD_WINDOW
    # The reservation holds: a second large file does not fit beside it.
    with pytest.raises(Forbidden) as refused:
        world.service.create(world.principal, UploadCreate(filename="more.bin", size_bytes=50_000_000))
    assert refused.value.code == "upload_quota_exceeded"
    with pytest.raises(Conflict):  # nothing arrived yet
        world.service.complete(world.principal, created.id)
    world.files.arrive(created.id, PNG)  # far smaller than declared
    done = world.service.complete(world.principal, created.id)
    assert (done.status, done.size_bytes, done.content_type) == ("ready", len(PNG), "image/png")
    assert world.store.committed[world.account.id] == len(PNG) == world.store.used_bytes(world.account.id)
    assert [a.action for a in world.store.audits] == ["upload.created", "upload.completed"]
    world.service.create(world.principal, UploadCreate(filename="more.bin", size_bytes=50_000_000))  # room again


def test_a_file_larger_than_reserved_is_refused_when_the_quota_has_no_room() -> None:
    world = World(account())
    first = world.service.create(world.principal, UploadCreate(filename="a.bin", size_bytes=60_000_000))
    second = world.service.create(world.principal, UploadCreate(filename="b.bin", size_bytes=10))
    world.files.arrive(second.id, b"x" * 50_000_000)  # claimed 10 bytes, sent 50 MB
    with pytest.raises(Forbidden) as refused:
        world.service.complete(world.principal, second.id)
    assert refused.value.code == "upload_quota_exceeded"
    assert (
        world.store.get_upload(world.account.id, second.id) is None
        and world.files.size(world.store.uploads[(world.account.id, first.id)]) is None
    )
    assert world.store.committed[world.account.id] == 60_000_000  # only the first's reservation left


def test_the_download_link_counts_nothing_and_the_hosted_link_counts_people_only() -> None:
    world = World(account())
    upload_id = world.direct(PNG, "photo.png")
    link = world.service.download_link(world.principal, upload_id)
    assert link.url is not None and link.expires_at == world.clock.now() + timedelta(seconds=300)
    token = (world.service.get(world.principal, upload_id).url or "").rsplit("/", 1)[1]
    assert read_download_token(token, SECRET) == (world.account.id, upload_id)
    assert world.service.follow(token, HUMAN).startswith("https://s3.example/")
    for scanner in (
        Visitor(user_agent=CHROME, purpose=None, ip="198.51.100.7", method="HEAD"),
        Visitor(user_agent="Mozilla/5.0 (compatible; Barracuda Sentinel)", purpose=None, ip="198.51.100.7"),
        Visitor(user_agent=CHROME, purpose="prefetch", ip="198.51.100.7"),
        Visitor(user_agent=CHROME, purpose=None, ip="148.163.130.5"),  # Proofpoint's network
        Visitor(user_agent=None, purpose=None, ip="198.51.100.7"),
    ):
        world.service.follow(token, scanner)
    got = world.service.get(world.principal, upload_id)
    assert got.download_count == 1
    assert world.store.get_upload(world.account.id, upload_id).scanner_count == 5  # type: ignore[union-attr]
    # Followed from a message delivered 3 seconds ago: a gateway's prefetch, not a person.
    world.service.follow(token, HUMAN, delivered_at=world.clock.now() - timedelta(seconds=3))
    world.service.follow(token, HUMAN, delivered_at=world.clock.now() - timedelta(minutes=3))  # a person
    reasons = [hit["reason"] for hit in world.store.hits_recorded]
    assert reasons == [None, "head", "user_agent", "purpose", "network", "user_agent", "too_soon", None]
    with pytest.raises(NotFound):
        world.service.follow(token[:-2] + "xx", HUMAN)


def test_after_expires_at_the_api_and_the_link_answer_410_and_the_file_is_deleted() -> None:
    world = World(account())
    expires = world.clock.now() + timedelta(hours=1)
    upload_id = world.direct(PNG, "a.png", expires_at=expires.isoformat())
    token = (world.service.get(world.principal, upload_id).url or "").rsplit("/", 1)[1]
    world.clock.advance(3601)
    with pytest.raises(Gone):
        world.service.get(world.principal, upload_id)  # a read: leaves the deletion to the sweep
    assert world.files.objects and world.service.list(world.principal).items == []
    with pytest.raises(Gone):
        world.service.follow(token, HUMAN)
    assert world.files.objects == {} and world.store.used_bytes(world.account.id) == 0
    with pytest.raises(Gone):
        world.service.download_link(world.principal, upload_id)


def test_expires_at_is_set_and_cleared_by_update_and_must_be_in_the_future() -> None:
    world = World(account())
    upload_id = world.direct(PNG, "a.png")
    with pytest.raises(ValidationFailed):
        world.service.update(world.principal, upload_id, UploadUpdate(expires_at=world.clock.now()))
    later = world.clock.now() + timedelta(days=2)
    assert world.service.update(world.principal, upload_id, UploadUpdate(expires_at=later)).expires_at == later
    cleared = world.service.update(world.principal, upload_id, UploadUpdate.model_validate({"expires_at": None}))
    assert cleared.expires_at is None
    renamed = world.service.update(world.principal, upload_id, UploadUpdate(filename="C:\\x\\new name.png"))
    assert renamed.filename == "new name.png"


def test_the_sweep_settles_what_arrived_releases_what_did_not_and_expires_what_is_due() -> None:
    world = World(account())
    arrived = world.service.create(world.principal, UploadCreate(filename="a.bin", size_bytes=1000))
    abandoned = world.service.create(world.principal, UploadCreate(filename="b.bin", size_bytes=2000))
    expiring = world.direct(PNG, "c.png", expires_at=(world.clock.now() + timedelta(minutes=30)).isoformat())
    world.files.arrive(arrived.id, b"%PDF-1.7\n" + b"x" * 100)
    assert world.service.sweep() == {"settled": 0, "released": 0, "expired": 0, "purged": 0, "skipped": 0}
    world.clock.advance(UPLOAD_WINDOW.total_seconds())
    counts = world.service.sweep()
    # skipped: the body upload's own window (it was ready at once: a crash between its put and its
    # settle is what that entry is for)
    assert counts == {"settled": 1, "released": 1, "expired": 1, "purged": 0, "skipped": 1}
    settled = world.service.get(world.principal, arrived.id)
    assert (settled.status, settled.size_bytes, settled.content_type) == ("ready", 109, "application/pdf")
    assert world.store.get_upload(world.account.id, abandoned.id) is None
    with pytest.raises(Gone):
        world.service.get(world.principal, expiring)
    assert world.store.committed[world.account.id] == 109 == world.store.used_bytes(world.account.id)
    assert world.service.sweep()["settled"] == 0
    # The expired one answers 410 for EXPIRED_KEPT, then the sweep purges its record: 404.
    world.clock.advance(EXPIRED_KEPT.total_seconds())
    assert world.service.sweep()["purged"] == 1 and world.store.due_index == {}
    with pytest.raises(NotFound):
        world.service.get(world.principal, expiring)


def test_a_file_posted_after_its_pending_upload_was_deleted_is_removed_by_the_sweep() -> None:
    world = World(account())
    created = world.service.create(world.principal, UploadCreate(filename="a.bin", size_bytes=10))
    world.service.delete(world.principal, created.id)
    world.files.arrive(created.id, b"late bytes")  # the presigned POST is still valid for its hour
    world.clock.advance(UPLOAD_WINDOW.total_seconds())
    assert world.service.sweep()["skipped"] == 1 and world.files.objects == {}
    assert world.store.committed[world.account.id] == 0


def test_delete_frees_the_bytes_and_refusals_name_the_problem() -> None:
    world = World(account())
    upload_id = world.direct(PNG, "a.png")
    world.service.delete(world.principal, upload_id)
    assert world.store.used_bytes(world.account.id) == 0 and world.files.objects == {}
    with pytest.raises(NotFound):
        world.service.get(world.principal, upload_id)
    for fields in (
        {"filename": "x"},
        {"filename": "x", "content": "aGk=", "size_bytes": 2},
        {"filename": "x", "content": "!!"},
    ):
        with pytest.raises(ValidationFailed):
            world.service.create(world.principal, UploadCreate.model_validate(fields))
    with pytest.raises(Forbidden):  # larger than the whole quota
        world.service.create(world.principal, UploadCreate(filename="x", size_bytes=100_000_001))
