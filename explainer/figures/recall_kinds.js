// Two kinds of recall for one query: ANN recall@10 (the approximate index's ten against exact
// nearest-neighbour search over the same vectors) and relevance recall@10 (the same ten against
// the documents people judged relevant). Press a row to make the index miss that neighbour;
// switch the embedding model to one that matches the wrong kind of text.
// State: { model: one of the models' names, missed_neighbours: [ranks of the exact neighbours] }.
import { formatNumber, precisionAtK, recallAtK } from "explainer/metrics";
import { describedBy, drawMark, h, setText } from "explainer/dom";
import { parseChoice, parseIntegers } from "explainer/query";
import { createCard } from "explainer/card";
import { createRadioGroup } from "explainer/controls";
import { mountFigure } from "explainer/shell";
import { cardTarget } from "explainer/predict";

const f = (x) => formatNumber(x);

/**
 * The URL keys of this figure's state:
 *   model=suited | mismatched        the embedding model behind the vectors
 *   missed_neighbours=3,7            exact neighbours the index misses; empty for none
 * Example: ?model=mismatched&missed_neighbours=
 */
export function queryFields({ limits }) {
  const deepest = limits.missed_neighbours.max_rank;
  return {
    model: (text, state) => ({ ...state, model: parseChoice(text, "model", limits.model.options) }),
    missed_neighbours(text, state) {
      const ranks = parseIntegers(text, "missed_neighbours", 1, deepest, `neighbour ranks from 1 to ${deepest}`);
      return { ...state, missed_neighbours: [...new Set(ranks)].sort((a, b) => a - b) };
    },
  };
}

export function toQuery(state) {
  return [
    ["model", state.model],
    ["missed_neighbours", state.missed_neighbours.join(",")],
  ];
}

/** The state after the index misses neighbour `rank` if it found it, or finds it if it missed it. */
export function toggle(state, rank) {
  const missed = new Set(state.missed_neighbours);
  if (missed.has(rank)) missed.delete(rank);
  else missed.add(rank);
  return { ...state, missed_neighbours: [...missed].sort((a, b) => a - b) };
}

/** The index's results: each exact neighbour it found, or in its place the next-nearest document. */
export function indexResults(state, models) {
  const { neighbours, next } = models[state.model];
  let used = 0;
  return neighbours.map((title, i) => (state.missed_neighbours.includes(i + 1) ? next[used++] : title));
}

/** The numbers and sentences the figure shows for a state, each computed by the metrics module. */
export function readout(state, models, relevant) {
  const K = models[state.model].neighbours.length;
  const exact = new Set(models[state.model].neighbours);
  const judged = new Set(relevant);
  const results = indexResults(state, models);
  const isNeighbour = results.map((t) => (exact.has(t) ? 1 : 0));
  const isRelevant = results.map((t) => (judged.has(t) ? 1 : 0));
  const found = isNeighbour.reduce((a, b) => a + b, 0);
  const hits = isRelevant.reduce((a, b) => a + b, 0);
  const R = relevant.length;
  const unfound = relevant.filter((t) => !results.includes(t));
  const ann = recallAtK(isNeighbour, K, K);
  const recall = recallAtK(isRelevant, K, R);
  const precision = precisionAtK(isRelevant, K);
  let lesson;
  if (ann === 1 && recall <= 0.5) {
    lesson =
      `ANN recall is ${f(ann)}, yet the list holds only ${hits} of the ${R} relevant documents: ` +
      "the index returned exactly what the model asked for, and the model asked for the wrong text.";
  } else if (ann < 1) {
    lesson =
      `Each miss lowers ANN recall by ${f(1 / K)}. Relevance recall falls only when the missed ` +
      "neighbour was one of the relevant documents.";
  } else {
    lesson = "A perfect index and a suitable model: both recalls are high. Switch the model to see them part.";
  }
  return {
    results,
    isNeighbour,
    isRelevant,
    values: { ann, recall, precision },
    annText: `ANN recall@${K} = ${found} / ${K} = ${f(ann)}`,
    annNote: `${found} of the exact top ${K} ${found === 1 ? "is" : "are"} in the index's ${K}. Same vectors; no judgment involved.`,
    recallText: `Recall@${K} = ${hits} / ${R} = ${f(recall)}`,
    recallNote: `${hits} of the ${R} documents people judged relevant ${hits === 1 ? "is" : "are"} in the index's ${K}.`,
    precisionText: `P@${K} = ${hits} / ${K} = ${f(precision)}`,
    lesson,
    unfoundNote: unfound.length
      ? `People judged ${R} documents relevant. Not in the index's ${K}: ${unfound.join("; ")}.`
      : `People judged ${R} documents relevant, and all of them are in the index's ${K}.`,
    announcement: `ANN recall@${K} ${f(ann)}, recall@${K} ${f(recall)}, precision@${K} ${f(precision)}`,
  };
}

export function render(view) {
  mountFigure(view, { className: "fig-recall-kinds", queryFields, toQuery, build });
}

/** "● relevant" or "○ not relevant": what people judged a title. */
function judgedMark(relevant, title) {
  const yes = relevant.has(title);
  const node = h("span", `rk-judged ${yes ? "is-rel" : "not-rel"}`);
  drawMark(node, yes ? "●" : "○", yes ? "relevant" : "not relevant");
  return node;
}

/** One row per exact neighbour, beside what the index returned in its place; press to make the index miss it. */
function createRows(shell, relevant, K) {
  const el = h("div", "rk-rows");
  el.setAttribute("role", "list");
  el.setAttribute("aria-label", `The ${K} nearest neighbours of the query ${shell.model.query}, and what the index returned`);
  const rows = Array.from({ length: K }, (_, i) => {
    const row = h("div", "rk-row");
    row.setAttribute("role", "listitem");
    row.dataset.rank = String(i + 1);
    const button = h("button", "rl-activate rk-activate");
    button.type = "button";
    const exact = h("span", "rk-exact");
    const index = h("span", "rk-index");
    button.append(h("span", "rl-rank", String(i + 1)), exact, index);
    button.addEventListener("click", () => shell.commit(toggle(shell.state(), i + 1)));
    const description = describedBy(button);
    row.append(button, description);
    el.append(row);
    return { row, button, exact, index, description };
  });
  const said = (title) => (relevant.has(title) ? "judged relevant" : "not relevant");
  return {
    el,
    update(state, neighbours, results) {
      rows.forEach(({ row, button, exact, index, description }, i) => {
        const missed = state.missed_neighbours.includes(i + 1);
        const got = results[i];
        row.classList.toggle("is-missed", missed);
        exact.replaceChildren(h("span", "rk-title", neighbours[i]), " ", judgedMark(relevant, neighbours[i]));
        const status = h("span", "rk-status");
        drawMark(status, missed ? "✗" : "✓", missed ? "missed; returned instead:" : "found it");
        if (missed) index.replaceChildren(status, " ", h("span", "rk-title", got), " ", judgedMark(relevant, got));
        else index.replaceChildren(status);
        button.setAttribute("aria-pressed", String(missed));
        const action = missed ? "Press to let the index find it." : "Press to make the index miss it.";
        setText(description, `Neighbour ${i + 1}, ${said(neighbours[i])}. ${action}`);
      });
    },
  };
}

function build(shell) {
  const { model } = shell;
  const models = model.models;
  const relevant = new Set(model.relevant);
  const K = shell.limits.missed_neighbours.max_rank;
  const modelSwitch = createRadioGroup(
    "Embedding model",
    "model",
    shell.limits.model.options.map((name) => [name, models[name].label]),
    (name) => shell.commit({ ...shell.state(), model: name }),
    "rk-model",
  );
  const header = h("div", "rk-header");
  header.setAttribute("aria-hidden", "true");
  header.append(
    h("span", "rl-rank", "#"),
    h("span", "rk-exact", `Exact search: the ${K} nearest vectors`),
    h("span", "rk-index", "Approximate index (press a row to make it miss)"),
  );
  const rows = createRows(shell, relevant, K);
  const unfound = h("p", "rk-unfound");
  const left = h("div", "fig-list");
  left.append(shell.head, shell.notice, modelSwitch.el, header, rows.el, unfound);

  const cards = {
    ann: createCard(`ANN recall@${K}: the index against exact search`, {
      metric: "ann",
      blind: "Blind to relevance: it never looks at a judgment.",
    }),
    recall: createCard(`Recall@${K}: the list against human judgments`, {
      metric: "recall",
      blind: "Blind to how the list was found: exact or approximate.",
    }),
    precision: createCard(`Precision@${K}: how much of the list is relevant`, { metric: "precision" }),
  };
  const lesson = h("p", "fig-notice rk-lesson");
  const panel = h("div", "metrics");
  panel.append(...Object.values(cards).map((card) => card.el), lesson);
  shell.root.append(left, panel);

  return function update(state) {
    const current = readout(state, models, model.relevant);
    rows.update(state, models[state.model].neighbours, current.results);
    modelSwitch.set(state.model);
    setText(cards.ann.formula, current.annText);
    setText(cards.ann.note, current.annNote);
    setText(cards.recall.formula, current.recallText);
    setText(cards.recall.note, current.recallNote);
    setText(cards.precision.formula, current.precisionText);
    setText(cards.precision.note, `Relevant documents among the index's ${K}, divided by ${K}.`);
    setText(lesson, current.lesson);
    setText(unfound, current.unfoundNote);
    const targets = [
      cardTarget("ann", cards.ann, `ANN recall@${K}`, current.values.ann),
      cardTarget("recall", cards.recall, `Recall@${K}`, current.values.recall),
      cardTarget("precision", cards.precision, `P@${K}`, current.values.precision),
    ];
    targets[0].hide.push(lesson);
    shell.predict(targets);
    shell.say(current.announcement);
  };
}
