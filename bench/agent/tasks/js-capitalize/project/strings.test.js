const test = require("node:test");
const assert = require("node:assert");
const { capitalize } = require("./strings.js");

test("capitalize", () => {
  assert.strictEqual(capitalize("hello"), "Hello");
  assert.strictEqual(capitalize("a"), "A");
  assert.strictEqual(capitalize(""), "");
});
