// Each measure's distribution over the queries, lowest first, with the lowest queries named.
import { median } from "explainer/metrics";
import { h } from "explainer/dom";
import { button, f4, section, svg } from "explainer/workbench-elements";
import { idNode } from "explainer/workbench-ids";

const LOWEST_SHOWN = 3; // lowest queries named under each distribution

export function createDistributions(open) {
  const { box } = section("Each measure, query by query: averages hide distributions", "wb-distributions");
  const grid = h("div", "wb-dist-grid");
  box.append(h("p", "wb-note", "Each curve is one run's values sorted from the lowest query to the highest; the lines mark the mean (dashed) and the median (dotted). The lowest queries are named under each."), grid);
  return {
    el: box,
    draw(table, live) {
      grid.replaceChildren(
        ...table.measures.map((m, j) => {
          const card = h("figure", "wb-dist");
          card.dataset.measure = m.name;
          const plot = svg("svg", { class: "wb-chart", viewBox: "0 0 300 120", preserveAspectRatio: "none", role: "img" });
          const captionLines = [];
          const lowest = h("ul", "wb-query-list");
          table.runs.forEach((run, r) => {
            const values = live.column(r, j);
            const order = values.map((_, i) => i).sort((x, y) => values[x] - values[y] || x - y);
            const n = order.length;
            const y = (v) => (115 - 110 * v).toFixed(2);
            let path = `M0 ${y(values[order[0]] ?? 0)}`;
            order.forEach((i, at) => {
              path += `H${((300 * at) / n).toFixed(2)}V${y(values[i])}`;
            });
            path += "H300";
            const mean = live.mean(r, j);
            const mid = median(values);
            plot.append(svg("path", { d: path, class: `wb-curve wb-run-${r}` }));
            plot.append(svg("line", { x1: 0, x2: 300, y1: y(mean), y2: y(mean), class: `wb-mean wb-run-${r}` }));
            plot.append(svg("line", { x1: 0, x2: 300, y1: y(mid), y2: y(mid), class: `wb-median wb-run-${r}` }));
            const zeros = values.filter((v) => v === 0).length;
            captionLines.push(`${run.role === "run" ? "" : `${run.role}: `}mean ${f4(mean)}, median ${f4(mid)}, ${zeros} at 0`);
            for (const i of order.slice(0, LOWEST_SHOWN)) {
              const li = h("li");
              const b = button("", "wb-link");
              b.append(idNode(table.qids[i]), ` ${f4(values[i])}`);
              b.dataset.qid = table.qids[i];
              b.addEventListener("click", () => open(table.qids[i]));
              li.append(table.runs.length === 2 ? h("span", `wb-run-tag wb-run-${r}`, run.role) : "", b);
              lowest.append(li);
            }
          });
          plot.setAttribute("aria-label", `${m.label} of each query, sorted: ${captionLines.join("; ")}`);
          const caption = h("figcaption");
          caption.append(h("strong", "", m.label), ...captionLines.map((line) => h("span", "wb-dist-line", line)));
          card.append(caption, plot, h("p", "wb-subheading", "Lowest:"), lowest);
          return card;
        }),
      );
    },
  };
}
