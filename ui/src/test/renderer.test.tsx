// The window ships with Preact behind React's API (vite.config.ts): the tests must render with it
// too, or they would test a renderer the app does not have.
import { describe, expect, it } from "vitest";
import { useState } from "react";
import * as React from "react";
import * as ReactDomClient from "react-dom/client";
import * as compat from "preact/compat";
import * as compatClient from "preact/compat/client";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";

function Counter() {
  const [n, setN] = useState(0);
  return <button onClick={() => setN(n + 1)}>clicked {n}</button>;
}

describe("the renderer under test", () => {
  it("is Preact, as in the built window", () => {
    expect(React.useState).toBe(compat.useState);
    expect(ReactDomClient.createRoot).toBe(compatClient.createRoot);
  });

  it("renders and updates through Testing Library with Preact's hooks", async () => {
    render(<Counter />);
    await userEvent.setup().click(screen.getByRole("button"));
    expect(screen.getByRole("button")).toHaveTextContent("clicked 1");
  });
});
