"""POST /v3/data-removals and GET /v3/data-removals/{id}: the request, the replies, the receipt."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import ConfigDict, Field, model_validator

from postline.data_removals.domain import MAX_BATCH, DataRemovalJob, RemovalCounts, RemovalStatus
from postline.shared.addresses import Address
from postline.shared.base import Model


class DataRemovalRequest(Model):
    """One address (`email`), or up to 100 (`emails`, the batch form): one removal each."""

    model_config = ConfigDict(extra="forbid")

    email: Address | None = Field(default=None, description="The address to erase.")
    emails: list[Address] | None = Field(
        default=None, min_length=1, max_length=MAX_BATCH, description="The batch form: up to 100 addresses."
    )
    include_subaccounts: bool = Field(
        default=False, description="An organisation's parent: erase the address in every subaccount too."
    )

    @model_validator(mode="after")
    def _one_form(self) -> DataRemovalRequest:
        if (self.email is None) == (self.emails is None):
            raise ValueError("give either email or emails")
        return self

    def addresses(self) -> list[str]:
        found = [self.email] if self.email is not None else list(self.emails or [])
        return list(dict.fromkeys(address.lower() for address in found))


class DataRemovalAccepted(Model):
    removal_id: str
    status: RemovalStatus = Field(description="Always pending.")


class DataRemovalBatchAccepted(Model):
    """The batch form's reply: one accepted removal per distinct address, in request order."""

    items: list[DataRemovalAccepted]


class ErasureReceipt(Model):
    """A completed removal's proof: `payload` (canonical JSON: the counts, the keyed hash of the
    address, the accounts, the times) signed by the platform's Ed25519 key `kid` (published at
    /.well-known/svc/keys; `public_key` is its raw 32 bytes, base64url, for offline checks)."""

    payload: str
    alg: str = "EdDSA"
    kid: str
    public_key: str
    signature: str = Field(description="Ed25519 over the UTF-8 bytes of payload, base64.")


class DataRemoval(Model):
    removal_id: str
    status: RemovalStatus
    email: str = Field(description="The address while the removal runs; masked (a***@e***.com) once it ended.")
    counts: RemovalCounts | None = Field(description="Set once done.")
    created_at: datetime
    completed_at: datetime | None
    address_hash: str = Field(description="hmac-sha256:<hex>, the keyed hash the receipt states.")
    receipt: ErasureReceipt | None = Field(default=None, description="Set once done.")
    error: str | None = Field(default=None, description="Why it failed.")


def removal_view(job: DataRemovalJob) -> DataRemoval:
    receipt: dict[str, Any] | None = job.receipt
    return DataRemoval(
        removal_id=job.id,
        status=job.status,
        email=job.email if job.email is not None else job.masked,
        counts=job.counts if job.status is RemovalStatus.DONE else None,
        created_at=job.created_at,
        completed_at=job.completed_at,
        address_hash=f"hmac-sha256:{job.address_hash}",
        receipt=ErasureReceipt.model_validate(receipt) if receipt else None,
        error=job.error,
    )
