// The class's guesses of one number, as the projector shows them: where each dot goes on a strip
// from 0 to 1, the median, the share within 0.05 of the true value, and the same in words.
// Pure functions of the values the server sends (sorted, whoever made them).
import { formatNumber } from "explainer/metrics";

// A guess this close to the true value counts as close (classroom/question.py CLOSE).
export const CLOSE = 0.05;

/** The median of sorted `values` (null for none). */
export function median(values) {
  const n = values.length;
  if (!n) return null;
  return n % 2 ? values[(n - 1) / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/** The share of `values` within CLOSE of `truth` (null for none). */
export function shareWithin(values, truth) {
  if (!values.length) return null;
  return values.filter((value) => Math.abs(value - truth) <= CLOSE + 1e-9).length / values.length;
}

/**
 * Where each of `values` (from 0 to 1) is drawn on a strip `columns` dots wide: its column (the
 * value's, rounded) and its row, counted up from 0, so that equal guesses stack as a column of
 * dots instead of hiding one another. Returns [{ value, column, row }] and the tallest stack.
 */
export function dotPlot(values, columns) {
  const heights = new Array(columns + 1).fill(0);
  const dots = values.map((value) => {
    const column = Math.round(Math.min(1, Math.max(0, value)) * columns);
    return { value, column, row: heights[column]++ };
  });
  return { dots, tallest: Math.max(0, ...heights) };
}

/** The strip in words, for a screen reader: how many guessed, their median and range, and once revealed the truth and the share close to it. */
export function describeSpread(label, values, truth = null) {
  if (!values.length) return `${label}: no guesses yet.`;
  const n = values.length;
  const parts = [
    `${label}: ${n} ${n === 1 ? "guess" : "guesses"}, median ${formatNumber(median(values))}, from ${formatNumber(values[0])} to ${formatNumber(values.at(-1))}.`,
  ];
  if (truth !== null) {
    const share = Math.round(shareWithin(values, truth) * 100);
    parts.push(`The true value is ${formatNumber(truth)}; ${share}% of the guesses were within ${formatNumber(CLOSE)} of it.`);
  }
  return parts.join(" ");
}
