import unittest
from text import is_palindrome


class TestText(unittest.TestCase):
    def test_palindromes(self):
        self.assertTrue(is_palindrome("Racecar"))
        self.assertTrue(is_palindrome("A man, a plan, a canal: Panama"))
        self.assertFalse(is_palindrome("hello"))


if __name__ == "__main__":
    unittest.main()
