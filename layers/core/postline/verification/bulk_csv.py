"""A bulk verification job's CSV file, read into the job's chunks (bulk.py) as a stream.

The file's first row names its columns; the one named `email` (any case, any position) holds the
addresses and every other column is ignored (results carry the address as the file has it; join
them back to your rows by address). Each other row is one address. A row with no address in that
column (an empty cell, a short row) is skipped: counted in `skipped`, the first MAX_ERRORS reported
with their row number (the header is row 1) and reason `missing_email`, as is a cell longer than
any address can be (`invalid_syntax`); nothing is charged for them. Any other cell that is not an
address is checked like any address and answered `invalid` (failed_syntax_check), as in a JSON
list. The same address again (in any case) is answered once.

A test key's file (the request's `csv`) is read as a live key's stored one (shared/csv_files.py
text_lines, CountedLines: a byte-order mark dropped; CRLF, LF or lone-CR line ends). Memory stays
flat in the file's size: lines come from a ranged S3 stream, the distinct addresses are remembered
as 16-byte digests (about 100 bytes each with the set's own, so MAX_FILE_ROWS costs at most
~100 MB), and addresses are grouped by domain SEGMENT at a time (each chunk's domains share as few
chunks as they can, as for a JSON list) before they are chunked.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Iterable, Iterator

from postline.shared.csv_files import MAX_ERRORS, MAX_SHOWN, RowError, RowErrorReason, column_positions
from postline.verification.bulk import CHUNK_SIZE, chunked_by_domain

MAX_FILE_ROWS = 1_000_000  # rows after the header; a longer file fails the job, nothing charged
MAX_ADDRESS = 320  # characters: longer is no address (RFC 5321's 64 + @ + 255), a row error
SEGMENT = 10_000  # distinct addresses sorted by domain together before they are cut into chunks


class BadFileError(Exception):
    """Not a file the job can read (no header, no email column, too many rows, not CSV)."""


class CsvAddresses:
    """Reads a file's rows once: `chunks()` yields the (index, address) chunks; the counts are
    complete once it is exhausted. Indexes number the distinct addresses in the file's order."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = lines
        self.rows = 0  # after the header
        self.distinct = 0
        self.skipped = 0
        self.errors: list[RowError] = []
        self._seen: set[bytes] = set()

    def chunks(self) -> Iterator[list[tuple[int, str]]]:
        reader = csv.reader(self._lines)
        try:
            header = next(reader, None)
            if header is None:
                raise BadFileError("The file is empty: its first row must name its columns, one of them `email`.")
            try:
                position = column_positions(header, ("email",))["email"]
            except ValueError as error:
                raise BadFileError(str(error)) from error
            segment: list[tuple[int, str]] = []
            for row in reader:
                self.rows += 1
                if self.rows > MAX_FILE_ROWS:
                    raise BadFileError(f"The file has more than {MAX_FILE_ROWS:,} rows; split it into several jobs.")
                address = row[position].strip() if position < len(row) else ""
                if not address:
                    self._skip(RowError(row=self.rows + 1, email="", reason=RowErrorReason.MISSING_EMAIL))
                    continue
                if len(address) > MAX_ADDRESS:
                    self._skip(
                        RowError(row=self.rows + 1, email=address[:MAX_SHOWN], reason=RowErrorReason.INVALID_SYNTAX)
                    )
                    continue
                digest = hashlib.blake2b(address.lower().encode(), digest_size=16).digest()
                if digest in self._seen:
                    continue
                self._seen.add(digest)
                segment.append((self.distinct, address))
                self.distinct += 1
                if len(segment) >= SEGMENT:
                    yield from _by_domain(segment)
                    segment = []
            if segment:
                yield from _by_domain(segment)
        except csv.Error as error:  # a field past the csv module's 128 KiB, a NUL byte: not a CSV to read
            raise BadFileError(f"The file could not be read as CSV: {error}") from error

    def _skip(self, error: RowError) -> None:
        self.skipped += 1
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(error)


def _by_domain(segment: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """A segment's pairs in chunks of CHUNK_SIZE, grouped by domain, each keeping its index."""
    start = segment[0][0]
    return [
        [(start + offset, address) for offset, address in chunk] for chunk in chunked_by_domain([a for _, a in segment])
    ]


assert SEGMENT % CHUNK_SIZE == 0, "a segment fills whole chunks"
