// The projector's picture of the class's guesses: for each hidden number a strip from 0 to 1 with
// a dot per guess (equal guesses stacked), the median marked, how many answered, and once revealed
// the true value over the spread with the share of guesses within 0.05 of it. Drawn as SVG, big
// enough to read from the back of the room; the same in words for a screen reader (spread.js).
import { h } from "explainer/dom";
import { formatNumber } from "explainer/metrics";
import { CLOSE, describeSpread, dotPlot, median, shareWithin } from "explainer/class-spread";

const SVG = "http://www.w3.org/2000/svg";
const COLUMNS = 20; // dots across the strip: a column for each 0.05, the arrow keys' step
const WIDTH = 1000; // the strip's drawing units; it scales to its box
const MARGIN = 40; // room at either end for the axis's first and last numbers
const DOT = (WIDTH - 2 * MARGIN) / (COLUMNS + 1) / 2; // a dot's radius, in those units
const AXIS = 64; // room under the dots for the axis and its numbers
const ROWS = 6; // the strip's height in dots: taller stacks are pressed into it, so every strip keeps one size

function svg(tag, attributes = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

const x = (value) => MARGIN + DOT + value * (WIDTH - 2 * MARGIN - 2 * DOT);

/** One number's strip: `values` sorted, `truth` null until revealed. */
function strip(values, truth) {
  const { dots, tallest } = dotPlot(values, COLUMNS);
  const base = ROWS * 2 * DOT;
  const height = base + AXIS;
  const rise = tallest > ROWS ? (base - 2 * DOT) / (tallest - 1) : 2 * DOT; // between two dots of a stack
  const picture = svg("svg", { viewBox: `0 0 ${WIDTH} ${height}`, class: "class-strip", "aria-hidden": "true" });
  picture.append(svg("line", { x1: x(0), x2: x(1), y1: base, y2: base, class: "class-axis" }));
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    picture.append(svg("line", { x1: x(tick), x2: x(tick), y1: base, y2: base + 10, class: "class-axis" }));
    picture.append(svg("text", { x: x(tick), y: base + 52, class: "class-tick" }, formatNumber(tick)));
  }
  if (truth !== null) {
    picture.append(svg("rect", { x: x(Math.max(0, truth - CLOSE)), y: 0, width: x(Math.min(1, truth + CLOSE)) - x(Math.max(0, truth - CLOSE)), height: base, class: "class-near" }));
  }
  for (const dot of dots) {
    const column = dot.column / COLUMNS;
    const near = truth !== null && Math.abs(dot.value - truth) <= CLOSE + 1e-9;
    picture.append(svg("circle", { cx: x(column), cy: base - DOT - dot.row * rise, r: DOT * 0.85, class: near ? "class-dot is-close" : "class-dot" }));
  }
  const middle = median(values);
  if (middle !== null) picture.append(svg("line", { x1: x(middle), x2: x(middle), y1: 0, y2: base, class: "class-median" }));
  if (truth !== null) picture.append(svg("line", { x1: x(truth), x2: x(truth), y1: 0, y2: base + 10, class: "class-truth" }));
  return picture;
}

/**
 * The panel of strips, in `panel` (emptied): `targets` [{ key, label, value? }], `guesses` the
 * server's { answered, values: { key: [sorted] } | null }, `revealed` whether the truth shows.
 */
export function drawSpread(panel, targets, guesses, revealed) {
  const answered = guesses?.answered ?? 0;
  const heading = h("p", "class-answered", `${answered} ${answered === 1 ? "answer" : "answers"}`);
  const words = [];
  const rows = targets.map((target) => {
    const values = guesses?.values?.[target.key] ?? null;
    const truth = revealed && typeof target.value === "number" ? target.value : null;
    const row = h("div", "class-row");
    const name = h("p", "class-label", target.label);
    row.append(name);
    if (values === null) {
      row.append(h("p", "class-waiting", "The guesses show once three students have answered."));
      words.push(`${target.label}: waiting for three answers.`);
      return row;
    }
    const facts = [values.length ? `median ${formatNumber(median(values))}` : "no guesses"];
    if (truth !== null) {
      facts.unshift(`true ${formatNumber(truth)}`);
      if (values.length) facts.push(`${Math.round(shareWithin(values, truth) * 100)}% within ${formatNumber(CLOSE)}`);
    }
    row.append(strip(values, truth), h("p", "class-facts", facts.join(" · ")));
    words.push(describeSpread(target.label, values, truth));
    return row;
  });
  const said = h("p", "sr-only", words.join(" "));
  panel.replaceChildren(heading, ...rows, said);
}
