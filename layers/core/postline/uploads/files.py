"""The uploads' objects in S3 (s3://<ExportsBucket>/uploads/<account>/<upload id>).

A large file is sent with a presigned POST whose policy holds it to the size reserved
(content-length-range); the size settled is what a HEAD finds all the same. Downloads are presigned
GETs that make S3 answer `Content-Disposition: attachment` under the sanitised name and, for active
types (HTML, SVG, XML, script), `application/octet-stream`: no upload is ever shown as a page, and
none is served from the tracking host at all (its link only redirects to S3).
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from postline.uploads.domain import Upload, content_disposition, served_type


class S3UploadFiles:
    def __init__(self, s3: Any, bucket: str) -> None:
        self._s3 = s3  # signs presigned URLs too: SigV4 (see wiring)
        self._bucket = bucket

    def put(self, upload: Upload, data: bytes, content_type: str) -> None:
        self._s3.put_object(Bucket=self._bucket, Key=upload.key, Body=data, ContentType=content_type)

    def size(self, upload: Upload) -> int | None:
        try:
            head = self._s3.head_object(Bucket=self._bucket, Key=upload.key)
        except ClientError as error:
            if error.response["Error"]["Code"] in ("404", "NoSuchKey", "NotFound"):
                return None
            raise
        return int(head["ContentLength"])

    def head_bytes(self, upload: Upload, count: int) -> bytes:
        response = self._s3.get_object(Bucket=self._bucket, Key=upload.key, Range=f"bytes=0-{count - 1}")
        data: bytes = response["Body"].read()
        return data

    def presigned_post(self, upload: Upload, max_bytes: int, expires_in: int) -> tuple[str, dict[str, str]]:
        post = self._s3.generate_presigned_post(
            Bucket=self._bucket,
            Key=upload.key,
            Conditions=[["content-length-range", 1, max_bytes]],
            ExpiresIn=expires_in,
        )
        return str(post["url"]), {name: str(value) for name, value in post["fields"].items()}

    def download_url(self, upload: Upload, expires_in: int) -> str:
        url: str = self._s3.generate_presigned_url(
            "get_object",
            Params={
                "Bucket": self._bucket,
                "Key": upload.key,
                "ResponseContentDisposition": content_disposition(upload.filename),
                "ResponseContentType": served_type(upload.content_type),
            },
            ExpiresIn=expires_in,
        )
        return url

    def delete(self, key: str) -> None:
        self._s3.delete_object(Bucket=self._bucket, Key=key)
