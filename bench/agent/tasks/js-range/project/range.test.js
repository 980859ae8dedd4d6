const test = require("node:test");
const assert = require("node:assert");
const { range } = require("./range.js");

test("range excludes its end", () => {
  assert.deepStrictEqual(range(0, 3), [0, 1, 2]);
  assert.deepStrictEqual(range(2, 2), []);
});
