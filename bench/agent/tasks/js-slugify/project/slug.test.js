const test = require("node:test");
const assert = require("node:assert");
const { slugify } = require("./slug.js");

test("slugify", () => {
  assert.strictEqual(slugify("Hello, World!"), "hello-world");
  assert.strictEqual(slugify("  Many   spaces here "), "many-spaces-here");
});
