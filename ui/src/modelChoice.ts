// Which ways to a model come first, on the first-run screen and in Settings, and the built-in
// model's file in words. The settings and the model's name come from Rust; this only orders
// and words them.
import type { SettingsView } from "./bindings";
import { isBuiltin } from "./providerKinds";

export type FirstRunCard = "builtin" | "anthropic" | "openai" | "local";

/**
 * The first-run screen's cards in order. With no key anywhere the built-in model is the only
 * way in that needs no account: it comes first, recommended. Someone who has a key sees the
 * providers first.
 */
export function firstRunCards(settings: SettingsView | null): { order: FirstRunCard[]; recommendBuiltin: boolean } {
  const hasKey = (settings?.providers ?? []).some((p) => p.key_source !== null);
  return hasKey
    ? { order: ["anthropic", "openai", "local", "builtin"], recommendBuiltin: false }
    : { order: ["builtin", "anthropic", "openai", "local"], recommendBuiltin: true };
}

/** A card of the Models tab: the built-in model's own card, or a provider's. */
export type SettingsCard<P> = { kind: "builtin" } | { kind: "provider"; provider: P };

/**
 * The Models tab's cards in order: the provider in use first (as it was when Settings opened,
 * so nothing moves under the pointer while choosing), then the others; the built-in model's
 * card with its big Download comes after them — first only when it is the one in use, or when
 * nothing is.
 */
export function settingsCards<P extends { uid: number; kind: string }>(providers: P[], lead: number | null): SettingsCard<P>[] {
  const builtin: SettingsCard<P> = { kind: "builtin" };
  const first = providers.find((p) => p.uid === lead);
  const cards = (ps: P[]) => ps.map((provider): SettingsCard<P> => ({ kind: "provider", provider }));
  if (!first) return [builtin, ...cards(providers)];
  const others = providers.filter((p) => p !== first);
  if (isBuiltin(first.kind)) return [builtin, ...cards([first, ...others])];
  return [...cards([first, ...others]), builtin];
}

/** The built-in model's name without its file details: "Qwen2.5-Coder 1.5B Instruct (Q4_K_M)"
 *  → the name, and "Q4_K_M" for the Details. */
export function builtinModelWords(modelName: string): { name: string; quantisation: string | null } {
  const m = /^(.*\S)\s*\(([^()]+)\)\s*$/.exec(modelName);
  return m ? { name: m[1] ?? modelName, quantisation: m[2] ?? null } : { name: modelName, quantisation: null };
}
