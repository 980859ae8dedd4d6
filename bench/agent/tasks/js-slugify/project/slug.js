function slugify(title) {
  return title;
}

module.exports = { slugify };
