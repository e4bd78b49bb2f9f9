// Why tools disagree on NDCG: one graded list, the judged documents it missed, and NDCG@k
// under each convention (gain, where the ideal comes from, whether the ideal is cut at k),
// each row with the tools that compute it that way and its arithmetic on focus or hover.
// Below: recall@k against hit rate@k on the same list.
// State: { grades: [by document], order: [documents by rank], k, missed_grades: [grades of missed documents] }.
// On a real query's list (the workbench) a grade is null where nobody judged the document (marked
// unjudged, gain 0, as trec_eval counts it), and missed_grades holds every judged document outside
// the list, grade 0 included, so that the figure counts the query's judged documents.
import { dcgAtK, formatNumber, hitRateAtK, idealGrades, ndcgAtK, recallAtK, relevantRanks } from "explainer/metrics";
import { drawMark, h, setText } from "explainer/dom";
import { Ignored, parseInteger, parseIntegers } from "explainer/query";
import { createCard } from "explainer/card";
import { createStepper } from "explainer/controls";
import { dcgSum, gradeMark, rankedGrades } from "explainer/grades";
import { createGradedList, gradedListFields, gradedListQuery } from "explainer/graded-list";
import { mountFigure } from "explainer/shell";
import { cardTarget } from "explainer/predict";

const f = (x) => formatNumber(x);

/**
 * The URL keys of this figure's state, applied in this order whatever the URL's order:
 *   order=2,1,3,...      documents by rank, numbered from 1 (written once results have moved)
 *   grades=1,3,0,...     the grade at each rank
 *   k=5                  the cutoff
 *   missed_grades=3,2    grades of judged relevant documents the list did not retrieve; empty for none
 * Example: ?grades=1,3,0,2,0,3,1,2&k=5&missed_grades=3,2
 */
export function queryFields({ limits }) {
  const { max_length: most, min_grade: low, max_grade: high } = limits.missed_grades;
  return {
    ...gradedListFields(limits),
    k: (text, state) => ({ ...state, k: parseInteger(text, "k", limits.k.min, limits.k.max) }),
    missed_grades(text, state) {
      const what = `at most ${most} grades from ${low} to ${high}`;
      const grades = parseIntegers(text, "missed_grades", low, high, what);
      if (grades.length > most) throw new Ignored(`missed_grades must list ${what}, separated by commas`);
      return { ...state, missed_grades: grades.sort((a, b) => b - a) };
    },
  };
}

export function toQuery(state) {
  return [...gradedListQuery(state), ["k", String(state.k)], ["missed_grades", state.missed_grades.join(",")]];
}

/**
 * NDCG@k of `ranked` under one convention { gain, ideal: "judged" | "list", cut }, with its parts.
 * A cut ideal is metrics' ndcgAtK (with every judged grade, or the list's own); an uncut one
 * divides by the DCG of the whole ideal order, as Quepid's nDCG@10 does.
 */
export function conventionParts(ranked, k, missedGrades, convention) {
  const { gain, cut } = convention;
  const judged = [...ranked.filter((g) => g !== null), ...missedGrades];
  const fromJudged = convention.ideal === "judged";
  const ideal = idealGrades(fromJudged ? judged : ranked);
  const depth = cut ? k : Math.max(ideal.length, 1);
  const dcg = dcgAtK(ranked, k, gain);
  const idcg = dcgAtK(ideal, depth, gain);
  const value = cut ? ndcgAtK(ranked, k, gain, fromJudged ? judged : null) : idcg ? dcg / idcg : 0;
  return { dcg, idcg, value, ideal, depth };
}

/**
 * The numbers and sentences the figure shows for a state, each computed by the metrics module.
 * Recall and hit rate count a grade of `level` or more as relevant (trec_eval's -l); NDCG takes
 * every grade whatever the level.
 */
export function readout(state, conventions, level = 1) {
  const { k, missed_grades: missed } = state;
  const ranked = rankedGrades(state);
  const judgedInList = ranked.filter((g) => g !== null).length;
  const unjudged = ranked.length - judgedInList;
  const rows = conventions.map((c) => {
    const { dcg, idcg, value, ideal, depth } = conventionParts(ranked, k, missed, c);
    const source =
      c.ideal === "judged"
        ? `all ${judgedInList + missed.length} judged documents (${missed.length} not retrieved)`
        : `the ${judgedInList} ${unjudged ? "judged " : ""}results in the list only`;
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
  const relevant = ranked.map((g) => Number(g !== null && g >= level));
  const inList = relevantRanks(relevant);
  const topK = relevantRanks(relevant, k);
  const missedRelevant = missed.filter((g) => g >= level).length;
  const nRelevant = inList.length + missedRelevant;
  const recall = recallAtK(relevant, k, nRelevant);
  const hitRate = hitRateAtK(relevant, k);
  const relevantText = level > 1 ? `graded ${level} or more` : "relevant";
  const resultText = level > 1 ? `result graded ${level} or more` : "relevant result";
  return {
    ranked,
    unjudged,
    rows,
    recall,
    hitRate,
    nRelevant,
    recallText: nRelevant
      ? `Recall@${k} = ${topK.length} / ${nRelevant} = ${f(recall)}`
      : `Recall@${k} = 0 (R = 0: nothing to find)`,
    recallNote: `R = ${inList.length} ${relevantText} in the list + ${missedRelevant} not retrieved = ${nRelevant}`,
    hitRateText: `Hit rate@${k} = ${f(hitRate)}`,
    hitRateNote: topK.length
      ? `1 as soon as one ${resultText} is in the top ${k}: here rank ${topK[0]}`
      : `0: no ${resultText} in the top ${k}`,
    announcement:
      `NDCG@${k} by convention: ${rows.map((r) => r.valueText).join(", ")}. ` +
      `Recall@${k} ${f(recall)}, hit rate@${k} ${f(hitRate)}`,
  };
}

/** A row's mark of a document nobody judged (null grade), over the graded list's grade: "? unjudged". */
function unjudgedRow(list, i, unjudged) {
  return {
    key: unjudged ? "unjudged" : "",
    draw(button) {
      list.rows[i].classList.toggle("is-unjudged", unjudged);
      if (!unjudged) return;
      drawMark(button.querySelector(".grade"), "?", "unjudged");
      const where = i ? "Press to move up." : "At the top.";
      list.describe(i + 1, `Rank ${i + 1}. Unjudged: nobody judged it, so the measures count it as grade 0. ${where}`);
    },
  };
}

export function render(view) {
  mountFigure(view, { className: "fig-conventions", queryFields, toQuery, build });
}

/** Judged relevant documents the list missed: one stepper per grade, best first. */
function createMissedGrades(shell, flash) {
  // A list made for a real query gives one length: its missed documents are data, not a setting.
  const { length: fixed, max_length: most = fixed, min_length: fewest = fixed ?? 0, min_grade: low, max_grade: high } =
    shell.limits.missed_grades;
  const box = h("div", "conv-missed");
  // A real query's list counts its judged documents graded 0 outside it too.
  box.append(h("p", "conv-missed-title", low ? "Judged relevant, but not in the list" : "Judged, but not in the list"));
  const steppers = {};
  for (let grade = high; grade >= low; grade--) {
    const names = {
      less: `One fewer missed document of grade ${grade}`,
      more: `One more missed document of grade ${grade}`,
      value: `Missed documents of grade ${grade}`,
    };
    const stepper = createStepper(h("span", "grade", gradeMark(grade, high)), names, (by) => {
      const state = shell.state();
      const missed = state.missed_grades.slice();
      if (by < 0) {
        const at = missed.indexOf(grade);
        if (at < 0 || missed.length <= fewest) return;
        missed.splice(at, 1);
      } else if (missed.length >= most) {
        flash(`At most ${most} missed documents.`);
        return;
      } else {
        missed.push(grade);
        missed.sort((a, b) => b - a);
      }
      shell.commit({ ...state, missed_grades: missed });
    });
    stepper.el.dataset.grade = String(grade);
    steppers[grade] = stepper;
    box.append(stepper.el);
  }
  return {
    el: box,
    update(missed) {
      for (const [grade, stepper] of Object.entries(steppers)) {
        const n = missed.filter((g) => g === Number(grade)).length;
        stepper.set(n, { canLess: n > 0 && missed.length > fewest, canMore: missed.length < most });
      }
    },
  };
}

/** The table of conventions: a row each, its value, and the arithmetic of the row under focus or pointer. */
function createConventionsTable(conventions) {
  const box = h("section", "metric conv-box");
  const title = h("h3", "metric-name");
  const table = h("table", "conv-table");
  const headRow = h("tr");
  const valueHead = h("th", "num");
  for (const th of [h("th", "", "Gain"), h("th", "", "Ideal from"), valueHead, h("th", "", "Used by")]) {
    th.scope = "col";
    headRow.append(th);
  }
  const thead = h("thead");
  thead.append(headRow);
  const tbody = h("tbody");
  table.append(thead, tbody);
  box.append(title, table);

  const detail = h("section", "metric conv-detail");
  detail.id = `conv-detail-${Math.random().toString(36).slice(2)}`;
  const lines = ["metric-name", "metric-formula", "conv-sum", "conv-sum", "metric-note"].map((cls) => h(cls === "metric-name" ? "h3" : "p", cls));
  detail.append(...lines);

  let active = conventions[0].key;
  let current = null;
  let k = null;
  const rows = conventions.map((c, index) => {
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
    const toolsCell = h("td", "conv-used");
    toolsCell.append(tools);
    tr.append(gainCell, h("td", "conv-ideal", c.ideal_text), value, toolsCell);
    const show = () => {
      active = c.key;
      drawDetail();
    };
    tr.addEventListener("mouseenter", show);
    tr.addEventListener("focus", show);
    tbody.append(tr);
    return { tr, value, c, index };
  });

  function drawDetail() {
    const row = rows.find((r) => r.c.key === active);
    const shown = current.find((r) => r.key === active);
    const { c } = row;
    const texts = [`Row ${row.index + 1}: ${c.used_by[0]} (gain ${c.gain_text}, ideal from ${c.ideal_text})`];
    texts.push(shown.ndcgText, shown.dcgText, shown.idcgText, shown.idealNote);
    lines.forEach((line, i) => setText(line, texts[i]));
    for (const { tr, c: other } of rows) tr.classList.toggle("is-active", other.key === active);
  }

  return {
    box,
    detail,
    update(readoutRows, cutoff) {
      current = readoutRows;
      k = cutoff;
      setText(title, `NDCG@${k} of this list, by convention`);
      setText(valueHead, `NDCG@${k}`);
      readoutRows.forEach((shown, i) => {
        const { tr, value, c } = rows[i];
        setText(value, shown.valueText);
        const label = `Gain ${c.gain_text}, ideal from ${c.ideal_text}: NDCG@${k} ${shown.valueText}. Used by ${c.used_by.join(", ")}.`;
        tr.setAttribute("aria-label", label);
      });
      drawDetail();
    },
  };
}

function build(shell) {
  const { model } = shell;
  const graded = createGradedList(shell, {
    titles: model.titles,
    label: `Graded results for the query ${model.query}`,
    headerClass: "conv-header",
    columns: [
      ["rl-rank", "#"],
      ["rl-title", "Result (press to move up)"],
      ["grade", "Grade"],
    ],
  });
  const missed = createMissedGrades(shell, graded.flash);
  const left = h("div", "fig-list");
  left.append(shell.head, shell.notice, graded.header, graded.list.el, graded.hint, missed.el);

  const table = createConventionsTable(model.conventions);
  const recall = createCard("Recall@k: how much of what is relevant is in the top k", { metric: "recall" });
  const hitRate = createCard("Hit rate@k: is anything relevant in the top k?", {
    metric: "hit-rate",
    // ir_measures' Success notes that some call hit rate Recall@k; trec_eval, ir_measures and
    // Elasticsearch (RecallAtK.java) keep that name for recall.
    blind: `Also called ${model.hit_rate_names.join(", ")}. Some call it Recall@k, the name that ir_measures (Recall@k) and Elasticsearch (RecallAtK) give to recall itself.`,
  });
  const pair = h("div", "conv-pair");
  pair.append(recall.el, hitRate.el);
  const panel = h("div", "metrics");
  panel.append(table.box, table.detail, pair);
  shell.root.append(left, panel);

  return function update(state) {
    const current = readout(state, model.conventions, shell.limits.relevance_level?.value ?? 1);
    graded.draw(state, (i, grade) => unjudgedRow(graded.list, i, grade === null));
    missed.update(state.missed_grades);
    table.update(current.rows, state.k);
    setText(recall.formula, current.recallText);
    setText(recall.note, current.recallNote);
    setText(hitRate.formula, current.hitRateText);
    setText(hitRate.note, current.hitRateNote);
    shell.predict([
      cardTarget("recall", recall, `Recall@${state.k}`, current.recall),
      cardTarget("hit-rate", hitRate, `Hit rate@${state.k}`, current.hitRate),
    ], { after: pair });
    shell.say(current.announcement);
  };
}
