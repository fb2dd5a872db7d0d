"""Message content under envelope encryption: KMS for the key-encryption key, AES-GCM below it.

One KMS GenerateDataKey gives a key-encryption key (KEK); each message gets its own random data
key (DEK), which encrypts its content and is stored wrapped by the KEK. A function instance keeps
its KEK for up to KEK_MAX_AGE_SECONDS and KEK_MAX_MESSAGES messages (the AWS Encryption SDK's data
key caching, with its two bounds), as the dispatcher already keeps the KEKs it decrypted. So:
- a send costs no KMS call (nor its round trip) while its instance's KEK is fresh: one call per
  instance every five minutes, not one per request, and a batch of 5,000 none or one;
- destroying one message's wrapped DEK makes that message's content unreadable for good
  (erasure), whatever else shares the KEK;
- content whose ciphertext is up to INLINE_LIMIT stays in the table (its BODY item, store.py);
  larger content goes to S3, encrypted the same way (S3 holds only ciphertext).
The associated data of every ciphertext is the message id: content cannot be moved between
messages. AES-GCM is from `cryptography` (the audited primitive, not hand-written crypto).

The record (LAYOUT 2, `v` = 2, since 2026-11-29): the wrapped KEK, the wrapped DEK and the
ciphertext are bytes (DynamoDB Binary, a third smaller than base64 text), and the plaintext is one
format byte then the content's JSON, zlib-compressed when that makes it smaller (FORMAT_ZLIB) or as
is (FORMAT_PLAIN). The format byte is inside the ciphertext, so it is authenticated like the rest.
A record without `v` (stored before) holds base64 strings of the bare JSON; `open` reads both.
"""

from __future__ import annotations

import base64
import os
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from postline.sending.domain import Content
from postline.sending.ports import Sealed
from postline.shared.sealing import open_bytes

INLINE_LIMIT = 48 * 1024  # bytes of ciphertext (as stored) kept in the item (DynamoDB items end at 400 KB)
LAYOUT = 2  # the record's `v`: bytes, not base64 text, and a format byte before the content
FORMAT_PLAIN = 0
FORMAT_ZLIB = 1
# Compress-then-encrypt is safe here: the ciphertext's length is the only thing compression could
# leak, and it is at rest, seen only by the operator's own table and bucket (who hold the KMS key
# anyway); no attacker can mix text of theirs into a message and watch its sealed length change
# (the CRIME/BREACH setting), as nothing outside the service reads stored items. JSON shorter than
# this is not worth the call (a few bytes saved, if any).
COMPRESS_FROM = 256
# zlib's level: 1 shrinks a ~11 KB receipt (bench/receipt.py) ~5.7x, 8% less than 6 does, for half its
# CPU: a batch's sealing stays as cheap per recipient as before compression (docs/benchmarks.md).
ZLIB_LEVEL = 1
_KEK_CACHE = 256
_DEK_BYTES = 32  # AES-256
_NONCE = 12  # AES-GCM's 96-bit nonce
# How long, and for how many messages, an instance seals with one KEK. Safe to keep: each message
# still has a DEK of its own (erasure destroys that one), the KEK is wrapped by the KMS key and is
# as exposed in memory as the dispatcher's cached ones; five minutes bound what a leaked instance
# memory reveals, and 100,000 messages stay far below AES-GCM's 2^32 random-nonce limit per key.
KEK_MAX_AGE_SECONDS = 300.0
KEK_MAX_MESSAGES = 100_000


def pack(plaintext: bytes) -> bytes:
    """The format byte and the content: compressed when that makes it smaller, else as it is."""
    if len(plaintext) >= COMPRESS_FROM:
        compressed = zlib.compress(plaintext, ZLIB_LEVEL)
        if len(compressed) < len(plaintext):
            return bytes((FORMAT_ZLIB,)) + compressed
    return bytes((FORMAT_PLAIN,)) + plaintext


def unpack(packed: bytes) -> bytes:
    if packed[0] == FORMAT_ZLIB:
        return zlib.decompress(packed[1:])
    if packed[0] == FORMAT_PLAIN:
        return packed[1:]
    raise ValueError(f"unknown content format {packed[0]}")


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
        self._keks: OrderedDict[bytes, bytes] = OrderedDict()  # wrapped KEK -> plaintext, per container
        self._clock = clock
        self._sealing: tuple[bytes, bytes, float, int] | None = None  # KEK, wrapped, made at, messages sealed
        self._lock = threading.Lock()
        self._kek_max_messages = kek_max_messages

    def seal(self, items: list[tuple[str, Content]]) -> list[Sealed]:
        if not items:
            return []
        kek, wrapped_kek = self._sealing_kek(len(items))
        wrapping = AESGCM(kek)  # one cipher object for the request's DEKs, not one per message
        sealed = []
        for message_id, content in items:
            aad = message_id.encode()
            # As shared/sealing.py's seal_bytes (nonce then ciphertext), the DEK and both nonces drawn at once.
            fresh = os.urandom(_DEK_BYTES + 2 * _NONCE)
            dek, dek_nonce, body_nonce = fresh[:_DEK_BYTES], fresh[_DEK_BYTES:-_NONCE], fresh[-_NONCE:]
            plaintext = pack(content.model_dump_json(exclude_defaults=True).encode())
            body = body_nonce + AESGCM(dek).encrypt(body_nonce, plaintext, aad)
            record: Sealed = {"v": LAYOUT, "kek": wrapped_kek, "dek": dek_nonce + wrapping.encrypt(dek_nonce, dek, aad)}
            if len(body) <= INLINE_LIMIT:
                record["body"] = body
            else:
                record["s3"] = f"content/{message_id}"
                self._s3.put_object(Bucket=self._bucket, Key=record["s3"], Body=body)
            sealed.append(record)
        return sealed

    def _sealing_kek(self, messages: int) -> tuple[bytes, bytes]:
        """The instance's KEK for `messages` more messages: kept while young and little used, else new."""
        with self._lock:
            now = self._clock()
            current = self._sealing
            stale = current is None or now - current[2] >= KEK_MAX_AGE_SECONDS
            if stale or current is None or current[3] + messages > self._kek_max_messages:
                generated = self._kms.generate_data_key(KeyId=self._key_id, KeySpec="AES_256")
                current = (generated["Plaintext"], generated["CiphertextBlob"], now, 0)
            kek, wrapped, made, used = current
            self._sealing = (kek, wrapped, made, used + messages)
            return kek, wrapped

    def open(self, message_id: str, sealed: Sealed) -> Content:
        if "dek" not in sealed:  # a tombstone keeps its KEK; nothing at all: a store cut short
            raise LookupError(f"the content of {message_id} was {'erased' if sealed else 'never stored'}")
        aad = message_id.encode()
        binary = sealed.get("v") == LAYOUT  # else stored before: base64 strings, the bare JSON
        wrapped_kek, wrapped_dek, inline = (sealed["kek"], sealed["dek"], sealed.get("body"))
        if not binary:
            wrapped_kek, wrapped_dek = base64.b64decode(wrapped_kek), base64.b64decode(wrapped_dek)
            inline = None if inline is None else base64.b64decode(inline)
        dek = open_bytes(self._kek(bytes(wrapped_kek)), bytes(wrapped_dek), aad)
        if inline is not None:
            body = bytes(inline)
        else:
            body = self._s3.get_object(Bucket=self._bucket, Key=sealed["s3"])["Body"].read()
        plaintext = open_bytes(dek, body, aad)
        return Content.model_validate_json(unpack(plaintext) if binary else plaintext)

    def _kek(self, wrapped: bytes) -> bytes:
        # A batch's messages share one KEK: decrypt it once per container, not once per message.
        if wrapped in self._keks:
            self._keks.move_to_end(wrapped)
            return self._keks[wrapped]
        plaintext: bytes = self._kms.decrypt(CiphertextBlob=wrapped)["Plaintext"]
        self._keks[wrapped] = plaintext
        if len(self._keks) > _KEK_CACHE:
            self._keks.popitem(last=False)
        return plaintext
