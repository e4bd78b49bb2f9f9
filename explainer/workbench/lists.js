// One query's two ranked lists: grades from the qrels, what-if grade menus, where each document sits in the other run.
import { h, setText } from "explainer/dom";
import { button, runLabel, theRun } from "explainer/workbench-elements";
import { idNode, shownId } from "explainer/workbench-ids";
import { gradesWith, rankedDocs } from "explainer/workbench-values";

export const SHOWN_AT_ONCE = 50; // rows of a ranked list shown before "Show more"

/**
 * Draw the open query's lists into `lists`, and the relevant documents neither run retrieved into
 * `missedLine`. `view` is the pane's: its table, detail, whatIf(), setJudgments, and shownRows, the
 * rows each list shows, which "Show more" adds to.
 */
export function drawLists({ lists, missedLine }, view) {
  const { table, detail, whatIf, setJudgments, shownRows } = view;
  const grades = gradesWith(detail, whatIf().judgments);
  const maxGrade = table.max_grade;
  const other = detail.runs.map((_, r) => new Map(rankedDocs(detail, r, whatIf().orders[r]).map((d, i) => [d, i + 1])));
  const columns = detail.runs.map((run, r) => {
    const col = h("div", `wb-list wb-run-${r}`);
    const label = runLabel(table.runs[r]);
    col.append(h("h3", "wb-subheading", label));
    if (!run.present) {
      col.append(h("p", "wb-note", "No results for this query: every measure counts 0."));
      return col;
    }
    const ranked = rankedDocs(detail, r, whatIf().orders[r]);
    const ol = h("ol", "wb-ranked");
    ranked.slice(0, shownRows[r]).forEach((d, i) => {
      const li = h("li", "wb-result");
      li.dataset.docid = detail.docs[d];
      const grade = grades[d];
      const changed = Object.hasOwn(whatIf().judgments, detail.docs[d]);
      if (grade === null) li.classList.add("is-unjudged");
      else if (grade >= table.relevance_level) li.classList.add("is-relevant");
      if (changed) li.classList.add("is-whatif");
      const name = h("span", "wb-doc");
      name.append(idNode(detail.docs[d], "wb-docid"));
      if (detail.titles.length && detail.titles[d]) name.append(h("span", "wb-doc-title", detail.titles[d]));
      const select = h("select", "wb-grade");
      select.setAttribute("aria-label", `Grade of ${shownId(detail.docs[d])}, rank ${i + 1}${changed ? " (what-if)" : ""}`);
      const options = [["", "unjudged"], ...Array.from({ length: maxGrade + 1 }, (_, g) => [String(g), `grade ${g}`])];
      for (const [value, text] of options) select.append(Object.assign(h("option", "", text), { value }));
      select.value = grade === null ? "" : String(grade);
      select.addEventListener("change", () => setJudgments([[d, select.value === "" ? null : Number(select.value)]], "grade"));
      const mark = h("span", "wb-mark", grade === null ? "? unjudged" : grade >= table.relevance_level ? "✓ relevant" : "✗ not relevant");
      const cells = [h("span", "wb-rank", String(i + 1)), name, mark, select];
      if (detail.runs.length === 2) {
        const there = other[1 - r].get(d);
        const otherRole = table.runs[1 - r].role;
        const text = there ? `${otherRole}: rank ${there}` : `not in ${theRun(table.runs[1 - r])}`;
        cells.push(h("span", "wb-other", text));
      }
      cells.push(h("span", "wb-score", String(run.scores[detail.runs[r].docs.indexOf(d)])));
      li.append(...cells);
      ol.append(li);
    });
    col.append(ol);
    if (ranked.length > shownRows[r]) {
      const more = button(`Show ${Math.min(SHOWN_AT_ONCE, ranked.length - shownRows[r])} more of ${ranked.length}`, "wb-button");
      more.addEventListener("click", () => {
        shownRows[r] += SHOWN_AT_ONCE;
        drawLists();
      });
      col.append(more);
    }
    const nRelevant = grades.filter((g) => g !== null && g >= table.relevance_level).length;
    const inRun = new Set(run.docs);
    const found = [...inRun].filter((x) => grades[x] !== null && grades[x] >= table.relevance_level).length;
    const unjudged = ranked.slice(0, 10).filter((x) => grades[x] === null).length;
    col.append(h("p", "wb-note wb-list-counts", `${found} of the ${nRelevant} relevant documents retrieved, ${nRelevant - found} missed; ${unjudged} of the top 10 unjudged.`));
    return col;
  });
  lists.replaceChildren(...columns);
  const missed = detail.docs.map((_, d) => d).filter((d) => !detail.runs.some((run) => run.docs.includes(d)) && grades[d] !== null && grades[d] >= table.relevance_level);
  setText(missedLine, missed.length ? `Judged relevant, retrieved by neither run: ${missed.length} (grades ${missed.map((d) => grades[d]).join(", ")}). ${detail.judged_not_relevant_outside} more judged not relevant.` : "Every document judged relevant was retrieved by a run.");
}
