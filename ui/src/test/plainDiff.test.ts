import { describe, expect, it } from "vitest";
import { plainDiff } from "../plainDiff";

describe("plain diff shown while the diff viewer loads", () => {
  it("shows the removed line, then the added one, with shared context", () => {
    const a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
    const b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
    expect(plainDiff(a, b)).toEqual([
      { kind: "same", text: "2" },
      { kind: "same", text: "3" },
      { kind: "same", text: "4" },
      { kind: "del", text: "5" },
      { kind: "add", text: "five" },
      { kind: "same", text: "6" },
      { kind: "same", text: "7" },
      { kind: "same", text: "8" },
    ]);
  });

  it("a new file is all additions and a repeated line is not mistaken for a change", () => {
    expect(plainDiff("", "a\nb\n")).toEqual([
      { kind: "add", text: "a" },
      { kind: "add", text: "b" },
    ]);
    expect(plainDiff("x\nx\n", "x\nx\nx\n")).toEqual([
      { kind: "same", text: "x" },
      { kind: "same", text: "x" },
      { kind: "add", text: "x" },
    ]);
  });
});
