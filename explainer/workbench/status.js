// The line that says what the workbench is doing, or what went wrong, with its progress bar.
import { h } from "explainer/dom";

export function createStatus() {
  const el = h("div", "wb-status");
  el.setAttribute("role", "status");
  const text = h("div", "wb-status-text");
  const bar = h("progress", "wb-progress");
  el.append(text, bar);
  el.hidden = true;
  return {
    el,
    show(status) {
      const kind = status?.kind ?? "";
      el.hidden = !kind;
      el.dataset.kind = kind;
      text.replaceChildren(...(status?.lines ?? []).map((line) => h("p", "", line)));
      bar.hidden = kind !== "busy";
      if (kind === "busy" && status.total) {
        bar.max = status.total;
        bar.value = Math.min(status.done, status.total);
      } else {
        bar.removeAttribute("value");
      }
    },
  };
}
