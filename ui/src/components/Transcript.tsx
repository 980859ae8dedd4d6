// The conversation, virtualised: a session of thousands of entries opens and scrolls smoothly.
// It follows the newest entry while the agent works, unless the user scrolled up to read.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { VList, type VListHandle } from "virtua";
import { useSession } from "../session";
import { useApp } from "../store";
import { exampleTasks } from "../exampleTasks";
import { ExpandedMemo } from "./ToolCard";
import { TranscriptItem } from "./TranscriptItem";
import { findMatch } from "../transcript";
import { formatCount } from "../format";

const NEAR_BOTTOM_PX = 48;

export function Transcript() {
  const items = useSession((s) => s.transcript.items);
  const sessionId = useSession((s) => s.current?.id ?? null);
  const loading = useSession((s) => s.loading);
  const warnings = useSession((s) => s.warnings);
  const working = useSession(
    (s) => s.runningSession !== null && s.runningSession === s.current?.id && s.transcript.pending.length === 0,
  );
  const streaming = useSession((s) => s.transcript.streamingText !== null);
  const writing = useSession((s) => s.transcript.writing);
  const reading = useSession((s) => s.transcript.reading);
  const top = useApp((s) => {
    const f = s.folders[""];
    return f && f.status === "loaded" ? f.entries : null;
  });
  const examples = useMemo(() => exampleTasks(top), [top]);
  const setDraft = useSession((s) => s.setDraft);
  const list = useRef<VListHandle>(null);
  const stick = useRef(true);
  const [awayFromBottom, setAway] = useState(false);
  // Folded/unfolded cards, per session.
  const memo = useMemo(() => {
    void sessionId;
    return new Map<string, boolean>();
  }, [sessionId]);

  // The working line shows while nothing streams, and under the text while a call is written.
  const rows = items.length + (working && (!streaming || writing) ? 1 : 0);
  const data = useMemo(() => Array.from({ length: rows }, (_, i) => i), [rows]);

  const toBottom = useCallback(() => {
    const handle = list.current;
    if (handle && rows > 0) handle.scrollToIndex(rows - 1, { align: "end" });
  }, [rows]);

  // A newly opened session starts at its end.
  useLayoutEffect(() => {
    stick.current = true;
    setAway(false);
    setMatchKey(null);
  }, [sessionId]);

  // Opened from a search: at the first entry holding its words, marked.
  const searchFocus = useSession((s) => s.searchFocus);
  const clearSearchFocus = useSession((s) => s.clearSearchFocus);
  const [matchKey, setMatchKey] = useState<string | null>(null);
  useLayoutEffect(() => {
    if (!searchFocus || searchFocus.session !== sessionId || loading || items.length === 0) return;
    const i = findMatch(items, searchFocus.query);
    clearSearchFocus();
    if (i < 0) return;
    stick.current = false;
    setAway(true);
    setMatchKey(items[i]?.key ?? null);
    list.current?.scrollToIndex(i, { align: "center" });
  }, [searchFocus, sessionId, loading, items, clearSearchFocus]);

  useLayoutEffect(() => {
    if (stick.current) toBottom();
  }, [items, rows, toBottom]);

  // Only the user's own scrolling (wheel, touch, keys, the scrollbar) stops the following;
  // rows measured or the viewport resized while following just follow again.
  const userScrolledAt = useRef(0);
  // A held pointer (dragging the scrollbar) counts however long the page takes to answer.
  const pointerHeld = useRef(false);
  const markUser = useCallback(() => {
    userScrolledAt.current = Date.now();
  }, []);
  // The pointer may be released anywhere (a scrollbar drag often ends outside the list).
  useEffect(() => {
    const release = () => {
      pointerHeld.current = false;
    };
    window.addEventListener("pointerup", release);
    window.addEventListener("pointercancel", release);
    return () => {
      window.removeEventListener("pointerup", release);
      window.removeEventListener("pointercancel", release);
    };
  }, []);
  const onScroll = useCallback(
    (offset: number) => {
      const h = list.current;
      if (!h) return;
      const near = h.scrollSize - offset - h.viewportSize <= NEAR_BOTTOM_PX;
      if (near) {
        stick.current = true;
        setAway(false);
      } else if (!stick.current || pointerHeld.current || Date.now() - userScrolledAt.current < 800) {
        stick.current = false;
        setAway(true);
      } else {
        requestAnimationFrame(toBottom);
      }
    },
    [toBottom],
  );

  if (items.length === 0) {
    return (
      <div className="transcript empty" data-testid="transcript">
        {loading ? (
          <p className="muted">Opening the session…</p>
        ) : (
          <div className="transcript-intro">
            <h1>What should we work on?</h1>
            <p className="muted">
              Describe a task below. Tandem reads the code, proposes changes and runs commands — and asks
              you before anything the policy does not allow on its own.
            </p>
            <ul className="example-tasks" data-testid="example-tasks">
              {examples.map((e) => (
                <li key={e}>
                  <button
                    className="example-task"
                    data-testid="example-task"
                    data-text={e}
                    onClick={() => setDraft(e, true)}
                    title="Put this in the message box"
                  >
                    “{e}”
                  </button>
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
    );
  }

  return (
    <div
      className="transcript"
      data-testid="transcript"
      data-count={items.length}
      onWheel={(e) => {
        markUser();
        // Turning the wheel up leaves the end at once: on a busy machine the scroll it causes
        // may come later than the 800 ms a scroll is taken as the user's.
        const h = list.current;
        if (e.deltaY < 0 && h && h.scrollSize > h.viewportSize) stick.current = false;
      }}
      onTouchMove={markUser}
      onPointerDown={() => {
        pointerHeld.current = true;
        markUser();
      }}

      onKeyDown={(e) => {
        if (["ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End", " "].includes(e.key)) markUser();
      }}
    >
      {warnings.length > 0 && (
        <div className="banner warn transcript-warning">
          Some of this session's log could not be read: {warnings.join("; ")}
        </div>
      )}
      <ExpandedMemo.Provider value={memo}>
        <VList
          ref={list}
          className="transcript-list"
          data={data}
          onScroll={onScroll}
          onResize={() => stick.current && toBottom()}
        >
          {(i) => {
            const item = items[i];
            return (
              <div
                className={item && item.key === matchKey ? "transcript-row search-match" : "transcript-row"}
                data-testid={item && item.key === matchKey ? "search-match" : undefined}
                key={item?.key ?? "working"}
              >
                {item ? (
                  <TranscriptItem item={item} />
                ) : (
                  <div className="working" data-testid="working">
                    <span className="dots" aria-hidden>
                      <i />
                      <i />
                      <i />
                    </span>
                    {writing ? (
                      <WritingCall words={writing.words} chars={writing.chars} />
                    ) : reading ? (
                      <ReadingPrompt evaluated={reading.evaluated} total={reading.total} />
                    ) : (
                      "Working…"
                    )}
                  </div>
                )}
              </div>
            );
          }}
        </VList>
      </ExpandedMemo.Provider>
      {/* Below the list, not over it: floating, it covered the last entry (a restore's note). */}
      {awayFromBottom && (
        <div className="jump-latest-bar">
          <button
            className="jump-latest"
            data-testid="jump-latest"
            onClick={() => {
              stick.current = true;
              setAway(false);
              toBottom();
            }}
          >
            ↓ Latest
          </button>
        </div>
      )}
    </div>
  );
}

/** A call the model is still writing: what it will do, and how much it has written. */
function WritingCall({ words, chars }: { words: string; chars: number }) {
  return (
    <span data-testid="writing-call">
      Preparing: {words}
      {chars > 0 && <span className="muted"> · {formatCount(chars)} characters written</span>}
    </span>
  );
}

/** A model on this computer reading a long conversation before its first word (a minute or
 *  more on a laptop's processor for the first message). */
function ReadingPrompt({ evaluated, total }: { evaluated: number; total: number }) {
  return (
    <span className="reading-prompt" data-testid="prompt-progress">
      Reading the conversation
      <progress max={total} value={evaluated} aria-label="Read so far" />
      <span className="muted">
        {formatCount(evaluated)} of {formatCount(total)} tokens
      </span>
    </span>
  );
}
