// Figure 5: which measure answers which question, live. Choosing a row of the table shows two
// short lists that this measure scores the same while others tell them apart. Clicking a
// square of either list changes it (relevance, or the grade: ? then 0 to 3), and every
// number follows. State: { measure, a: [8 grades or null], b: [8 grades or null] }.
import {
  averagePrecision,
  formatNumber,
  ndcgAtK,
  precisionAtK,
  recallAtK,
  reciprocalRank,
} from "explainer/metrics";
import { connectFigure, createAnnouncer, createFrame, createPresenterToggle, createQueryNotice, h, Ignored } from "explainer/kit";

const f = (x) => formatNumber(x);
const LABELS = {
  precision: (k) => `P@${k}`,
  recall: (k) => `R@${k}`,
  rr: () => "RR",
  ap: () => "AP",
  ndcg: (k) => `NDCG@${k}`,
  judged: (k) => `Judged@${k}`,
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
    judged: () => grades.slice(0, k).filter((g) => g !== null).length / k,
  };
  return Object.fromEntries(demo.shown.map((key) => [key, every[key]()]));
}

/** The next value of a square when clicked: relevance flips; a grade steps ? → 0 → 1 → 2 → 3 → ?. */
export function nextGrade(grade, graded) {
  if (!graded) return grade ? 0 : 1;
  if (grade === null) return 0;
  return grade === 3 ? null : grade + 1;
}

/** URL keys: measure=ap, and a= / b= the two lists (digits, ? for unjudged) once changed. */
export function queryFields(demos) {
  const list = (name) => (text, state) => {
    const parts = text.split(",");
    const grades = parts.map((p) => (p === "?" ? null : /^[0-3]$/.test(p) ? Number(p) : NaN));
    if (grades.length !== 8 || grades.some((g) => Number.isNaN(g))) {
      throw new Ignored(`${name} must list 8 grades, each 0 to 3 or ?`);
    }
    return { ...state, [name]: grades };
  };
  return {
    measure(text, state) {
      if (!Object.hasOwn(demos, text)) throw new Ignored(`measure must be one of ${Object.keys(demos).join(", ")}`);
      return { measure: text, a: [...demos[text].a], b: [...demos[text].b] };
    },
    a: list("a"),
    b: list("b"),
  };
}

function toQuery(state, demos) {
  const pairs = [["measure", state.measure]];
  const demo = demos[state.measure];
  const write = (grades) => grades.map((g) => (g === null ? "?" : String(g))).join(",");
  if (JSON.stringify(state.a) !== JSON.stringify(demo.a) || JSON.stringify(state.b) !== JSON.stringify(demo.b)) {
    pairs.push(["a", write(state.a)], ["b", write(state.b)]);
  }
  return pairs;
}

export function render({ model, el }) {
  const demos = model.demos;
  let state;

  const { frame, root } = createFrame(el, "fig-which", model.caption);
  const queryNotice = createQueryNotice();

  // -- the table: one button per measure --
  const table = h("div", "which-table");
  table.setAttribute("role", "group");
  table.setAttribute("aria-label", "Measures: choose one to see what it is blind to");
  const head = h("div", "which-row which-head");
  head.setAttribute("aria-hidden", "true");
  head.append(h("span", "", "Measure"), h("span", "", "The question it answers"), h("span", "", "Blind to"));
  table.append(head);
  const rowButtons = {};
  for (const row of model.rows) {
    const button = h("button", "which-row");
    button.type = "button";
    button.dataset.measure = row.key;
    button.append(h("span", "which-name", row.name), h("span", "", row.question), h("span", "which-blind", row.blind_to));
    button.addEventListener("click", () => commit({ measure: row.key, a: [...demos[row.key].a], b: [...demos[row.key].b] }));
    rowButtons[row.key] = button;
    table.append(button);
  }

  // -- the demo: two lists and their numbers --
  const demoBox = h("section", "which-demo");
  demoBox.setAttribute("aria-live", "off");
  const says = h("p", "which-says");
  const lists = h("div", "which-lists");
  const listParts = {};
  for (const name of ["a", "b"]) {
    const line = h("div", "which-list");
    line.dataset.list = name;
    const label = h("span", "which-list-name", `List ${name.toUpperCase()}`);
    const cells = [];
    const strip = h("div", "which-cells");
    for (let i = 0; i < 8; i++) {
      const cell = h("button", "which-cell");
      cell.type = "button";
      cell.dataset.rank = String(i + 1);
      cell.addEventListener("click", () => {
        const grades = state[name].slice();
        grades[i] = nextGrade(grades[i], demos[state.measure].graded);
        commit({ ...state, [name]: grades });
      });
      cells.push(cell);
      strip.append(cell);
    }
    line.append(label, strip);
    if (name === "a") lists.append(h("p", "which-k"));
    lists.append(line);
    listParts[name] = { cells, strip };
  }
  const compare = h("table", "which-compare");
  const compareHead = h("thead");
  const headRow = h("tr");
  for (const text of ["Measure", "List A", "List B", ""]) headRow.append(h("th", "", text));
  compareHead.append(headRow);
  const compareBody = h("tbody");
  compare.append(compareHead, compareBody);
  const tools = h("div", "fig-tools");
  const reset = h("button", "fig-button", "Reset this example");
  reset.type = "button";
  reset.addEventListener("click", () => commit({ ...state, a: [...demos[state.measure].a], b: [...demos[state.measure].b] }));
  tools.append(reset);
  if (model.standalone) tools.append(createPresenterToggle(frame));
  demoBox.append(says, lists, compare, tools);

  const announcer = createAnnouncer();
  root.append(queryNotice.el, table, demoBox, announcer.el);

  function update() {
    const demo = demos[state.measure];
    for (const [key, button] of Object.entries(rowButtons)) button.setAttribute("aria-pressed", String(key === state.measure));
    says.textContent = demo.says;
    lists.querySelector(".which-k").textContent = `Ranks 1 to 8; the measures look at the top k = ${demo.k}.`;
    for (const name of ["a", "b"]) {
      listParts[name].cells.forEach((cell, i) => {
        const g = state[name][i];
        const text = g === null ? "?" : demo.graded ? String(g) : g ? "✓" : "";
        cell.textContent = text;
        cell.dataset.grade = g === null ? "unjudged" : String(g);
        cell.classList.toggle("below-k", i >= demo.k);
        cell.classList.toggle("first-below-k", i === demo.k);
        const what = g === null ? "not judged" : demo.graded ? `grade ${g}` : g ? "relevant" : "not relevant";
        cell.setAttribute("aria-label", `List ${name.toUpperCase()}, rank ${i + 1}: ${what}. Press to change.`);
      });
    }
    const a = demoValues(state.a, demo);
    const b = demoValues(state.b, demo);
    compareBody.replaceChildren(
      ...demo.shown.map((key) => {
        const tr = h("tr", key === state.measure ? "chosen" : "");
        tr.dataset.measure = key;
        const same = f(a[key]) === f(b[key]);
        tr.append(
          h("th", "", LABELS[key](demo.k)),
          h("td", "num", f(a[key])),
          h("td", "num", f(b[key])),
          h("td", same ? "verdict same" : "verdict differs", same ? "= the same" : "≠ differs"),
        );
        return tr;
      }),
    );
    const chosen = LABELS[state.measure](demo.k);
    announcer.say(`${chosen}: A ${f(a[state.measure])}, B ${f(b[state.measure])}`);
  }

  const commit = connectFigure(model, {
    apply(next) {
      state = next;
      update();
    },
    fields: queryFields(demos),
    toQuery: (next) => toQuery(next, demos),
    notice: queryNotice,
  });
}
