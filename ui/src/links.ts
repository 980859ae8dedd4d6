// Web addresses in text a tool printed (a pull request's URL, a page fetched): found so the
// window can open them in the browser. Only http and https: nothing else is opened.
const URL_RE = /https?:\/\/[^\s<>"'`]+/g;

export type Piece = { text: string; url?: undefined } | { text: string; url: string };

/** The text in pieces: plain ones, and web addresses (without the punctuation that ends a
 * sentence after one). */
export function splitUrls(text: string): Piece[] {
  const out: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(URL_RE)) {
    let url = m[0];
    // "See https://x.y/z." / "(https://x.y/z)": the closing mark is not the address's.
    while (/[.,;:!?)\]}]$/.test(url) && !(url.endsWith(")") && balanced(url))) url = url.slice(0, -1);
    const at = m.index ?? 0;
    if (at > last) out.push({ text: text.slice(last, at) });
    out.push({ text: url, url });
    last = at + url.length;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}

/** Whether an address's brackets are all closed (a Wikipedia-style `a_(b)`): its last `)` is its
 * own then. */
function balanced(url: string): boolean {
  return url.split("(").length === url.split(")").length;
}
