"""Import files in S3.

    s3://<ExportsBucket>/imports/<account>/<import id>.csv

The file is read as a stream from a byte offset (a ranged GET), one line at a time, so a worker's
memory stays flat whatever the file's size, and a resumed job reads on from its checkpoint. The
bucket's lifecycle rule deletes imports/ after 7 days.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from botocore.exceptions import ClientError

from postline.suppressions.imports import SuppressionImport

READ_SIZE = 64 * 1024


def import_key(account_id: str, import_id: str) -> str:
    return f"imports/{account_id}/{import_id}.csv"


class CountedLines:
    """Text lines of a byte stream, line ends kept, with the bytes handed out so far: after the csv
    module yields a row, `consumed` is where the next record starts (it reads no further ahead)."""

    def __init__(self, chunks: Iterator[bytes], start: int) -> None:
        self._chunks = chunks
        self.consumed = start
        self._first = start == 0

    def __iter__(self) -> Iterator[str]:
        pending = b""
        for data in self._chunks:
            pending += data
            begin = 0
            while (end := pending.find(b"\n", begin)) >= 0:
                yield self._line(pending[begin : end + 1])
                begin = end + 1
            pending = pending[begin:]
        if pending:
            yield self._line(pending)

    def _line(self, raw: bytes) -> str:
        self.consumed += len(raw)
        encoding = "utf-8-sig" if self._first else "utf-8"  # a spreadsheet's byte-order mark
        self._first = False
        return raw.decode(encoding, errors="replace")


class S3ImportFiles:
    def __init__(self, s3: Any, bucket: str) -> None:
        self._s3 = s3
        self._bucket = bucket

    def store(self, account_id: str, import_id: str, data: bytes) -> None:
        self._s3.put_object(
            Bucket=self._bucket, Key=import_key(account_id, import_id), Body=data, ContentType="text/csv"
        )

    def upload_url(self, account_id: str, import_id: str, expires_in: int) -> str:
        """A presigned PUT of the import's file (the client signs nothing; the URL carries this role's)."""
        url: str = self._s3.generate_presigned_url(
            "put_object",
            Params={"Bucket": self._bucket, "Key": import_key(account_id, import_id), "ContentType": "text/csv"},
            ExpiresIn=expires_in,
        )
        return url

    def size(self, job: SuppressionImport) -> int | None:
        """The uploaded file's size; None while there is none."""
        try:
            head = self._s3.head_object(Bucket=self._bucket, Key=import_key(job.account_id, job.id))
        except ClientError as error:
            if error.response["Error"]["Code"] in ("404", "NoSuchKey", "NotFound"):
                return None
            raise
        return int(head["ContentLength"])

    def lines(self, job: SuppressionImport) -> CountedLines:
        """The file from the job's checkpoint on (nothing once it was read whole)."""
        if job.offset >= job.size_bytes:
            return CountedLines(iter(()), job.offset)
        response = self._s3.get_object(
            Bucket=self._bucket, Key=import_key(job.account_id, job.id), Range=f"bytes={job.offset}-"
        )
        return CountedLines(response["Body"].iter_chunks(READ_SIZE), job.offset)
