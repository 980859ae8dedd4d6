// A command's changes under review: which pieces (a text file's hunks, or a change taken
// whole) the person keeps, and the answer that sends. Rust numbers the pieces and lands
// what the answer names; this only keeps the choice.
import type { ApprovalAnswer, ChangeReview, ReviewFile } from "./bindings";

/** Piece index → kept. */
export type ReviewChoice = Record<number, boolean>;

/** The pieces of one file: its hunks, or its one whole piece. */
export function piecesOf(file: ReviewFile): number[] {
  if (file.whole !== undefined && file.whole !== null) return [file.whole];
  return file.hunks.map((h) => h.index);
}

/**
 * What the review starts with: every change kept, except those that would make another
 * program run code — the person opts in to those, one by one.
 */
export function initialChoice(review: ChangeReview): ReviewChoice {
  const choice: ReviewChoice = {};
  for (const f of review.files) {
    for (const p of piecesOf(f)) choice[p] = f.class.kind !== "runs_code";
  }
  return choice;
}

export function keptCount(review: ChangeReview, choice: ReviewChoice): number {
  let kept = 0;
  for (let i = 0; i < review.pieces; i++) if (choice[i] !== false) kept++;
  return kept;
}

/** The answer for the choice: all, none (a denial), or the pieces kept. */
export function answerForReview(review: ChangeReview, choice: ReviewChoice): ApprovalAnswer {
  const kept: number[] = [];
  for (let i = 0; i < review.pieces; i++) if (choice[i] !== false) kept.push(i);
  if (kept.length === review.pieces) return { answer: "approve" };
  if (kept.length === 0) return { answer: "deny", message: null };
  return { answer: "approve_partial", accepted_hunks: kept };
}

/** The button's words for the choice. */
export function reviewLabel(review: ChangeReview, choice: ReviewChoice): string {
  const kept = keptCount(review, choice);
  if (kept === 0) return "Reject all changes";
  if (kept === review.pieces) return review.pieces === 1 ? "Keep the change" : "Keep all changes";
  return `Keep ${kept} of ${review.pieces} changes`;
}
