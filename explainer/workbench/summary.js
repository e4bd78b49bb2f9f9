// The gate's verdict over each measure's means, difference, interval, wins, tests.
import { h, setText } from "explainer/dom";
import { f4, section, signed } from "explainer/workbench-elements";

export function createSummary() {
  const { box } = section("The means, and whether the candidate ships", "wb-summary");
  const gate = h("p", "wb-gate");
  const untested = h("p", "wb-note wb-untested");
  const tableEl = h("table", "wb-means");
  const whatIfNote = h("p", "wb-note wb-whatif-note");
  const summaries = h("div", "wb-summaries");
  box.append(gate, untested, tableEl, whatIfNote, summaries);
  return {
    el: box,
    draw(table, live) {
      const c = table.comparison;
      // Two runs, tested (a candidate and the baseline), or two candidates of many, not tested against each other.
      const two = table.runs.length === 2 && Boolean(c);
      const untestedPair = table.runs.length === 2 && !c;
      gate.hidden = !c;
      if (c) {
        setText(gate, c.gate.reason);
        gate.dataset.ships = String(c.gate.ships);
      }
      untested.hidden = !untestedPair;
      setText(untested, untestedPair ? `The gate tests each candidate against the baseline a (the table above has its verdicts): ${table.runs[0].role} and ${table.runs[1].role} are not tested against each other. Pick a and one of them for the test.` : "");
      const heads = ["Measure", ...table.runs.map((run) => `${run.role === "run" ? "mean" : run.role}`)];
      if (untestedPair) heads.push("difference");
      if (two) heads.push("difference", `${Math.round((Object.values(c.measures)[0]?.confidence ?? 0.95) * 100)}% interval`, "wins / ties / losses", "p (t-test)", "p (randomization)");
      const thead = h("thead");
      const hr = h("tr");
      for (const text of heads) hr.append(h("th", "", text));
      thead.append(hr);
      const tbody = h("tbody");
      table.measures.forEach((m, j) => {
        const tr = h("tr");
        tr.dataset.measure = m.name;
        const th = h("th", "", m.label);
        th.scope = "row";
        tr.append(th);
        const means = table.runs.map((_, r) => live.mean(r, j));
        for (const mean of means) tr.append(h("td", "num", f4(mean)));
        if (untestedPair) tr.append(h("td", "num wb-delta", signed(means[1] - means[0])));
        if (two) {
          const s = c.measures[m.name];
          const ci = s.ci_low === null ? "n/a" : `[${signed(s.ci_low)}, ${signed(s.ci_high)}]`;
          tr.append(h("td", "num wb-delta", signed(means[1] - means[0])), h("td", "num", ci));
          tr.append(h("td", "num", `${s.wins} / ${s.ties} / ${s.losses}`), h("td", "num", s.t_p_text), h("td", "num", s.randomization_p_text));
        }
        tbody.append(tr);
      });
      tableEl.replaceChildren(thead, tbody);
      const n = live.whatIfCount();
      whatIfNote.hidden = !n;
      setText(whatIfNote, n ? `The means include your what-if changes to ${n} ${n === 1 ? "query" : "queries"}; the interval, the counts, the p-values and the verdict are of the files as loaded.` : "");
      summaries.replaceChildren(
        ...table.runs.flatMap((run) => [...run.summary, ...(run.no_result ? [run.no_result] : [])].map((line) => h("p", "wb-note", `${run.role === "run" ? "" : `${run.role}: `}${line}`))),
      );
    },
  };
}
