import unittest
from words import count_words


class TestWords(unittest.TestCase):
    def test_simple(self):
        self.assertEqual(count_words("a b a"), {"a": 2, "b": 1})

    def test_whitespace(self):
        self.assertEqual(count_words("a  b\na"), {"a": 2, "b": 1})


if __name__ == "__main__":
    unittest.main()
