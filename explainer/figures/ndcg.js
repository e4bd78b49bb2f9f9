// Figure 2: eight graded results with their gains, discounts and DCG, the ideal order
// beside them, NDCG@k with its arithmetic, and an animation that swaps the list into
// the ideal order. State: { grades: [by document], order: [documents by rank], k, gain }.
import { dcgAtK, dcgTerms, discount, formatNumber, gainValue, idealGrades, ndcgAtK } from "explainer/metrics";
import {
  connectFigure,
  createAnnouncer,
  createFrame,
  createGradedList,
  createPresenterToggle,
  createQueryNotice,
  createRadioGroup,
  gradedListFields,
  gradedListQuery,
  h,
  Ignored,
  parseInteger,
  promoted,
  setAttr,
  setText,
} from "explainer/kit";

const MAX_GRADE = 3;
const STEP_MS = 900;
const GRADE_WORDS = ["not relevant", "somewhat relevant", "relevant", "highly relevant"];

const f = (x) => formatNumber(x);

/** The grades in rank order. */
export function rankedGrades(state) {
  return state.order.map((doc) => state.grades[doc]);
}

/**
 * The URL keys of this figure's state: grades=1,3,0,2,0,3,1,2&k=8&gain=linear, and
 * order=2,1,3,... (documents by rank, numbered from 1) once results have moved.
 */
export function queryFields(count) {
  return {
    ...gradedListFields(count, MAX_GRADE),
    k: (text, state) => ({ ...state, k: parseInteger(text, "k", 1, count) }),
    gain(text, state) {
      if (text !== "exponential" && text !== "linear") throw new Ignored("gain must be exponential or linear");
      return { ...state, gain: text };
    },
  };
}

function toQuery(state) {
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

/** "g/d + g/d + ... = total": a DCG written out, gains over log2(rank + 1). */
function dcgSum(grades, k, gain) {
  const shown = grades.slice(0, k).map((g, i) => `${gainValue(g, gain)}/${f(1 / discount(i + 1))}`);
  return `${shown.join(" + ")} = ${f(dcgAtK(grades, k, gain))}`;
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
    announcement: `NDCG@${k} ${f(ndcg)}: DCG ${f(dcg)}, ideal DCG ${f(idcg)}`,
  };
}

function cumulative(terms) {
  let sum = 0;
  return terms.map((t) => (sum += t));
}

export function render({ model, el }) {
  let state;
  let current = null;
  const titles = model.titles;
  const count = titles.length;

  const { frame, root } = createFrame(el, "fig-ndcg", model.caption);
  const queryNotice = createQueryNotice();

  // -- controls: query, gain switch, animation --
  const head = h("div", "fig-head");
  const query = h("p", "fig-query");
  query.append("Query: ", h("q", "", "cracked bracket"));
  const gainSwitch = createRadioGroup(
    "Gain",
    "gain",
    [
      ["exponential", "exponential (2^g − 1)"],
      ["linear", "linear (g)"],
    ],
    (gain) => commit({ ...state, gain }, { keepTour: true }),
  );
  head.append(query, gainSwitch.el);

  const player = h("div", "player");
  const play = h("button", "fig-button", "▶ Play");
  const step = h("button", "fig-button", "Step");
  const reset = h("button", "fig-button", "Reset");
  for (const b of [play, step, reset]) b.type = "button";
  play.setAttribute("aria-label", "Play the animation");
  step.setAttribute("aria-label", "One step of the animation");
  reset.title = "Back to the starting list";
  const status = h("p", "player-status");
  player.append(play, step, reset, status);
  if (model.standalone) player.append(createPresenterToggle(frame));

  // -- the list --
  const { header, list, gradeSelects } = createGradedList({
    count,
    label: "Graded results for the query cracked bracket",
    maxGrade: MAX_GRADE,
    headerClass: "ndcg-header",
    columns: [
      ["rl-rank", "#"],
      ["rl-title", "Result"],
      ["grade", "Grade"],
      ["num gain-col", "Gain"],
      ["num disc-col", "× Discount"],
      ["num dg", "= Disc. gain"],
      ["num cum", "DCG"],
    ],
    cells(rank) {
      const dg = h("span", "dg");
      dg.append(h("span", "bar"), h("span", "num dg-value"));
      return [h("span", "num gain-col"), h("span", "num disc-col", f(discount(rank))), dg, h("span", "num cum")];
    },
    getState: () => state,
    commit: (next) => commit(next),
    flash: (text) => flash(text),
  });
  const hint = h("p", "fig-hint");
  hint.setAttribute("role", "status");

  const left = h("div", "fig-list");
  left.append(head, queryNotice.el, player, header, list.el, hint);

  // -- the readout and the ideal order --
  const panel = h("div", "metrics");
  const formulas = {};
  for (const [key, name] of [
    ["ndcgText", "NDCG@k"],
    ["dcgText", "DCG@k"],
    ["idcgText", "Ideal DCG@k"],
  ]) {
    const box = h("section", `metric metric-${key}`);
    const formula = h("p", "metric-formula");
    box.append(h("h3", "metric-name", name), formula);
    formulas[key] = formula;
    panel.append(box);
  }
  const idealBox = h("section", "metric ideal");
  idealBox.append(h("h3", "metric-name", "Ideal order: the same grades, best first"));
  const idealTable = h("table", "ideal-table");
  const idealHead = h("tr");
  for (const text of ["#", "Grade", "Discounted gain", "Ideal DCG"]) idealHead.append(h("th", "", text));
  const idealBody = h("tbody");
  const idealRows = [];
  for (let rank = 1; rank <= count; rank++) {
    const tr = h("tr");
    const cells = [h("td", "num", String(rank)), h("td", "grade"), h("td", "num"), h("td", "num")];
    tr.append(...cells);
    idealRows.push({ tr, cells });
    idealBody.append(tr);
  }
  const thead = h("thead");
  thead.append(idealHead);
  idealTable.append(thead, idealBody);
  idealBox.append(idealTable);
  panel.append(idealBox);

  const announcer = createAnnouncer();
  root.append(left, panel, announcer.el);

  // -- drawing --
  function gradeMark(grade) {
    return `${"●".repeat(grade)}${"○".repeat(MAX_GRADE - grade)} ${grade}`;
  }

  const drawn = []; // each row's values as last drawn
  function update() {
    current = readout(state);
    const { ranked, ideal } = current;
    const terms = dcgTerms(ranked, count, state.gain);
    const sums = cumulative(terms);
    const idealTerms = dcgTerms(ideal, count, state.gain);
    const idealSums = cumulative(idealTerms);
    const top = Math.max(...idealTerms, ...terms, 1e-9);
    list.update(state.k);
    ranked.forEach((grade, i) => {
      const doc = state.order[i];
      // A promote swaps two rows: the others show the same values and are left as drawn.
      const values = `${doc} ${grade} ${state.gain} ${terms[i]} ${sums[i]} ${top}`;
      if (drawn[i] === values) return;
      drawn[i] = values;
      const row = list.rows[i];
      const b = list.buttons[i];
      if (row.dataset.grade !== String(grade)) row.dataset.grade = String(grade);
      setText(b.querySelector(".rl-title"), titles[doc]);
      setText(b.querySelector(".grade"), gradeMark(grade));
      setText(b.querySelector(".gain-col"), String(gainValue(grade, state.gain)));
      setText(b.querySelector(".dg-value"), f(terms[i]));
      const bar = b.querySelector(".bar").style;
      const width = `${(100 * terms[i]) / top}%`;
      if (bar.width !== width) bar.width = width;
      setText(b.querySelector(".cum"), f(sums[i]));
      setAttr(
        b,
        "aria-label",
        `Rank ${i + 1}: ${titles[doc]}. Grade ${grade}, ${GRADE_WORDS[grade] ?? ""}. ` +
          `Discounted gain ${f(terms[i])}, DCG so far ${f(sums[i])}. ${i ? "Press to move up." : "At the top."}`,
      );
      if (gradeSelects[i].value !== String(grade)) gradeSelects[i].value = String(grade);
    });
    idealRows.forEach(({ tr, cells }, i) => {
      setText(cells[1], gradeMark(ideal[i]));
      setText(cells[2], f(idealTerms[i]));
      setText(cells[3], f(idealSums[i]));
      tr.classList.toggle("below", i >= state.k);
    });
    for (const [key, node] of Object.entries(formulas)) setText(node, current[key]);
    gainSwitch.set(state.gain);
    announcer.say(current.announcement);
  }

  let hintTimer = null;
  function flash(text) {
    hint.textContent = text;
    clearTimeout(hintTimer);
    hintTimer = setTimeout(() => (hint.textContent = ""), 2500);
  }

  // -- the animation: add ranks one at a time, then swap better results up until ideal --
  let tour = null; // { swaps, done } while a tour runs
  let timer = null;

  function describeTour() {
    if (!tour) return "";
    if (state.k < count) return `Adding rank ${state.k} of ${count}: DCG@${state.k} = ${f(current.dcg)}`;
    if (tour.done === 0) return `All ${count} ranks added. NDCG@${count} = ${f(current.ndcg)}`;
    return `Swap ${tour.done} of ${tour.swaps}: NDCG@${state.k} = ${f(current.ndcg)}`;
  }

  function advance() {
    if (!tour) {
      tour = { swaps: swapsToIdeal(rankedGrades(state)), done: 0 };
      commit({ ...state, k: 1 }, { keepTour: true });
      return true;
    }
    if (state.k < count) {
      commit({ ...state, k: state.k + 1 }, { keepTour: true });
      return true;
    }
    const i = firstInversion(rankedGrades(state));
    if (i < 0) {
      const swaps = tour.swaps;
      endTour();
      status.textContent = `Ideal order after ${swaps} swap${swaps === 1 ? "" : "s"}: NDCG@${state.k} = ${f(current.ndcg)}`;
      return false;
    }
    tour.done += 1;
    commit({ ...state, order: promoted(state.order, i + 2) }, { keepTour: true });
    list.rows[i].classList.add("just-moved");
    setTimeout(() => list.rows[i].classList.remove("just-moved"), STEP_MS * 0.8);
    return true;
  }

  function stopTimer() {
    clearInterval(timer);
    timer = null;
    play.textContent = "▶ Play";
    play.setAttribute("aria-label", "Play the animation");
  }

  function endTour() {
    stopTimer();
    tour = null;
    status.textContent = "";
  }

  play.addEventListener("click", () => {
    if (timer) {
      stopTimer();
      return;
    }
    if (!advance()) return;
    play.textContent = "❚❚ Pause";
    play.setAttribute("aria-label", "Pause the animation");
    timer = setInterval(() => {
      if (!advance()) stopTimer();
    }, STEP_MS);
  });
  step.addEventListener("click", () => {
    stopTimer();
    advance();
  });
  reset.addEventListener("click", () => {
    endTour();
    commit(structuredClone(model.default));
  });

  const send = connectFigure(model, {
    apply(next) {
      state = next;
      update();
      status.textContent = tour ? describeTour() : status.textContent;
    },
    fields: queryFields(count),
    toQuery,
    notice: queryNotice,
  });
  function commit(next, { keepTour = false } = {}) {
    if (!keepTour && tour) endTour();
    send(next);
  }
}
