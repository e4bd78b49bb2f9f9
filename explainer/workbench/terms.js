// The terms behind one query's numbers: each run's AP and DCG written out, where their difference comes from.
import { averagePrecisionTerms, idealGrades, relevantRanks } from "explainer/metrics";
import { h } from "explainer/dom";
import { dcgSum } from "explainer/grades";
import { f4, runLabel } from "explainer/workbench-elements";
import { gradesWith, rankedDocs } from "explainer/workbench-values";

const TERMS_SHOWN = 12; // terms of AP written out before "…"

/** Draw the terms of each run's AP and NDCG for the open query (`view`: the pane's) into `terms`. */
export function drawTerms(terms, view) {
  const { table, detail, state, live, whatIf } = view;
  const grades = gradesWith(detail, whatIf().judgments);
  const level = table.relevance_level;
  const judgedGrades = grades.filter((g) => g !== null);
  const rows = [];
  const ap = table.measures.find((m) => m.key === "ap");
  const ndcg = table.measures.find((m) => m.key === "ndcg");
  const box = h("div", "wb-terms-grid");
  box.append(h("h3", "wb-subheading", "The terms behind the numbers"));
  // Every document of the query that has a grade: those of detail.docs (the lists' and those
  // judged 1 or more that no run retrieved), with what-if judgments, and those graded 0 that no
  // run retrieved.
  const nJudged = judgedGrades.length + detail.judged_not_listed;
  const nRelevant = grades.filter((g) => g !== null && g >= level).length;
  detail.runs.forEach((run, r) => {
    const lines = [];
    if (!run.present) {
      const missed = nRelevant === 1 ? ", and its 1 relevant document is missed" : nRelevant ? `, and all ${nRelevant} relevant documents are missed` : "";
      lines.push(`No results for this query: every measure counts 0${missed}.`);
      const card = h("div", `wb-terms-run wb-run-${r}`);
      card.append(h("p", "wb-terms-title", runLabel(table.runs[r])), ...lines.map((line) => h("p", "wb-term", line)));
      rows.push(card);
      return;
    }
    const ranked = rankedDocs(detail, r, whatIf().orders[r]).map((d) => grades[d]);
    const binary = ranked.map((g) => (g === null ? null : Number(g >= level)));
    const found = relevantRanks(binary);
    const first = found.length ? `First relevant at rank ${found[0]}.` : "No relevant result retrieved.";
    lines.push(`R = ${nRelevant}: ${found.length} retrieved, ${nRelevant - found.length} missed. ${first}`);
    if (ap) {
      const t = averagePrecisionTerms(binary).map(([hits, rank]) => `${hits}/${rank}`);
      const shown = t.length > TERMS_SHOWN ? [...t.slice(0, TERMS_SHOWN), `… ${t.length - TERMS_SHOWN} more`] : t;
      const value = f4(live.query(state.query)[r][ap.name]);
      lines.push(nRelevant ? `AP = (${shown.join(" + ") || "0"}) / ${nRelevant} = ${value}` : `AP = ${value} (R = 0: nothing relevant to find)`);
    }
    if (ndcg) {
      const { gain, ideal, cut } = table.conventions[ndcg.convention];
      const idealList = idealGrades(ideal === "judged" ? judgedGrades : ranked.filter((g) => g !== null));
      const depth = cut ? ndcg.k : Math.max(idealList.length, 1);
      const source = ideal === "judged" ? `the ${nJudged} judged ${nJudged === 1 ? "document" : "documents"} of this query` : "this list's judged grades";
      lines.push(`DCG@${ndcg.k} = ${dcgSum(ranked, ndcg.k, gain)}`);
      lines.push(`Ideal DCG${cut ? `@${ndcg.k}` : ""} = ${dcgSum(idealList, depth, gain)} (from ${source})`);
    }
    const card = h("div", `wb-terms-run wb-run-${r}`);
    card.append(h("p", "wb-terms-title", runLabel(table.runs[r])), ...lines.map((line) => h("p", "wb-term", line)));
    rows.push(card);
  });
  box.append(...rows);
  terms.replaceChildren(box);
}
