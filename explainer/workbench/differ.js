// Where the two runs differ most: every query's difference, sorted, with the queries lost most, won most.
import { h, setText } from "explainer/dom";
import { button, capital, section, signed, svg, theRun } from "explainer/workbench-elements";
import { idNode } from "explainer/workbench-ids";

const DIFFER_SHOWN = 5; // queries listed as lost most and won most

export function createDiffer(open, choose) {
  const { box } = section("Where the two runs differ most", "wb-differ");
  const pick = h("select", "wb-measure-select");
  pick.setAttribute("aria-label", "Measure of the differences");
  pick.addEventListener("change", () => choose(pick.value));
  const chart = svg("svg", { class: "wb-chart wb-differ-chart", viewBox: "0 0 600 160", preserveAspectRatio: "none", role: "img" });
  const lists = h("div", "wb-differ-lists");
  const note = h("p", "wb-note");
  box.append(note, pick, chart, lists);
  let order = [];
  let qids = [];
  chart.addEventListener("click", (event) => {
    if (!order.length) return;
    const box = chart.getBoundingClientRect();
    const i = Math.min(order.length - 1, Math.max(0, Math.floor(((event.clientX - box.left) / box.width) * order.length)));
    open(qids[order[i]]);
  });
  return {
    el: box,
    draw(table, name, live) {
      box.hidden = table.runs.length !== 2;
      if (box.hidden) return;
      if (pick.options.length !== table.measures.length) {
        pick.replaceChildren(...table.measures.map((m) => Object.assign(h("option", "", m.label), { value: m.name })));
      }
      pick.value = name;
      const [first, second] = table.runs.map(theRun);
      setText(note, `Each bar is one query: ${second}'s value minus ${first}'s, from the worst loss to the best win. Pick a query to see both lists.`);
      const j = table.measures.findIndex((m) => m.name === name);
      const a = live.column(0, j);
      const b = live.column(1, j);
      const delta = b.map((v, i) => v - a[i]);
      qids = table.qids;
      order = delta.map((_, i) => i).sort((x, y) => delta[x] - delta[y] || x - y);
      const top = Math.max(1e-9, ...delta.map(Math.abs));
      const n = order.length;
      let path = "";
      order.forEach((i, at) => {
        const x = (600 * (at + 0.5)) / n;
        path += `M${x.toFixed(2)} 80V${(80 - (75 * delta[i]) / top).toFixed(2)}`;
      });
      const width = Math.max(0.6, Math.min(8, (600 / n) * 0.8));
      chart.replaceChildren(svg("line", { x1: 0, x2: 600, y1: 80, y2: 80, class: "wb-axis" }), svg("path", { d: path, class: "wb-bars", "stroke-width": width }));
      const label = table.measures[j].label;
      chart.setAttribute("aria-label", `${label}: ${second.replace(/^the /, "")} minus ${first.replace(/^the /, "")} for each of ${n} queries, sorted. ${delta.filter((d) => d < -1e-12).length} losses, ${delta.filter((d) => d > 1e-12).length} wins.`);
      const listOf = (title, picks) => {
        const group = h("div", "wb-differ-list");
        group.append(h("h3", "wb-subheading", title));
        const ul = h("ul", "wb-query-list");
        for (const i of picks) {
          const li = h("li");
          const b = button("", "wb-link");
          b.append(idNode(qids[i]), ` ${signed(delta[i])}`);
          b.dataset.qid = qids[i];
          b.addEventListener("click", () => open(qids[i]));
          li.append(b);
          if (table.texts.length) li.append(h("span", "wb-text", ` ${table.texts[i]}`));
          ul.append(li);
        }
        if (!picks.length) ul.append(h("li", "wb-note", "none"));
        group.append(ul);
        return group;
      };
      const losses = order.filter((i) => delta[i] < -1e-12).slice(0, DIFFER_SHOWN);
      const wins = order.filter((i) => delta[i] > 1e-12).reverse().slice(0, DIFFER_SHOWN);
      lists.replaceChildren(listOf(`${capital(second)} lost most on (${label})`, losses), listOf(`${capital(second)} won most on (${label})`, wins));
    },
  };
}
