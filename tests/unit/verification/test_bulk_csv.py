"""Reading a bulk job's CSV file (verification/bulk_csv.py): the email column found by name, other
columns ignored, rows numbered as a spreadsheet shows them, repeats answered once, chunks grouped
by domain a segment at a time with the file's order kept in their indexes."""

from __future__ import annotations

import pytest

from postline.shared.csv_files import CountedLines, text_lines
from postline.verification import bulk_csv
from postline.verification.bulk_csv import BadFileError, CsvAddresses


def read(text: str) -> tuple[CsvAddresses, list[list[tuple[int, str]]]]:
    reading = CsvAddresses(text_lines(text))
    return reading, list(reading.chunks())


def test_the_email_column_is_found_by_name_in_any_case_and_position() -> None:
    reading, chunks = read('Name,  E-Mail ,EMAIL\r\n"Ada, L.",x,ada@a.test\r\nBob,y,bob@b.test\r\n')
    assert chunks == [[(0, "ada@a.test"), (1, "bob@b.test")]]
    assert (reading.rows, reading.distinct, reading.skipped) == (2, 2, 0)


def test_empty_cells_short_rows_and_overlong_cells_are_numbered_row_errors() -> None:
    long = "a" * 311 + "@long.test"  # 321 characters
    reading, chunks = read(f"id,email\n1,a@a.test\n2,\n3\n4,{long}\n\n5, b@b.test \n")
    assert [pair for chunk in chunks for pair in chunk] == [(0, "a@a.test"), (1, "b@b.test")]
    assert [(e.row, e.reason.value, len(e.email)) for e in reading.errors] == [
        (3, "missing_email", 0),
        (4, "missing_email", 0),
        (5, "invalid_syntax", 320),
        (6, "missing_email", 0),  # a blank line is a row without an address
    ]
    assert (reading.rows, reading.skipped, reading.distinct) == (6, 4, 2)


def test_a_cell_that_is_not_an_address_is_still_checked() -> None:
    _, chunks = read("email\nnot an address\n")
    assert chunks == [[(0, "not an address")]]  # answered invalid (failed_syntax_check), like a JSON entry


def test_repeats_in_any_case_are_answered_once_and_quoted_newlines_are_one_row() -> None:
    reading, chunks = read('email,note\na@a.test,"two\nlines"\nA@A.TEST,again\nb@a.test,x\n')
    assert chunks == [[(0, "a@a.test"), (1, "b@a.test")]]
    assert (reading.rows, reading.distinct) == (3, 2)


def test_chunks_group_domains_per_segment_and_keep_the_files_order_in_indexes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bulk_csv, "SEGMENT", 200)
    lines = ["email"] + [f"u{n}@d{n % 3}.test" for n in range(450)]
    _, chunks = read("\n".join(lines) + "\n")
    assert [len(chunk) for chunk in chunks] == [100, 100, 100, 100, 50]
    pairs = sorted(pair for chunk in chunks for pair in chunk)
    assert pairs == [(n, f"u{n}@d{n % 3}.test") for n in range(450)]
    first_segment = [address for chunk in chunks[:2] for _, address in chunk]
    domains = [address.split("@")[1] for address in first_segment]
    assert domains == sorted(domains)  # grouped by domain within a segment
    assert {index for chunk in chunks[:2] for index, _ in chunk} == set(range(200))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("name,address\nx,y\n", "`email`"),
        ('email\n"' + "a" * 140_000 + '"\n', "could not be read as CSV"),
    ],
)
def test_a_file_it_cannot_read_says_why(text: str, message: str) -> None:
    with pytest.raises(BadFileError, match=message):
        read(text)


def test_too_many_rows_fail_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bulk_csv, "MAX_FILE_ROWS", 3)
    with pytest.raises(BadFileError, match="more than 3 rows"):
        read("email\na@a.test\nb@a.test\nc@a.test\nd@a.test\n")


def test_a_byte_stream_with_a_byte_order_mark_reads_the_same() -> None:
    data = "\ufeffEmail\r\na@a.test\r\n".encode()
    lines = CountedLines(iter([data[:5], data[5:]]), 0)
    reading = CsvAddresses(lines)
    assert list(reading.chunks()) == [[(0, "a@a.test")]]
    assert lines.consumed == len(data)
