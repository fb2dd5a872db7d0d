"""Reading the CSV files customers upload (shared/csv_files.py): lines of a byte stream ended by LF,
CRLF or a lone CR, wherever the stream's pieces are cut, and rows a cell too long for the csv
module makes unreadable reported as such, the reading going on after them."""

from __future__ import annotations

import pytest

from postline.shared.csv_files import CountedLines, RowErrorReason, csv_rows


@pytest.mark.parametrize("cut", range(1, 14))
def test_lines_end_at_lf_crlf_or_a_lone_cr_wherever_the_stream_is_cut(cut: int) -> None:
    data = b"a,b\rc,d\r\ne,f\ng\r"
    lines = CountedLines(iter([data[:cut], data[cut:]]), 10)
    assert list(lines) == ["a,b\r", "c,d\r\n", "e,f\n", "g\r"]
    assert lines.consumed == 10 + len(data)


def test_the_bytes_handed_out_are_counted_line_by_line() -> None:
    lines = CountedLines(iter([b"a\r", b"\nb\rc"]), 0)
    seen = [(line, lines.consumed) for line in lines]
    assert seen == [("a\r\n", 3), ("b\r", 5), ("c", 6)]


def test_a_row_with_a_cell_over_the_csv_modules_limit_is_reported_and_the_rows_after_it_are_read() -> None:
    big = "x" * 140_000
    text = [
        "email,reason\n",
        f"{big},one line\n",
        f'a@a.test,"{big}\n',  # a quoted cell that goes on over three lines
        'still "" quoted\n',
        'to here",x\n',
        "b@b.test,after\n",
    ]
    assert list(csv_rows(text)) == [
        ["email", "reason"],
        RowErrorReason.CELL_TOO_LONG,
        RowErrorReason.CELL_TOO_LONG,
        ["b@b.test", "after"],
    ]
