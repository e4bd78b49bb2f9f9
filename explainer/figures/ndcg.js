// Figure 2: eight graded results with their gains, discounts and DCG, the ideal order
// beside them, NDCG@k with its arithmetic, and an animation that swaps the list into
// the ideal order. State: { grades: [by document], order: [documents by rank], k, gain }.
import { dcgAtK, dcgTerms, discount, formatNumber, gainValue, idealGrades, ndcgAtK } from "explainer/metrics";
import { createKChart } from "explainer/chart";
import { h, setText } from "explainer/dom";
import { parseChoice, parseInteger } from "explainer/query";
import { createCard } from "explainer/card";
import { createRadioGroup } from "explainer/controls";
import { cumulative, dcgSum, gradeMark, rankedGrades } from "explainer/grades";
import { createGradedList, gradedListFields, gradedListQuery, promoted } from "explainer/graded-list";
import { createPlayer } from "explainer/player";
import { mountFigure } from "explainer/shell";
import { cardTarget } from "explainer/predict";

const STEP_MS = 900;
const f = (x) => formatNumber(x);

/**
 * The URL keys of this figure's state: grades=1,3,0,2,0,3,1,2&k=8&gain=linear, and
 * order=2,1,3,... (documents by rank, numbered from 1) once results have moved.
 */
export function queryFields({ limits }) {
  return {
    ...gradedListFields(limits),
    k: (text, state) => ({ ...state, k: parseInteger(text, "k", limits.k.min, limits.k.max) }),
    gain: (text, state) => ({ ...state, gain: parseChoice(text, "gain", limits.gain.options) }),
  };
}

export function toQuery(state) {
  return [...gradedListQuery(state), ["k", String(state.k)], ["gain", state.gain]];
}

/** The rank (0-based) of the topmost adjacent pair in the wrong order, or -1 when the list is ideal. */
export function firstInversion(grades) {
  for (let i = 0; i + 1 < grades.length; i++) if (grades[i] < grades[i + 1]) return i;
  return -1;
}

/** How many adjacent swaps bring the grades into ideal order (the pairs out of order). */
export function swapsToIdeal(grades) {
  let count = 0;
  for (let i = 0; i < grades.length; i++) for (let j = i + 1; j < grades.length; j++) if (grades[i] < grades[j]) count++;
  return count;
}

/** The numbers the figure shows for a state, each computed by the metrics module. */
export function readout(state) {
  const { k, gain } = state;
  const ranked = rankedGrades(state);
  const ideal = idealGrades(ranked);
  const dcg = dcgAtK(ranked, k, gain);
  const idcg = dcgAtK(ideal, k, gain);
  const ndcg = ndcgAtK(ranked, k, gain);
  return {
    ranked,
    ideal,
    dcg,
    idcg,
    ndcg,
    dcgText: `DCG@${k} = ${dcgSum(ranked, k, gain)}`,
    idcgText: `Ideal DCG@${k} = ${dcgSum(ideal, k, gain)}`,
    ndcgText: idcg ? `NDCG@${k} = ${f(dcg)} / ${f(idcg)} = ${f(ndcg)}` : `NDCG@${k} = 0 (no graded result: the ideal is 0)`,
    // Every k at once, for the chart.
    byK: {
      ndcg: ranked.map((_, i) => ndcgAtK(ranked, i + 1, gain)),
      dcg: ranked.map((_, i) => dcgAtK(ranked, i + 1, gain)),
    },
    announcement: `NDCG@${k} ${f(ndcg)}: DCG ${f(dcg)}, ideal DCG ${f(idcg)}`,
  };
}

export function render(view) {
  mountFigure(view, { className: "fig-ndcg", queryFields, toQuery, build });
}

/** The ideal order beside the list: each rank's grade, discounted gain and running ideal DCG. */
function createIdealTable(count, maxGrade) {
  const box = h("section", "metric ideal");
  box.append(h("h3", "metric-name", "Ideal order: the same grades, best first"));
  const table = h("table", "ideal-table");
  const headRow = h("tr");
  for (const text of ["#", "Grade", "Discounted gain", "Ideal DCG"]) headRow.append(h("th", "", text));
  const thead = h("thead");
  thead.append(headRow);
  const body = h("tbody");
  const rows = Array.from({ length: count }, (_, i) => {
    const tr = h("tr");
    const cells = [h("td", "num", String(i + 1)), h("td", "grade"), h("td", "num"), h("td", "num")];
    tr.append(...cells);
    body.append(tr);
    return { tr, cells };
  });
  table.append(thead, body);
  box.append(table);
  let drawn = { ideal: [], terms: [], k: 0 };
  return {
    el: box,
    update(ideal, terms, k) {
      // A promote reorders the list and leaves its ideal order as it was: nothing to redraw.
      const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
      if (k === drawn.k && same(ideal, drawn.ideal) && same(terms, drawn.terms)) return;
      drawn = { ideal, terms, k };
      const sums = cumulative(terms);
      rows.forEach(({ tr, cells }, i) => {
        setText(cells[1], gradeMark(ideal[i], maxGrade));
        setText(cells[2], f(terms[i]));
        setText(cells[3], f(sums[i]));
        tr.classList.toggle("below", i >= k);
      });
    },
  };
}

/** Figure 2's graded list: each row's gain, discount, discounted gain (with its bar) and DCG so far. */
function createNdcgList(shell) {
  return createGradedList(shell, {
    titles: shell.model.titles,
    label: `Graded results for the query ${shell.model.query}`,
    headerClass: "ndcg-header",
    columns: [
      ["rl-rank", "#"],
      ["rl-title", "Result"],
      ["grade", "Grade"],
      ["num gain-col", "Gain"],
      ["num disc-col", "× Discount"],
      ["num dg", "Disc. gain"],
      ["num cum", "DCG"],
    ],
    cells(rank) {
      const dg = h("span", "dg");
      dg.append(h("span", "bar"), h("span", "num dg-value"));
      return [h("span", "num gain-col"), h("span", "num disc-col", f(discount(rank))), dg, h("span", "num cum")];
    },
  });
}

function build(shell) {
  const { limits } = shell;
  const count = limits.order.length;
  let current = null;

  const gainSwitch = createRadioGroup(
    "Gain",
    "gain",
    [
      ["exponential", "exponential (2^g − 1)"],
      ["linear", "linear (g)"],
    ],
    (gain) => commit({ ...shell.state(), gain }, { keepTour: true }),
  );

  const graded = createNdcgList(shell);
  const tour = createTour(shell, graded.list, () => current, (next) => commit(next, { keepTour: true }));
  shell.controls(gainSwitch.el, tour.el);
  const left = h("div", "fig-list");
  // A narrow list leaves its gain and discount columns out: say where they are.
  const narrowNote = h("p", "fig-hint-line ndcg-narrow-note", "Each discounted gain is its result's gain divided by log₂(rank + 1): the DCG card writes each one out.");
  left.append(shell.head, shell.notice, tour.status, narrowNote, graded.header, graded.list.el, graded.hint);

  const panel = h("div", "metrics");
  const formulas = {};
  const cards = {};
  for (const [key, name] of [
    ["ndcgText", "NDCG@k"],
    ["dcgText", "DCG@k"],
    ["idcgText", "Ideal DCG@k"],
  ]) {
    const card = createCard(name, { className: `metric-${key}`, note: false });
    formulas[key] = card.formula;
    cards[key] = card;
    panel.append(card.el);
  }
  const chart = createKChart({
    count,
    label: "Cutoff k on the chart of NDCG@k and DCG@k",
    series: [
      { key: "dcg", name: "DCG@k", kind: "columns" },
      { key: "ndcg", name: "NDCG@k", kind: "line" },
    ],
    onK: (k) => commit({ ...shell.state(), k }),
  });
  const idealTable = createIdealTable(count, limits.grades.max_grade);
  panel.append(chart.el, idealTable.el);
  shell.root.append(left, panel);

  function commit(next, { keepTour = false } = {}) {
    if (!keepTour) tour.end();
    shell.commit(next);
  }

  function update(state) {
    current = readout(state);
    // The numbers, in the change itself; the k the marker and the chart step from, likewise.
    for (const [key, node] of Object.entries(formulas)) setText(node, current[key]);
    graded.list.update(state.k);
    chart.follow(state.k);
    const terms = dcgTerms(current.ranked, count, state.gain);
    const idealTerms = dcgTerms(current.ideal, count, state.gain);
    idealTable.update(current.ideal, idealTerms, state.k);
    // The rows (a promote swaps two) and the chart of every k: drawn in the next animation frame,
    // before it paints the numbers (the last state's once, when several come in a frame).
    const shown = current;
    shell.beforePaint(() => {
      const sums = cumulative(terms);
      const top = Math.max(...idealTerms, ...terms, 1e-9);
      graded.draw(state, (i, grade) => ({
        key: `${state.gain} ${terms[i]} ${sums[i]} ${top}`,
        // Written only for a row that is redrawn (two of twelve after a promote).
        get label() {
          return `Discounted gain ${f(terms[i])}, DCG so far ${f(sums[i])}.`;
        },
        draw(button) {
          setText(button.querySelector(".gain-col"), String(gainValue(grade, state.gain)));
          setText(button.querySelector(".dg-value"), f(terms[i]));
          button.querySelector(".bar").style.width = `${(100 * terms[i]) / top}%`;
          setText(button.querySelector(".cum"), f(sums[i]));
        },
      }));
      chart.update({
        k: state.k,
        values: shown.byK,
        legend: "Columns: DCG@k, on the right axis. Line: NDCG@k, from 0 to 1.",
      });
    });
    gainSwitch.set(state.gain);
    tour.describe();
    const target = cardTarget("ndcg", cards.ndcgText, `NDCG@${state.k}`, current.ndcg);
    target.hide.push(cards.dcgText.el, cards.idcgText.el, idealTable.el, tour.status, chart.el);
    shell.predict([target], { after: cards.ndcgText.el });
    shell.say(current.announcement);
  }
  return { update, onReset: () => tour.end() };
}

/**
 * The animation: add ranks one at a time, then swap better results up until the order is ideal,
 * played by kit's player (Play runs a step every STEP_MS; Step runs one). `readout()` is the figure's current numbers;
 * `commit(next)` applies a step without ending the tour.
 */
function createTour(shell, list, readout, commit) {
  const count = shell.limits.order.length;
  let tour = null; // { swaps, done } while a tour runs
  const player = createPlayer({ advance, stepMs: STEP_MS, onEnd: () => (tour = null) });
  const { status, end } = player;

  function advance() {
    const state = shell.state();
    if (!tour) {
      tour = { swaps: swapsToIdeal(rankedGrades(state)), done: 0 };
      commit({ ...state, k: 1 });
      return true;
    }
    if (state.k < count) {
      commit({ ...state, k: state.k + 1 });
      return true;
    }
    const i = firstInversion(rankedGrades(state));
    if (i < 0) {
      const swaps = tour.swaps;
      end();
      status.textContent = `Ideal order after ${swaps} swap${swaps === 1 ? "" : "s"}: NDCG@${state.k} = ${f(readout().ndcg)}`;
      return false;
    }
    tour.done += 1;
    commit({ ...state, order: promoted(state.order, i + 2) });
    list.rows[i].classList.add("just-moved");
    setTimeout(() => list.rows[i].classList.remove("just-moved"), STEP_MS * 0.8);
    return true;
  }

  return {
    ...player,
    /** Say where the tour is, after each of its steps. */
    describe() {
      if (!tour) return;
      const { k } = shell.state();
      const now = readout();
      if (k < count) status.textContent = `Adding rank ${k} of ${count}: DCG@${k} = ${f(now.dcg)}`;
      else if (tour.done === 0) status.textContent = `All ${count} ranks added. NDCG@${count} = ${f(now.ndcg)}`;
      else status.textContent = `Swap ${tour.done} of ${tour.swaps}: NDCG@${k} = ${f(now.ndcg)}`;
    },
  };
}
