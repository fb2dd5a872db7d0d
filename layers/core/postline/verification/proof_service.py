"""A completed bulk job's result file and its proof (proofs.py says what is signed and checked).

- package: the bulk worker's, when every result is recorded (the job is `packaging`): streams the
  results into the job's one S3 file (a multipart upload: memory flat however many rows), hashing
  the bytes as they go out, signs the fingerprint, records it in the registry. Run again after a
  crash it overwrites the same file; the same bytes find their first registry entry.
- file: GET /v3/validate/bulk/{id}/file: a short-lived download URL and the proof.
- ProofVerifier: POST /v3/validate/proofs/verify.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Iterable
from datetime import timedelta

from postline.shared.csv_files import CsvText
from postline.shared.errors import Conflict, NotFound, ValidationFailed
from postline.shared.ports import Clock
from postline.verification.bulk import BulkJob, BulkStatus
from postline.verification.models import ValidationResult
from postline.verification.ports import ProofRegistry, ProofSigner, ResultFiles
from postline.verification.proofs import (
    CSV_HEADER,
    DOWNLOAD_SECONDS,
    REGISTRY,
    BulkResultFile,
    ProofEntry,
    ProofVerificationResult,
    ProofVerifyRequest,
    ResultFile,
    check,
    csv_row,
    lookup_fingerprint,
    result_filename,
    signed_message,
)

_FLUSH_CHARS = 64 * 1024


class ProofService:
    def __init__(
        self, *, files: ResultFiles, registry: ProofRegistry, signer: Callable[[], ProofSigner], clock: Clock
    ) -> None:
        self._files = files
        self._registry = registry
        self._signer = signer  # the worker's only: the GET presigns and signs nothing
        self._clock = clock

    def package(self, job: BulkJob, results: Iterable[ValidationResult]) -> ResultFile:
        """Writes, signs and registers the job's result file; what the job records of it."""
        upload = self._files.upload(job.account_id, job.id)
        digest = hashlib.sha256()
        size = rows = 0
        text = CsvText(lineterminator="\n")  # LF: the file read as text keeps its bytes
        text.row(CSV_HEADER)

        def flush() -> None:
            nonlocal size
            data = text.take()
            digest.update(data)
            upload.write(data)
            size += len(data)

        try:
            for result in results:
                text.row(csv_row(result))
                rows += 1
                if text.pending >= _FLUSH_CHARS:
                    flush()
            flush()
            upload.complete()
        except BaseException:
            upload.abort()
            raise
        fingerprint = digest.hexdigest()
        now = self._clock.now()
        signer = self._signer()
        kid, signature = signer.sign(signed_message(fingerprint), now)
        public_key = signer.public_key(kid)
        if public_key is None:
            raise RuntimeError(f"signing key {kid} signed and then could not be found")
        entry = self._registry.register(
            ProofEntry(
                fingerprint=fingerprint,
                kid=kid,
                public_key=base64.b64encode(public_key).decode(),
                signature=base64.b64encode(signature).decode(),
                issued_at=now,
                job_id=job.id,
                account_id=job.account_id,
            )
        )
        return ResultFile(
            filename=result_filename(job.id),
            rows=rows,
            size_bytes=size,
            fingerprint=entry.fingerprint,
            kid=entry.kid,
            signature=entry.signature,
            issued_at=entry.issued_at,
        )

    def file(self, job: BulkJob) -> BulkResultFile:
        """The completed job's file: a fresh download URL and its proof."""
        if job.status is BulkStatus.DELETED:
            raise NotFound(f"The results of bulk verification job {job.id} were deleted.")
        now = self._clock.now()
        if job.expired(now):
            raise NotFound(f"The results of bulk verification job {job.id} have expired (kept 30 days).")
        if job.test:
            raise NotFound(
                "Test-mode jobs have no result file: their results are simulated and are not signed;"
                f" read them at /v3/validate/bulk/{job.id}/results."
            )
        if job.status is BulkStatus.FAILED:  # no file will ever be written: the same answer every time
            raise ValidationFailed(f"Bulk verification job {job.id} failed: it has no result file.")
        if job.status is not BulkStatus.COMPLETED or job.result_file is None:  # a retry later gets it
            raise Conflict(f"The result file is written when the job completes; it is {job.status.value}.")
        file = job.result_file
        lifetime = max(1, min(DOWNLOAD_SECONDS, int((job.results_expire_at() - now).total_seconds())))
        return BulkResultFile(
            job_id=job.id,
            filename=file.filename,
            download_url=self._files.download_url(job.account_id, job.id, file.filename, lifetime),
            expires_at=now + timedelta(seconds=lifetime),
            rows=file.rows,
            size_bytes=file.size_bytes,
            fingerprint=file.fingerprint,
            signature=file.signature,
            kid=file.kid,
            registry=REGISTRY,
            issued=file.issued_at,
        )

    def remove(self, job: BulkJob) -> None:
        """A deleted (or expired) job's file; its registry entry stays (it holds no address)."""
        self._files.remove(job.account_id, job.id)


class ProofVerifier:
    """POST /v3/validate/proofs/verify: the registry alone (no file store, no signing key)."""

    def __init__(self, registry: ProofRegistry) -> None:
        self._registry = registry

    def verify(self, request: ProofVerifyRequest) -> ProofVerificationResult:
        return check(request, self._registry.get(lookup_fingerprint(request)))
