// A tool call's title comes from Rust, written by its tool from its arguments ("Edit
// src/main.rs", "Run `cargo test`") as parts: words, and code the window sets in monospace
// (`CallTitle`). The window never works a title out of a tool's name.
import type { TitlePart } from "./bindings";

/** The title as one line of plain text, for what cannot hold markup (a screen reader's
 * announcement): the code parts' text as it is, without backticks. */
export function titleText(title: TitlePart[]): string {
  return title.map((p) => p.text).join("");
}
