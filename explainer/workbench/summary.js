// The gate's verdict over each measure's means, difference, interval, wins, tests; then each gate
// measure's effect and power, with the queries a difference the reader types needs (power.js).
import { h, setText } from "explainer/dom";
import { f4, section, signed } from "explainer/workbench-elements";
import { queriesNeeded } from "explainer/workbench-power";

export function createSummary() {
  const { box } = section("The means, and whether the candidate ships", "wb-summary");
  const gate = h("p", "wb-gate");
  const untested = h("p", "wb-note wb-untested");
  const tableEl = h("table", "wb-means");
  const whatIfNote = h("p", "wb-note wb-whatif-note");
  const summaries = h("div", "wb-summaries");
  const power = createPower();
  box.append(gate, untested, tableEl, whatIfNote, power.el, summaries);
  return {
    el: box,
    draw(table, live) {
      const c = table.comparison;
      power.draw(table.runs.length === 2 ? c : null, table.detectable);
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

/**
 * Each gate measure's effect and power, as the command line says them (the sentences are
 * Python's: data._effects), and a difference the reader types, with the queries the same test
 * needs to find it. Drawn again only when the comparison changes, so a typed difference stays.
 */
function createPower() {
  const el = h("div", "wb-power");
  const typed = new Map(); // measure -> the difference the reader typed, kept across pairs
  let drawn;
  return {
    el,
    draw(comparison, tables) {
      if (comparison === drawn) return;
      drawn = comparison;
      el.hidden = !comparison?.effects?.length;
      el.replaceChildren(...(el.hidden ? [] : comparison.effects.map((effect) => effectOf(effect, tables, typed))));
    },
  };
}

function effectOf(effect, tables, typed) {
  const box = h("div", "wb-effect");
  box.dataset.measure = effect.measure;
  const sentence = (line) => h("p", "wb-note", line.endsWith(".") ? line : `${line}.`);
  const lines = effect.lines.slice(0, -1).map(sentence);
  const assumptions = sentence(effect.lines[effect.lines.length - 1]);
  box.append(h("h3", "wb-subheading", `Effect size and power: ${effect.label}`), ...lines);
  if (!effect.detectable) return box; // no spread: the lines say there is no power to give
  const oneWay = effect.alternative !== "two-sided";
  const gain = oneWay && effect.power.shift === 0;
  const input = h("input", "wb-detect");
  Object.assign(input, { type: "number", step: "0.005", inputMode: "decimal" });
  input.value = typed.get(effect.measure) ?? f4((oneWay ? effect.power.shift : 0) + 0.02);
  const label = h("label", "wb-detect-label", `Queries to find a true ${gain ? "gain" : "difference"} of `);
  label.append(input, ` in ${effect.label}, ${Math.round(effect.power.power * 100)}% of the time:`);
  const answer = h("output", "wb-needed");
  answer.setAttribute("aria-live", "polite");
  const show = () => {
    typed.set(effect.measure, input.value);
    setText(answer, neededText(effect, Number.parseFloat(input.value), tables));
  };
  input.addEventListener("input", show);
  show();
  const row = h("p", "wb-detect-row");
  row.append(label, " ", answer);
  box.append(row, assumptions);
  return box;
}

/** The answer: the queries, or why there is none. */
function neededText(effect, difference, tables) {
  const found = queriesNeeded(effect, difference, tables);
  if (found.problem) return found.problem;
  const count = (n) => n.toLocaleString("en");
  const queries = found.beyond
    ? `more than ${count(found.beyond)}`
    : found.fewest === found.most
      ? count(found.most)
      : `between ${count(found.fewest)} and ${count(found.most)}`;
  return `${queries}, with differences as spread as this set's (it has ${count(effect.queries)}).`;
}
