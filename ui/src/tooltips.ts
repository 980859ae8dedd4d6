// Tooltips drawn by the page instead of the toolkit. WebKitGTK's native tooltips stay on screen
// after the button under them is gone (an approval card answered, a task stopped), so every
// `title` in the window is shown here instead, and the tip goes when its element does: on a
// click, a key, a scroll, the pointer leaving, or the element leaving the page.

const DELAY_MS = 450;
const GAP_PX = 6;

type Shown = { anchor: HTMLElement; tip: HTMLElement };

export function installTooltips(doc: Document = document): () => void {
  let timer: number | undefined;
  let shown: Shown | null = null;
  let pending: HTMLElement | null = null;

  const textOf = (el: HTMLElement) => el.getAttribute("title") ?? el.dataset.tip ?? "";

  // The native tooltip must never appear: the text moves to data-tip on first hover, and is
  // kept as the element's accessible description.
  const adopt = (el: HTMLElement) => {
    const title = el.getAttribute("title");
    if (title === null) return;
    el.dataset.tip = title;
    el.setAttribute("aria-description", title);
    el.removeAttribute("title");
  };

  const hide = () => {
    window.clearTimeout(timer);
    timer = undefined;
    pending = null;
    shown?.tip.remove();
    shown = null;
  };

  const show = (anchor: HTMLElement) => {
    const text = textOf(anchor);
    if (!anchor.isConnected || text === "") return;
    const tip = doc.createElement("div");
    tip.className = "tooltip";
    tip.setAttribute("role", "tooltip");
    tip.textContent = text;
    doc.body.appendChild(tip);
    const a = anchor.getBoundingClientRect();
    const t = tip.getBoundingClientRect();
    const below = a.bottom + GAP_PX + t.height <= window.innerHeight;
    const top = below ? a.bottom + GAP_PX : Math.max(0, a.top - GAP_PX - t.height);
    const left = Math.min(Math.max(4, a.left + a.width / 2 - t.width / 2), window.innerWidth - t.width - 4);
    tip.style.top = `${top}px`;
    tip.style.left = `${left}px`;
    shown = { anchor, tip };
  };

  const over = (e: Event) => {
    const target = e.target instanceof Element ? e.target : null;
    const anchor = target?.closest<HTMLElement>("[title], [data-tip]") ?? null;
    if (!anchor || anchor === pending || anchor === shown?.anchor) return;
    hide();
    adopt(anchor);
    pending = anchor;
    timer = window.setTimeout(() => {
      if (pending === anchor) show(anchor);
    }, DELAY_MS);
  };

  const out = (e: Event) => {
    const anchor = pending ?? shown?.anchor;
    const to = (e as PointerEvent).relatedTarget;
    if (anchor && !(to instanceof Node && anchor.contains(to))) hide();
  };

  // Whatever happens to the page, a tip whose element is gone or disabled goes too.
  // A title React sets again (a label that changed) is adopted at once, before the toolkit
  // can show it.
  const watch = new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "attributes" && r.attributeName === "title" && r.target instanceof HTMLElement) adopt(r.target);
    }
    const anchor = pending ?? shown?.anchor;
    if (anchor && (!anchor.isConnected || anchor.matches(":disabled"))) hide();
  });
  watch.observe(doc.body, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ["disabled", "hidden", "title"],
  });

  doc.addEventListener("pointerover", over);
  doc.addEventListener("pointerout", out);
  for (const type of ["pointerdown", "keydown", "wheel"]) doc.addEventListener(type, hide, true);
  doc.addEventListener("scroll", hide, true);
  window.addEventListener("blur", hide);
  return () => {
    hide();
    watch.disconnect();
    doc.removeEventListener("pointerover", over);
    doc.removeEventListener("pointerout", out);
    for (const type of ["pointerdown", "keydown", "wheel"]) doc.removeEventListener(type, hide, true);
    doc.removeEventListener("scroll", hide, true);
    window.removeEventListener("blur", hide);
  };
}
