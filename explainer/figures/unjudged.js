// Figure 4: unjudged documents. A ranked list where some results carry no judgment ("?").
// Every measure counts them as not relevant; the reader can leave them out instead (a
// condensed list) or reveal the grades a judge gives them later, and watch Judged@k, P@k
// and NDCG@k move. State: { grades, judged, k, unjudged_as: "nonrelevant" | "condensed", reveal }.
import { dcgAtK, formatNumber, idealGrades, ndcgAtK, precisionAtK, relevantRanks } from "explainer/metrics";
import {
  connectFigure,
  createAnnouncer,
  createFrame,
  createGradeSelect,
  createPresenterToggle,
  createQueryNotice,
  createRadioGroup,
  createRankedList,
  h,
  Ignored,
  parseInteger,
  parseIntegers,
} from "explainer/kit";

const f = (x) => formatNumber(x);

/** The list as the measures see it: null for an unjudged result, unless revealed. */
export function scoredGrades(state) {
  return state.grades.map((g, i) => (state.judged[i] || state.reveal ? g : null));
}

/** Every number the figure shows for a state, from the metrics module. */
export function readout(state, outside) {
  const { k } = state;
  const scored = scoredGrades(state);
  const known = scored.filter((g) => g !== null);
  const pool = [...known, ...outside];
  const ranked = state.unjudged_as === "condensed" ? known : scored;
  const judgedInTop = scored.slice(0, k).filter((g) => g !== null).length;
  const hits = relevantRanks(ranked, k).length;
  const dcg = dcgAtK(ranked, k, "exponential");
  const idcg = dcgAtK(idealGrades(pool), k, "exponential");
  const ndcg = ndcgAtK(ranked, k, "exponential", pool);
  const p = precisionAtK(ranked, k);
  const judged = judgedInTop / k;
  return {
    values: { judged, p, ndcg },
    judgedText: `Judged@${k} = ${judgedInTop} / ${k} = ${f(judged)}`,
    precisionText: `P@${k} = ${hits} / ${k} = ${f(p)}`,
    ndcgText: idcg ? `NDCG@${k} = ${f(dcg)} / ${f(idcg)} = ${f(ndcg)}` : `NDCG@${k} = 0 (nothing relevant is judged)`,
    poolText:
      `Ideal DCG@${k} takes the best ${k} of all ${pool.length} judged documents (${known.length} in the list, ` +
      `${outside.length} outside it graded ${outside.join(", ")}): grades ${idealGrades(pool).slice(0, k).join(", ")}.`,
    short: `Judged@${k} ${f(judged)}, P@${k} ${f(p)}, NDCG@${k} ${f(ndcg)}`,
  };
}

/** URL keys: grades=3,2,3,...&unjudged=2,3,7&k=10&as=nonrelevant|condensed&reveal=0|1. */
export function queryFields(count, maxGrade) {
  return {
    grades(text, state) {
      const what = `exactly ${count} grades from 0 to ${maxGrade}`;
      const grades = parseIntegers(text, "grades", 0, maxGrade, what);
      if (grades.length !== count) throw new Ignored(`grades must list ${what}, separated by commas`);
      return { ...state, grades };
    },
    unjudged(text, state) {
      const ranks = parseIntegers(text, "unjudged", 1, count, `ranks from 1 to ${count}`);
      return { ...state, judged: state.judged.map((_, i) => !ranks.includes(i + 1)) };
    },
    k: (text, state) => ({ ...state, k: parseInteger(text, "k", 1, count) }),
    as(text, state) {
      if (text !== "nonrelevant" && text !== "condensed") throw new Ignored("as must be nonrelevant or condensed");
      return { ...state, unjudged_as: text };
    },
    reveal(text, state) {
      if (text !== "0" && text !== "1") throw new Ignored("reveal must be 0 or 1");
      return { ...state, reveal: text === "1" };
    },
  };
}

function toQuery(state) {
  return [
    ["grades", state.grades.join(",")],
    ["unjudged", state.judged.flatMap((j, i) => (j ? [] : [i + 1])).join(",")],
    ["k", String(state.k)],
    ["as", state.unjudged_as],
    ["reveal", state.reveal ? "1" : "0"],
  ];
}

function gradeMark(grade, maxGrade) {
  return `${"●".repeat(grade)}${"○".repeat(maxGrade - grade)} ${grade}`;
}

export function render({ model, el }) {
  const titles = model.titles;
  const outside = model.outside;
  const maxGrade = model.max_grade;
  const count = titles.length;
  let state;

  const { frame, root } = createFrame(el, "fig-unjudged", model.caption);

  // -- controls --
  const head = h("div", "fig-head");
  const policy = createRadioGroup(
    "Unjudged results",
    "unjudged_as",
    [
      ["nonrelevant", "count as not relevant (every tool)"],
      ["condensed", "leave out (condensed list)"],
    ],
    (value) => commit({ ...state, unjudged_as: value }),
  );
  const tools = h("div", "fig-tools");
  const reveal = h("button", "fig-button reveal-toggle", "Reveal the judge's grades");
  reveal.type = "button";
  reveal.addEventListener("click", () => commit({ ...state, reveal: !state.reveal }));
  const reset = h("button", "fig-button", "Reset");
  reset.type = "button";
  reset.addEventListener("click", () => commit(structuredClone(model.default)));
  tools.append(reveal, reset);
  if (model.standalone) tools.append(createPresenterToggle(frame));
  head.append(policy.el, tools);
  const queryNotice = createQueryNotice();

  // -- the list --
  const selects = [];
  const list = createRankedList({
    count,
    label: "Ranked results for the query cracked bracket, some not judged",
    cutoffName: "Cutoff k",
    buildRow(row, button, rank) {
      button.append(h("span", "rl-rank"), h("span", "rl-title", titles[rank - 1]), h("span", "mark judgment"));
      const select = createGradeSelect(maxGrade, `The grade a judge gives the result at rank ${rank}`, (grade) => {
        const grades = state.grades.slice();
        grades[rank - 1] = grade;
        commit({ ...state, grades });
      });
      row.append(select);
      selects.push(select);
    },
    onActivate(rank) {
      const judged = state.judged.slice();
      judged[rank - 1] = !judged[rank - 1];
      commit({ ...state, judged });
    },
    onCutoff(k) {
      commit({ ...state, k });
    },
  });
  const listHint = h("p", "fig-hint-line", "Click a result to mark it judged or not; the menu sets the grade a judge gives it.");
  const left = h("div", "fig-list");
  left.append(head, queryNotice.el, listHint, list.el);

  // -- the readout --
  const panel = h("div", "metrics");
  const formulas = {};
  for (const [key, name] of [
    ["judgedText", "Judged@k: the share of the top k that is judged"],
    ["precisionText", "Precision@k"],
    ["ndcgText", "NDCG@k (exponential gain)"],
  ]) {
    const box = h("section", `metric metric-${key}`);
    const formula = h("p", "metric-formula");
    box.append(h("h3", "metric-name", name), formula);
    formulas[key] = formula;
    panel.append(box);
  }
  const poolNote = h("p", "metric-note");
  formulas.ndcgText.after(poolNote);
  const before = h("p", "fig-notice before-after");
  before.setAttribute("role", "status");
  panel.append(before);
  const announcer = createAnnouncer();
  root.append(left, panel, announcer.el);

  function update() {
    const now = readout(state, outside);
    list.update(state.k);
    const scored = scoredGrades(state);
    let condensedRank = 0;
    state.grades.forEach((grade, i) => {
      const row = list.rows[i];
      const b = list.buttons[i];
      const isJudged = state.judged[i];
      const known = scored[i] !== null;
      const leftOut = !known && state.unjudged_as === "condensed";
      if (known) condensedRank += 1;
      row.classList.toggle("is-unjudged", !isJudged);
      row.classList.toggle("is-left-out", leftOut);
      row.dataset.grade = known ? String(grade) : "";
      const rankCell = b.querySelector(".rl-rank");
      const moved = state.unjudged_as === "condensed" && known && condensedRank !== i + 1;
      rankCell.textContent = moved ? `${i + 1}→${condensedRank}` : String(i + 1);
      const mark = b.querySelector(".judgment");
      if (isJudged) mark.textContent = gradeMark(grade, maxGrade);
      else if (state.reveal) mark.textContent = `? → ${gradeMark(grade, maxGrade)}`;
      else mark.textContent = leftOut ? "? left out" : "? counts as 0";
      b.setAttribute("aria-pressed", String(isJudged));
      b.setAttribute(
        "aria-label",
        `Rank ${i + 1}: ${titles[i]}. ` +
          (isJudged ? `Judged, grade ${grade}.` : state.reveal ? `Not judged; a judge later gives it ${grade}.` : "Not judged.") +
          " Press to mark it " + (isJudged ? "not judged." : "judged."),
      );
      selects[i].value = String(grade);
    });
    for (const [key, node] of Object.entries(formulas)) node.textContent = now[key];
    poolNote.textContent = now.poolText;
    policy.set(state.unjudged_as);
    reveal.setAttribute("aria-pressed", String(state.reveal));
    const anyUnjudged = state.judged.some((j) => !j);
    if (state.reveal && anyUnjudged) {
      const earlier = readout({ ...state, reveal: false }, outside);
      before.textContent = `Before judging: ${earlier.short}. Once judged: ${now.short}.`;
      before.hidden = false;
    } else {
      before.hidden = true;
    }
    announcer.say(now.short);
  }

  const commit = connectFigure(model, {
    apply(next) {
      state = next;
      update();
    },
    fields: queryFields(count, maxGrade),
    toQuery,
    notice: queryNotice,
  });
}
