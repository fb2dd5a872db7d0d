"""Suppression exports: one list, or every list, as a CSV file kept 7 days (like the event export).

    id,type,email,reason,source,override_unsubscribes,created_at

one row per entry, newest first (the lists' order), reason and source empty when null; written by
exports/writing.py (every cell quoted, formulas neutralised: shared/csv_files.py).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from postline.exports.domain import ExportStatus, FileExportJob
from postline.suppressions.domain import Suppression, SuppressionType

CSV_HEADER = ("id", "type", "email", "reason", "source", "override_unsubscribes", "created_at")
FINGERPRINT_LIFETIME = timedelta(days=1)
RUNNING = frozenset({ExportStatus.PENDING, ExportStatus.PROCESSING})


class SuppressionExport(FileExportJob):
    type: SuppressionType | None = None  # None: every list
    fingerprint: str  # the account and the list: an equivalent running export is the same job


def new_suppression_export(
    export_id: str, account_id: str, kind: SuppressionType | None, now: datetime
) -> SuppressionExport:
    name = kind.value if kind else "all"
    return SuppressionExport(
        id=export_id,
        account_id=account_id,
        status=ExportStatus.PENDING,
        type=kind,
        fingerprint=f"suppressions:{name}",
        filename=f"suppressions-{name}-{now:%Y%m%dT%H%M%SZ}-{export_id}.csv",
        created_at=now,
    )


def csv_row(entry: Suppression) -> tuple[str, ...]:
    return (
        entry.id,
        entry.type.value,
        entry.email,
        entry.reason or "",
        entry.source.value if entry.source else "",
        "true" if entry.override_unsubscribes else "false",
        entry.model_dump(mode="json")["created_at"],
    )
