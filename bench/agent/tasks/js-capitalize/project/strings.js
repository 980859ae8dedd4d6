// The word with its first letter in upper case: capitalize("hello") is "Hello".
function capitalize(word) {
  // TODO
}

module.exports = { capitalize };
