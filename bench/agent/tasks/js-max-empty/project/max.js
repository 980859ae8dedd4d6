function max(numbers) {
  return Math.max(...numbers);
}

module.exports = { max };
