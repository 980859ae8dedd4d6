import unittest
from search import find_index


class TestSearch(unittest.TestCase):
    def test_found(self):
        self.assertEqual(find_index([5, 7, 9], 7), 1)

    def test_first(self):
        self.assertEqual(find_index([1, 2, 1], 1), 0)

    def test_missing(self):
        self.assertEqual(find_index([5], 3), -1)


if __name__ == "__main__":
    unittest.main()
