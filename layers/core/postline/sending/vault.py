"""Message content under envelope encryption: KMS for the key-encryption key, AES-GCM below it.

One KMS GenerateDataKey gives a key-encryption key (KEK); each message gets its own random data
key (DEK), which encrypts its content and is stored wrapped by the KEK. A function instance keeps
its KEK for up to KEK_MAX_AGE_SECONDS and KEK_MAX_MESSAGES messages (the AWS Encryption SDK's data
key caching, with its two bounds), as the dispatcher already keeps the KEKs it decrypted. So:
- a send costs no KMS call (nor its round trip) while its instance's KEK is fresh: one call per
  instance every five minutes, not one per request, and a batch of 5,000 none or one;
- destroying one message's wrapped DEK makes that message's content unreadable for good
  (erasure), whatever else shares the KEK;
- content up to INLINE_LIMIT stays in the message item; larger content goes to S3, encrypted
  the same way (S3 holds only ciphertext).
The associated data of every ciphertext is the message id: content cannot be moved between
messages. AES-GCM is from `cryptography` (the audited primitive, not hand-written crypto).
"""

from __future__ import annotations

import base64
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from postline.sending.domain import Content
from postline.sending.ports import Sealed
from postline.shared.sealing import open_bytes, seal_bytes

INLINE_LIMIT = 48 * 1024  # bytes of ciphertext kept in the item (DynamoDB items end at 400 KB)
_KEK_CACHE = 256
# How long, and for how many messages, an instance seals with one KEK. Safe to keep: each message
# still has a DEK of its own (erasure destroys that one), the KEK is wrapped by the KMS key and is
# as exposed in memory as the dispatcher's cached ones; five minutes bound what a leaked instance
# memory reveals, and 100,000 messages stay far below AES-GCM's 2^32 random-nonce limit per key.
KEK_MAX_AGE_SECONDS = 300.0
KEK_MAX_MESSAGES = 100_000


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


class KmsVault:
    def __init__(
        self,
        kms: Any,
        s3: Any,
        key_id: str,
        bucket: str,
        *,
        clock: Callable[[], float] = time.monotonic,
        kek_max_messages: int = KEK_MAX_MESSAGES,
    ) -> None:
        self._kms = kms
        self._s3 = s3
        self._key_id = key_id
        self._bucket = bucket
        self._keks: OrderedDict[str, bytes] = OrderedDict()  # wrapped KEK -> plaintext, per container
        self._clock = clock
        self._sealing: tuple[bytes, str, float, int] | None = None  # KEK, wrapped, made at, messages sealed
        self._lock = threading.Lock()
        self._kek_max_messages = kek_max_messages

    def seal(self, items: list[tuple[str, Content]]) -> list[Sealed]:
        if not items:
            return []
        kek, wrapped_kek = self._sealing_kek(len(items))
        sealed = []
        for message_id, content in items:
            aad = message_id.encode()
            dek = AESGCM.generate_key(bit_length=256)
            body = seal_bytes(dek, content.model_dump_json(exclude_defaults=True).encode(), aad)
            record: Sealed = {"kek": wrapped_kek, "dek": _b64(seal_bytes(kek, dek, aad))}
            if len(body) <= INLINE_LIMIT:
                record["body"] = _b64(body)
            else:
                record["s3"] = f"content/{message_id}"
                self._s3.put_object(Bucket=self._bucket, Key=record["s3"], Body=body)
            sealed.append(record)
        return sealed

    def _sealing_kek(self, messages: int) -> tuple[bytes, str]:
        """The instance's KEK for `messages` more messages: kept while young and little used, else new."""
        with self._lock:
            now = self._clock()
            current = self._sealing
            stale = current is None or now - current[2] >= KEK_MAX_AGE_SECONDS
            if stale or current is None or current[3] + messages > self._kek_max_messages:
                generated = self._kms.generate_data_key(KeyId=self._key_id, KeySpec="AES_256")
                current = (generated["Plaintext"], _b64(generated["CiphertextBlob"]), now, 0)
            kek, wrapped, made, used = current
            self._sealing = (kek, wrapped, made, used + messages)
            return kek, wrapped

    def open(self, message_id: str, sealed: Sealed) -> Content:
        if "dek" not in sealed:  # a tombstone keeps its KEK; nothing at all: a store cut short
            raise LookupError(f"the content of {message_id} was {'erased' if sealed else 'never stored'}")
        aad = message_id.encode()
        dek = open_bytes(self._kek(sealed["kek"]), base64.b64decode(sealed["dek"]), aad)
        if "body" in sealed:
            body = base64.b64decode(sealed["body"])
        else:
            body = self._s3.get_object(Bucket=self._bucket, Key=sealed["s3"])["Body"].read()
        return Content.model_validate_json(open_bytes(dek, body, aad))

    def _kek(self, wrapped: str) -> bytes:
        # A batch's messages share one KEK: decrypt it once per container, not once per message.
        if wrapped in self._keks:
            self._keks.move_to_end(wrapped)
            return self._keks[wrapped]
        plaintext: bytes = self._kms.decrypt(CiphertextBlob=base64.b64decode(wrapped))["Plaintext"]
        self._keks[wrapped] = plaintext
        if len(self._keks) > _KEK_CACHE:
            self._keks.popitem(last=False)
        return plaintext
