"""Bulk verification: start a job (POST /v3/validate/bulk), read it and its results, and the
queue worker that checks one chunk at a time.

Live jobs run on the queue: each chunk's addresses are checked (DNS once per domain per worker,
the catch-all answer cached per domain as for single checks) and each result recorded with its
credit in one transaction (bulk_store.py), so a chunk run again after a crash skips what was
recorded and charges nothing twice. When the credits run out the job is `paused`. Test-mode jobs
are answered in the POST from the key's weights, against the test allowance, with no network.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from postline.keys.access import Environment
from postline.keys.identity import Principal
from postline.shared.csv_files import UPLOAD_WINDOW, text_lines
from postline.shared.errors import Conflict, NotFound, PaymentRequired, ValidationFailed
from postline.shared.ports import Clock, IdFactory
from postline.shared.verification_results import VerificationResult
from postline.usage.domain import month_key
from postline.verification.bulk import (
    JOBS_PER_MINUTE,
    MAX_ADDRESSES,
    BulkCreate,
    BulkJob,
    BulkResultsPage,
    BulkStatus,
    BulkVerificationJob,
    BulkVerificationJobAccepted,
    ChunkMessage,
    Recorded,
    chunked_by_domain,
    distinct,
)
from postline.verification.bulk_csv import BadFileError, CsvAddresses
from postline.verification.models import ValidationResult
from postline.verification.ports import BulkJobs, BulkQueue, Completion, Credits, CsvFiles, Proofs
from postline.verification.proofs import BulkResultFile
from postline.verification.service import ValidationService, allowance_refusal, window_refusal

RECORD_GROUP = 25  # results recorded in one transaction (27 items with the job's and the credits')
PAUSED_MESSAGE = "The account's verification credits ran out; the job resumes when credits are added."
NO_UPLOAD = "No file was uploaded to the job's upload_url within the hour; start it again."
NO_ADDRESSES = "The file has no address to verify (see `errors`)."
CSV_NAME = "list.csv"  # a CSV job's filename when the request names none


class BulkVerificationService:
    def __init__(
        self,
        *,
        jobs: BulkJobs,
        queue: BulkQueue,
        credits: Credits,
        checker: Callable[[], ValidationService],
        verify_limit: Callable[[str], int | None],
        check_webhook_url: Callable[[str], None],
        completion: Callable[[], Completion],
        proofs: Callable[[], Proofs],
        files: Callable[[], CsvFiles],
        ids: IdFactory,
        clock: Clock,
    ) -> None:
        self._jobs = jobs
        self._queue = queue
        self._credits = credits
        self._checker = checker
        self._verify_limit = verify_limit
        self._check_webhook_url = check_webhook_url  # raises ValidationFailed
        self._completion = completion  # the worker's: suppress and the webhook (bulk_completion.py)
        self._proofs = proofs  # the result file and its proof (proof_service.py)
        self._files = files  # CSV jobs' files (bulk_csv.py reads them)
        self._ids = ids
        self._clock = clock

    def start(self, principal: Principal, request: BulkCreate) -> BulkVerificationJobAccepted:
        now = self._clock.now()
        account = principal.account
        self._admit(account.id, now)
        test = principal.env is Environment.TEST
        if test and request.suppress:
            raise ValidationFailed(
                "suppress needs a live key: test-mode results are simulated and must not block real addresses."
            )
        if request.webhook_url is not None:
            self._check_webhook_url(str(request.webhook_url))
        job = BulkJob(
            id=self._ids.new_id("vjob_"),
            account_id=account.id,
            status=BulkStatus.QUEUED,
            test=test,
            total_count=0,
            chunks=0,
            webhook_url=str(request.webhook_url) if request.webhook_url else None,
            suppress=request.suppress,
            created_at=now,
        )
        if request.emails is None:
            return self._start_file(principal, job.model_copy(update={"filename": request.filename or CSV_NAME}),
                                    request.csv, now)  # fmt: skip
        addresses = distinct(request.emails)
        chunks = chunked_by_domain(addresses)
        job = job.model_copy(update={"total_count": len(addresses), "chunks": len(chunks)})
        if test:
            return self._run_test_job(principal, job, addresses, now)
        self._require_credits(principal, now)
        self._jobs.create(job, chunks)
        self._queue_chunks(job)
        return BulkVerificationJobAccepted(
            job_id=job.id,
            status=job.status,
            total_count=job.total_count,
            message=f"Queued: {job.total_count} distinct addresses in {job.chunks} chunks.",
        )

    def _start_file(
        self, principal: Principal, job: BulkJob, text: str | None, now: datetime
    ) -> BulkVerificationJobAccepted:
        """A CSV job: test mode reads the body's file in the request; a live job's file is stored
        (or its upload awaited) and read by the worker."""
        if job.test:
            if text is None:
                raise ValidationFailed("Test-mode jobs complete in the request: send the file's text in `csv`.")
            reading = CsvAddresses(text_lines(text))  # read as a live job's stored file is
            try:
                pairs = sorted(pair for chunk in reading.chunks() for pair in chunk)
            except BadFileError as error:
                raise ValidationFailed(str(error)) from error
            if not pairs:
                raise ValidationFailed(NO_ADDRESSES.replace(" (see `errors`)", ""))
            if len(pairs) > MAX_ADDRESSES:
                raise ValidationFailed(f"A test-mode job takes up to {MAX_ADDRESSES:,} distinct addresses.")
            read = job.model_copy(update={"total_count": len(pairs), "skipped": reading.skipped,
                                          "errors": reading.errors})  # fmt: skip
            return self._run_test_job(principal, read, [address for _, address in pairs], now)
        self._require_credits(principal, now)
        files = self._files()
        if text is not None:
            files.store(job.account_id, job.id, text.encode())
            pending = job.model_copy(update={"status": BulkStatus.PENDING})
            self._jobs.create(pending, [])
            self._queue_read(pending)
            return BulkVerificationJobAccepted(
                job_id=pending.id,
                status=pending.status,
                total_count=0,
                message="Pending: the file is read into chunks, then queued; total_count is set then.",
            )
        uploading = job.model_copy(update={"status": BulkStatus.UPLOADING, "upload_expires_at": now + UPLOAD_WINDOW})
        url = files.upload_url(job.account_id, job.id, int(UPLOAD_WINDOW.total_seconds()))
        self._jobs.create(uploading, [])
        return BulkVerificationJobAccepted(
            job_id=uploading.id,
            status=uploading.status,
            total_count=0,
            message="Uploading: PUT the file to upload_url, then GET the job (the first GET that finds it queues it).",
            upload_url=url,
            upload_expires_at=uploading.upload_expires_at,
        )

    def _require_credits(self, principal: Principal, now: datetime) -> None:
        account = principal.account
        limit = account.limits.verify_credits
        if limit is not None and self._credits.used_verifications(account.id, month=month_key(now)) >= limit:
            raise PaymentRequired("No verification credits left this period; nothing was queued.")

    def _queue_chunks(self, job: BulkJob) -> None:
        try:
            self._queue.enqueue(job)
        except Exception:
            # Not left `queued` forever: failed, and the chunks already sent find it so and stop.
            self._jobs.move(
                job,
                {BulkStatus.QUEUED, BulkStatus.PROCESSING},
                BulkStatus.FAILED,
                error_message="The job could not be queued; start it again.",
            )
            raise

    def _queue_read(self, job: BulkJob) -> None:
        try:
            self._queue.enqueue_read(job)
        except Exception:
            self._jobs.move(job, {BulkStatus.PENDING}, BulkStatus.FAILED,
                            error_message="The job could not be queued; start it again.")  # fmt: skip
            raise

    def get(self, principal: Principal, job_id: str) -> BulkVerificationJob:
        job = self._job(principal, job_id)
        if job.status is BulkStatus.UPLOADING:
            job = self._look_for_upload(job)
        return BulkVerificationJob.of(job, self._clock.now())

    def _look_for_upload(self, job: BulkJob) -> BulkJob:
        """The first poll that finds the presigned upload's file queues the job's reading (the
        message before the status: a worker that reads it first moves the job on itself; two polls
        at once queue it twice, and the worker reads it once); past the upload window without a
        file, the job fails."""
        now = self._clock.now()
        if self._files().size(job.account_id, job.id) is not None:
            self._queue.enqueue_read(job)
            return (
                self._jobs.move(job, {BulkStatus.UPLOADING}, BulkStatus.PENDING)
                or self._jobs.get(job.account_id, job.id)
                or job
            )
        if job.upload_expires_at is not None and now >= job.upload_expires_at:
            failed = self._jobs.move(job, {BulkStatus.UPLOADING}, BulkStatus.FAILED, error_message=NO_UPLOAD,
                                     completed_at=now.isoformat())  # fmt: skip
            return failed or self._jobs.get(job.account_id, job.id) or job
        return job

    def results(self, principal: Principal, job_id: str, *, page: int, limit: int) -> BulkResultsPage:
        job = self._job(principal, job_id)
        if job.status is BulkStatus.DELETED:
            raise NotFound(f"The results of bulk verification job {job_id} were deleted.")
        if job.expired(self._clock.now()):
            raise NotFound(f"The results of bulk verification job {job_id} have expired (kept 30 days).")
        items = self._jobs.results(job, page=page, limit=limit)
        return BulkResultsPage(items=items, total=job.total_count, page=page, limit=limit)

    def file(self, principal: Principal, job_id: str) -> BulkResultFile:
        """The completed job's result file: a short-lived download URL and its proof."""
        return self._proofs().file(self._job(principal, job_id))

    def delete(self, principal: Principal, job_id: str) -> BulkVerificationJob:
        """Any status -> deleted: the job stops where it is (a chunk under way records nothing
        more), its results are no longer served, and the worker removes them. Deleting a deleted
        job answers it again."""
        job = self._job(principal, job_id)
        if job.status is not BulkStatus.DELETED:
            others = set(BulkStatus) - {BulkStatus.DELETED}
            moved = self._jobs.move(job, others, BulkStatus.DELETED, deleted_at=self._clock.now().isoformat())
            job = moved or self._job(principal, job_id)
        self._queue.enqueue_purge(job)  # again on a repeated DELETE: a purge that failed is retried
        return BulkVerificationJob.of(job, self._clock.now())

    # -- the worker -----------------------------------------------------------------------------

    def run_chunk(self, message: ChunkMessage) -> None:
        job = self._jobs.get(message.account_id, message.job_id)
        if job is not None and job.status is BulkStatus.DELETED:
            if message.purge:
                self._jobs.purge(job)
                if not job.test:
                    self._proofs().remove(job)
                    if job.filename is not None:
                        self._files().remove(job.account_id, job.id)
            return
        if job is not None and job.status is BulkStatus.COMPLETED:
            self._complete(job)  # a redelivery after the job completed: its effects, if still owed
            return
        if message.read_file:
            if job is not None:
                self._read_file(job)
            return
        if message.resume_token is not None:
            if job is not None:
                self._check_credits(job, message.resume_token)
            return
        if job is not None and job.status is BulkStatus.CATCH_ALL_PROCESSING:
            self._score_catch_alls(job)  # the run that began scoring died: score again
            return
        if job is not None and job.status is BulkStatus.PACKAGING:
            self._package(job)  # the run that began packaging died: write the file again
            return
        if job is None or job.status not in (BulkStatus.QUEUED, BulkStatus.PROCESSING):
            return  # gone, failed or paused: nothing to do
        job = self._jobs.move(job, {BulkStatus.QUEUED}, BulkStatus.PROCESSING) or job
        pairs = self._jobs.chunk(job, message.chunk)
        done = self._jobs.recorded(job, [index for index, _ in pairs])
        checker = self._checker()
        limit = self._verify_limit(job.account_id)
        history = checker.known(job.account_id, [address for index, address in pairs if index not in done])
        group: list[tuple[int, ValidationResult]] = []
        for index, address in pairs:
            if index in done:
                continue
            group.append((index, checker.check_address(job.account_id, address, self._clock.now(), history)))
            if len(group) >= RECORD_GROUP:
                if not self._record(job, group, limit):
                    return
                group = []
        if group and not self._record(job, group, limit):
            return
        finished = self._jobs.finish_if_done(job)
        if finished is not None:
            self._score_catch_alls(finished)

    def _record(self, job: BulkJob, group: list[tuple[int, ValidationResult]], limit: int | None) -> bool:
        """A group of results recorded in one transaction (bulk_store.record_many), or, when one of
        them was recorded before or the month has fewer credits left than the group, one at a time,
        pausing the job at the first without a credit. False when the job stops here (deleted or
        paused meanwhile, or paused now)."""
        month = month_key(self._clock.now())
        outcome = self._jobs.record_many(job, group, month=month, limit=limit)
        if outcome is not None:
            return outcome is Recorded.NEW
        for index, result in group:
            outcome = self._jobs.record(job, index, result, month=month, limit=limit)
            if outcome is Recorded.STOPPED:
                return False  # deleted or paused while this chunk ran
            if outcome is Recorded.NO_CREDITS:
                token = self._ids.new_id("resume_")
                paused = self._jobs.move(
                    job,
                    {BulkStatus.PROCESSING},
                    BulkStatus.PAUSED,
                    error_message=PAUSED_MESSAGE,
                    resume_token=token,
                )
                if paused is not None:  # the chunk that paused it starts the job's one chain of checks
                    self._queue.enqueue_resume_check(paused, token)
                return False
        return True

    def _score_catch_alls(self, job: BulkJob) -> None:
        """catch_all_processing -> packaging: each catch-all result scored with the account's
        history of the address (catch_all.py), then the file. Scoring is idempotent, so a run cut
        short is run again whole by the message's redelivery; a job deleted meanwhile gets none of
        its results written back and does not move on."""
        if job.summary.get(VerificationResult.CATCH_ALL.value, 0):
            checker = self._checker()
            for index, result in self._jobs.indexed_results(job):
                if result.status is VerificationResult.CATCH_ALL:
                    scored = checker.score_catch_all(job.account_id, result)
                    if scored != result and not self._jobs.rewrite_result(job, index, scored):
                        return  # purged: the job was deleted
        packaging = self._jobs.move(job, {BulkStatus.CATCH_ALL_PROCESSING}, BulkStatus.PACKAGING)
        if packaging is not None:
            self._package(packaging)

    def _read_file(self, job: BulkJob) -> None:
        """A CSV job's file, read as a stream into its chunks (bulk_csv.py), then the job queued
        with its counts and the chunks' messages sent. Run again (a worker died, a second poll's
        message), the same file gives the same chunks, written over themselves; only the run that
        moves the job to `queued` sends the chunks. A message finding the job queued but nothing
        processed (the run that queued it died before sending) sends them again: a chunk run twice
        records and charges nothing twice."""
        if job.status is BulkStatus.QUEUED and job.processed_count == 0:
            self._queue_chunks(job)
            return
        if job.status not in (BulkStatus.UPLOADING, BulkStatus.PENDING):
            return
        files = self._files()
        if files.size(job.account_id, job.id) is None:
            return  # no file yet: the poll that finds it queues the reading again
        reading = CsvAddresses(files.lines(job.account_id, job.id))
        try:
            count = self._jobs.write_chunks(job, reading.chunks())
        except BadFileError as error:
            self._fail_file(job, str(error), reading)
            return
        if reading.distinct == 0:
            self._fail_file(job, NO_ADDRESSES, reading)
            return
        queued = self._jobs.move(
            job,
            {BulkStatus.UPLOADING, BulkStatus.PENDING},
            BulkStatus.QUEUED,
            total_count=reading.distinct,
            chunks=count,
            skipped=reading.skipped,
            errors=[error.model_dump(mode="json") for error in reading.errors],
        )
        if queued is not None:
            self._queue_chunks(queued)

    def _fail_file(self, job: BulkJob, message: str, reading: CsvAddresses) -> None:
        self._jobs.move(
            job,
            {BulkStatus.UPLOADING, BulkStatus.PENDING},
            BulkStatus.FAILED,
            error_message=message,
            skipped=reading.skipped,
            errors=[error.model_dump(mode="json") for error in reading.errors],
            completed_at=self._clock.now().isoformat(),
        )

    def _check_credits(self, job: BulkJob, token: str) -> None:
        """A paused job's credit check. Credits again (a higher plan, a new month): processing,
        and every chunk queued again (what was recorded is skipped, so nothing is charged twice).
        None yet: the next check, with a new token, RESUME_CHECK_SECONDS on. A check whose token is
        not the job's (a duplicate delivery, a job resumed, deleted or expired) ends its chain."""
        now = self._clock.now()
        if job.status is not BulkStatus.PAUSED or job.resume_token != token or job.expired(now):
            return
        if not self._has_credits(job.account_id, now):
            following = self._ids.new_id("resume_")
            if self._jobs.pass_resume_check(job, token, BulkStatus.PAUSED, following) is not None:
                self._queue.enqueue_resume_check(job, following)
            return
        self._resume(job, token)

    def resume(self, account_id: str, job_id: str) -> BulkVerificationJob:
        """The operator's `postline verify resume`: a paused job resumed now, not at its next
        credit check (up to RESUME_CHECK_SECONDS away), once the account has credits again. It
        passes the job's current check under its token, so the pending check finds the token
        gone and ends the chain. A job that is not paused: ValidationFailed; still no credit: PaymentRequired
        (insufficient_credits); a credit check that resumed it meanwhile: Conflict."""
        job = self._jobs.get(account_id, job_id)
        if job is None:
            raise NotFound(f"No bulk verification job {job_id} in account {account_id}.")
        now = self._clock.now()
        if job.status is not BulkStatus.PAUSED or job.resume_token is None or job.expired(now):
            shown = BulkVerificationJob.of(job, now).status.value
            raise ValidationFailed(f"Bulk verification job {job_id} is {shown}: only a paused job resumes.")
        if not self._has_credits(account_id, now):
            raise PaymentRequired(
                f"Account {account_id} has no verification credits left this month; "
                "add some first (postline account set-plan)."
            )
        resumed = self._resume(job, job.resume_token)
        if resumed is None:  # a credit check passed it meanwhile
            raise Conflict(f"Bulk verification job {job_id} moved meanwhile; show it again.")
        return BulkVerificationJob.of(resumed, now)

    def _has_credits(self, account_id: str, now: datetime) -> bool:
        limit = self._verify_limit(account_id)
        return limit is None or self._credits.used_verifications(account_id, month=month_key(now)) < limit

    def _resume(self, job: BulkJob, token: str) -> BulkJob | None:
        """paused -> processing under `token`, and every chunk queued again (what was recorded is
        skipped, so nothing is charged twice); None when the token is no longer the job's."""
        resumed = self._jobs.pass_resume_check(job, token, BulkStatus.PROCESSING, None)
        if resumed is None:
            return None
        try:
            self._queue.enqueue(resumed)
        except Exception:
            # Paused again under the same token: the check holding it (a redelivery, or the chain's
            # pending one when the operator asked) checks again.
            self._jobs.move(resumed, {BulkStatus.PROCESSING}, BulkStatus.PAUSED, error_message=PAUSED_MESSAGE,
                            resume_token=token)  # fmt: skip
            raise
        return resumed

    def _package(self, job: BulkJob) -> None:
        """packaging -> completed: the signed result file first, then the status with it (a
        worker dying between leaves the job `packaging`; the message's redelivery packages it
        again, overwriting the same file), then the completion's effects."""
        result_file = self._proofs().package(job, self._jobs.all_results(job))
        completed = self._jobs.complete(job, self._clock.now(), result_file)
        if completed is not None:
            self._complete(completed)

    def _complete(self, job: BulkJob) -> None:
        """The completed job's suppress and webhook_url, once: both are idempotent, and the job
        records that they were done only after both, so a worker dying here leaves them to the
        message's next delivery."""
        if job.effects_done or not (job.suppress or job.webhook_url):
            return
        self._completion().run(job)
        self._jobs.move(job, {BulkStatus.COMPLETED}, BulkStatus.COMPLETED, effects_done=True)

    # -- inside ---------------------------------------------------------------------------------

    def _run_test_job(
        self, principal: Principal, job: BulkJob, addresses: list[str], now: datetime
    ) -> BulkVerificationJobAccepted:
        account = principal.account
        month = month_key(now)
        allowance = account.limits.test_allowance
        if not self._credits.consume_verification(
            account.id, month=month, limit=allowance, test=True, count=len(addresses)
        ):
            raise allowance_refusal(allowance, now, what="This job")
        weights = principal.key.test_outcomes.verify if principal.key and principal.key.test_outcomes else None
        checker = self._checker()
        results = [(i, checker.simulate_address(account.id, a, weights)) for i, a in enumerate(addresses)]
        summary = dict(job.summary)
        for _, result in results:
            summary[result.status.value] += 1
        done = job.model_copy(
            update={
                "status": BulkStatus.COMPLETED,
                "processed_count": len(results),
                "summary": summary,
                "completed_at": now,
                "chunks": 0,
            }
        )
        self._jobs.create(done, [])
        self._jobs.store_results(done, results)
        if done.webhook_url:
            self._queue.enqueue_completion(done)  # the worker POSTs it, with the retry schedule
        return BulkVerificationJobAccepted(
            job_id=done.id,
            status=done.status,
            total_count=done.total_count,
            message="Test mode: completed synchronously from the key's verify weights.",
        )

    def _admit(self, account_id: str, now: datetime) -> None:
        refusal = window_refusal(
            self._credits, account_id, now, route="validate_bulk", limit=JOBS_PER_MINUTE, what="POST /v3/validate/bulk"
        )
        if refusal is not None:
            raise refusal

    def _job(self, principal: Principal, job_id: str) -> BulkJob:
        job = self._jobs.get(principal.account.id, job_id)
        if job is None:
            raise NotFound(f"No bulk verification job {job_id}.")
        return job
