// What a binary or NDCG figure shows, read from its DOM: the list, k, the missed count and the
// chart or the gain, and the numbers.
(fig) => {
  const rows = [...fig.querySelectorAll(".rl-row")];
  const k = Number(fig.querySelector(".rl-cutoff").getAttribute("aria-valuenow"));
  if (fig.classList.contains("fig-binary")) {
    return {
      kind: "binary",
      k,
      relevant: rows.map((r) => r.querySelector("button.rl-activate").getAttribute("aria-pressed") === "true"),
      missed: Number(fig.querySelector(".stepper-value").textContent),
      // The chart of every k shown: its switch's buttons are "By k" and "Precision-recall", in that order.
      chart: ["by-k", "precision-recall"][
        [...fig.querySelectorAll(".kchart-switch-button")].findIndex((b) => b.getAttribute("aria-pressed") === "true")
      ],
      formulas: Object.fromEntries(
        [...fig.querySelectorAll(".metric[data-metric]")].map((m) => [m.dataset.metric, m.querySelector(".metric-formula").textContent]),
      ),
    };
  }
  return {
    kind: "ndcg",
    k,
    titles: rows.map((r) => r.querySelector(".rl-title").textContent),
    grades: rows.map((r) => Number(r.querySelector("select.grade-select").value)),
    gain: (fig.querySelector("input[type=radio]:checked") || {}).value,
    ndcg: fig.querySelector(".metric-ndcgText .metric-formula").textContent,
  };
};
