"""Page-numbered lists (items plus a pagination object)."""

from __future__ import annotations

import pytest

from postline.shared.pagination import DEFAULT_PER_PAGE, MAX_PER_PAGE, make_page, page_window, slice_page

ITEMS = [f"item{i:02d}" for i in range(1, 26)]  # 25 items


@pytest.mark.parametrize(("page", "per_page", "window"), [(1, 10, (0, 10)), (2, 10, (10, 20)), (3, 7, (14, 21))])
def test_page_window_is_zero_based_and_half_open(page: int, per_page: int, window: tuple[int, int]) -> None:
    assert page_window(page, per_page) == window


@pytest.mark.parametrize(
    ("total", "per_page", "pages"),
    [(0, 25, 0), (1, 25, 1), (25, 25, 1), (26, 25, 2), (99, 10, 10), (100, 10, 10), (101, 10, 11)],
)
def test_total_pages_rounds_up(total: int, per_page: int, pages: int) -> None:
    assert make_page([], page=1, per_page=per_page, total_count=total).pagination.total_pages == pages


def test_pages_slice_in_order_and_the_last_page_is_short() -> None:
    pages = [slice_page(ITEMS, page=n, per_page=10) for n in (1, 2, 3)]
    assert [p.items for p in pages] == [ITEMS[:10], ITEMS[10:20], ITEMS[20:]]
    assert {p.pagination.total_pages for p in pages} == {3}
    assert {p.pagination.total_count for p in pages} == {25}


def test_a_page_beyond_the_last_is_empty_but_keeps_the_totals() -> None:
    page = slice_page(ITEMS, page=9, per_page=10)
    assert page.items == []
    assert page.pagination.model_dump() == {"page": 9, "per_page": 10, "total_count": 25, "total_pages": 3}


def test_an_empty_list_has_zero_pages() -> None:
    page = slice_page([], page=1, per_page=DEFAULT_PER_PAGE)
    assert page.model_dump() == {
        "items": [],
        "pagination": {"page": 1, "per_page": 25, "total_count": 0, "total_pages": 0},
    }


def test_per_page_bounds_are_the_callers_job() -> None:
    # The domain neither clamps nor refuses; the HTTP parameters (1-100, default 25) do.
    page = slice_page(ITEMS, page=1, per_page=MAX_PER_PAGE * 5)
    assert (len(page.items), page.pagination.per_page, page.pagination.total_pages) == (25, 500, 1)
    assert (DEFAULT_PER_PAGE, MAX_PER_PAGE) == (25, 100)
