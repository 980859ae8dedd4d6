import unittest
from temperature import celsius_to_fahrenheit, fahrenheit_to_celsius


class TestTemperature(unittest.TestCase):
    def test_both_ways(self):
        self.assertEqual(celsius_to_fahrenheit(100), 212)
        self.assertEqual(fahrenheit_to_celsius(212), 100)
        self.assertEqual(fahrenheit_to_celsius(32), 0)


if __name__ == "__main__":
    unittest.main()
