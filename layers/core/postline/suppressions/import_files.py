"""Import files in S3 (shared/csv_files.py: the key, the stream, the presigned upload), as the
import jobs ask for them: a job's file from its checkpoint on."""

from __future__ import annotations

from typing import Any

from postline.shared.csv_files import CountedLines, S3CsvFiles
from postline.suppressions.imports import SuppressionImport


class S3ImportFiles:
    def __init__(self, s3: Any, bucket: str) -> None:
        self._files = S3CsvFiles(s3, bucket)

    def store(self, account_id: str, import_id: str, data: bytes) -> None:
        self._files.store(account_id, import_id, data)

    def upload_url(self, account_id: str, import_id: str, expires_in: int) -> str:
        return self._files.upload_url(account_id, import_id, expires_in)

    def size(self, job: SuppressionImport) -> int | None:
        return self._files.size(job.account_id, job.id)

    def lines(self, job: SuppressionImport) -> CountedLines:
        """The file from the job's checkpoint on (nothing once it was read whole)."""
        return self._files.lines(job.account_id, job.id, job.offset, job.size_bytes)
