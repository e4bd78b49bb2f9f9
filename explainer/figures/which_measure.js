// Figure 5: which measure answers which question, live. Choosing a row of the table shows two
// short lists that this measure scores the same while others tell them apart. Clicking a
// square of either list changes it (relevance, or the grade: ? then 0 to 3), and every
// number follows. State: { measure, a: [8 grades or null], b: [8 grades or null] }.
import {
  averagePrecision,
  dcgAtK,
  formatNumber,
  ndcgAtK,
  precisionAtK,
  recallAtK,
  reciprocalRank,
} from "explainer/metrics";
import { h } from "explainer/dom";
import { Ignored, parseChoice } from "explainer/query";
import { mountFigure } from "explainer/shell";

// Two values are the same only when they are equal, not when they round alike: AP 0.1964 and
// 0.2000 both show as 0.20. The tolerance absorbs floating-point rounding and nothing more.
export const same = (x, y) => Math.abs(x - y) <= 1e-12;

/** Two values as text: two decimals, or as many more as it takes to show that they differ. */
export function pairText(x, y) {
  let digits = 2;
  while (!same(x, y) && formatNumber(x, digits) === formatNumber(y, digits) && digits < 12) digits += 2;
  return [formatNumber(x, digits), formatNumber(y, digits)];
}

const LABELS = {
  precision: (k) => `P@${k}`,
  recall: (k) => `R@${k}`,
  rr: () => "RR",
  ap: () => "AP",
  ndcg: (k) => `NDCG@${k}`,
  dcg: (k) => `DCG@${k}`,
};

/** The values a demo shows for one list, from the metrics module (null grades are unjudged). */
export function demoValues(grades, demo) {
  const binary = grades.map((g) => (g === null ? null : g >= 1 ? 1 : 0));
  const inList = binary.filter((g) => g === 1).length;
  const n = demo.n_relevant === null ? inList : Math.max(demo.n_relevant, inList);
  const k = demo.k;
  const every = {
    precision: () => precisionAtK(binary, k),
    recall: () => recallAtK(binary, k, n),
    rr: () => reciprocalRank(binary),
    ap: () => averagePrecision(binary, n),
    ndcg: () => ndcgAtK(grades, k, "exponential"),
    dcg: () => dcgAtK(grades, k, "exponential"),
  };
  return Object.fromEntries(demo.shown.map((key) => [key, every[key]()]));
}

/** The next value of a square when clicked: relevance flips; a grade steps ? → 0 → 1 → … → the highest → ?. */
export function nextGrade(grade, graded, maxGrade) {
  if (!graded) return grade ? 0 : 1;
  if (grade === null) return 0;
  return grade === maxGrade ? null : grade + 1;
}

/** URL keys: measure=ap, and a= / b= the two lists (grades, ? for unjudged) once changed. */
export function queryFields({ limits, demos }) {
  const list = (name) => (text, state) => {
    const { length, min_grade: low, max_grade: high } = limits[name];
    const grades = text.split(",").map((p) => (p === "?" ? null : /^\d$/.test(p) && low <= p && p <= high ? Number(p) : NaN));
    if (grades.length !== length || grades.some((g) => Number.isNaN(g))) {
      throw new Ignored(`${name} must list ${length} grades, each ${low} to ${high} or ?`);
    }
    return { ...state, [name]: grades };
  };
  return {
    measure(text) {
      const measure = parseChoice(text, "measure", limits.measure.options);
      return { measure, a: [...demos[measure].a], b: [...demos[measure].b] };
    },
    a: list("a"),
    b: list("b"),
  };
}

export function toQuery(state, { demos }) {
  const pairs = [["measure", state.measure]];
  const demo = demos[state.measure];
  const write = (grades) => grades.map((g) => (g === null ? "?" : String(g))).join(",");
  if (JSON.stringify(state.a) !== JSON.stringify(demo.a) || JSON.stringify(state.b) !== JSON.stringify(demo.b)) {
    pairs.push(["a", write(state.a)], ["b", write(state.b)]);
  }
  return pairs;
}

/**
 * What the two lists show of the chosen measure: the demo's own sentence while they are the
 * demo's lists, and once the reader changed them, what the numbers now say.
 */
export function sentence(state, demo) {
  const sameList = (x, y) => JSON.stringify(x) === JSON.stringify(y);
  if (sameList(state.a, demo.a) && sameList(state.b, demo.b)) return demo.says;
  const label = LABELS[state.measure](demo.k);
  const a = demoValues(state.a, demo)[state.measure];
  const b = demoValues(state.b, demo)[state.measure];
  const verdict = same(a, b) ? "it cannot tell these two lists apart" : "it tells them apart";
  const [aText, bText] = pairText(a, b);
  return `Your lists: ${label} is ${aText} for A and ${bText} for B, so ${verdict}.`;
}

/** The state with the chosen measure's two demo lists, as they start. */
function demoState(measure, demos) {
  return { measure, a: [...demos[measure].a], b: [...demos[measure].b] };
}

export function render(view) {
  const { demos } = view.model;
  mountFigure(view, {
    className: "fig-which",
    queryFields,
    toQuery,
    reset: { label: "Reset", title: "The chosen measure's two lists, as they start", to: (state) => demoState(state.measure, demos) },
    build,
  });
}

/** The table of measures: one button per row; pressing it shows that measure's demo. */
function createTable(shell) {
  const table = h("div", "which-table");
  table.setAttribute("role", "group");
  table.setAttribute("aria-label", "Measures: choose one to see what it is blind to");
  const head = h("div", "which-row which-head");
  head.setAttribute("aria-hidden", "true");
  head.append(h("span", "", "Measure"), h("span", "", "The question it answers"), h("span", "", "Blind to"));
  table.append(head);
  const buttons = {};
  for (const row of shell.model.rows) {
    const button = h("button", "which-row");
    button.type = "button";
    button.dataset.measure = row.key;
    button.append(h("span", "which-name", row.name), h("span", "", row.question), h("span", "which-blind", row.blind_to));
    button.addEventListener("click", () => shell.commit(demoState(row.key, shell.model.demos)));
    buttons[row.key] = button;
    table.append(button);
  }
  return {
    el: table,
    update(measure) {
      for (const [key, button] of Object.entries(buttons)) button.setAttribute("aria-pressed", String(key === measure));
    },
  };
}

/** The two lists of a demo, a square per rank; pressing a square changes that rank's grade. */
function createLists(shell) {
  const { length, max_grade: maxGrade } = shell.limits.a;
  const el = h("div", "which-lists");
  const cutoff = h("p", "which-k");
  // Over the squares, the cutoff named where it falls: the line after rank k, labelled "k = 5".
  const ruler = h("div", "which-list which-ruler");
  ruler.setAttribute("aria-hidden", "true");
  const rulerMark = h("span", "which-ruler-mark");
  const rulerCells = h("div", "which-cells");
  rulerCells.append(rulerMark);
  ruler.append(h("span", "which-list-name"), rulerCells);
  el.append(cutoff, ruler);
  const cells = {};
  for (const name of ["a", "b"]) {
    const line = h("div", "which-list");
    line.dataset.list = name;
    const strip = h("div", "which-cells");
    cells[name] = Array.from({ length }, (_, i) => {
      const cell = h("button", "which-cell");
      cell.type = "button";
      cell.dataset.rank = String(i + 1);
      cell.addEventListener("click", () => {
        const state = shell.state();
        const grades = state[name].slice();
        grades[i] = nextGrade(grades[i], shell.model.demos[state.measure].graded, maxGrade);
        shell.commit({ ...state, [name]: grades });
      });
      strip.append(cell);
      return cell;
    });
    line.append(h("span", "which-list-name", `List ${name.toUpperCase()}`), strip);
    el.append(line);
  }
  return {
    el,
    update(state, demo) {
      cutoff.textContent = `Ranks 1 to ${length}; the measures look at the top k = ${demo.k}.`;
      rulerMark.textContent = `k = ${demo.k}`;
      rulerMark.style.gridColumn = `1 / ${demo.k + 1}`;
      for (const name of ["a", "b"]) {
        cells[name].forEach((cell, i) => {
          const g = state[name][i];
          cell.textContent = g === null ? "?" : demo.graded ? String(g) : g ? "✓" : "";
          cell.dataset.grade = g === null ? "unjudged" : String(g);
          cell.classList.toggle("below-k", i >= demo.k);
          cell.classList.toggle("first-below-k", i === demo.k);
          const what = g === null ? "not judged" : demo.graded ? `grade ${g}` : g ? "relevant" : "not relevant";
          cell.setAttribute("aria-label", `List ${name.toUpperCase()}, rank ${i + 1}: ${what}. Press to change.`);
        });
      }
    },
  };
}

function build(shell) {
  const { demos } = shell.model;
  const table = createTable(shell);
  const demoBox = h("section", "which-demo");
  demoBox.setAttribute("aria-live", "off");
  const says = h("p", "which-says");
  const lists = createLists(shell);
  const compare = h("table", "which-compare");
  const compareHead = h("thead");
  const headRow = h("tr");
  for (const text of ["Measure", "List A", "List B", "Verdict"]) headRow.append(h("th", "", text));
  compareHead.append(headRow);
  const compareBody = h("tbody");
  compare.append(compareHead, compareBody);
  const note = h("p", "which-note");
  // In predict mode: a guess of the chosen measure for each list, where the table was.
  const guesses = h("div", "which-guesses");
  demoBox.append(says, lists.el, compare, guesses, note, shell.head);
  shell.root.append(shell.notice, table.el, demoBox);

  return function update(state) {
    const demo = demos[state.measure];
    table.update(state.measure);
    says.textContent = sentence(state, demo);
    note.textContent = demo.note;
    note.hidden = !demo.note;
    lists.update(state, demo);
    const a = demoValues(state.a, demo);
    const b = demoValues(state.b, demo);
    compareBody.replaceChildren(
      ...demo.shown.map((key) => {
        const tr = h("tr", key === state.measure ? "chosen" : "");
        tr.dataset.measure = key;
        const alike = same(a[key], b[key]);
        const [aText, bText] = pairText(a[key], b[key]);
        tr.append(
          h("th", "", LABELS[key](demo.k)),
          h("td", "num", aText),
          h("td", "num", bText),
          h("td", alike ? "verdict same" : "verdict differs", alike ? "= the same" : "≠ differs"),
        );
        return tr;
      }),
    );
    const chosen = LABELS[state.measure](demo.k);
    const hide = [says, compare];
    shell.predict([
      { key: "a", label: `${chosen} of list A`, value: a[state.measure], el: guesses, hide },
      { key: "b", label: `${chosen} of list B`, value: b[state.measure], el: guesses, hide },
    ]);
    const [aText, bText] = pairText(a[state.measure], b[state.measure]);
    shell.say(`${chosen}: A ${aText}, B ${bText}`);
  };
}
