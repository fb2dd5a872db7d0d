"""Page-numbered lists: items plus a pagination object (page, per_page, total_count, total_pages)."""

from __future__ import annotations

import math
from typing import Generic, TypeVar

from postline.shared.base import Model

T = TypeVar("T")

DEFAULT_PER_PAGE = 25
MAX_PER_PAGE = 100


class Pagination(Model):
    page: int
    per_page: int
    total_count: int
    total_pages: int


class Page(Model, Generic[T]):
    items: list[T]
    pagination: Pagination


def page_window(page: int, per_page: int) -> tuple[int, int]:
    """Zero-based [start, stop) of a 1-based page."""
    start = (page - 1) * per_page
    return start, start + per_page


def make_page(items: list[T], *, page: int, per_page: int, total_count: int) -> Page[T]:
    return Page[T](
        items=items,
        pagination=Pagination(
            page=page,
            per_page=per_page,
            total_count=total_count,
            total_pages=math.ceil(total_count / per_page) if total_count else 0,
        ),
    )


def slice_page(all_items: list[T], *, page: int, per_page: int) -> Page[T]:
    start, stop = page_window(page, per_page)
    return make_page(all_items[start:stop], page=page, per_page=per_page, total_count=len(all_items))
