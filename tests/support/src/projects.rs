//! Small projects the suites give the agent.

use std::path::Path;

/// A Python module whose `add` subtracts, and the unittest that says so: the task a small
/// model is asked to fix.
pub fn buggy_calc(dir: &Path) {
    std::fs::write(dir.join("calc.py"), "def add(a, b):\n    return a - b\n").expect("write");
    std::fs::write(
        dir.join("test_calc.py"),
        "import unittest\nfrom calc import add\n\n\nclass Calc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
    )
    .expect("write");
}
