import type { TitlePart } from "../bindings";

/** A tool call's title as Rust wrote it, its command or pattern set as code. */
export function CallTitle({ title }: { title: TitlePart[] }) {
  return (
    <>
      {title.map((p, i) =>
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
