"""Data removals against the fakes of their ports: the request, the worker's bounded and resumable
batches (exact counts whatever dies when), the signed receipt, the organisation form, and the
pure rules (scrubbing, masking, the forms an address takes in stored text)."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from urllib.parse import quote

import pytest
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey
from pydantic import ValidationError

from postline.accounts.domain import Account
from postline.data_removals.domain import (
    MAX_ATTEMPTS,
    STEPS,
    erasure_token,
    file_mentions,
    mask,
    mentions,
    scrub,
)
from postline.data_removals.models import DataRemovalBatchAccepted, DataRemovalRequest
from postline.data_removals.service import LEASE, DataRemovalService, DataRemovalWorker, RemovalBusyError
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.shared.errors import Forbidden, NotFound
from tests.fakes.data_removals import (
    Ed25519Signer,
    FixedOrganisation,
    HmacAddressHasher,
    InMemoryHolding,
    InMemoryRemovalJobs,
    ListRemovalQueue,
)
from tests.fakes.shared import DEFAULT_START, Faulty, FixedClock, SequentialIds

ADDRESS = "ann@example.com"
COUNT_OF = {"messages": "events", "verifications": "verifications", "files": "exports_purged"}


def principal(account_id: str = "acct_1", parent: str | None = None) -> Principal:
    account = Account(id=account_id, parent_account_id=parent, created_at=DEFAULT_START)
    return Principal(account=account, scope=Scope.FULL_ACCESS, env=Environment.LIVE, key=None, user_id="user_1")


@dataclass
class World:
    jobs: InMemoryRemovalJobs = field(default_factory=InMemoryRemovalJobs)
    queue: ListRemovalQueue = field(default_factory=ListRemovalQueue)
    clock: FixedClock = field(default_factory=FixedClock)
    ids: SequentialIds = field(default_factory=SequentialIds)
    signer: Ed25519Signer = field(default_factory=Ed25519Signer)
    organisation: FixedOrganisation = field(default_factory=FixedOrganisation)
    holdings: dict[str, InMemoryHolding] = field(
        default_factory=lambda: {step: InMemoryHolding(COUNT_OF.get(step, "events")) for step in STEPS}
    )

    @property
    def service(self) -> DataRemovalService:
        return DataRemovalService(
            jobs=self.jobs,
            queue=self.queue,
            hasher=HmacAddressHasher(),
            organisation=self.organisation,
            ids=self.ids,
            clock=self.clock,
        )

    def worker(self, **holdings: object) -> DataRemovalWorker:
        return DataRemovalWorker(
            jobs=self.jobs,
            queue=self.queue,
            holdings={**self.holdings, **holdings},  # type: ignore[dict-item]
            signer=self.signer,
            ids=self.ids,
            clock=self.clock,
        )

    def request(self, email: str = ADDRESS, **fields: object) -> str:
        accepted = self.service.request(principal(), DataRemovalRequest.model_validate({"email": email, **fields}))
        assert not isinstance(accepted, DataRemovalBatchAccepted)
        return accepted.removal_id


def plenty() -> float:
    return 900.0


def seeded(world: World, account_id: str = "acct_1") -> None:
    """Five events and three messages of the address, one export file and one verification."""
    world.holdings["messages"].hold(account_id, ADDRESS, *[f"evt{n}" for n in range(5)])
    world.holdings["verifications"].hold(account_id, ADDRESS, "activity")
    world.holdings["files"].hold(account_id, ADDRESS, "exports/file.csv")


# -- the request ------------------------------------------------------------------------------------


def test_a_request_stores_a_pending_audited_job_and_queues_it() -> None:
    world = World()
    removal_id = world.request("Ann@Example.com")
    job = world.jobs.get("acct_1", removal_id)
    assert job is not None and job.status == "pending" and job.email == ADDRESS
    assert job.masked == "a***@e***.com" and job.accounts == ["acct_1"]
    assert job.address_hash == HmacAddressHasher().hash("acct_1", ADDRESS)
    assert world.queue.queued == [("acct_1", removal_id)]
    (audit,) = world.jobs.audits
    assert (audit.action, audit.target, audit.actor_id) == ("data_removal.requested", removal_id, "user_1")
    view = world.service.get(principal(), removal_id)
    assert (view.status, view.email, view.counts, view.receipt) == ("pending", ADDRESS, None, None)
    with pytest.raises(NotFound):
        world.service.get(principal("acct_2"), removal_id)


def test_the_batch_form_makes_one_removal_per_distinct_address() -> None:
    world = World()
    request = DataRemovalRequest(emails=["a@example.com", "B@example.com", "b@example.com"])
    accepted = world.service.request(principal(), request)
    assert isinstance(accepted, DataRemovalBatchAccepted)
    assert [item.status for item in accepted.items] == ["pending", "pending"]
    assert len(world.queue.queued) == 2


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "either email or emails"),
        ({"email": "a@example.com", "emails": ["b@example.com"]}, "either email or emails"),
        ({"emails": []}, "at least 1 item"),
        ({"email": "nope"}, "email"),
    ],
)
def test_a_request_names_its_addresses_one_way(body: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        DataRemovalRequest.model_validate(body)


def test_a_parent_erases_across_its_subaccounts_and_a_subaccount_cannot() -> None:
    world = World(organisation=FixedOrganisation({"acct_1": ["acct_sub1", "acct_sub2"]}))
    removal_id = world.request(include_subaccounts=True)
    job = world.jobs.get("acct_1", removal_id)
    assert job is not None and job.accounts == ["acct_1", "acct_sub1", "acct_sub2"]
    assert len(set(job.hashes.values())) == 3  # the same address hashes apart in each account
    with pytest.raises(Forbidden) as refused:
        world.service.request(
            principal("acct_sub1", parent="acct_1"), DataRemovalRequest(email=ADDRESS, include_subaccounts=True)
        )
    assert refused.value.code == "not_a_parent"

    for account_id in job.accounts:
        seeded(world, account_id)
    done = world.worker().run("acct_1", removal_id, receive_count=1, time_left=plenty)
    assert done is not None and done.status == "done"
    assert done.counts.events == 15 and done.counts.exports_purged == 3
    assert all(world.holdings["messages"].held(account, ADDRESS) == [] for account in job.accounts)


# -- the worker -------------------------------------------------------------------------------------


def test_a_removal_erases_every_holding_counts_it_and_signs_a_receipt() -> None:
    world = World()
    seeded(world)
    world.holdings["messages"].hold("acct_2", ADDRESS, "other-account")  # not this account's
    removal_id = world.request()
    world.clock.advance(5)

    done = world.worker().run("acct_1", removal_id, receive_count=1, time_left=plenty)

    assert done is not None and done.status == "done" and done.email is None
    assert done.counts.model_dump() == {
        "messages": 0,
        "events": 5,
        "verifications": 1,
        "upload_downloads": 0,
        "dek_tombstoned": 0,
        "body_deks_destroyed": 0,
        "exports_purged": 1,
        "already_erased": False,
    }
    assert world.holdings["messages"].held("acct_2", ADDRESS) == ["other-account"]
    view = world.service.get(principal(), removal_id)
    assert view.email == "a***@e***.com" and view.counts == done.counts and view.completed_at == world.clock.now()
    assert view.receipt is not None
    payload = view.receipt.payload.encode()
    VerifyKey(base64.urlsafe_b64decode(view.receipt.public_key + "==")).verify(
        payload, base64.b64decode(view.receipt.signature)
    )
    stated = json.loads(payload)
    assert stated["counts"] == done.counts.model_dump() and ADDRESS not in view.receipt.payload
    assert stated["address_hash"] == view.address_hash == f"hmac-sha256:{done.address_hash}"
    with pytest.raises(BadSignatureError):
        VerifyKey(bytes(world.signer.key.verify_key)).verify(
            payload.replace(b'"events":5', b'"events":4'), base64.b64decode(view.receipt.signature)
        )
    assert [entry.action for entry in world.jobs.audits] == ["data_removal.requested", "data_removal.completed"]
    assert world.jobs.audits[-1].actor_type == "system"

    again = world.request()
    repeated = world.worker().run("acct_1", again, receive_count=1, time_left=plenty)
    assert repeated is not None and repeated.counts.already_erased is True and repeated.counts.events == 0


def test_a_run_stops_before_its_time_runs_out_and_the_next_run_goes_on() -> None:
    world = World()
    seeded(world)
    removal_id = world.request()
    world.queue.queued.clear()
    budget = iter([900.0, 900.0, 5.0])  # two batches, then too little time left

    first = world.worker().run("acct_1", removal_id, receive_count=1, time_left=lambda: next(budget, 5.0))

    assert first is not None and first.status == "processing" and first.counts.events == 4
    assert world.queue.queued == [("acct_1", removal_id)]  # queued again, its lease given back
    done = world.worker().run("acct_1", removal_id, receive_count=1, time_left=plenty)
    assert done is not None and done.status == "done" and done.counts.events == 5


def test_a_run_that_dies_after_saving_a_batch_erases_it_next_time_and_counts_it_once() -> None:
    world = World()
    seeded(world)
    removal_id = world.request()
    messages = world.holdings["messages"]
    with pytest.raises(ConnectionError):
        world.worker(messages=Faulty(messages, "apply")).run("acct_1", removal_id, receive_count=1, time_left=plenty)
    stored = world.jobs.get("acct_1", removal_id)
    assert stored is not None and stored.pending is not None and stored.counts.events == 2
    assert len(messages.held("acct_1", ADDRESS)) == 5  # counted and saved, not erased yet

    with pytest.raises(RemovalBusyError):  # its lease still holds
        world.worker().run("acct_1", removal_id, receive_count=2, time_left=plenty)
    world.clock.advance(LEASE.total_seconds() + 1)
    done = world.worker().run("acct_1", removal_id, receive_count=2, time_left=plenty)
    assert done is not None and done.status == "done" and done.counts.events == 5


def test_a_run_that_dies_while_finding_counts_nothing_of_it() -> None:
    world = World()
    seeded(world)
    removal_id = world.request()
    files = world.holdings["files"]
    with pytest.raises(ConnectionError):
        world.worker(files=Faulty(files, "find")).run("acct_1", removal_id, receive_count=1, time_left=plenty)
    world.clock.advance(LEASE.total_seconds() + 1)
    done = world.worker().run("acct_1", removal_id, receive_count=2, time_left=plenty)
    assert done is not None and (done.counts.events, done.counts.exports_purged) == (5, 1)


def test_a_removal_that_keeps_failing_ends_failed_without_its_address() -> None:
    world = World()
    seeded(world)
    removal_id = world.request()
    failing = Faulty(world.holdings["messages"], "find", times=None)
    for attempt in range(1, MAX_ATTEMPTS):
        with pytest.raises(ConnectionError):
            world.worker(messages=failing).run("acct_1", removal_id, receive_count=attempt, time_left=plenty)
        world.clock.advance(LEASE.total_seconds() + 1)
    failed = world.worker(messages=failing).run("acct_1", removal_id, receive_count=MAX_ATTEMPTS, time_left=plenty)
    assert failed is not None and failed.status == "failed" and failed.email is None and failed.error
    assert world.jobs.audits[-1].action == "data_removal.failed"
    assert world.service.get(principal(), removal_id).email == "a***@e***.com"


def test_a_worker_needs_a_holding_for_every_step() -> None:
    world = World()
    with pytest.raises(ValueError, match="uploads"):
        DataRemovalWorker(
            jobs=world.jobs,
            queue=world.queue,
            holdings={step: world.holdings[step] for step in STEPS if step != "uploads"},
            signer=world.signer,
            ids=world.ids,
            clock=world.clock,
        )


# -- the pure rules -----------------------------------------------------------------------------------


def test_scrub_replaces_every_form_of_the_address_keys_included() -> None:
    token = erasure_token("ab" * 32)
    item = {
        "to": {"L": [{"S": "Ann@Example.com"}, {"S": "bo@example.com"}]},
        "recipients": {"M": {"ann@example.com": {"S": "delivered"}}},
        "url": {"S": f"https://x.test/?e={quote(ADDRESS, safe='')}"},
        "n": {"N": "3"},
    }
    scrubbed, changed = scrub(item, ADDRESS, token)
    assert changed and not mentions(json.dumps(scrubbed), ADDRESS)
    assert scrubbed["to"]["L"] == [{"S": token}, {"S": "bo@example.com"}]
    assert scrubbed["recipients"]["M"] == {token: {"S": "delivered"}} and scrubbed["n"] == {"N": "3"}
    assert scrub({"to": {"S": "bo@example.com"}}, ADDRESS, token) == ({"to": {"S": "bo@example.com"}}, False)
    assert token.endswith("@erased.invalid") and ("ab" * 12) in token


def test_masks_and_the_forms_files_are_searched_for() -> None:
    assert mask("ann@example.com") == "a***@e***.com"
    assert mask("x@localhost") == "x***@l***"
    assert file_mentions(b"id,recipient\n1,ANN@example.com\n", ADDRESS)
    for prefix in (b"", b"x", b"xy"):  # each alignment of the address in a base64 stream
        encoded = base64.b64encode(b"To: " + prefix + ADDRESS.upper().encode() + b"\r\n")
        assert not file_mentions(encoded, ADDRESS)  # another case is other bytes: not this form
        encoded = base64.b64encode(b"To: " + prefix + ADDRESS.encode() + b"\r\n")
        assert file_mentions(b"Content-Transfer-Encoding: base64\n\n" + encoded, ADDRESS)
    assert not file_mentions(b"id,recipient\n1,bo@example.com\n", ADDRESS)
