import unittest
from stats import mean, total


class TestStats(unittest.TestCase):
    def test_mean(self):
        self.assertEqual(mean([1, 2, 3]), 2)

    def test_empty(self):
        self.assertEqual(mean([]), 0.0)

    def test_total(self):
        self.assertEqual(total([1, 2]), 3)


if __name__ == "__main__":
    unittest.main()
