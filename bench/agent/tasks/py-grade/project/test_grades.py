import unittest
from grades import grade


class TestGrades(unittest.TestCase):
    def test_letters(self):
        self.assertEqual(grade(95), "A")
        self.assertEqual(grade(90), "A")
        self.assertEqual(grade(85), "B")
        self.assertEqual(grade(70), "C")
        self.assertEqual(grade(61), "D")
        self.assertEqual(grade(12), "F")


if __name__ == "__main__":
    unittest.main()
