const test = require("node:test");
const assert = require("node:assert");
const { max } = require("./max.js");

test("max", () => {
  assert.strictEqual(max([3, 9, 2]), 9);
  assert.strictEqual(max([]), null);
});
