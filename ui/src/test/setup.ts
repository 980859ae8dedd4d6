import "@testing-library/jest-dom/vitest";

// jsdom has no layout, so no scrolling either.
Element.prototype.scrollIntoView = function scrollIntoView() {};

// Layout APIs that CodeMirror and virtua call and jsdom lacks. Every observed element reports
// one fixed size: the transcript's viewport is then tall enough to mount a screenful of rows.
class FakeResizeObserver {
  private callback: ResizeObserverCallback;
  constructor(callback: ResizeObserverCallback) {
    this.callback = callback;
  }
  observe(target: Element) {
    const contentRect = { width: 900, height: 2000, top: 0, left: 0, bottom: 2000, right: 900, x: 0, y: 0 };
    const entry = { target, contentRect, borderBoxSize: [{ inlineSize: 900, blockSize: 2000 }] };
    queueMicrotask(() => this.callback([entry as unknown as ResizeObserverEntry], this as unknown as ResizeObserver));
  }
  unobserve() {}
  disconnect() {}
}
if (!("ResizeObserver" in window)) {
  (window as unknown as { ResizeObserver: unknown }).ResizeObserver = FakeResizeObserver;
  (globalThis as unknown as { ResizeObserver: unknown }).ResizeObserver = FakeResizeObserver;
}

const emptyRect = () => new DOMRect(0, 0, 0, 0);
const emptyList = () => {
  const list = [] as unknown as DOMRectList;
  (list as unknown as { item: () => null }).item = () => null;
  return list;
};
Range.prototype.getBoundingClientRect = emptyRect;
Range.prototype.getClientRects = emptyList;
if (!Element.prototype.getClientRects) Element.prototype.getClientRects = emptyList;
if (!document.elementFromPoint) document.elementFromPoint = () => null;

// Element scrolling, as virtua drives it.
type ScrollArg = ScrollToOptions | number | undefined;
function scrollToImpl(this: Element, a?: ScrollArg, b?: number) {
  if (typeof a === "object") {
    if (a.top !== undefined) this.scrollTop = a.top;
    if (a.left !== undefined) this.scrollLeft = a.left;
  } else if (typeof a === "number") {
    this.scrollLeft = a;
    if (b !== undefined) this.scrollTop = b;
  }
}
function scrollByImpl(this: Element, a?: ScrollArg, b?: number) {
  if (typeof a === "object") {
    this.scrollTop += a.top ?? 0;
    this.scrollLeft += a.left ?? 0;
  } else if (typeof a === "number") {
    this.scrollLeft += a;
    this.scrollTop += b ?? 0;
  }
}
if (!Element.prototype.scrollTo) Element.prototype.scrollTo = scrollToImpl as Element["scrollTo"];
if (!Element.prototype.scrollBy) Element.prototype.scrollBy = scrollByImpl as Element["scrollBy"];
