// Numbers and dates the way the UI shows them.

export function relativeTime(ms: number, now = Date.now()): string {
  const minutes = Math.round((now - ms) / 60000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days === 1) return "yesterday";
  if (days < 7) return `${days} days ago`;
  return new Date(ms).toLocaleDateString();
}

/**
 * A count with its thousands grouped ("12,345"), as the rest of the window's English reads.
 * Not `toLocaleString()`: its first call loads the locale's data, ~11 ms of the window's start
 * on this machine, and the cost meter on the first screen would pay it.
 */
export function formatCount(n: number): string {
  const [whole = "", fraction] = String(Math.abs(n)).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${n < 0 ? "-" : ""}${grouped}${fraction === undefined ? "" : `.${fraction}`}`;
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** "$0.00" for free (Rust says 0 for a model on this computer), words when the price is unknown. */
export function formatCost(usd: number | null): string {
  if (usd === null) return "cost unknown";
  if (usd > 0 && usd < 0.01) return `$${usd.toFixed(3)}`;
  return `$${usd.toFixed(2)}`;
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

/**
 * A project path as people read it. The engine keeps each byte of a file name that is not
 * UTF-8 as NUL and two hex digits (NUL cannot be in a name); it is shown as `\xE9`. Control
 * characters are shown escaped (`\n`, `\x1B`), as the engine shows them.
 */
export function shownPath(path: string): string {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return path.replace(/\0([89a-fA-F][0-9a-fA-F])|[\u0000-\u001f\u007f-\u009f]/g, (c: string, hex?: string) => {
    if (hex) return `\\x${hex.toUpperCase()}`;
    // A control character in a name (a newline, an escape) is shown as the engine shows it,
    // never obeyed: the name stays on its line.
    const named: Record<string, string> = { "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0" };
    return named[c] ?? `\\x${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`;
  });
}

/** Dollars as people read them: cents from a dollar up, and below it as many digits as it takes
 *  to show anything ($0.003, not "$0.00"). The engine words them the same way. */
export function formatUsd(v: number): string {
  if (v >= 1 || v === 0) return `$${v.toFixed(2)}`;
  const trimmed = v.toFixed(4).replace(/0+$/, "");
  const decimals = trimmed.split(".")[1]?.length ?? 0;
  return decimals < 2 ? `$${v.toFixed(2)}` : `$${trimmed}`;
}
