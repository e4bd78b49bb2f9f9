// Figure 1: twelve ranked results, a cutoff k, and P@k, R@k, RR and AP with their arithmetic.
// State (from Python, or changed here): { relevant: [a flag per rank], k, missed }. On a real
// query's list (the workbench) a flag is null where nobody judged the document: marked unjudged,
// counted as not relevant, as trec_eval counts it.
import {
  averagePrecision,
  averagePrecisionTerms,
  formatNumber,
  precisionAtK,
  recallAtK,
  reciprocalRank,
  relevantRanks,
} from "explainer/metrics";
import { createKChart, createPrChart } from "explainer/chart";
import { drawMark, h, setText } from "explainer/dom";
import { flaggedRanks, parseChoice, parseInteger, parseRankFlags } from "explainer/query";
import { createCard } from "explainer/card";
import { createStepper } from "explainer/controls";
import { createRankedList } from "explainer/ranked-list";
import { createPlayer } from "explainer/player";
import { mountFigure } from "explainer/shell";
import { cardTarget } from "explainer/predict";

const f = formatNumber;

/** The URL keys of this figure's state: relevant=2,3,5,8,11&missed=1&k=5, and chart=precision-recall for that view. */
export function queryFields({ limits }) {
  return {
    relevant: (text, state) => ({ ...state, relevant: parseRankFlags(text, "relevant", limits.relevant.length) }),
    missed: (text, state) => ({ ...state, missed: parseInteger(text, "missed", limits.missed.min, limits.missed.max) }),
    k: (text, state) => ({ ...state, k: parseInteger(text, "k", limits.k.min, limits.k.max) }),
    chart: (text, state) => ({ ...state, chart: parseChoice(text, "chart", limits.chart.options) }),
  };
}

// The chart a link opens with unless it says chart=precision-recall: by k, the one that moves k.
const BY_K = "by-k";
const PR = "precision-recall";

export function toQuery(state) {
  const pairs = [
    ["relevant", flaggedRanks(state.relevant)],
    ["missed", String(state.missed)],
    ["k", String(state.k)],
  ];
  if (state.chart === PR) pairs.push(["chart", PR]);
  return pairs;
}

/**
 * What to tell the reader when a flip from `before` to `after` moved R, which a flip keeps where it
 * can (flip above), so that flipping back will not bring the numbers back: "" when R stayed. Only
 * where the missed count is the reader's to change (`limits`): on a real query's list it is data, and
 * R follows each judgment.
 */
export function flipRule(before, after, limits) {
  if (limits.missed.min === limits.missed.max) return "";
  const [r0, r1] = [readout(before).nRelevant, readout(after).nRelevant];
  if (r0 === r1) return "";
  const why =
    r1 > r0
      ? "no missed document was left to be the one now found"
      : `the missed count was already at its limit, ${limits.missed.max}`;
  return `R went from ${r0} to ${r1}: ${why}. Flipping it back keeps R = ${r1}; Undo returns to R = ${r0}.`;
}

/**
 * The state after flipping the result at `rank`. R stays put where it can: a result
 * turned relevant is a missed document now retrieved, one turned not relevant joins
 * the missed (BinaryState.flip in Python says the same).
 */
export function flip(state, rank, limits) {
  const relevant = state.relevant.slice();
  relevant[rank - 1] = !relevant[rank - 1]; // an unjudged rank (null) flips to relevant: judged
  const step = relevant[rank - 1] ? -1 : 1;
  const missed = Math.min(Math.max(state.missed + step, limits.missed.min), limits.missed.max);
  return { ...state, relevant, missed };
}

/** The numbers the figure shows for a state, each computed by the metrics module. */
export function readout({ relevant, k, missed }) {
  const grades = relevant.map((r) => (r === null ? null : r ? 1 : 0));
  const inList = relevantRanks(grades);
  const nRelevant = inList.length + missed;
  const atK = relevantRanks(grades, k);
  const hitsAtK = atK.length;
  const values = {
    precision: precisionAtK(grades, k),
    recall: recallAtK(grades, k, nRelevant),
    rr: reciprocalRank(grades),
    ap: averagePrecision(grades, nRelevant),
  };
  const terms = averagePrecisionTerms(grades).map(([hits, rank]) => `${hits}/${rank}`);
  const nothing = "(R = 0: nothing to find)";
  return {
    grades,
    missed,
    nRelevant,
    values,
    formulas: {
      precision: `P@${k} = ${hitsAtK} / ${k} = ${f(values.precision)}`,
      recall: nRelevant ? `R@${k} = ${hitsAtK} / ${nRelevant} = ${f(values.recall)}` : `R@${k} = 0 ${nothing}`,
      rr: inList.length ? `RR = 1 / ${inList[0]} = ${f(values.rr)}` : "RR = 0 (no relevant result in the list)",
      ap: !nRelevant
        ? `AP = 0 ${nothing}`
        : `AP = ${terms.length ? `(${terms.join(" + ")})` : "0"} / ${nRelevant} = ${f(values.ap)}`,
    },
    notes: {
      precision: `${hitsAtK} relevant in the top ${k}`,
      recall: `R = ${inList.length} in the list + ${missed} missed = ${nRelevant}`,
      rr: inList.length ? `First relevant result at rank ${inList[0]}` : "No relevant result in the list",
      ap: `Precision at each relevant rank, summed, divided by R = ${nRelevant}`,
    },
    labels: { precision: `P@${k}`, recall: `R@${k}`, rr: "RR", ap: "AP" },
    // AP's terms, the precision at each relevant rank, computed once: for the step-through, the
    // chart's dots (on the P@k line) and the precision-recall view's mean.
    apTerms: inList.map((rank) => [rank, precisionAtK(grades, rank)]),
    // Each rank's mark: relevant, not relevant, or unjudged (null), which the measures count as not relevant.
    marks: relevant.map((r) => MARKS[r === null ? "unjudged" : r ? "relevant" : "notRelevant"]),
    announcement: `P@${k} ${f(values.precision)}, R@${k} ${f(values.recall)}, RR ${f(values.rr)}, AP ${f(values.ap)}`,
    // The ranks each card uses, highlighted while the card is under the pointer or focus.
    uses: {
      precision: atK,
      recall: atK,
      rr: inList.slice(0, 1),
      ap: inList,
    },
  };
}

/**
 * Every k at once, for the charts (drawn in the frame after the numbers), from a readout: P@k and
 * R@k at k = 1..n, AP's terms as dots on the P@k line with a 0 for each relevant document missed,
 * and the same numbers as precision-recall points, with AP as the mean of those terms, 0s included.
 */
export function everyK({ grades, missed, nRelevant, values, apTerms }) {
  const byK = {
    precision: grades.map((_, i) => precisionAtK(grades, i + 1)),
    recall: grades.map((_, i) => recallAtK(grades, i + 1, nRelevant)),
  };
  return {
    byK,
    apLegend: apLegend(apTerms.length, missed, nRelevant, f(values.ap)),
    pr: {
      points: grades.map((g, i) => ({ k: i + 1, recall: byK.recall[i], precision: byK.precision[i], relevant: g === 1 })),
      missed,
      nRelevant,
      ap: values.ap,
      legend: apMean(apTerms.map(([, precision]) => precision), missed, nRelevant, values.ap),
    },
  };
}

/** What the chart says of AP: the mean of its dots, and the missed documents' zeros, over R. */
function apLegend(found, missed, nRelevant, ap) {
  if (!nRelevant) return "AP = 0: no relevant document, found or missed.";
  const dots = `● the precision at each relevant rank. AP = `;
  if (!missed) return `${dots}the mean of the ${found} ● = ${ap}.`;
  const zeros = `${missed} zero${missed === 1 ? "" : "s"} for the relevant document${missed === 1 ? "" : "s"} the list missed`;
  return `${dots}(the sum of the ${found} ● + ${zeros}) / ${nRelevant} = ${ap}, dividing by R = ${nRelevant}.`;
}

/**
 * AP written as the mean the precision-recall view draws: the precision at each relevant rank (its
 * points' heights) and a 0 for each relevant document never retrieved, summed, over R.
 */
function apMean(precisions, missed, nRelevant, ap) {
  if (!nRelevant) return "AP = 0: no relevant document, found or missed.";
  const terms = [...precisions.map((p) => f(p)), ...Array(missed).fill("0")];
  const zeros = missed ? `, and 0 for each relevant document never retrieved (○)` : "";
  return `AP = (${terms.join(" + ")}) / ${nRelevant} = ${f(ap)}: the mean of the precision at each relevant rank (●)${zeros}, the dashed line.`;
}

const MARKS = { relevant: ["✓", "relevant"], notRelevant: ["✗", "not relevant"], unjudged: ["?", "unjudged"] };

// The cards, in order; their names and blind spots come from Python's explainer/measures.py.
const CARDS = ["precision", "recall", "rr", "ap"];

/** The relevant documents the list missed: a stepper and one row for each. */
function createMissed(shell) {
  const { min, max } = shell.limits.missed;
  const box = h("div", "missed");
  const names = { less: "One fewer missed relevant result", more: "One more missed relevant result" };
  const stepper = createStepper("Relevant results the list missed", names, (by) => {
    const state = shell.state();
    const missed = state.missed + by;
    if (missed >= min && missed <= max) shell.commit({ ...state, missed });
  });
  const rows = h("div", "missed-rows");
  const rule = createFlipRule(shell.limits);
  // Why R barely moves when a row is flipped: each click is another ranking of the same documents.
  const hint = h(
    "p",
    "fig-hint-line",
    "A result marked relevant is one of the missed documents, now found, and one marked not relevant joins them: R stays the same while it can.",
  );
  box.append(stepper.el, rows, hint);
  return {
    el: box,
    rule,
    update(missed) {
      stepper.set(missed, { canLess: missed > min, canMore: missed < max });
      while (rows.children.length > missed) rows.lastChild.remove();
      while (rows.children.length < missed) {
        const row = h("div", "missed-row");
        const relevant = h("span", "mark");
        drawMark(relevant, "✓", "relevant");
        row.append(h("span", "rl-rank", "–"), h("span", "rl-title", "Relevant document, not retrieved"), relevant);
        rows.append(row);
      }
    },
  };
}

/**
 * Why a flip moved R (flipRule), shown in R@k's card, in view in presenter view too:
 * `flipped(before, after)` before the flip is committed, `follow(state)` on every state drawn. It stays while the
 * reader goes on flipping (flipping back is when it matters), and goes with any other change.
 */
function createFlipRule(limits) {
  const el = h("p", "fig-hint flip-rule");
  el.setAttribute("role", "status");
  el.hidden = true;
  let shownFor = null; // the state the rule speaks of
  return {
    el,
    flipped(before, after) {
      const text = flipRule(before, after, limits) || (before === shownFor ? el.textContent : "");
      shownFor = text ? after : null;
      setText(el, text);
    },
    follow(state) {
      el.hidden = state !== shownFor;
    },
  };
}

export function render(view) {
  mountFigure(view, { className: "fig-binary", queryFields, toQuery, build });
}

function build(shell) {
  const { model } = shell;
  const titles = model.titles;
  const marks = []; // each row's "relevant" mark
  const drawn = []; // each row's relevance as last drawn
  let current = null;
  let active = null; // the card under the pointer or focus, whose ranks are highlighted

  const list = createRankedList({
    count: titles.length,
    label: `Ranked results for the query ${model.query}`,
    buildRow(row, button, rank) {
      const mark = h("span", "mark");
      marks.push(mark);
      button.append(h("span", "rl-rank", String(rank)), h("span", "rl-title", titles[rank - 1]), mark);
    },
    onActivate: (rank) => {
      const before = shell.state();
      const after = flip(before, rank, shell.limits);
      missed.rule.flipped(before, after);
      commit(after);
    },
    onCutoff: (k) => commit({ ...shell.state(), k }),
  });
  titles.forEach((_, i) => list.describe(i + 1, `Rank ${i + 1}. Press to flip its relevance.`));
  const missed = createMissed(shell);
  const left = h("div", "fig-list");
  left.append(shell.head, shell.notice, list.el, missed.el);

  const panel = h("div", "metrics");
  panel.setAttribute("aria-label", "Measures");
  const notice = h("p", "fig-notice");
  notice.hidden = true;
  panel.append(notice);
  const cards = createCards(model.measures, panel, (key) => {
    active = key;
    list.highlight(key && current ? current.uses[key] : []);
  });
  cards.recall.el.append(missed.rule.el); // beside R, in view wherever the teacher is
  const chart = createKChart({
    count: titles.length,
    label: "Cutoff k on the chart of P@k and R@k",
    series: [
      { key: "precision", name: "P@k", kind: "line" },
      { key: "recall", name: "R@k", kind: "line" },
    ],
    onK: (k) => commit({ ...shell.state(), k }),
  });
  const prChart = createPrChart({ label: "Precision against recall at each k, with AP as a line" });
  const charts = createChartViews(chart.el, prChart, (view) => commit({ ...shell.state(), chart: view }));
  const tour = createApTour(shell, () => current, (next) => shell.commit(next));
  shell.controls(tour.el);
  left.insertBefore(tour.status, list.el);
  // Under the cards; presenting, beside them under the cards' two columns (binary.css).
  panel.append(charts.el);
  shell.root.append(left, panel);

  // A reader's change ends a step-through; the steps' own changes do not.
  function commit(next) {
    tour.end();
    shell.commit(next);
  }

  function update(state) {
    current = readout(state);
    // The numbers, in the change itself; the k the list's marker steps from, likewise.
    list.update(state.k);
    chart.follow(state.k);
    for (const [key, { formula, note }] of Object.entries(cards)) {
      setText(formula, current.formulas[key]);
      setText(note, current.notes[key]);
    }
    notice.hidden = current.nRelevant > 0;
    missed.rule.follow(state);
    charts.show(state.chart ?? BY_K);
    setText(notice, current.nRelevant > 0 ? "" : "No relevant result exists, in the list or missed, so every measure is 0.");
    // The rows' marks, the missed rows and the charts of every k: drawn in the next animation
    // frame, before it paints the numbers (the last state's once, when several come in a frame).
    const shown = current;
    shell.beforePaint(() => {
      if (active) list.highlight(shown.uses[active]);
      state.relevant.forEach((flag, i) => {
        if (drawn[i] === flag) return; // a click flips one row: the other eleven stay as drawn
        drawn[i] = flag;
        const button = list.buttons[i];
        list.rows[i].classList.toggle("is-relevant", flag === true);
        list.rows[i].classList.toggle("is-unjudged", flag === null);
        button.setAttribute("aria-pressed", String(flag === true));
        drawMark(marks[i], ...shown.marks[i]);
      });
      missed.update(state.missed);
      const { byK, apLegend: legend, pr } = everyK(shown);
      chart.update({ k: state.k, values: byK, dots: shown.apTerms, legend });
      prChart.update({ k: state.k, ...pr });
    });
    const targets = CARDS.map((key) => cardTarget(key, cards[key], current.labels[key], current.values[key]));
    // "Every measure is 0", the chart of every k and the AP step's sums would give the answers away.
    targets[0].hide.push(notice, charts.el, tour.status, missed.rule.el);
    shell.predict(targets);
    shell.say(current.announcement);
  }
  return { update, onReset: () => tour.end() };
}

/**
 * The four cards, in `panel`: each one's ranks are highlighted (`highlight(key)`, null when none)
 * while it is under the pointer or has the focus.
 */
function createCards(measures, panel, highlight) {
  const cards = {};
  for (const key of CARDS) {
    const measure = measures[key];
    const card = createCard(measure.name, { metric: key, blind: `Blind to: ${measure.blind_to}` });
    const box = card.el;
    box.tabIndex = 0;
    box.addEventListener("mouseenter", () => highlight(key));
    box.addEventListener("focus", () => highlight(key));
    box.addEventListener("mouseleave", () => highlight(null));
    box.addEventListener("blur", () => highlight(null));
    cards[key] = card;
    panel.append(box);
  }
  return cards;
}

/**
 * The two views of every k, one shown at a time: by k (a k control) or precision against recall
 * (AP as the mean of its terms, a 0 for each missed). Two pressed-or-not buttons switch them;
 * the view is the state's `chart`, so a link keeps it: `choose(view)` commits a reader's choice.
 */
function createChartViews(byK, prChart, choose) {
  const pr = prChart.el;
  const el = h("div", "kchart-views");
  const switcher = h("div", "kchart-switch");
  switcher.setAttribute("role", "group");
  switcher.setAttribute("aria-label", "Chart of every k");
  const views = [
    ["By k", BY_K, byK],
    ["Precision-recall", PR, pr],
  ].map(([name, key, view]) => {
    const button = h("button", "kchart-switch-button", name);
    button.type = "button";
    button.addEventListener("click", () => choose(key));
    switcher.append(button);
    return [button, key, view];
  });
  let current = null;
  function show(shown) {
    if (shown === current) return;
    current = shown;
    for (const [button, key, view] of views) {
      button.setAttribute("aria-pressed", String(key === shown));
      view.hidden = key !== shown;
    }
    prChart.shown();
  }
  show(BY_K);
  el.append(switcher, byK, pr);
  return { el, show };
}

/**
 * AP one term at a time: each step moves k to the next relevant rank, where P@k is AP's next term,
 * then adds a 0 for each relevant document the list missed, and ends on the AP card's number.
 */
function createApTour(shell, readout, commit) {
  let tour = null; // { done, sum } while it runs
  const player = createPlayer({ what: "AP, one term at a time", label: "AP term by term", advance, onEnd: () => (tour = null) });
  const { status, end } = player;

  function advance() {
    const state = shell.state();
    const now = readout();
    const ranks = now.apTerms.map(([rank]) => rank);
    if (!tour) tour = { done: 0, sum: 0 };
    const n = now.nRelevant;
    if (tour.done === n) {
      const text = `AP = ${f(tour.sum)} / ${n} = ${f(now.values.ap)}`;
      end();
      status.textContent = n ? text : "AP = 0: no relevant document, found or missed.";
      return false;
    }
    tour.done += 1;
    if (tour.done <= ranks.length) {
      const [rank, precision] = now.apTerms[tour.done - 1];
      tour.sum += precision;
      commit({ ...state, k: rank });
      const hits = relevantRanks(now.grades, rank).length;
      status.textContent =
        `Term ${tour.done} of ${n}: P@${rank} = ${hits} / ${rank} = ${f(precision)}. Sum so far ${f(tour.sum)}.`;
    } else {
      status.textContent = `Term ${tour.done} of ${n}: a relevant document the list missed counts 0. Sum so far ${f(tour.sum)}.`;
    }
    return true;
  }
  return player;
}
