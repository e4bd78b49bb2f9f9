// Figure 3: many queries. Each query is a strip of ranked results (click or drag to set
// the relevant ranks); its reciprocal rank or average precision is a bar; the mean (MRR
// or MAP) and the median are lines across the bars; the lowest queries are called out.
// State: { a: [[relevant ranks] per query], b: same for a second system or [], measure: "rr" | "ap" }.
import { averagePrecision, formatNumber, meanAveragePrecision, meanReciprocalRank, median, reciprocalRank } from "explainer/metrics";
import {
  connectFigure,
  createAnnouncer,
  createFrame,
  createPresenterToggle,
  createQueryNotice,
  createRadioGroup,
  h,
  Ignored,
  parseIntegers,
} from "explainer/kit";

const MAX_QUERIES = 8;
const SYSTEMS = ["a", "b"];
const NAMES = { a: "System A", b: "System B" };
const f = (x) => formatNumber(x);

/** A query's binary grades down to `depth`, from its relevant ranks. */
export function gradesOf(ranks, depth) {
  return Array.from({ length: depth }, (_, i) => (ranks.includes(i + 1) ? 1 : 0));
}

/** One system's numbers and their arithmetic, all from the metrics module. */
export function systemReadout(runs, measure, depth) {
  const rankings = runs.map((ranks) => gradesOf(ranks, depth));
  const symbol = measure === "rr" ? "RR" : "AP";
  const mean_ = measure === "rr" ? "MRR" : "MAP";
  const values =
    measure === "rr" ? rankings.map((g) => reciprocalRank(g)) : rankings.map((g, q) => averagePrecision(g, runs[q].length));
  const mean =
    measure === "rr" ? meanReciprocalRank(rankings) : meanAveragePrecision(rankings, runs.map((r) => r.length));
  const terms = runs.map((ranks, q) => {
    if (measure === "rr") return ranks.length ? `1/${Math.min(...ranks)}` : "0";
    return f(values[q]);
  });
  const lowest = runs.length > 1 ? Math.min(...values) : null;
  return {
    values,
    mean,
    median: median(values),
    meanText: runs.length ? `${mean_} = (${terms.join(" + ")}) / ${runs.length} = ${f(mean)}` : `${mean_} = 0 (no queries)`,
    medianText: `Median ${symbol} = ${f(median(values))}`,
    rowText: runs.map((ranks, q) => {
      if (measure === "ap") return f(values[q]);
      return ranks.length ? `1/${Math.min(...ranks)} = ${f(values[q])}` : "0 (no hit)";
    }),
    // The lowest queries, called out when they sit below the mean.
    lowest: values.map((v) => lowest !== null && v === lowest && v < mean),
    lowestText:
      lowest !== null && lowest < mean
        ? `Lowest: ${values.flatMap((v, q) => (v === lowest ? [`Q${q + 1}`] : [])).join(", ")} at ${f(lowest)}, ` +
          `against a mean of ${f(mean)}.`
        : "",
  };
}

/** The URL keys: a=1|3|10 (each query's relevant ranks, queries split by |), b=..., measure=rr|ap. */
export function queryFields(depth) {
  const runs = (name, min) => (text) => {
    const queries = text === "" ? [] : text.split("|");
    if (queries.length < min || queries.length > MAX_QUERIES) {
      throw new Ignored(`${name} must list ${min} to ${MAX_QUERIES} queries, split by |`);
    }
    return queries.map((q) => {
      const ranks = parseIntegers(q, name, 1, depth, `ranks from 1 to ${depth} for each query`);
      if (new Set(ranks).size !== ranks.length) throw new Ignored(`${name} lists a rank twice in one query`);
      return ranks;
    });
  };
  return {
    a: (text, state) => ({ ...state, a: runs("a", 1)(text) }),
    b: (text, state) => ({ ...state, b: runs("b", 0)(text) }),
    measure(text, state) {
      if (text !== "rr" && text !== "ap") throw new Ignored("measure must be rr or ap");
      return { ...state, measure: text };
    },
  };
}

function toQuery(state) {
  const runs = (queries) => queries.map((ranks) => ranks.join(",")).join("|");
  return [
    ["a", runs(state.a)],
    ["b", runs(state.b)],
    ["measure", state.measure],
  ];
}

export function render({ model, el }) {
  const depth = model.depth;
  let state;

  const { frame, root } = createFrame(el, "fig-queries", model.caption);

  // -- controls --
  const head = h("div", "fig-head");
  const presets = h("div", "fig-tools");
  const presetButtons = [
    ["three", "Three queries"],
    ["consistency", "Consistency: A against B"],
  ].map(([name, label]) => {
    const button = h("button", "fig-button", label);
    button.type = "button";
    button.addEventListener("click", () => commit({ ...state, ...structuredClone(model.presets[name]) }));
    return button;
  });
  const reset = h("button", "fig-button", "Reset");
  reset.type = "button";
  reset.addEventListener("click", () => commit(structuredClone(model.default)));
  presets.append(...presetButtons, reset);
  if (model.standalone) presets.append(createPresenterToggle(frame));
  const switcher = createRadioGroup(
    "Measure",
    "measure",
    [
      ["rr", "reciprocal rank (MRR)"],
      ["ap", "average precision (MAP)"],
    ],
    (measure) => commit({ ...state, measure }),
  );
  head.append(switcher.el, presets);
  const queryNotice = createQueryNotice();
  const hint = h("p", "fig-hint-line", "Click a square to mark that rank relevant or not; drag a relevant square along its row to move it. Keyboard: Tab to a row, arrows to move, Enter or Space to mark.");

  const systemsBox = h("div", "systems");
  const announcer = createAnnouncer();
  root.append(head, queryNotice.el, hint, systemsBox, announcer.el);

  // -- one system's panel, rebuilt when the number of queries changes, updated otherwise --
  const panels = {};

  function buildPanel(system) {
    const box = h("section", "system");
    box.dataset.system = system;
    const title = h("h3", "system-name", NAMES[system]);
    const meanLine = h("p", "metric-formula system-mean");
    const medianLine = h("p", "metric-note system-median");
    const lowestLine = h("p", "system-lowest");
    const rows = h("div", "q-rows");
    const more = h("button", "fig-button", "+ query");
    const fewer = h("button", "fig-button", "− query");
    more.type = fewer.type = "button";
    more.setAttribute("aria-label", `Add a query to ${NAMES[system]}`);
    fewer.setAttribute("aria-label", `Remove the last query of ${NAMES[system]}`);
    more.addEventListener("click", () => {
      if (state[system].length >= MAX_QUERIES) return;
      commit({ ...state, [system]: [...state[system], [1]] });
    });
    fewer.addEventListener("click", () => {
      const min = system === "a" ? 1 : 0;
      if (state[system].length <= min) return;
      commit({ ...state, [system]: state[system].slice(0, -1) });
    });
    const tools = h("div", "fig-tools");
    tools.append(fewer, more);
    const head = h("div", "q-row q-head");
    head.setAttribute("aria-hidden", "true");
    head.append(h("span", "q-label", ""), h("span", "q-strip-head", `Ranks 1 to ${depth}`), h("span", "q-track-head"), h("span", "q-value"));
    box.append(title, meanLine, medianLine, lowestLine, head, rows, tools);
    return { box, meanLine, medianLine, lowestLine, head, rows, more, fewer, rowParts: [] };
  }

  function buildRow(system, q) {
    const row = h("div", "q-row");
    row.dataset.query = String(q + 1);
    const label = h("span", "q-label", `Q${q + 1}`);
    const strip = h("div", "q-strip");
    strip.tabIndex = 0;
    strip.setAttribute("role", "group");
    const cells = [];
    for (let rank = 1; rank <= depth; rank++) {
      const cell = h("span", "q-cell");
      cell.dataset.rank = String(rank);
      cell.title = `Rank ${rank}`;
      cells.push(cell);
      strip.append(cell);
    }
    const track = h("span", "q-track");
    const bar = h("span", "q-bar");
    const meanMark = h("span", "q-mean");
    const medianMark = h("span", "q-median");
    track.append(bar, meanMark, medianMark);
    const value = h("span", "q-value");
    row.append(label, strip, track, value);

    // Keyboard: a roving cursor inside the strip.
    let cursor = 0;
    const showCursor = () => cells.forEach((c, i) => c.classList.toggle("q-cursor", i === cursor && strip.matches(":focus-visible")));
    strip.addEventListener("focus", showCursor);
    strip.addEventListener("blur", () => cells.forEach((c) => c.classList.remove("q-cursor")));
    strip.addEventListener("keydown", (event) => {
      const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1, Home: -depth, End: depth };
      if (event.key in moves) {
        event.preventDefault();
        cursor = Math.max(0, Math.min(depth - 1, cursor + moves[event.key]));
        showCursor();
      } else if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        toggle(system, q, cursor + 1);
      }
    });

    // Pointer: press an empty square to mark it; press a marked one and drag to move it, or release to unmark.
    let dragging = null;
    const cellAt = (event) => {
      const target = event.target.closest?.(".q-cell") ?? document.elementFromPoint(event.clientX, event.clientY);
      const box = strip.getBoundingClientRect();
      const i = Math.floor(((event.clientX - box.left) / box.width) * depth);
      return target?.dataset?.rank ? Number(target.dataset.rank) : Math.max(1, Math.min(depth, i + 1));
    };
    strip.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      event.preventDefault();
      const rank = cellAt(event);
      cursor = rank - 1;
      if (!state[system][q].includes(rank)) {
        toggle(system, q, rank);
        return;
      }
      strip.setPointerCapture(event.pointerId);
      dragging = { from: rank, moved: false };
    });
    strip.addEventListener("pointermove", (event) => {
      if (!dragging || !strip.hasPointerCapture(event.pointerId)) return;
      const rank = cellAt(event);
      if (rank === dragging.from || state[system][q].includes(rank)) return;
      const runs = structuredClone(state[system]);
      runs[q] = runs[q].map((r) => (r === dragging.from ? rank : r)).sort((x, y) => x - y);
      dragging = { from: rank, moved: true };
      commit({ ...state, [system]: runs });
    });
    const end = (event) => {
      if (!dragging) return;
      if (!dragging.moved) toggle(system, q, dragging.from);
      dragging = null;
      if (strip.hasPointerCapture(event.pointerId)) strip.releasePointerCapture(event.pointerId);
    };
    strip.addEventListener("pointerup", end);
    strip.addEventListener("pointercancel", () => (dragging = null));
    return { row, strip, cells, bar, meanMark, medianMark, value };
  }

  function toggle(system, q, rank) {
    const runs = structuredClone(state[system]);
    const ranks = runs[q];
    runs[q] = ranks.includes(rank) ? ranks.filter((r) => r !== rank) : [...ranks, rank].sort((x, y) => x - y);
    commit({ ...state, [system]: runs });
  }

  function update() {
    switcher.set(state.measure);
    const said = [];
    for (const system of SYSTEMS) {
      const runs = state[system];
      if (!runs.length && system !== "a") {
        panels[system]?.box.remove();
        delete panels[system];
        continue;
      }
      if (!panels[system]) {
        panels[system] = buildPanel(system);
        systemsBox.append(panels[system].box);
      }
      const panel = panels[system];
      while (panel.rowParts.length > runs.length) panel.rowParts.pop().row.remove();
      while (panel.rowParts.length < runs.length) {
        const parts = buildRow(system, panel.rowParts.length);
        panel.rowParts.push(parts);
        panel.rows.append(parts.row);
      }
      const r = systemReadout(runs, state.measure, depth);
      panel.meanLine.textContent = r.meanText;
      panel.medianLine.textContent = `${r.medianText}. The mean is the solid line, the median the dashed one.`;
      panel.more.setAttribute("aria-disabled", String(runs.length >= MAX_QUERIES));
      panel.fewer.setAttribute("aria-disabled", String(runs.length <= (system === "a" ? 1 : 0)));
      runs.forEach((ranks, q) => {
        const parts = panel.rowParts[q];
        parts.cells.forEach((cell, i) => {
          const on = ranks.includes(i + 1);
          cell.classList.toggle("on", on);
          cell.textContent = on ? "✓" : "";
        });
        parts.strip.setAttribute(
          "aria-label",
          `${NAMES[system]}, query ${q + 1}: relevant at ${ranks.length ? `rank ${ranks.join(", ")}` : "no rank"}. ` +
            `${state.measure === "rr" ? "RR" : "AP"} ${r.rowText[q]}${r.lowest[q] ? ", the lowest" : ""}.`,
        );
        parts.bar.style.width = `${100 * r.values[q]}%`;
        parts.meanMark.style.left = `${100 * r.mean}%`;
        parts.medianMark.style.left = `${100 * r.median}%`;
        parts.value.textContent = r.rowText[q];
        parts.row.classList.toggle("is-lowest", r.lowest[q]);
      });
      panel.lowestLine.textContent = r.lowestText;
      panel.lowestLine.hidden = !r.lowestText;
      panel.head.querySelector(".q-track-head").textContent = state.measure === "rr" ? "RR" : "AP";
      said.push(`${NAMES[system]}: ${r.meanText.split(" = ")[0]} ${f(r.mean)}, median ${f(r.median)}`);
    }
    announcer.say(said.join(". "));
  }

  const commit = connectFigure(model, {
    apply(next) {
      state = next;
      update();
    },
    fields: queryFields(depth),
    toQuery,
    notice: queryNotice,
  });
}
