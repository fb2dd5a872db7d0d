"""CSV files: those customers upload (suppression imports, bulk verification jobs), in S3, and the
one writer of those we hand them (CsvText: exports, bulk verification results).

    s3://<ExportsBucket>/imports/<account>/<id>.csv

A file arrives in the request's body (stored by the route) or through a presigned PUT (the URL
carries the route's role; the client signs nothing). It is read as a stream from a byte offset (a
ranged GET), one line at a time, so a worker's memory stays flat whatever the file's size, and a
resumed job reads on from its checkpoint. The bucket's lifecycle rule deletes imports/ after 7
days. A skipped row is reported as a RowError numbered as a spreadsheet shows it: the header is
row 1, the first data row 2.

Every CSV file we write goes through CsvText, which follows OWASP's guidance on CSV injection: a
cell that starts with a character a spreadsheet takes as the start of a formula (FORMULA_STARTS),
after any single quotes, is written with one more single quote before it, so it is shown as the
text it is, and every cell is quoted, so no spreadsheet splits one on another delimiter. read_cell
drops that one quote again (the suppression import does: an exported list imports back as it was).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator
from datetime import timedelta
from enum import StrEnum
from typing import Any

from botocore.exceptions import ClientError

from postline.shared.base import Model

READ_SIZE = 64 * 1024
MAX_CSV_BODY = 5_000_000  # characters of CSV in a request's body: under Lambda's 6 MB request payload
MAX_SHOWN = 320  # characters of a bad row's address kept in its error (the job item stays small)
MAX_ERRORS = 500  # row errors a job keeps (it counts them all)
UPLOAD_WINDOW = timedelta(hours=1)  # a presigned upload URL's lifetime; no file by then fails the job


def import_key(account_id: str, file_id: str) -> str:
    return f"imports/{account_id}/{file_id}.csv"


# OWASP's formula triggers: a spreadsheet evaluates a cell that starts with one of them.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _escapable(text: str) -> bool:
    return text.lstrip("'").startswith(FORMULA_STARTS)


def safe_cell(value: object) -> str:
    """A cell as CsvText writes it: null empty; one more single quote before a formula's start
    (after the quotes already there, so read_cell gives the value back exactly)."""
    text = "" if value is None else str(value)
    return "'" + text if _escapable(text) else text


def read_cell(text: str) -> str:
    """A cell of a file as safe_cell wrote it, read back: the quote it added dropped, only that."""
    return text[1:] if text.startswith("'") and _escapable(text) else text


class CsvText:
    """The one CSV writer of the files we hand out: rows in, UTF-8 bytes out a piece at a time (so
    a file of any size streams through a flat buffer), every cell quoted and passed by safe_cell."""

    def __init__(self, lineterminator: str = "\r\n") -> None:
        self._text = io.StringIO()
        self._writer = csv.writer(self._text, quoting=csv.QUOTE_ALL, lineterminator=lineterminator)

    def row(self, cells: Iterable[object]) -> None:
        self._writer.writerow([safe_cell(cell) for cell in cells])

    @property
    def pending(self) -> int:
        """Characters written since the last take."""
        return self._text.tell()

    def take(self) -> bytes:
        """What was written since the last take, as UTF-8."""
        data = self._text.getvalue().encode("utf-8")
        self._text.seek(0)
        self._text.truncate()
        return data


class RowErrorReason(StrEnum):
    INVALID_SYNTAX = "invalid_syntax"
    MISSING_EMAIL = "missing_email"
    INVALID_CREATED_AT = "invalid_created_at"
    CELL_TOO_LONG = "cell_too_long"  # a cell over the csv module's field_size_limit (131,072 characters)


class RowError(Model):
    row: int  # 1-based, the header being row 1
    email: str  # as in the file
    reason: RowErrorReason


def column_positions(header: list[str], known: tuple[str, ...]) -> dict[str, int]:
    """The known columns' positions (names compared trimmed and case-blind); ValueError without an
    email column."""
    names = [name.strip().lower() for name in header]
    columns = {name: names.index(name) for name in known if name in names}
    if "email" not in columns:
        raise ValueError("The file's first row must name its columns, one of them `email`.")
    return columns


_LINE_END = re.compile(rb"\r\n?|\n")


class CountedLines:
    """Text lines of a byte stream, line ends kept (LF, CRLF or a lone CR, as spreadsheets of
    every system write them), with the bytes handed out so far: after the csv module yields a
    row, `consumed` is where the next record starts (it reads no further ahead)."""

    def __init__(self, chunks: Iterator[bytes], start: int) -> None:
        self._chunks = chunks
        self.consumed = start
        self._first = start == 0

    def __iter__(self) -> Iterator[str]:
        pending = b""
        for data in self._chunks:
            pending += data
            begin = 0
            for end in _LINE_END.finditer(pending):
                if end.end() == len(pending) and end.group() == b"\r":
                    break  # its LF may start the next piece
                yield self._line(pending[begin : end.end()])
                begin = end.end()
            pending = pending[begin:]
        if pending:
            yield self._line(pending)

    def _line(self, raw: bytes) -> str:
        self.consumed += len(raw)
        encoding = "utf-8-sig" if self._first else "utf-8"  # a spreadsheet's byte-order mark
        self._first = False
        return raw.decode(encoding, errors="replace")


def text_lines(text: str) -> CountedLines:
    """A file sent as text in a request's body, read as the same file stored and streamed is (one
    reading for both: the same line ends, the same byte-order mark dropped)."""
    return CountedLines(iter([text.encode()]), 0)


class _Recorded:
    """The lines handed to the csv module since `record` was last emptied."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = iter(lines)
        self.record: list[str] = []

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.record.append(line)
        return line


def _in_quoted_cell(text: str, quoted: bool) -> bool:
    """Whether CSV text leaves a quoted cell open, reading from inside one or not (as the csv
    module reads: a quote opens a cell only at its start; a doubled quote inside one is a quote)."""
    state = "quoted" if quoted else "start"
    for char in text:
        if state == "quoted":
            state = "quote" if char == '"' else "quoted"
        elif state == "quote" and char == '"':
            state = "quoted"
        elif char in ",\r\n":
            state = "start"
        elif state == "start" and char == '"':
            state = "quoted"
        else:
            state = "cell"
    return state == "quoted"


def csv_rows(lines: Iterable[str]) -> Iterator[list[str] | RowErrorReason]:
    """The rows of CSV text lines. A row with a cell longer than the csv module takes (its
    field_size_limit) is RowErrorReason.CELL_TOO_LONG, and the reading goes on after that row:
    after its line, or after the line its quoted cell ends on. Other csv.Errors are raised."""
    source = _Recorded(lines)
    reader = csv.reader(source)
    while True:
        source.record = []
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            if not str(error).startswith("field larger than field limit"):
                raise
            # The csv module dropped the rest of the line it failed on; a quoted cell may go on.
            quoted = _in_quoted_cell("".join(source.record), False)
            while quoted and (line := next(source, None)) is not None:
                quoted = _in_quoted_cell(line, True)
            yield RowErrorReason.CELL_TOO_LONG
            continue
        yield row


class S3CsvFiles:
    def __init__(self, s3: Any, bucket: str) -> None:
        self._s3 = s3
        self._bucket = bucket

    def store(self, account_id: str, file_id: str, data: bytes) -> None:
        self._s3.put_object(Bucket=self._bucket, Key=import_key(account_id, file_id), Body=data, ContentType="text/csv")

    def upload_url(self, account_id: str, file_id: str, expires_in: int) -> str:
        """A presigned PUT of the file (the client signs nothing; the URL carries this role's)."""
        url: str = self._s3.generate_presigned_url(
            "put_object",
            Params={"Bucket": self._bucket, "Key": import_key(account_id, file_id), "ContentType": "text/csv"},
            ExpiresIn=expires_in,
        )
        return url

    def size(self, account_id: str, file_id: str) -> int | None:
        """The uploaded file's size; None while there is none."""
        try:
            head = self._s3.head_object(Bucket=self._bucket, Key=import_key(account_id, file_id))
        except ClientError as error:
            if error.response["Error"]["Code"] in ("404", "NoSuchKey", "NotFound"):
                return None
            raise
        return int(head["ContentLength"])

    def lines(self, account_id: str, file_id: str, offset: int = 0, size: int | None = None) -> CountedLines:
        """The file from `offset` on (nothing once `size` bytes were read)."""
        if size is not None and offset >= size:
            return CountedLines(iter(()), offset)
        request: dict[str, Any] = {"Bucket": self._bucket, "Key": import_key(account_id, file_id)}
        if offset:
            request["Range"] = f"bytes={offset}-"
        response = self._s3.get_object(**request)
        return CountedLines(response["Body"].iter_chunks(READ_SIZE), offset)

    def remove(self, account_id: str, file_id: str) -> None:
        self._s3.delete_object(Bucket=self._bucket, Key=import_key(account_id, file_id))
