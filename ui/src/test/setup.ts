import "@testing-library/jest-dom/vitest";

// jsdom has no layout, so no scrolling either.
Element.prototype.scrollIntoView = function scrollIntoView() {};
