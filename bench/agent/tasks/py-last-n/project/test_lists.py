import unittest
from lists import last_n


class TestLists(unittest.TestCase):
    def test_last_two(self):
        self.assertEqual(last_n([1, 2, 3, 4], 2), [3, 4])


if __name__ == "__main__":
    unittest.main()
