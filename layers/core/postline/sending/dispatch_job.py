"""The send queue's message: what the sending area writes and the dispatcher takes."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from postline.shared.base import Model


class DispatchJob(Model):
    """One queue message: deliver `message_id` (only `recipients` when set) as attempt `attempt`.

    Attempts only grow, and a recipient is worked on only when its last recorded attempt is older
    than the job's: a redelivered or duplicated job finds nothing left to do.
    """

    message_id: str
    account_id: str
    attempt: int = Field(default=1, ge=1)
    recipients: list[str] | None = None
    enqueued_at: datetime | None = None
