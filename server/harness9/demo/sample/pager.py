"""Split a list of items into numbered pages, the way a web listing shows them."""

from __future__ import annotations

import math
from typing import TypeVar

T = TypeVar("T")


def page_count(total: int, size: int) -> int:
    """How many pages `total` items fill at `size` items per page (never fewer than one)."""
    if size < 1:
        raise ValueError("page size must be at least 1")
    return max(1, math.ceil(total / size))


def page(items: list[T], number: int, size: int) -> list[T]:
    """The items on page `number`; pages are numbered from 1."""
    if number < 1 or number > page_count(len(items), size):
        raise IndexError(f"page {number} does not exist")
    start = number * size
    return items[start : start + size]
