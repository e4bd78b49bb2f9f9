// Two kinds of recall for one query: ANN recall@10 (the approximate index's ten against exact
// nearest-neighbour search over the same vectors) and relevance recall@10 (the same ten against
// the documents people judged relevant). Press a row to make the index miss that neighbour;
// switch the embedding model to one that matches the wrong kind of text.
// State: { model: "suited" | "mismatched", missed_neighbours: [ranks 1..10] }.
import { formatNumber, precisionAtK, recallAtK } from "explainer/metrics";
import {
  connectFigure,
  createAnnouncer,
  createFrame,
  createPresenterToggle,
  createQueryNotice,
  createRadioGroup,
  h,
  Ignored,
  parseIntegers,
} from "explainer/kit";

const K = 10;
const f = (x) => formatNumber(x);

/**
 * The URL keys of this figure's state:
 *   model=suited | mismatched        the embedding model behind the vectors
 *   missed_neighbours=3,7            exact neighbours (ranks 1 to 10) the index misses; empty for none
 * Example: ?model=mismatched&missed_neighbours=
 */
export function queryFields(modelNames) {
  return {
    model(text, state) {
      if (!modelNames.includes(text)) throw new Ignored(`model must be ${modelNames.join(" or ")}`);
      return { ...state, model: text };
    },
    missed_neighbours(text, state) {
      const ranks = parseIntegers(text, "missed_neighbours", 1, K, `neighbour ranks from 1 to ${K}`);
      return { ...state, missed_neighbours: [...new Set(ranks)].sort((a, b) => a - b) };
    },
  };
}

function toQuery(state) {
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

/** The index's ten: each exact neighbour it found, or in its place the next-nearest document. */
export function indexResults(state, models) {
  const { neighbours, next } = models[state.model];
  let used = 0;
  return neighbours.map((title, i) => (state.missed_neighbours.includes(i + 1) ? next[used++] : title));
}

/** The numbers and sentences the figure shows for a state, each computed by the metrics module. */
export function readout(state, models, relevant) {
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
  if (ann === 1 && recall < 0.5) {
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

export function render({ model, el }) {
  let state;
  const models = model.models;
  const relevant = new Set(model.relevant);
  const modelNames = Object.keys(models);

  const { frame, root } = createFrame(el, "fig-recall-kinds", model.caption);
  const queryNotice = createQueryNotice();

  const head = h("div", "fig-head");
  const query = h("p", "fig-query");
  query.append("Query: ", h("q", "", model.query));
  const reset = h("button", "fig-button", "Reset");
  reset.type = "button";
  reset.title = "Back to the start: a suited model and a perfect index";
  const tools = h("div", "fig-tools");
  tools.append(reset);
  if (model.standalone) tools.append(createPresenterToggle(frame));
  head.append(query, tools);

  const modelSwitch = createRadioGroup(
    "Embedding model",
    "model",
    modelNames.map((name) => [name, models[name].label]),
    (name) => commit({ ...state, model: name }),
    "rk-model",
  );

  const header = h("div", "rk-header");
  header.setAttribute("aria-hidden", "true");
  header.append(
    h("span", "rl-rank", "#"),
    h("span", "rk-exact", "Exact search: the 10 nearest vectors"),
    h("span", "rk-index", "Approximate index (press a row to make it miss)"),
  );

  const rowsEl = h("div", "rk-rows");
  rowsEl.setAttribute("role", "list");
  rowsEl.setAttribute("aria-label", `The ten nearest neighbours of the query ${model.query}, and what the index returned`);
  const rows = [];
  for (let rank = 1; rank <= K; rank++) {
    const row = h("div", "rk-row");
    row.setAttribute("role", "listitem");
    row.dataset.rank = String(rank);
    const button = h("button", "rl-activate rk-activate");
    button.type = "button";
    const exact = h("span", "rk-exact");
    const index = h("span", "rk-index");
    button.append(h("span", "rl-rank", String(rank)), exact, index);
    button.addEventListener("click", () => commit(toggle(state, rank)));
    row.append(button);
    rowsEl.append(row);
    rows.push({ row, button, exact, index });
  }

  const unfound = h("p", "rk-unfound");

  const left = h("div", "fig-list");
  left.append(head, queryNotice.el, modelSwitch.el, header, rowsEl, unfound);

  const panel = h("div", "metrics");
  const cards = {};
  for (const [key, name, blind] of [
    ["ann", "ANN recall@10: the index against exact search", "Blind to relevance: it never looks at a judgment."],
    ["recall", "Recall@10: the list against human judgments", "Blind to how the list was found: exact or approximate."],
    ["precision", "Precision@10: how much of the list is relevant", null],
  ]) {
    const box = h("section", "metric");
    box.dataset.metric = key;
    const formula = h("p", "metric-formula");
    const note = h("p", "metric-note");
    box.append(h("h3", "metric-name", name), formula, note);
    if (blind) box.append(h("p", "metric-blind", blind));
    cards[key] = { formula, note };
    panel.append(box);
  }
  const lesson = h("p", "fig-notice rk-lesson");
  panel.append(lesson);

  const announcer = createAnnouncer();
  root.append(left, panel, announcer.el);

  function judgedMark(title) {
    const yes = relevant.has(title);
    const mark = h("span", `rk-judged ${yes ? "is-rel" : "not-rel"}`, yes ? "● relevant" : "○ not relevant");
    return mark;
  }

  function update() {
    const current = readout(state, models, model.relevant);
    const { neighbours } = models[state.model];
    rows.forEach(({ row, button, exact, index }, i) => {
      const rank = i + 1;
      const missed = state.missed_neighbours.includes(rank);
      const got = current.results[i];
      row.classList.toggle("is-missed", missed);
      exact.replaceChildren(h("span", "rk-title", neighbours[i]), " ", judgedMark(neighbours[i]));
      if (missed) {
        index.replaceChildren(
          h("span", "rk-status", "✗ missed; returned instead:"),
          " ",
          h("span", "rk-title", got),
          " ",
          judgedMark(got),
        );
      } else {
        index.replaceChildren(h("span", "rk-status", "✓ found it"));
      }
      button.setAttribute("aria-pressed", String(missed));
      button.setAttribute(
        "aria-label",
        `Neighbour ${rank}: ${neighbours[i]}, ${relevant.has(neighbours[i]) ? "judged relevant" : "not relevant"}. ` +
          (missed
            ? `The index missed it and returned ${got}, ${relevant.has(got) ? "judged relevant" : "not relevant"}. Press to let the index find it.`
            : "The index found it. Press to make the index miss it."),
      );
    });
    modelSwitch.set(state.model);
    cards.ann.formula.textContent = current.annText;
    cards.ann.note.textContent = current.annNote;
    cards.recall.formula.textContent = current.recallText;
    cards.recall.note.textContent = current.recallNote;
    cards.precision.formula.textContent = current.precisionText;
    cards.precision.note.textContent = "Relevant documents among the index's ten, divided by ten.";
    lesson.textContent = current.lesson;
    unfound.textContent = current.unfoundNote;
    announcer.say(current.announcement);
  }

  const commit = connectFigure(model, {
    apply(next) {
      state = next;
      update();
    },
    fields: queryFields(modelNames),
    toQuery,
    notice: queryNotice,
  });
  reset.addEventListener("click", () => commit(structuredClone(model.default)));
}
