// Everything a reader of the figure frames can see or hear, as one text: what shows (innerText,
// which leaves out hidden nodes), every accessible name and value text, the descriptions that
// aria-describedby points at (hidden nodes, which a screen reader reads all the same), tooltips,
// and the live regions. Looks through open shadow roots (Panel renders into them), from `root`
// (a node or its shadow root) down.
(deep, root = document) => {
  const parts = [];
  for (const frame of deep(".fig-frame", root.shadowRoot ?? root)) {
    parts.push(frame.innerText);
    for (const el of frame.querySelectorAll("*")) {
      for (const name of ["aria-label", "aria-valuetext", "title", "placeholder"]) {
        if (el.hasAttribute(name) && el.checkVisibility()) parts.push(el.getAttribute(name));
      }
      for (const id of (el.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean)) {
        if (el.checkVisibility()) parts.push(el.getRootNode().getElementById(id)?.textContent ?? "");
      }
    }
    for (const live of frame.querySelectorAll("[aria-live], [role=status]")) parts.push(live.textContent);
  }
  return parts.join("\n");
};
