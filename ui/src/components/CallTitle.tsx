import type { JsonValue } from "../bindings";
import { describeCallParts } from "../describeCall";

/** A tool call's title, its command or pattern set as code. */
export function CallTitle({ name, input }: { name: string; input: JsonValue }) {
  return (
    <>
      {describeCallParts(name, input).map((p, i) =>
        p.code ? (
          <code key={i} className="call-code">
            {p.text}
          </code>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </>
  );
}
