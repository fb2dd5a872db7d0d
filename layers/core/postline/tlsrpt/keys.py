"""The reporting domain's DKIM keys: a kind of sealed platform key (shared/sealed_keys.py, the store
the webhook signing keys use too), one group per reporting domain.

    PLATFORM   TLSRPT_DKIM#<domain>              pointer: `active` and `next` selectors; adding a key
                                                 is a transaction conditioned on it, so two relay
                                                 tasks starting together never both mint the first key
    PLATFORM   TLSRPT_DKIM#<domain>#<selector>   a key: domain, selector, public half, KMS-sealed PEM,
                                                 created_at

The key pairs are sending domains' (domains/dkim_keys.py). Which key signs and when it rotates is
the service's (tlsrpt/service.py).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from postline.shared.sealed_keys import SealedPlatformKeys
from postline.tlsrpt.domain import ReportKey

PURPOSE = "tlsrpt-dkim"  # the encryption context's purpose, with the domain and the selector


def group(domain: str) -> str:
    return f"TLSRPT_DKIM#{domain}"


class DynamoReportKeys:
    def __init__(self, client: Any, table: str, kms: Any, kms_key_id: str) -> None:
        self._store = SealedPlatformKeys(client, table, kms, kms_key_id, purpose=PURPOSE)

    def keys(self, domain: str) -> tuple[ReportKey | None, ReportKey | None]:
        stored = self._store.group(group(domain))
        active, staged = (stored.holder(role) for role in ("active", "next"))
        return (self._key(domain, active) if active else None, self._key(domain, staged) if staged else None)

    def add(self, new: ReportKey, *, staged: bool, replacing: str | None) -> bool:
        item = {
            "domain": new.domain,
            "selector": new.selector,
            "public_key": new.public_key,
            "private_key": self._store.seal(new.private_key.encode(), _context(new.domain, new.selector)),
            "created_at": new.created_at.isoformat(),
        }
        role = "next" if staged else "active"
        return self._store.add(group(new.domain), new.selector, item, role=role, replacing=replacing)

    def promote(self, domain: str, selector: str) -> bool:
        return self._store.promote(group(domain), selector, source="next", target="active")

    def _key(self, domain: str, item: dict[str, Any]) -> ReportKey:
        return ReportKey(
            domain=domain,
            selector=item["selector"],
            private_key=self._store.open(item["private_key"], _context(domain, item["selector"])).decode(),
            public_key=item["public_key"],
            created_at=datetime.fromisoformat(item["created_at"]),
        )


def _context(domain: str, selector: str) -> dict[str, str]:
    return {"domain": domain, "selector": selector}
