import { afterEach, describe, expect, it } from "vitest";
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { AppError, call, toAppError } from "../api";

afterEach(() => clearMocks());

describe("call", () => {
  it("sends the arguments as one `args` object and returns the result", async () => {
    const seen: unknown[] = [];
    mockIPC((cmd, payload) => {
      seen.push([cmd, payload]);
      return { root: "/p", name: "p", is_git: false, branch: null };
    });
    const info = await call("open_project", { path: "/p" });
    expect(info.name).toBe("p");
    expect(seen).toEqual([["open_project", { args: { path: "/p" } }]]);
  });

  it("sends no payload for commands without arguments", async () => {
    const seen: unknown[] = [];
    mockIPC((_cmd, payload) => {
      seen.push(payload);
      return { kind: "welcome" };
    });
    await call("startup");
    expect(seen).toEqual([{}]);
  });

  it("turns a command error into an AppError with its code and message", async () => {
    mockIPC(() => {
      throw { code: "not_a_directory", message: "/x is a file, not a folder." };
    });
    const err = await call("open_project", { path: "/x" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("not_a_directory");
    expect((err as AppError).message).toContain("not a folder");
  });

  it("keeps plain string errors readable", () => {
    expect(toAppError("boom").message).toBe("boom");
    expect(toAppError(new Error("bad")).code).toBe("internal");
  });
});
