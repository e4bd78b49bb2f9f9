// Why tools disagree on NDCG: one graded list, the judged documents it missed, and NDCG@k
// under each convention (gain, where the ideal comes from, whether the ideal is cut at k),
// each row with the tools that compute it that way and its arithmetic on focus or hover.
// Below: recall@k against hit rate@k on the same list.
// State: { grades: [by document], order: [documents by rank], k, missed: [grades 1..3] }.
import {
  dcgAtK,
  discount,
  formatNumber,
  gainValue,
  hitRateAtK,
  idealGrades,
  ndcgAtK,
  recallAtK,
  relevantRanks,
} from "explainer/metrics";
import {
  connectFigure,
  createAnnouncer,
  createFrame,
  createGradedList,
  createPresenterToggle,
  createQueryNotice,
  gradedListFields,
  gradedListQuery,
  h,
  Ignored,
  parseInteger,
  parseIntegers,
} from "explainer/kit";

const MAX_GRADE = 3;
const GRADE_WORDS = ["not relevant", "somewhat relevant", "relevant", "highly relevant"];

const f = (x) => formatNumber(x);

/** The grades in rank order. */
export function rankedGrades(state) {
  return state.order.map((doc) => state.grades[doc]);
}

/**
 * The URL keys of this figure's state, applied in this order whatever the URL's order:
 *   order=2,1,3,...   documents by rank, numbered from 1 (written once results have moved)
 *   grades=1,3,0,...  the grade at each rank, 0 to 3, exactly `count` of them
 *   k=5               the cutoff, 1 to `count`
 *   missed=3,2        grades (1 to 3) of judged relevant documents the list did not retrieve,
 *                     at most `maxMissed`; empty for none
 * Example: ?grades=1,3,0,2,0,3,1,2&k=5&missed=3,2
 */
export function queryFields(count, maxMissed) {
  return {
    ...gradedListFields(count, MAX_GRADE),
    k: (text, state) => ({ ...state, k: parseInteger(text, "k", 1, count) }),
    missed(text, state) {
      const what = `at most ${maxMissed} grades from 1 to ${MAX_GRADE}`;
      const missed = parseIntegers(text, "missed", 1, MAX_GRADE, what);
      if (missed.length > maxMissed) throw new Ignored(`missed must list ${what}, separated by commas`);
      return { ...state, missed: missed.sort((a, b) => b - a) };
    },
  };
}

function toQuery(state) {
  return [...gradedListQuery(state), ["k", String(state.k)], ["missed", state.missed.join(",")]];
}

/** "g/d + g/d + ... = total": a DCG written out, gains over log2(rank + 1). */
function dcgSum(grades, depth, gain) {
  const shown = grades.slice(0, depth).map((g, i) => `${gainValue(g, gain)}/${f(1 / discount(i + 1))}`);
  return `${shown.join(" + ")} = ${f(dcgAtK(grades, depth, gain))}`;
}

/**
 * NDCG@k of `ranked` under one convention { gain, ideal: "judged" | "list", cut }, with its parts.
 * A cut ideal is metrics' ndcgAtK (with every judged grade, or the list's own); an uncut one
 * divides by the DCG of the whole ideal order, as Quepid's nDCG@10 does.
 */
export function conventionParts(ranked, k, missed, convention) {
  const { gain, cut } = convention;
  const judged = [...ranked, ...missed];
  const fromJudged = convention.ideal === "judged";
  const ideal = idealGrades(fromJudged ? judged : ranked);
  const depth = cut ? k : Math.max(ideal.length, 1);
  const dcg = dcgAtK(ranked, k, gain);
  const idcg = dcgAtK(ideal, depth, gain);
  const value = cut ? ndcgAtK(ranked, k, gain, fromJudged ? judged : null) : idcg ? dcg / idcg : 0;
  return { dcg, idcg, value, ideal, depth };
}

/** The numbers and sentences the figure shows for a state, each computed by the metrics module. */
export function readout(state, conventions) {
  const { k, missed } = state;
  const ranked = rankedGrades(state);
  const rows = conventions.map((c) => {
    const { dcg, idcg, value, ideal, depth } = conventionParts(ranked, k, missed, c);
    const source =
      c.ideal === "judged"
        ? `all ${ranked.length + missed.length} judged documents (${missed.length} not retrieved)`
        : `the ${ranked.length} results in the list only`;
    return {
      key: c.key,
      value,
      valueText: f(value),
      ndcgText: idcg ? `NDCG@${k} = ${f(dcg)} / ${f(idcg)} = ${f(value)}` : `NDCG@${k} = 0 (nothing relevant: the ideal is 0)`,
      dcgText: `DCG@${k} = ${dcgSum(ranked, k, c.gain)}`,
      idcgText: c.cut
        ? `Ideal DCG@${k} = ${dcgSum(ideal, depth, c.gain)}`
        : `Ideal DCG, all ${depth}, no cut = ${dcgSum(ideal, depth, c.gain)}`,
      idealNote: `Ideal order ${ideal.join(", ")}: from ${source}, ${c.cut ? `top ${k} counted` : "every one counted"}.`,
    };
  });
  const inList = relevantRanks(ranked);
  const topK = relevantRanks(ranked, k);
  const total = inList.length + missed.length;
  const recall = recallAtK(ranked, k, total);
  const hitRate = hitRateAtK(ranked, k);
  return {
    ranked,
    rows,
    recall,
    hitRate,
    total,
    recallText: total ? `Recall@${k} = ${topK.length} / ${total} = ${f(recall)}` : `Recall@${k} = 0 (R = 0: nothing to find)`,
    recallNote: `R = ${inList.length} relevant in the list + ${missed.length} not retrieved = ${total}`,
    hitRateText: `Hit rate@${k} = ${f(hitRate)}`,
    hitRateNote: topK.length
      ? `1 as soon as one relevant result is in the top ${k}: here rank ${topK[0]}`
      : `0: no relevant result in the top ${k}`,
    announcement:
      `NDCG@${k} by convention: ${rows.map((r) => r.valueText).join(", ")}. ` +
      `Recall@${k} ${f(recall)}, hit rate@${k} ${f(hitRate)}`,
  };
}

function gradeMark(grade) {
  return `${"●".repeat(grade)}${"○".repeat(MAX_GRADE - grade)} ${grade}`;
}

export function render({ model, el }) {
  let state;
  let current = null;
  const titles = model.titles;
  const count = titles.length;
  const conventions = model.conventions;
  const maxMissed = model.max_missed;

  const { frame, root } = createFrame(el, "fig-conventions", model.caption);
  const queryNotice = createQueryNotice();

  // -- head: query, reset, presenter --
  const head = h("div", "fig-head");
  const query = h("p", "fig-query");
  query.append("Query: ", h("q", "", model.query));
  const reset = h("button", "fig-button", "Reset");
  reset.type = "button";
  reset.title = "Back to the starting list";
  const tools = h("div", "fig-tools");
  tools.append(reset);
  if (model.standalone) tools.append(createPresenterToggle(frame));
  head.append(query, tools);

  // -- the list --
  const { header, list, gradeSelects } = createGradedList({
    count,
    label: `Graded results for the query ${model.query}`,
    maxGrade: MAX_GRADE,
    headerClass: "conv-header",
    columns: [
      ["rl-rank", "#"],
      ["rl-title", "Result (press to move up)"],
      ["grade", "Grade"],
    ],
    getState: () => state,
    commit: (next) => commit(next),
    flash: (text) => flash(text),
  });
  const hint = h("p", "fig-hint");
  hint.setAttribute("role", "status");

  // -- judged documents the list missed: one stepper per grade --
  const missedBox = h("div", "conv-missed");
  missedBox.append(h("p", "conv-missed-title", "Judged relevant, but not in the list"));
  const steppers = {};
  for (let grade = MAX_GRADE; grade >= 1; grade--) {
    const stepper = h("div", "stepper");
    const label = h("span", "stepper-label");
    label.append(h("span", "grade", gradeMark(grade)));
    const less = h("button", "fig-button", "−");
    const more = h("button", "fig-button", "+");
    less.type = more.type = "button";
    less.setAttribute("aria-label", `One fewer missed document of grade ${grade}`);
    more.setAttribute("aria-label", `One more missed document of grade ${grade}`);
    const value = h("output", "stepper-value");
    value.setAttribute("aria-label", `Missed documents of grade ${grade}`);
    stepper.dataset.grade = String(grade);
    stepper.append(label, less, value, more);
    less.addEventListener("click", () => {
      const at = state.missed.indexOf(grade);
      if (at < 0) return;
      const missed = state.missed.slice();
      missed.splice(at, 1);
      commit({ ...state, missed });
    });
    more.addEventListener("click", () => {
      if (state.missed.length >= maxMissed) {
        flash(`At most ${maxMissed} missed documents.`);
        return;
      }
      commit({ ...state, missed: [...state.missed, grade].sort((a, b) => b - a) });
    });
    steppers[grade] = { less, more, value };
    missedBox.append(stepper);
  }

  const left = h("div", "fig-list");
  left.append(head, queryNotice.el, header, list.el, hint, missedBox);

  // -- the conventions table, the arithmetic of the active row, recall vs hit rate --
  const panel = h("div", "metrics");
  const tableBox = h("section", "metric conv-box");
  const tableTitle = h("h3", "metric-name");
  tableBox.append(tableTitle);
  const table = h("table", "conv-table");
  const thead = h("thead");
  const headRow = h("tr");
  const valueHead = h("th", "num");
  for (const th of [h("th", "", "Gain"), h("th", "", "Ideal from"), valueHead, h("th", "", "Used by")]) {
    th.scope = "col";
    headRow.append(th);
  }
  thead.append(headRow);
  const tbody = h("tbody");
  table.append(thead, tbody);
  tableBox.append(table);

  const detail = h("section", "metric conv-detail");
  detail.id = `conv-detail-${Math.random().toString(36).slice(2)}`;
  const detailName = h("h3", "metric-name");
  const detailFormula = h("p", "metric-formula");
  const detailDcg = h("p", "conv-sum");
  const detailIdcg = h("p", "conv-sum");
  const detailNote = h("p", "metric-note");
  detail.append(detailName, detailFormula, detailDcg, detailIdcg, detailNote);

  let active = conventions[0].key;
  const tableRows = {};
  conventions.forEach((c, i) => {
    const tr = h("tr", "conv-row");
    tr.tabIndex = 0;
    tr.dataset.convention = c.key;
    tr.setAttribute("aria-describedby", detail.id);
    const tools = h("ul", "conv-tools");
    for (const name of c.used_by) tools.append(h("li", "", name));
    const value = h("td", "num conv-value");
    const gainCell = h("td", "conv-gain");
    if (c.gain === "exponential") gainCell.append("2", h("sup", "", "g"), " − 1");
    else gainCell.append("g");
    gainCell.title = c.gain === "exponential" ? "Exponential gain" : "Linear gain: the grade itself";
    const idealCell = h("td", "conv-ideal", c.ideal_text);
    const toolsCell = h("td", "conv-used");
    toolsCell.append(tools);
    tr.append(gainCell, idealCell, value, toolsCell);
    const show = () => {
      active = c.key;
      drawDetail();
    };
    tr.addEventListener("mouseenter", show);
    tr.addEventListener("focus", show);
    tableRows[c.key] = { tr, value, index: i };
    tbody.append(tr);
  });

  const recallBox = h("section", "metric");
  recallBox.dataset.metric = "recall";
  const recallFormula = h("p", "metric-formula");
  const recallNote = h("p", "metric-note");
  recallBox.append(h("h3", "metric-name", "Recall@k: how much of what is relevant is in the top k"), recallFormula, recallNote);
  const hitBox = h("section", "metric");
  hitBox.dataset.metric = "hit-rate";
  const hitFormula = h("p", "metric-formula");
  const hitNote = h("p", "metric-note");
  hitBox.append(
    h("h3", "metric-name", "Hit rate@k: is anything relevant in the top k?"),
    hitFormula,
    hitNote,
    h("p", "metric-blind", `Also called ${model.hit_rate_names.join(", ")}; some documentation calls it RecallAtK.`),
  );
  const pair = h("div", "conv-pair");
  pair.append(recallBox, hitBox);

  panel.append(tableBox, detail, pair);

  const announcer = createAnnouncer();
  root.append(left, panel, announcer.el);

  // -- drawing --
  function drawDetail() {
    if (!current) return;
    const row = current.rows.find((r) => r.key === active);
    const c = conventions.find((x) => x.key === active);
    detailName.textContent = `Row ${tableRows[active].index + 1}: ${c.used_by[0]} (gain ${c.gain_text}, ideal from ${c.ideal_text})`;
    detailFormula.textContent = row.ndcgText;
    detailDcg.textContent = row.dcgText;
    detailIdcg.textContent = row.idcgText;
    detailNote.textContent = row.idealNote;
    for (const [key, { tr }] of Object.entries(tableRows)) tr.classList.toggle("is-active", key === active);
  }

  function update() {
    current = readout(state, conventions);
    const { ranked } = current;
    list.update(state.k);
    ranked.forEach((grade, i) => {
      const row = list.rows[i];
      const doc = state.order[i];
      const b = list.buttons[i];
      row.dataset.grade = String(grade);
      b.querySelector(".rl-title").textContent = titles[doc];
      b.querySelector(".grade").textContent = gradeMark(grade);
      b.setAttribute(
        "aria-label",
        `Rank ${i + 1}: ${titles[doc]}. Grade ${grade}, ${GRADE_WORDS[grade] ?? ""}. ${i ? "Press to move up." : "At the top."}`,
      );
      gradeSelects[i].value = String(grade);
    });
    for (let grade = 1; grade <= MAX_GRADE; grade++) {
      const n = state.missed.filter((g) => g === grade).length;
      const { less, more, value } = steppers[grade];
      value.textContent = String(n);
      // aria-disabled, not disabled: a disabled button would drop the keyboard focus.
      less.setAttribute("aria-disabled", String(n === 0));
      more.setAttribute("aria-disabled", String(state.missed.length >= maxMissed));
    }
    tableTitle.textContent = `NDCG@${state.k} of this list, by convention`;
    valueHead.textContent = `NDCG@${state.k}`;
    for (const row of current.rows) {
      const { tr, value } = tableRows[row.key];
      const c = conventions[tableRows[row.key].index];
      value.textContent = row.valueText;
      tr.setAttribute(
        "aria-label",
        `Gain ${c.gain_text}, ideal from ${c.ideal_text}: NDCG@${state.k} ${row.valueText}. Used by ${c.used_by.join(", ")}.`,
      );
    }
    drawDetail();
    recallFormula.textContent = current.recallText;
    recallNote.textContent = current.recallNote;
    hitFormula.textContent = current.hitRateText;
    hitNote.textContent = current.hitRateNote;
    announcer.say(current.announcement);
  }

  let hintTimer = null;
  function flash(text) {
    hint.textContent = text;
    clearTimeout(hintTimer);
    hintTimer = setTimeout(() => (hint.textContent = ""), 2500);
  }

  const commit = connectFigure(model, {
    apply(next) {
      state = next;
      update();
    },
    fields: queryFields(count, maxMissed),
    toQuery,
    notice: queryNotice,
  });
  reset.addEventListener("click", () => commit(structuredClone(model.default)));
}
