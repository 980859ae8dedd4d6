// Terminal output with ANSI SGR colours turned into styled spans (never HTML strings).

export type AnsiStyle = {
  fg?: string;
  bg?: string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
};

export type AnsiSpan = { text: string; style: AnsiStyle };

/** The 16 basic colours, as CSS variables so light and dark themes pick readable shades. */
const BASIC = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"];

function basic(i: number, bright: boolean): string {
  return `var(--ansi-${bright ? "bright-" : ""}${BASIC[i] ?? "white"})`;
}

function xterm256(n: number): string {
  if (n < 8) return basic(n, false);
  if (n < 16) return basic(n - 8, true);
  if (n < 232) {
    const c = n - 16;
    const level = (v: number) => (v === 0 ? 0 : 55 + v * 40);
    return `rgb(${level(Math.floor(c / 36))}, ${level(Math.floor(c / 6) % 6)}, ${level(c % 6)})`;
  }
  const g = 8 + (n - 232) * 10;
  return `rgb(${g}, ${g}, ${g})`;
}

function applySgr(style: AnsiStyle, codes: number[]): AnsiStyle {
  const s = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i] ?? 0;
    if (c === 0) {
      for (const k of Object.keys(s)) delete s[k as keyof AnsiStyle];
    } else if (c === 1) s.bold = true;
    else if (c === 2) s.dim = true;
    else if (c === 3) s.italic = true;
    else if (c === 4) s.underline = true;
    else if (c === 7) s.inverse = true;
    else if (c === 22) {
      s.bold = false;
      s.dim = false;
    } else if (c === 23) s.italic = false;
    else if (c === 24) s.underline = false;
    else if (c === 27) s.inverse = false;
    else if (c >= 30 && c <= 37) s.fg = basic(c - 30, false);
    else if (c === 39) delete s.fg;
    else if (c >= 40 && c <= 47) s.bg = basic(c - 40, false);
    else if (c === 49) delete s.bg;
    else if (c >= 90 && c <= 97) s.fg = basic(c - 90, true);
    else if (c >= 100 && c <= 107) s.bg = basic(c - 100, true);
    else if (c === 38 || c === 48) {
      const key = c === 38 ? "fg" : "bg";
      if (codes[i + 1] === 5 && codes[i + 2] !== undefined) {
        s[key] = xterm256(codes[i + 2] as number);
        i += 2;
      } else if (codes[i + 1] === 2 && codes[i + 4] !== undefined) {
        s[key] = `rgb(${codes[i + 2]}, ${codes[i + 3]}, ${codes[i + 4]})`;
        i += 4;
      }
    }
  }
  return s;
}

// CSI sequences (ESC [ … final byte) and OSC sequences (ESC ] … BEL or ESC \).
// eslint-disable-next-line no-control-regex
const ESCAPE = /\x1b\[([0-9;?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/** Splits text into spans of one style each; other escape sequences are dropped. */
export function parseAnsi(text: string): AnsiSpan[] {
  const spans: AnsiSpan[] = [];
  let style: AnsiStyle = {};
  let last = 0;
  const emit = (chunk: string) => {
    if (!chunk) return;
    const prev = spans[spans.length - 1];
    if (prev && prev.style === style) prev.text += chunk;
    else spans.push({ text: chunk, style });
  };
  for (const m of text.matchAll(ESCAPE)) {
    emit(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[2] === "m") {
      const codes = (m[1] ?? "")
        .split(";")
        .filter((p) => p !== "" && p !== "?")
        .map(Number);
      style = applySgr(style, codes.length ? codes : [0]);
    }
  }
  emit(text.slice(last));
  return spans;
}

/** Removes every escape sequence: the plain text. */
export function stripAnsi(text: string): string {
  return parseAnsi(text)
    .map((s) => s.text)
    .join("");
}
