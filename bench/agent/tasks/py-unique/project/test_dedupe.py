import unittest
from dedupe import unique


class TestDedupe(unittest.TestCase):
    def test_order_kept(self):
        self.assertEqual(unique([3, 1, 3, 2, 1]), [3, 1, 2])
        self.assertEqual(unique([]), [])


if __name__ == "__main__":
    unittest.main()
