// A handle between two columns: drag it, or focus it and use the arrow keys, to resize.
import { useRef } from "react";

type Props = {
  label: string;
  /** The column's width now. */
  value: number;
  min: number;
  max: number;
  /** +1 when dragging right widens the column (a left column), -1 when it narrows it. */
  direction: 1 | -1;
  onChange: (px: number) => void;
  testId: string;
};

const STEP = 16;

export function Splitter({ label, value, min, max, direction, onChange, testId }: Props) {
  const start = useRef<{ x: number; width: number } | null>(null);
  return (
    <div
      className="splitter"
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuenow={value}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      data-testid={testId}
      onPointerDown={(e) => {
        start.current = { x: e.clientX, width: value };
        e.currentTarget.setPointerCapture(e.pointerId);
        e.preventDefault();
      }}
      onPointerMove={(e) => {
        if (!start.current) return;
        onChange(start.current.width + direction * (e.clientX - start.current.x));
      }}
      onPointerUp={(e) => {
        start.current = null;
        e.currentTarget.releasePointerCapture(e.pointerId);
      }}
      onKeyDown={(e) => {
        if (e.key === "ArrowLeft") onChange(value - direction * STEP);
        else if (e.key === "ArrowRight") onChange(value + direction * STEP);
        else return;
        e.preventDefault();
      }}
    />
  );
}
