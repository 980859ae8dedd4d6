// Counts as the window writes them.
import { describe, expect, it } from "vitest";
import { formatCount } from "../format";

describe("formatCount", () => {
  it("groups thousands as English does, without the locale's data", () => {
    expect(formatCount(0)).toBe("0");
    expect(formatCount(999)).toBe("999");
    expect(formatCount(1000)).toBe("1,000");
    expect(formatCount(1234567)).toBe("1,234,567");
    expect(formatCount(-12345)).toBe("-12,345");
    expect(formatCount(1234.5)).toBe("1,234.5");
    expect(formatCount(1234567)).toBe((1234567).toLocaleString("en"));
  });
});
