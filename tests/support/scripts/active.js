// What has the keyboard focus, looking through open shadow roots (Panel renders into them):
// the innermost focused element, described for a test.
() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  if (!a) return null;
  const row = a.closest("[data-rank]");
  return {
    tag: a.tagName.toLowerCase(),
    cls: typeof a.className === "string" ? a.className : "",
    type: a.type || "",
    value: a.value || "",
    label: a.getAttribute("aria-label") || "",
    text: (a.textContent || "").trim().slice(0, 40),
    rank: row ? row.dataset.rank : "",
    convention: a.dataset ? a.dataset.convention || "" : "",
  };
};
