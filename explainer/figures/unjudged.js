// Figure 4: unjudged documents. A ranked list where some results carry no judgment ("?").
// Every measure counts them as not relevant; the reader can leave them out instead (a
// condensed list) or reveal the grades a judge gives them later, and watch Judged@k, P@k
// and NDCG@k move. State: { grades, judged, k, unjudged_as: "nonrelevant" | "condensed", reveal }.
import { dcgAtK, formatNumber, idealGrades, ndcgAtK, precisionAtK, relevantRanks } from "explainer/metrics";
import { byPointer, drawMark, h, setText } from "explainer/dom";
import { flaggedRanks, Ignored, parseChoice, parseGradeList, parseInteger, parseRankFlags } from "explainer/query";
import { createCard } from "explainer/card";
import { createGradeSelect, createRadioGroup } from "explainer/controls";
import { gradeMark } from "explainer/grades";
import { createRankedList } from "explainer/ranked-list";
import { createPlayer } from "explainer/player";
import { mountFigure } from "explainer/shell";
import { cardTarget } from "explainer/predict";

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
  const precision = precisionAtK(ranked, k);
  const judged = judgedInTop / k;
  return {
    values: { judged, precision, ndcg },
    judgedText: `Judged@${k} = ${judgedInTop} / ${k} = ${f(judged)}`,
    precisionText: `P@${k} = ${hits} / ${k} = ${f(precision)}`,
    ndcgText: idcg ? `NDCG@${k} = ${f(dcg)} / ${f(idcg)} = ${f(ndcg)}` : `NDCG@${k} = 0 (nothing relevant is judged)`,
    poolText:
      `Ideal DCG@${k} takes the best ${k} of all ${pool.length} judged documents (${known.length} in the list, ` +
      `${outside.length} outside it graded ${outside.join(", ")}): grades ${idealGrades(pool).slice(0, k).join(", ")}.`,
    short: `Judged@${k} ${f(judged)}, P@${k} ${f(precision)}, NDCG@${k} ${f(ndcg)}`,
  };
}

/** URL keys: grades=3,2,3,...&unjudged=2,3,7&k=10&unjudged_as=nonrelevant|condensed&reveal=0|1. */
export function queryFields({ limits }) {
  const count = limits.judged.length;
  return {
    grades: (text, state) => ({ ...state, grades: parseGradeList(text, "grades", limits.grades) }),
    unjudged: (text, state) => ({ ...state, judged: parseRankFlags(text, "unjudged", count).map((unjudged) => !unjudged) }),
    k: (text, state) => ({ ...state, k: parseInteger(text, "k", limits.k.min, limits.k.max) }),
    unjudged_as: (text, state) => ({ ...state, unjudged_as: parseChoice(text, "unjudged_as", limits.unjudged_as.options) }),
    reveal(text, state) {
      if (text !== "0" && text !== "1") throw new Ignored("reveal must be 0 or 1");
      return { ...state, reveal: text === "1" };
    },
  };
}

export function toQuery(state) {
  return [
    ["grades", state.grades.join(",")],
    ["unjudged", flaggedRanks(state.judged, false)],
    ["k", String(state.k)],
    ["unjudged_as", state.unjudged_as],
    ["reveal", state.reveal ? "1" : "0"],
  ];
}

export function render(view) {
  mountFigure(view, { className: "fig-unjudged", queryFields, toQuery, build });
}

/** What a row says of its result: its mark (a symbol for the eye, then words) and its description. */
function describeRow(state, i, leftOut, maxGrade) {
  const grade = state.grades[i];
  const dots = gradeMark(grade, maxGrade).split(" ")[0];
  if (state.judged[i]) return { symbol: dots, words: String(grade), said: `Judged, grade ${grade}.` };
  if (state.reveal) return { symbol: `? → ${dots}`, words: String(grade), said: `Not judged; a judge later gives it ${grade}.` };
  return { symbol: "?", words: leftOut ? "left out" : "counts as 0", said: "Not judged." };
}

/** Each row as `state` has it: judged or not, left out or not, its rank in the condensed list, its grade's menu. */
function drawRows(list, selects, state, maxGrade) {
  const condensed = state.unjudged_as === "condensed";
  let condensedRank = 0;
  scoredGrades(state).forEach((scored, i) => {
    const known = scored !== null;
    const leftOut = !known && condensed;
    if (known) condensedRank += 1;
    const row = list.rows[i];
    row.classList.toggle("is-unjudged", !state.judged[i]);
    row.classList.toggle("is-left-out", leftOut);
    row.dataset.grade = known ? String(scored) : "";
    const button = list.buttons[i];
    const moved = condensed && known && condensedRank !== i + 1;
    setText(button.querySelector(".rl-rank"), moved ? `${i + 1}→${condensedRank}` : String(i + 1));
    const { symbol, words, said } = describeRow(state, i, leftOut, maxGrade);
    const judgment = button.querySelector(".judgment");
    if (judgment.textContent !== `${symbol} ${words}`) drawMark(judgment, symbol, words);
    button.setAttribute("aria-pressed", String(state.judged[i]));
    const action = `Press to mark it ${state.judged[i] ? "not judged." : "judged."}`;
    list.describe(i + 1, `Rank ${i + 1}. ${said} ${action}`);
    selects[i].value = known ? String(state.grades[i]) : "";
    selects[i].disabled = !known;
  });
}

function build(shell) {
  const { model, limits } = shell;
  const titles = model.titles;
  const policy = createRadioGroup(
    "Unjudged results",
    "unjudged_as",
    [
      ["nonrelevant", "count as not relevant (the tools' default)"],
      ["condensed", "leave out (condensed list)"],
    ],
    (value) => commit({ ...shell.state(), unjudged_as: value }),
  );
  const reveal = h("button", "fig-button reveal-toggle", "Reveal the judge's grades");
  reveal.type = "button";
  reveal.addEventListener("click", () => commit({ ...shell.state(), reveal: !shell.state().reveal }));
  const tour = createJudgingTour(shell, model.outside);
  shell.controls(policy.el);
  shell.tools(reveal);

  // A reader's change ends a step-through; the steps' own changes do not.
  function commit(next) {
    tour.end();
    shell.commit(next);
  }

  const selects = [];
  const list = createRankedList({
    count: titles.length,
    label: `Ranked results for the query ${model.query}, some not judged`,
    buildRow(row, button, rank) {
      button.append(h("span", "rl-rank"), h("span", "rl-title", titles[rank - 1]), h("span", "mark judgment"));
      const label = `The grade a judge gives the result at rank ${rank}`;
      const select = createGradeSelect(limits.grades.max_grade, label, (grade) => {
        const state = shell.state();
        const grades = state.grades.slice();
        grades[rank - 1] = grade;
        commit({ ...state, grades });
      });
      // Until the judge's grades are revealed, an unjudged result's menu shows "?" and waits.
      const hidden = h("option", "", "?");
      hidden.value = "";
      hidden.disabled = true;
      select.prepend(hidden);
      row.append(select);
      selects.push(select);
    },
    onActivate(rank) {
      const state = shell.state();
      const judged = state.judged.slice();
      judged[rank - 1] = !judged[rank - 1];
      commit({ ...state, judged });
    },
    onCutoff: (k) => commit({ ...shell.state(), k }),
  });
  const listHint = h("p", "fig-hint-line");
  listHint.append(
    ...byPointer(
      "Click a result to mark it judged or not; the menu sets the grade a judge gives it.",
      "Tap a result to mark it judged or not; the menu sets the grade a judge gives it.",
    ),
  );
  const left = h("div", "fig-list");
  left.append(shell.head, shell.notice, listHint, list.el);

  const panel = h("div", "metrics");
  const cards = {
    judgedText: createCard("Judged@k: the share of the top k that is judged", { className: "metric-judgedText", note: false }),
    precisionText: createCard("Precision@k", { className: "metric-precisionText", note: false }),
    ndcgText: createCard("NDCG@k (exponential gain)", { className: "metric-ndcgText" }),
  };
  for (const card of Object.values(cards)) panel.append(card.el);
  // Beside the numbers it changes, where a wide screen has room to spare.
  panel.append(tour.el, tour.status);
  const before = h("p", "fig-notice before-after");
  before.setAttribute("role", "status");
  panel.append(before);
  shell.root.append(left, panel);

  function update(state) {
    const now = readout(state, model.outside);
    list.update(state.k);
    drawRows(list, selects, state, limits.grades.max_grade);
    for (const [key, card] of Object.entries(cards)) setText(card.formula, now[key]);
    setText(cards.ndcgText.note, now.poolText);
    policy.set(state.unjudged_as);
    setText(reveal, state.reveal ? "Hide the judge's grades" : "Reveal the judge's grades");
    const anyUnjudged = state.judged.some((j) => !j);
    before.hidden = !(state.reveal && anyUnjudged);
    if (!before.hidden) {
      const earlier = readout({ ...state, reveal: false }, model.outside);
      before.textContent = `Before judging: ${earlier.short}. Once judged: ${now.short}.`;
    }
    const targets = [
      cardTarget("judged", cards.judgedText, `Judged@${state.k}`, now.values.judged),
      cardTarget("precision", cards.precisionText, `P@${state.k}`, now.values.precision),
      cardTarget("ndcg", cards.ndcgText, `NDCG@${state.k}`, now.values.ndcg),
    ];
    targets[0].hide.push(before, tour.status); // their "before judging", "once judged" and "all judged" numbers
    shell.predict(targets);
    shell.say(now.short);
  }
  return { update, onReset: () => tour.end() };
}

/**
 * The judge at work, one document a step: each step judges the next unjudged result (its grade
 * now counts), and the last says the numbers, which are those of Reveal.
 */
function createJudgingTour(shell, outside) {
  let tour = null; // { ranks (the unjudged, 1-based), done } while it runs
  const player = createPlayer({ what: "judging, one document at a time", label: "Judge one by one", advance, onEnd: () => (tour = null) });
  const { status, end } = player;

  function advance() {
    const state = shell.state();
    if (!tour) tour = { ranks: state.judged.flatMap((judged, i) => (judged ? [] : [i + 1])), done: 0 };
    const { ranks } = tour;
    if (tour.done === ranks.length) {
      const text = `${ranks.length ? "All judged" : "Every result is judged already"}: ${readout(state, outside).short}`;
      end();
      status.textContent = ranks.length ? `${text}, as with the judge's grades revealed.` : `${text}.`;
      return false;
    }
    const rank = ranks[tour.done];
    tour.done += 1;
    const judged = state.judged.slice();
    judged[rank - 1] = true;
    shell.commit({ ...state, judged });
    const now = readout(shell.state(), outside);
    status.textContent =
      `Judged ${tour.done} of ${ranks.length}: rank ${rank} gets grade ${state.grades[rank - 1]}. ` +
      `NDCG@${state.k} = ${f(now.values.ndcg)}.`;
    return true;
  }
  return player;
}
