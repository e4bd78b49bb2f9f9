// One query's list in figure 1 and the conventions figure, mounted from their own modules on the workbench's model.
import { h, setText } from "explainer/dom";
import { createModel } from "explainer/model";
import { render as renderBinary } from "explainer/binary";
import { render as renderConventions } from "explainer/conventions";
import { button, f4 } from "explainer/workbench-elements";
import { escaped, shownId } from "explainer/workbench-ids";
import { figureStates, gradesWith } from "explainer/workbench-values";

/**
 * The figures of the open query: a heading with the run switch, a note on what they show, the two
 * figures. `view` is the pane's (table, detail, state, live, whatIf(), change, setJudgments,
 * setOrder); `model` the workbench view's, for the figures' data. Returns { parts, draw() }.
 */
export function createQueryFigures(model, view) {
  const figureHead = h("div", "wb-figure-head");
  const figureNote = h("p", "wb-note wb-figure-note");
  const figures = h("div", "wb-figures");
  let mounted = {}; // the figures on show: { binary, binaryKey, conventions, convKey }
  let chart = "by-k"; // figure 1's chart view, the reader's choice: no what-if change moves it

  function draw() {
    const { table, detail, state, whatIf, change, setJudgments, setOrder } = view;
    const r = state.run < detail.runs.length ? state.run : 0;
    drawRunSwitch(figureHead, { table, detail, r, change });
    const spec = detail.figures[r];
    if (!spec) {
      setText(figureNote, "");
      figures.replaceChildren(h("p", "wb-note", "No results for this query in this run: no list to show."));
      mounted = {};
      return;
    }
    setText(figureNote, figureNoteText(view, r, spec));
    const states = figureStates(detail, r, whatIf(), state.k, table.relevance_level);
    states.binary.chart = chart;
    const binaryLimits = { ...spec.binary.limits, missed: { min: states.binary.missed, max: states.binary.missed } };
    const convLimits = { ...spec.conventions.limits, missed_grades: { ...spec.conventions.limits.missed_grades, length: states.conventions.missed_grades.length } };
    const order = whatIf().orders[r];
    const docs = detail.runs[r].docs.slice(0, spec.depth);
    const titleOf = (d) => (detail.titles[d] ? `${shownId(detail.docs[d])}: ${escaped(detail.titles[d])}` : shownId(detail.docs[d]));
    const shared = { ...model.figure_data, max_query_length: model.max_query_length, query: detail.text ? escaped(detail.text) : shownId(detail.qid), caption: "" };
    // Figure 1 shows titles by rank, so a move mounts it again; the conventions figure moves its
    // own rows. A missed count that changed (a document judged below the top list) changes limits.
    const binaryKey = JSON.stringify([state.query, r, order, binaryLimits.missed]);
    const convKey = JSON.stringify([state.query, r, convLimits.missed_grades.length]);
    if (binaryKey !== mounted.binaryKey) {
      const byRank = (order ?? docs.map((_, i) => i)).map((i) => titleOf(docs[i]));
      mounted.binary = mountWith(renderBinary, { ...shared, titles: byRank, limits: binaryLimits, default: spec.binary.default, state: states.binary }, (next, prev) => {
        const docsNow = (order ?? docs.map((_, i) => i)).map((i) => docs[i]);
        const flips = next.relevant.flatMap((flag, i) => (flag !== prev.relevant[i] ? [[docsNow[i], flag]] : []));
        if (flips.length) setJudgments(flips, "flag");
        else if (next.k !== prev.k) change((s) => ({ ...s, k: next.k }));
        else {
          chart = next.chart;
          refresh();
        }
      });
      mounted.binaryKey = binaryKey;
    } else {
      mounted.binary.push(states.binary);
    }
    if (convKey !== mounted.convKey) {
      mounted.conventions = mountWith(renderConventions, { ...shared, titles: docs.map(titleOf), limits: convLimits, default: spec.conventions.default, state: states.conventions }, (next, prev) => {
        const regraded = next.grades.flatMap((g, j) => (g !== prev.grades[j] ? [[docs[j], g]] : []));
        if (regraded.length) setJudgments(regraded, "grade");
        else if (JSON.stringify(next.order) !== JSON.stringify(prev.order)) setOrder(r, next.order);
        else if (next.k !== prev.k) change((s) => ({ ...s, k: next.k }));
        else refresh();
      });
      mounted.convKey = convKey;
    } else {
      mounted.conventions.push(states.conventions);
    }
    if (figures.firstChild !== mounted.binary.el || figures.lastChild !== mounted.conventions.el) {
      figures.replaceChildren(mounted.binary.el, mounted.conventions.el);
    }
    // The state asked for now: a commit that changes nothing of the query puts the figure back.
    function refresh() {
      const again = figureStates(view.detail, r, view.whatIf(), view.state.k, view.table.relevance_level);
      mounted.binary?.push({ ...again.binary, chart });
      mounted.conventions?.push(again.conventions);
    }
  }

  return { parts: [figureHead, figureNote, figures], draw };
}

/** The heading over the figures, with a switch between the two runs when there are two. */
function drawRunSwitch(figureHead, { table, detail, r, change }) {
  figureHead.replaceChildren(h("h3", "wb-subheading", "The arithmetic, live: figure 1 and the NDCG conventions on this list"));
  if (detail.runs.length === 2) {
    const group = h("div", "wb-run-switch");
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", "Which run the figures show");
    table.runs.forEach((run, i) => {
      const b = button(`${run.role}`, "wb-button wb-run-button");
      b.setAttribute("aria-pressed", String(i === r));
      b.addEventListener("click", () => change((s) => ({ ...s, run: i })));
      group.append(b);
    });
    figureHead.append(group);
  }
}

/** What the figures show of run r: how many of its results, which numbers are trec_eval's, the unjudged among them. */
function figureNoteText({ table, detail, state, live, whatIf }, r, spec) {
  const full = detail.runs[r].docs.length;
  const ap = table.measures.find((m) => m.key === "ap");
  const values = live.query(state.query)[r];
  // How many of the figures' results nobody judged: marked "? unjudged" there, counted as not relevant.
  const grades = gradesWith(detail, whatIf().judgments);
  const unjudged = detail.runs[r].docs.slice(0, spec.depth).filter((d) => grades[d] === null).length;
  const them = unjudged === 1 ? ["is", "it"] : ["are", "them"];
  const unjudgedNote = unjudged ? ` ${unjudged} of these results ${them[0]} unjudged: the figures mark ${them[1]} unjudged (?) and count ${them[1]} as not relevant, as trec_eval does.` : "";
  // Which of the figures' numbers are trec_eval's, at this relevance level: the second figure's
  // other rows are the conventions of the other tools they name.
  const trecNumbers = "figure 1's P@k, R@k, RR and AP, and the second figure's trec_eval ndcg_cut row, recall@k and hit rate@k";
  return spec.depth < full
    ? `The figures show the top ${spec.depth} of this run's ${full} results: their AP and RR are over those ${spec.depth}${ap ? `, where trec_eval's over all ${full} gives AP ${f4(values[ap.name])}` : ""}. Judged relevant documents below rank ${spec.depth} count as missed.${unjudgedNote}`
    : `The figures show all ${full} results of this run: ${trecNumbers} are trec_eval's.${unjudgedNote} Flip a result in figure 1 or change a grade to judge it (what-if); press a result in the second figure to move it up.`;
}

/**
 * A figure module mounted on a model of the workbench's, as a Panel view would be: `data` are the
 * view's properties; `onCommit(next, previous)` gets each state the figure commits. Returns { el,
 * push(state) }, which hands the figure a state as Python would.
 */
function mountWith(renderFigure, data, onCommit) {
  const el = h("div", "wb-figure");
  // A figure on a page that is not its own: no heading, no predict mode, no link to its own page.
  const values = { ...data, standalone: false, on_page: false, heading: "", predict: false, page_link: "" };
  const { model, receive } = createModel("The workbench's figure", values, (key, value, previous) => {
    if (key === "state") onCommit(value, previous);
  });
  renderFigure({ model, el });
  return { el, push: (next) => receive("state", next) };
}
