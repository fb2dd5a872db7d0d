"""List send jobs and list-scoped unsubscribes on moto: a job created once (a keyed retry finds it),
claimed under a lease (a live lease refuses a second attempt, an expired one is taken by the next),
checkpointed only by the attempt holding it, released; a pending job whose queueing failed moves to
failed; a member unsubscribed once (a repeat, or a member already unsubscribed, writes nothing) with
its audit entry in the same transaction."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from botocore.exceptions import ClientError

from postline import wiring
from postline.audit.domain import Actor, AuditEntry, audit_entry
from postline.config import Jobs, Resources
from postline.keys.access import Environment
from postline.lists.domain import ListMember, MailingList, member_id
from postline.lists.job_queue import ListJobMessage, SqsListJobQueue
from postline.lists.send_store import DynamoListSends
from postline.lists.sends import (
    MAX_REPORTED_FAILURES,
    FailedMember,
    ListSend,
    ListSendStatus,
    Outcome,
    PageRange,
    PageResult,
)
from postline.lists.store import DynamoLists
from postline.wiring import audit as audit_root
from tests.aws_stack import InProcessStack

NOW = datetime(2026, 11, 1, 12, 0, 5, tzinfo=UTC)
LEASE = timedelta(seconds=330)


def _job(account_id: str) -> ListSend:
    return ListSend(
        id=f"lsend_{uuid.uuid4().hex[:12]}",
        account_id=account_id,
        list_id="l1",
        list_address="news@lists.example",
        key_id="key_1",
        env=Environment.LIVE,
        request={"from": "a@b.example", "subject": "s", "text": "t"},
        vars={"team": "Ops"},
        created_at=NOW,
    )


def test_a_job_is_created_once_claimed_under_a_lease_and_saved_by_its_attempt_only(stack: InProcessStack) -> None:
    jobs = DynamoListSends(wiring.client("dynamodb"), wiring.settings(Jobs).table)
    job = _job(f"acct_{uuid.uuid4().hex[:8]}")
    assert jobs.create(job) and not jobs.create(job)
    stored = jobs.get(job.account_id, job.id)
    assert stored == job.model_copy(update={"request": {}, "vars": {}})  # the job item alone
    assert jobs.with_request(stored) == job
    first = jobs.claim(job, NOW, LEASE)
    assert first is not None and (first.status, first.attempt) == (ListSendStatus.SENDING, 1)
    assert jobs.claim(job, NOW + timedelta(seconds=10), LEASE) is None  # held
    assert jobs.save(first.model_copy(update={"members": 10, "cursor": "m9@x.example"}))
    second = jobs.claim(job, NOW + LEASE + timedelta(seconds=1), LEASE)  # the first attempt died
    assert second is not None and (second.attempt, second.members, second.cursor) == (2, 10, "m9@x.example")
    assert not jobs.save(first.model_copy(update={"members": 99}))  # the dead attempt's late checkpoint
    jobs.release(second)
    third = jobs.claim(job, NOW + LEASE + timedelta(seconds=2), LEASE)  # released: claimable at once
    assert third is not None and third.attempt == 3
    assert jobs.save(third.model_copy(update={"status": ListSendStatus.DONE, "lease_until": None}))
    assert jobs.claim(job, NOW + 2 * LEASE, LEASE) is None  # done


def test_a_pending_job_fails_only_while_no_worker_took_it(stack: InProcessStack) -> None:
    jobs = DynamoListSends(wiring.client("dynamodb"), wiring.settings(Jobs).table)
    job = _job(f"acct_{uuid.uuid4().hex[:8]}")
    jobs.create(job)
    failed = job.model_copy(update={"status": ListSendStatus.FAILED, "error_message": "x", "completed_at": NOW})
    jobs.fail_pending(failed)
    stored = jobs.get(job.account_id, job.id)
    assert stored is not None and (stored.status, stored.error_message) == (ListSendStatus.FAILED, "x")
    taken = _job(job.account_id)
    jobs.create(taken)
    assert jobs.claim(taken, NOW, LEASE) is not None
    jobs.fail_pending(taken)
    after = jobs.get(taken.account_id, taken.id)
    assert after is not None and after.status is ListSendStatus.SENDING


def test_a_member_is_unsubscribed_once_with_its_audit_entry(stack: InProcessStack) -> None:
    store = DynamoLists(wiring.client("dynamodb"), wiring.settings(Resources).table)
    account_id = f"acct_{uuid.uuid4().hex[:8]}"
    mailing_list = MailingList(id=str(uuid.uuid4()), account_id=account_id, address="n@lists.example", name="N",
                               created_at=NOW)  # fmt: skip

    def audit(action: str = "list.member_unsubscribed") -> AuditEntry:
        return audit_entry(entry_id=str(uuid.uuid4()), account_id=account_id, actor=Actor.system(),
                           action=action, target=mailing_list.id, details="a", now=NOW)  # fmt: skip

    store.create_list(mailing_list, audit("list.created"), counted=False)
    address = "ann@x.example"
    member = ListMember(id=member_id(mailing_list.id, address), list_id=mailing_list.id, address=address,
                        created_at=NOW)  # fmt: skip
    store.add_member(account_id, member, audit("list.member_added"))
    assert store.unsubscribe_member(account_id, mailing_list.id, address, audit())
    assert not store.unsubscribe_member(account_id, mailing_list.id, address, audit())
    assert not store.unsubscribe_member(account_id, mailing_list.id, "nobody@x.example", audit())
    found = store.get_member(mailing_list.id, address)
    assert found is not None and found[0].subscribed is False and found[1] == 2  # a new revision
    entries, total = audit_root.audit_store().list_audit(account_id, page=1, per_page=10)
    assert total == 3  # list created, member added, one unsubscribe: the refused ones wrote none
    assert sum(entry.action == "list.member_unsubscribed" for entry in entries) == 1


def _audited() -> DynamoListSends:
    return DynamoListSends(wiring.client("dynamodb"), wiring.settings(Jobs).table, wiring.settings(Resources).table)


def _cancel_audit(account_id: str) -> AuditEntry:
    return audit_entry(entry_id=str(uuid.uuid4()), account_id=account_id, actor=Actor.system(),
                       action="list.send_cancelled", target="l1", details="cancel", now=NOW)  # fmt: skip


def _cancel_entries(account_id: str) -> list[AuditEntry]:
    entries, _ = audit_root.audit_store().list_audit(account_id, page=1, per_page=100)
    return [entry for entry in entries if entry.action == "list.send_cancelled"]


def test_a_cancel_ends_an_unheld_job_at_once_and_marks_a_held_one_for_its_attempt(stack: InProcessStack) -> None:
    jobs = _audited()
    account_id = f"acct_{uuid.uuid4().hex[:8]}"
    pending = _job(account_id)
    jobs.create(pending)
    # no attempt holds it: nothing to tell, and nothing recorded
    assert jobs.request_cancel(pending, NOW, _cancel_audit(account_id)) is None
    assert _cancel_entries(account_id) == []
    cancelled = jobs.cancel_unheld(pending, NOW, _cancel_audit(account_id))
    assert len(_cancel_entries(account_id)) == 1  # written with the move
    assert cancelled is not None and (cancelled.status, cancelled.cancel_requested_at) == (
        ListSendStatus.CANCELLED,
        NOW,
    )
    assert cancelled.completed_at == NOW and jobs.claim(pending, NOW, LEASE) is None  # the worker drops it
    assert jobs.cancel_unheld(pending, NOW, _cancel_audit(account_id)) is None  # ended: a second cancel
    assert len(_cancel_entries(account_id)) == 1  # changes nothing and records nothing

    held = _job(account_id)
    jobs.create(held)
    attempt = jobs.claim(held, NOW, LEASE)
    assert attempt is not None
    # a live lease: not at once
    assert jobs.cancel_unheld(held, NOW + timedelta(seconds=1), _cancel_audit(account_id)) is None
    cancelling = jobs.request_cancel(held, NOW + timedelta(seconds=1), _cancel_audit(account_id))
    assert cancelling is not None and cancelling.status is ListSendStatus.CANCELLING
    assert len(_cancel_entries(account_id)) == 2
    checkpoint = attempt.model_copy(update={"members": 10, "accepted": 10, "pages": 1})
    assert not jobs.save(checkpoint) and not jobs.release(checkpoint)  # the attempt's checkpoint is refused
    stale = checkpoint.model_copy(update={"attempt": 7, "status": ListSendStatus.CANCELLED})
    assert not jobs.end_cancelled(stale)  # only the attempt that holds it ends it
    assert jobs.end_cancelled(checkpoint.model_copy(update={"status": ListSendStatus.CANCELLED, "lease_until": None}))
    ended = jobs.get(account_id, held.id)
    assert ended is not None and (ended.status, ended.members, ended.accepted) == (ListSendStatus.CANCELLED, 10, 10)


def test_a_cancelling_job_whose_attempt_died_is_ended_once_its_lease_ran_out(stack: InProcessStack) -> None:
    jobs = _audited()
    account_id = f"acct_{uuid.uuid4().hex[:8]}"
    job = _job(account_id)
    jobs.create(job)
    attempt = jobs.claim(job, NOW, LEASE)
    assert attempt is not None and jobs.save(attempt.model_copy(update={"members": 5, "pages": 1}))
    assert jobs.request_cancel(job, NOW, _cancel_audit(account_id)) is None  # read before the checkpoint
    assert _cancel_entries(account_id) == []
    job = jobs.get(account_id, job.id) or job
    cancelling = jobs.request_cancel(job, NOW, _cancel_audit(account_id))
    assert cancelling is not None
    assert jobs.cancel_unheld(cancelling, NOW + LEASE - timedelta(seconds=1), _cancel_audit(account_id)) is None
    ended = jobs.cancel_unheld(cancelling, NOW + LEASE + timedelta(seconds=1), _cancel_audit(account_id))
    assert ended is not None and (ended.status, ended.members, ended.cancel_requested_at) == (
        ListSendStatus.CANCELLED, 5, NOW
    )  # fmt: skip
    assert len(_cancel_entries(account_id)) == 2  # the two moves made, one entry each


def test_a_cancel_that_fails_for_another_reason_writes_neither(stack: InProcessStack) -> None:
    """The transaction's other half failing (an audit entry whose key exists) leaves the job as it was."""
    jobs = _audited()
    account_id = f"acct_{uuid.uuid4().hex[:8]}"
    job = _job(account_id)
    jobs.create(job)
    entry = _cancel_audit(account_id)
    audit_root.audit_store().record(entry)  # the entry's item exists: a put of it would overwrite, so make it fail:
    db = wiring.client("dynamodb")
    original = db.transact_write_items

    def refusing(**request: object) -> object:
        items = request["TransactItems"]
        assert isinstance(items, list) and len(items) == 2
        items[1]["Put"]["ConditionExpression"] = "attribute_not_exists(pk)"
        return original(**request)

    db.transact_write_items = refusing
    try:
        with pytest.raises(ClientError):
            jobs.cancel_unheld(job, NOW, entry)
    finally:
        del db.transact_write_items
    stored = jobs.get(account_id, job.id)
    assert stored is not None and stored.status is ListSendStatus.PENDING
    assert len(_cancel_entries(account_id)) == 1  # only the one recorded beforehand


def test_a_checkpoint_rewrites_a_one_write_unit_item_however_large_the_request(stack: InProcessStack) -> None:
    """The content (up to 256,000 characters) is in an item of its own, written once: each page's
    checkpoint writes the job item alone, which stays under 1 KB (one write unit)."""
    client = wiring.client("dynamodb")
    table = wiring.settings(Jobs).table
    jobs = DynamoListSends(client, table)
    job = _job(f"acct_{uuid.uuid4().hex[:8]}").model_copy(
        update={"request": {"from": "a@b.example", "html": "x" * 200_000}}
    )
    assert jobs.create(job)
    claimed = jobs.claim(job, NOW, LEASE)
    assert claimed is not None
    assert jobs.save(
        claimed.model_copy(update={"members": 500, "accepted": 500, "pages": 1, "cursor": "m499@x.example"})
    )
    key = {"pk": {"S": f"JOB#{job.account_id}"}, "sk": {"S": f"LIST_SEND#{job.id}"}}
    item = client.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]
    assert "request" not in item and _item_bytes(item) < 1024
    assert jobs.with_request(claimed).request["html"] == "x" * 200_000


def _item_bytes(item: dict[str, dict[str, object]]) -> int:
    """DynamoDB's item size: attribute names plus values (strings and numbers as text; close enough
    for a bound here)."""
    return sum(len(name) + len(str(next(iter(value.values())))) for name, value in item.items())


def _page(start: int, count: int, *, failed: int = 0) -> PageResult:
    outcomes = {
        f"m{n}@x.example": Outcome.FAILED if n - start < failed else Outcome.ACCEPTED
        for n in range(start, start + count)
    }
    failures = [FailedMember(to=f"m{n}@x.example", reason="invalid_member") for n in range(start, start + failed)]
    return PageResult(outcomes=outcomes, failures=failures)


def _claimed_job(jobs: DynamoListSends) -> ListSend:
    """A new job of an account of its own, created and claimed by its first run."""
    job = _job(f"acct_{uuid.uuid4().hex[:8]}")
    jobs.create(job)
    claimed = jobs.claim(job, NOW, LEASE)
    assert claimed is not None
    return claimed


def test_page_tasks_count_each_page_once_beside_the_runs_records_and_the_last_ends_it(stack: InProcessStack) -> None:
    jobs = DynamoListSends(wiring.client("dynamodb"), wiring.settings(Jobs).table)
    claimed = _claimed_job(jobs)
    first = [PageRange(index=n, after=f"a{n}", through=f"a{n + 1}") for n in range(2)]
    led = jobs.hand_out(claimed.model_copy(update={"handed_out": 0}), first, cursor="a2", read_all=False)
    assert led is not None and (led.handed_out, led.handing_from, led.cursor, led.read_all) == (2, 0, "a2", False)
    assert jobs.handing(led) == first and jobs.handing(claimed) == []
    assert not jobs.page_counted(led, 0)
    counted = jobs.count_page(led, 0, _page(0, 500, failed=60))
    assert counted is not None and (counted.pages, counted.members, counted.accepted, counted.failed) == (
        1,
        500,
        440,
        60,
    )
    assert jobs.page_counted(led, 0)
    assert jobs.count_page(led, 0, _page(0, 500, failed=60)) is None  # redone: nothing counted twice
    last = [PageRange(index=2, after="a2", through=None)]
    ended = jobs.hand_out(led, last, cursor=None, read_all=True)  # the run's write keeps the page's counts
    assert ended is not None and (ended.handed_out, ended.read_all, ended.members) == (3, True, 500)
    assert ended.lease_until == 0 and jobs.handing(ended) == last and jobs.handing(led) == []  # the last ones
    stale = led.model_copy(update={"attempt": 0})  # an attempt before this one, late
    assert jobs.hand_out(stale, first, cursor=None, read_all=True) is None and jobs.handing(ended) == last
    jobs.count_page(counted, 1, _page(500, 500, failed=60))  # as read: room for 40 more failures
    final = jobs.count_page(ended, 2, _page(1000, 7))
    assert final is not None and (final.pages, final.members, final.accepted, final.failed) == (3, 1007, 887, 120)
    assert len(final.failed_members) == MAX_REPORTED_FAILURES
    done = jobs.end_fanned_out(final.model_copy(update={"completed_at": NOW}), ListSendStatus.DONE,
                               held={ListSendStatus.SENDING})  # fmt: skip
    assert done is not None and (done.status, done.members, done.completed_at) == (ListSendStatus.DONE, 1007, NOW)
    assert jobs.end_fanned_out(done, ListSendStatus.FAILED, held={ListSendStatus.SENDING}) is None


def test_page_tasks_that_read_the_failures_short_side_by_side_keep_the_list_bounded(stack: InProcessStack) -> None:
    jobs = DynamoListSends(wiring.client("dynamodb"), wiring.settings(Jobs).table)
    claimed = _claimed_job(jobs)
    pages = [PageRange(index=n, after=f"a{n}", through=f"a{n + 1}") for n in range(3)]
    led = jobs.hand_out(claimed.model_copy(update={"handed_out": 0}), pages, cursor="a3", read_all=True)
    assert led is not None and led.failed_members == []
    for n in range(3):  # each page task read the job before any had counted: room for 100 failures each
        counted = jobs.count_page(led, n, _page(500 * n, 500, failed=100))
        assert counted is not None and counted.pages == n + 1
    final = jobs.get(led.account_id, led.id)
    assert final is not None and (final.members, final.failed) == (1500, 300)  # every page's counts
    assert len(final.failed_members) == MAX_REPORTED_FAILURES  # the first page's; 300 before the bound
    assert jobs.count_page(led, 2, _page(1000, 500, failed=100)) is None  # and still counted once


def test_a_runs_pages_go_to_the_queue_as_page_tasks_ten_a_call(stack: InProcessStack) -> None:
    sqs = wiring.client("sqs")
    url = sqs.create_queue(QueueName=f"pages-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    queue = SqsListJobQueue(sqs, url, lambda: pytest.fail("no delayed queue"))
    pages = [PageRange(index=n, after=None if n == 0 else f"a{n}", through=f"a{n + 1}") for n in range(12)]
    queue.enqueue_pages("acct_1", "l1", "lsend_1", pages)
    got: list[ListJobMessage] = []
    while received := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages"):
        got += [ListJobMessage.model_validate_json(message["Body"]) for message in received]
        sqs.delete_message_batch(QueueUrl=url, Entries=[{"Id": m["MessageId"], "ReceiptHandle": m["ReceiptHandle"]}
                                                       for m in received])  # fmt: skip
    assert sorted((m.kind, m.send_id, m.page.index if m.page else -1) for m in got) == [
        ("send_page", "lsend_1", n) for n in range(12)
    ]
    assert {m.page.index: m.page for m in got if m.page} == {page.index: page for page in pages}
