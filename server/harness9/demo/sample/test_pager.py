"""Tests of the pager; run them with `python3 -m unittest`."""

from __future__ import annotations

import unittest

from pager import page, page_count


class PageCountTest(unittest.TestCase):
    def test_partial_last_page_counts(self) -> None:
        self.assertEqual(page_count(25, 10), 3)

    def test_no_items_still_one_page(self) -> None:
        self.assertEqual(page_count(0, 10), 1)


class PageTest(unittest.TestCase):
    items = list(range(1, 26))

    def test_first_page(self) -> None:
        self.assertEqual(page(self.items, 1, 10), list(range(1, 11)))

    def test_last_page_is_partial(self) -> None:
        self.assertEqual(page(self.items, 3, 10), list(range(21, 26)))


if __name__ == "__main__":
    unittest.main()
