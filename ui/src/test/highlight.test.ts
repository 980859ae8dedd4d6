import { describe, expect, it } from "vitest";
import { highlightLines, languageFor } from "../highlight";

describe("languageFor", () => {
  it("maps extensions and well-known names", () => {
    expect(languageFor("src/main.rs")).toBe("rust");
    expect(languageFor("ui/App.TSX")).toBe("tsx");
    expect(languageFor("Makefile")).toBe("makefile");
    expect(languageFor("notes.txt")).toBeNull();
    expect(languageFor(".gitignore")).toBeNull();
  });
});

describe("highlightLines", () => {
  it("colours Rust with light and dark themes using the JavaScript engine", async () => {
    const tokens = await highlightLines("a.rs", ["fn main() {", "    let x = 1;", "}"]);
    expect(tokens).not.toBeNull();
    expect(tokens).toHaveLength(3);
    const fnToken = tokens?.[0]?.find((t) => t.content === "fn");
    expect(fnToken?.htmlStyle).toMatchObject({ "--shiki-dark": expect.any(String) });
  });

  it("returns null for plain text", async () => {
    expect(await highlightLines("notes.txt", ["hello"])).toBeNull();
  });
});
