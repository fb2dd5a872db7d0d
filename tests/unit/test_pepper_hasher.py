"""PepperedHasher.hash_many: each secret's `hash`, in order, with the pepper read once."""

from __future__ import annotations

import hashlib
import hmac

from postline.keys.hasher import PepperedHasher


def test_hash_many_is_each_hash_in_order_with_one_pepper_read() -> None:
    reads: list[int] = []

    def pepper() -> str:
        reads.append(1)
        return "pepper-1"

    hasher = PepperedHasher(pepper)
    secrets = ["erasure\nacct_1\nann@example.com", "erasure\nacct_1\nbob@example.com", "", "é"]
    many = hasher.hash_many(secrets)
    assert len(reads) == 1
    assert many == [hasher.hash(secret) for secret in secrets]
    assert many[0] == hmac.new(b"pepper-1", secrets[0].encode(), hashlib.sha256).hexdigest()
    assert len(set(many)) == len(secrets)
    assert hasher.hash_many([]) == []
