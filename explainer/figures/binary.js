// Figure 1: twelve ranked results, a cutoff k, and P@k, R@k, RR and AP with their arithmetic.
// State (from Python, or changed here): { relevant: [12 booleans], k, missed }.
import {
  averagePrecision,
  averagePrecisionTerms,
  formatNumber,
  precisionAtK,
  recallAtK,
  reciprocalRank,
  relevantRanks,
} from "explainer/metrics";
import {
  connectFigure,
  createAnnouncer,
  createFrame,
  createPresenterToggle,
  createQueryNotice,
  createRankedList,
  h,
  parseInteger,
  parseIntegers,
  setAttr,
  setText,
} from "explainer/kit";

const MAX_MISSED = 12;

/** The URL keys of this figure's state: relevant=2,3,5,8,11&missed=1&k=5. */
export function queryFields(count) {
  return {
    relevant(text, state) {
      const ranks = parseIntegers(text, "relevant", 1, count, `ranks from 1 to ${count}`);
      return { ...state, relevant: state.relevant.map((_, i) => ranks.includes(i + 1)) };
    },
    missed: (text, state) => ({ ...state, missed: parseInteger(text, "missed", 0, MAX_MISSED) }),
    k: (text, state) => ({ ...state, k: parseInteger(text, "k", 1, count) }),
  };
}

function toQuery(state) {
  const ranks = state.relevant.flatMap((isRelevant, i) => (isRelevant ? [i + 1] : []));
  return [
    ["relevant", ranks.join(",")],
    ["missed", String(state.missed)],
    ["k", String(state.k)],
  ];
}

/**
 * The state after flipping the result at `rank`. R stays put where it can: a result
 * turned relevant is a missed document now retrieved, one turned not relevant joins
 * the missed (BinaryState.flip in Python says the same).
 */
export function flip(state, rank) {
  const relevant = state.relevant.slice();
  relevant[rank - 1] = !relevant[rank - 1];
  const missed = Math.min(Math.max(state.missed + (relevant[rank - 1] ? -1 : 1), 0), MAX_MISSED);
  return { ...state, relevant, missed };
}

/** The numbers the figure shows for a state, each computed by the metrics module. */
export function readout({ relevant, k, missed }) {
  const grades = relevant.map((r) => (r ? 1 : 0));
  const inList = relevantRanks(grades);
  const total = inList.length + missed;
  const hitsAtK = relevantRanks(grades, k).length;
  const p = precisionAtK(grades, k);
  const r = recallAtK(grades, k, total);
  const rr = reciprocalRank(grades);
  const ap = averagePrecision(grades, total);
  const f = formatNumber;
  const terms = averagePrecisionTerms(grades).map(([hits, rank]) => `${hits}/${rank}`);
  return {
    grades,
    total,
    values: { p, r, rr, ap },
    precision: `P@${k} = ${hitsAtK} / ${k} = ${f(p)}`,
    recall: total ? `R@${k} = ${hitsAtK} / ${total} = ${f(r)}` : `R@${k} = 0 (R = 0: nothing to find)`,
    recallNote: `R = ${inList.length} in the list + ${missed} missed = ${total}`,
    rr: inList.length ? `RR = 1 / ${inList[0]} = ${f(rr)}` : "RR = 0 (no relevant result in the list)",
    rrNote: inList.length ? `First relevant result at rank ${inList[0]}` : "No relevant result in the list",
    ap: !total
      ? "AP = 0 (R = 0: nothing to find)"
      : terms.length
        ? `AP = (${terms.join(" + ")}) / ${total} = ${f(ap)}`
        : `AP = 0 / ${total} = ${f(ap)}`,
    apNote: `Precision at each relevant rank, summed, divided by R = ${total}`,
    announcement: `P@${k} ${f(p)}, R@${k} ${f(r)}, RR ${f(rr)}, AP ${f(ap)}`,
    firstRank: inList.length ? [inList[0]] : [],
    relevantRanks: inList,
    relevantInTopK: relevantRanks(grades, k),
  };
}

// The cards, in order; names and blind spots come from Python's explainer/measures.py.
const CARDS = [
  { key: "precision", note: null },
  { key: "recall", note: "recallNote" },
  { key: "rr", note: "rrNote" },
  { key: "ap", note: "apNote" },
];

export function render({ model, el }) {
  let state;
  const titles = model.titles;

  const marks = []; // each row's "relevant" mark
  const drawn = []; // each row's relevance as last drawn
  const { frame, root } = createFrame(el, "fig-binary", model.caption);
  const head = h("div", "fig-head");
  const query = h("p", "fig-query");
  query.append("Query: ", h("q", "", "cracked bracket"));
  const reset = h("button", "fig-button", "Reset");
  reset.type = "button";
  reset.title = "Back to the article's list";
  const tools = h("div", "fig-tools");
  tools.append(reset);
  if (model.standalone) tools.append(createPresenterToggle(frame));
  head.append(query, tools);
  const queryNotice = createQueryNotice();

  const list = createRankedList({
    count: titles.length,
    label: "Ranked results for the query cracked bracket",
    cutoffName: "Cutoff k",
    buildRow(row, button, rank) {
      const mark = h("span", "mark");
      marks.push(mark);
      button.append(h("span", "rl-rank", String(rank)), h("span", "rl-title", titles[rank - 1]), mark);
    },
    onActivate(rank) {
      commit(flip(state, rank));
    },
    onCutoff(k) {
      commit({ ...state, k });
    },
  });

  const missedBox = h("div", "missed");
  const stepper = h("div", "stepper");
  const less = h("button", "fig-button", "−");
  const more = h("button", "fig-button", "+");
  less.type = more.type = "button";
  less.setAttribute("aria-label", "One fewer missed relevant result");
  more.setAttribute("aria-label", "One more missed relevant result");
  const missedCount = h("output", "stepper-value");
  const missedLabel = h("span", "stepper-label", "Relevant results the list missed");
  stepper.append(missedLabel, less, missedCount, more);
  const missedRows = h("div", "missed-rows");
  missedBox.append(stepper, missedRows);
  less.addEventListener("click", () => state.missed > 0 && commit({ ...state, missed: state.missed - 1 }));
  more.addEventListener("click", () => state.missed < MAX_MISSED && commit({ ...state, missed: state.missed + 1 }));

  // Why R barely moves when a row is flipped: each click is another ranking of the same documents.
  const flipHint = h(
    "p",
    "fig-hint-line",
    "A result marked relevant is one of the missed documents, now found, and one marked not relevant joins them: R stays the same while it can.",
  );
  const left = h("div", "fig-list");
  missedBox.append(flipHint);
  left.append(head, queryNotice.el, list.el, missedBox);

  const panel = h("div", "metrics");
  panel.setAttribute("aria-label", "Measures");
  const notice = h("p", "fig-notice");
  notice.hidden = true;
  panel.append(notice);
  const cards = {};
  for (const card of CARDS) {
    const box = h("section", "metric");
    box.tabIndex = 0;
    box.dataset.metric = card.key;
    const formula = h("p", "metric-formula");
    const note = h("p", "metric-note");
    const measure = model.measures[card.key];
    box.append(h("h3", "metric-name", measure.name), formula, note, h("p", "metric-blind", `Blind to: ${measure.blind_to}`));
    const show = () => {
      active = card.key;
      list.highlight(highlights(active));
    };
    const hide = () => {
      active = null;
      list.highlight([]);
    };
    box.addEventListener("mouseenter", show);
    box.addEventListener("focus", show);
    box.addEventListener("mouseleave", hide);
    box.addEventListener("blur", hide);
    cards[card.key] = { box, formula, note, card };
    panel.append(box);
  }

  const announcer = createAnnouncer();
  root.append(left, panel, announcer.el);

  let current = null;
  let active = null; // the card under the pointer or focus, whose ranks are highlighted
  function highlights(key) {
    if (!current) return [];
    if (key === "rr") return current.firstRank;
    if (key === "ap") return current.relevantRanks;
    return current.relevantInTopK;
  }

  function update() {
    current = readout(state);
    list.update(state.k);
    if (active) list.highlight(highlights(active));
    state.relevant.forEach((isRelevant, i) => {
      if (drawn[i] === isRelevant) return; // a click flips one row: the other eleven stay as drawn
      drawn[i] = isRelevant;
      const button = list.buttons[i];
      list.rows[i].classList.toggle("is-relevant", isRelevant);
      button.setAttribute("aria-pressed", String(isRelevant));
      marks[i].textContent = isRelevant ? "✓ relevant" : "✗ not relevant";
      button.setAttribute("aria-label", `Rank ${i + 1}: ${titles[i]}. ${isRelevant ? "Relevant" : "Not relevant"}. Press to flip.`);
    });
    setText(missedCount, String(state.missed));
    // aria-disabled, not disabled: a disabled button would drop the keyboard focus.
    setAttr(less, "aria-disabled", String(state.missed <= 0));
    setAttr(more, "aria-disabled", String(state.missed >= MAX_MISSED));
    while (missedRows.children.length > state.missed) missedRows.lastChild.remove();
    while (missedRows.children.length < state.missed) {
      const row = h("div", "missed-row");
      row.append(h("span", "rl-rank", "–"), h("span", "rl-title", "Relevant document, not retrieved"), h("span", "mark", "✓ relevant"));
      missedRows.append(row);
    }
    for (const { formula, note, card } of Object.values(cards)) {
      setText(formula, current[card.key]);
      setText(note, card.note ? current[card.note] : `${current.relevantInTopK.length} relevant in the top ${state.k}`);
    }
    notice.hidden = current.total > 0;
    setText(notice, current.total > 0 ? "" : "No relevant result exists, in the list or missed, so every measure is 0.");
    announcer.say(current.announcement);
  }

  const commit = connectFigure(model, {
    apply(next) {
      state = next;
      update();
    },
    fields: queryFields(titles.length),
    toQuery,
    notice: queryNotice,
  });
  reset.addEventListener("click", () => commit(structuredClone(model.default)));
}
