// Grades as the figures write them: their marks, their words, rank order, DCG written out.
import { dcgAtK, discount, formatNumber, gainValue } from "explainer/metrics";
import { drawMark } from "explainer/dom";

/** What each grade means, 0 first, for a screen reader. */
export const GRADE_WORDS = ["not relevant", "somewhat relevant", "relevant", "highly relevant"];

/** A grade drawn as filled and empty dots, then its number: "●●○ 2" on a 0-to-3 scale. */
export function gradeMark(grade, maxGrade) {
  return `${"●".repeat(grade)}${"○".repeat(maxGrade - grade)} ${grade}`;
}

/** Draw a grade's mark in `node`, the dots for the eye only: a screen reader hears the number. */
export function drawGrade(node, grade, maxGrade) {
  const text = gradeMark(grade, maxGrade);
  if (node.textContent !== text) drawMark(node, text.split(" ")[0], String(grade));
}

/** The grades of a state { grades (by document), order (documents by rank) } in rank order. */
export function rankedGrades(state) {
  return state.order.map((doc) => state.grades[doc]);
}

/** "g/d + g/d + ... = total": the DCG of the top `depth` grades written out, each gain over log2(rank + 1). */
export function dcgSum(grades, depth, gain) {
  const shown = grades.slice(0, depth).map((g, i) => `${gainValue(g, gain)}/${formatNumber(1 / discount(i + 1))}`);
  return `${shown.join(" + ")} = ${formatNumber(dcgAtK(grades, depth, gain))}`;
}

/** The running sums of a list of numbers. */
export function cumulative(terms) {
  let sum = 0;
  return terms.map((t) => (sum += t));
}
