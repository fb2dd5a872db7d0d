"""The proofs registry (resources table) and bulk jobs' result files (the exports bucket).

    PROOF#<fingerprint>   PROOF    a signed result file: kid, public key, signature, issued_at,
                                   the job and account it was issued for (never answered)

    s3://<ExportsBucket>/verifications/<account>/<job id>.csv

Registry entries are kept with no expiry (a few hundred bytes each, no address in them), so a
proof stays checkable after its file and job are gone. The file is written as the event export's
is (exports/files.py: a multipart upload of 8 MiB parts, flat memory, appearing only when whole);
the bucket's lifecycle rule deletes verifications/ after 30 days, with the job (bulk_store.py).
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from postline.exports.files import PART_SIZE, S3Upload, fresh_upload
from postline.shared.dynamo import conditional_failed, from_attrs, key, to_attrs
from postline.verification.proofs import ProofEntry

_SK = "PROOF"


def result_key(account_id: str, job_id: str) -> str:
    return f"verifications/{account_id}/{job_id}.csv"


class DynamoProofRegistry:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def get(self, fingerprint: str) -> ProofEntry | None:
        item = self._db.get_item(TableName=self._table, Key=key(f"PROOF#{fingerprint}", _SK)).get("Item")
        return ProofEntry.model_validate(from_attrs(item)) if item else None

    def register(self, entry: ProofEntry) -> ProofEntry:
        """Records the entry unless its fingerprint has one already (the same bytes signed before,
        e.g. by an earlier attempt at packaging): then that first entry is the proof, returned."""
        try:
            self._db.put_item(
                TableName=self._table,
                Item={**key(f"PROOF#{entry.fingerprint}", _SK), **to_attrs(entry.model_dump(mode="json"))},
                ConditionExpression="attribute_not_exists(pk)",
            )
        except ClientError as error:
            if not conditional_failed(error):
                raise
            first = self._db.get_item(
                TableName=self._table, Key=key(f"PROOF#{entry.fingerprint}", _SK), ConsistentRead=True
            )["Item"]
            return ProofEntry.model_validate(from_attrs(first))
        return entry


class S3ResultFiles:
    def __init__(self, s3: Any, bucket: str, *, part_size: int = PART_SIZE) -> None:
        self._s3 = s3  # signs presigned URLs too: SigV4 (see wiring)
        self._bucket = bucket
        self._part_size = part_size

    def upload(self, account_id: str, job_id: str) -> S3Upload:
        return fresh_upload(self._s3, self._bucket, result_key(account_id, job_id), self._part_size)

    def download_url(self, account_id: str, job_id: str, filename: str, expires_in: int) -> str:
        url: str = self._s3.generate_presigned_url(
            "get_object",
            Params={
                "Bucket": self._bucket,
                "Key": result_key(account_id, job_id),
                "ResponseContentDisposition": f'attachment; filename="{filename}"',
                "ResponseContentType": "text/csv",
            },
            ExpiresIn=expires_in,
        )
        return url

    def remove(self, account_id: str, job_id: str) -> None:
        self._s3.delete_object(Bucket=self._bucket, Key=result_key(account_id, job_id))
