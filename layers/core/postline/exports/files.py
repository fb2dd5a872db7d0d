"""Export files in S3 and the export queue.

    s3://<ExportsBucket>/exports/<account>/<export id>.csv

One key per job: a retried job overwrites its own file, never adds a second. The file is written
as a multipart upload of PART_SIZE parts held in one buffer, so memory stays flat however many
rows; it appears only when the upload completes. The bucket's lifecycle rule deletes exports/
after 7 days and aborts uploads left incomplete by a crashed attempt.
"""

from __future__ import annotations

from typing import Any

from postline.exports.domain import ExportJob, ExportMessage, FileExportJob

PART_SIZE = 8 * 1024 * 1024  # S3 wants at least 5 MiB for every part but the last
MAX_PARTS = 10_000  # S3's limit: 80 GB at 8 MiB, far above 1,000,000 rows


def export_key(account_id: str, export_id: str) -> str:
    return f"exports/{account_id}/{export_id}.csv"


class S3Upload:
    """A multipart upload fed in pieces: a part goes out each time PART_SIZE bytes are buffered."""

    def __init__(self, s3: Any, bucket: str, key: str, part_size: int) -> None:
        self._s3 = s3
        self._bucket = bucket
        self._key = key
        self._part_size = part_size
        self._buffer = bytearray()
        self._parts: list[dict[str, Any]] = []
        self._upload_id: str = s3.create_multipart_upload(Bucket=bucket, Key=key, ContentType="text/csv")["UploadId"]

    def write(self, data: bytes) -> None:
        self._buffer += data
        if len(self._buffer) >= self._part_size:
            self._send()

    def complete(self) -> None:
        if self._buffer or not self._parts:  # the last part may be small; an upload needs one
            self._send()
        self._s3.complete_multipart_upload(
            Bucket=self._bucket, Key=self._key, UploadId=self._upload_id, MultipartUpload={"Parts": self._parts}
        )

    def abort(self) -> None:
        self._s3.abort_multipart_upload(Bucket=self._bucket, Key=self._key, UploadId=self._upload_id)

    def _send(self) -> None:
        number = len(self._parts) + 1
        if number > MAX_PARTS:
            raise RuntimeError(f"{self._key}: more than {MAX_PARTS} parts")
        response = self._s3.upload_part(
            Bucket=self._bucket, Key=self._key, UploadId=self._upload_id, PartNumber=number, Body=bytes(self._buffer)
        )
        self._parts.append({"ETag": response["ETag"], "PartNumber": number})
        self._buffer.clear()


def fresh_upload(s3: Any, bucket: str, key: str, part_size: int = PART_SIZE) -> S3Upload:
    """A new multipart upload of `key`, after aborting any an earlier (crashed) attempt left behind:
    a retried job overwrites its one file and leaves no orphaned parts."""
    for upload in s3.list_multipart_uploads(Bucket=bucket, Prefix=key).get("Uploads", []):
        if upload["Key"] == key:
            s3.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload["UploadId"])
    return S3Upload(s3, bucket, key, part_size)


class S3ExportFiles:
    def __init__(self, s3: Any, bucket: str, *, part_size: int = PART_SIZE) -> None:
        self._s3 = s3  # signs presigned URLs too: SigV4 (see wiring)
        self._bucket = bucket
        self._part_size = part_size

    def upload(self, job: FileExportJob) -> S3Upload:
        """A new upload of the job's file, after aborting any an earlier attempt left behind."""
        return fresh_upload(self._s3, self._bucket, export_key(job.account_id, job.id), self._part_size)

    def download_url(self, job: FileExportJob, expires_in: int) -> str:
        url: str = self._s3.generate_presigned_url(
            "get_object",
            Params={
                "Bucket": self._bucket,
                "Key": export_key(job.account_id, job.id),
                "ResponseContentDisposition": f'attachment; filename="{job.filename}"',
                "ResponseContentType": "text/csv",
            },
            ExpiresIn=expires_in,
        )
        return url


class SqsExportQueue:
    def __init__(self, sqs: Any, queue_url: str) -> None:
        self._sqs = sqs
        self._url = queue_url

    def enqueue(self, job: ExportJob) -> None:
        message = ExportMessage(account_id=job.account_id, export_id=job.id)
        self._sqs.send_message(QueueUrl=self._url, MessageBody=message.model_dump_json())
