// What the window knows of a kind of model provider: its row of PROVIDER_KINDS (generated from
// crates/protocol/src/providers.rs), looked up by name. The window asks the row — the wire the
// kind speaks, its address, its key's variable, its words — never the name, so a kind added
// in Rust as one row is offered and treated like the others with no change here.
import { PROVIDER_KINDS, type ProviderKind, type ProviderKindView } from "./bindings";

/**
 * The kind a model server on this computer is set up as (Ollama, llama.cpp, LM Studio…): the
 * one for OpenAI's API and every server compatible with it (its aliases in Rust include
 * "local"). The rows do not say which one that is, so it is named here, once.
 */
export const LOCAL_SERVER_KIND: ProviderKind = "openai";

/** The row of a kind, or null for a name no row has. */
export function kindInfo(kind: ProviderKind, rows: ProviderKindView[] = PROVIDER_KINDS): ProviderKindView | null {
  return rows.find((r) => r.name === kind) ?? null;
}

/** Whether a kind is set up with an address (every OpenAI-compatible one: the address names the server). */
export function takesAddress(kind: ProviderKind): boolean {
  return kindInfo(kind)?.wire === "openai";
}

/** Whether a kind is the model built into Tandem: a model file, no address, no key. */
export function isBuiltin(kind: ProviderKind): boolean {
  return kindInfo(kind)?.wire === "builtin";
}

/**
 * The service at a kind's own address, in words: its words without "or compatible" ("OpenAI
 * or compatible" is OpenAI's API, and the servers that speak it).
 */
export function serviceWords(row: ProviderKindView): string {
  return row.words.replace(/\s+or compatible$/i, "");
}

/**
 * Whether a provider of this kind at this address needs a key: a hosted API does (its row
 * names the variable a key is read from), a server at an address of one's own — one on this
 * computer, most often — need not. A kind that takes no address is always its hosted API.
 */
export function needsKey(kind: ProviderKind, baseUrl: string): boolean {
  const row = kindInfo(kind);
  if (!row || row.key_env === "") return false;
  return !(takesAddress(kind) && baseUrl.trim() !== "");
}

/** The hosted APIs people can add with a key, in the order they are offered: every kind with a key but the built-in model. */
export function hostedKinds(): ProviderKindView[] {
  return PROVIDER_KINDS.filter((r) => r.key_env !== "" && r.wire !== "builtin");
}
