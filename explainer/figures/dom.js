// Making elements, writing only what changed in them: the DOM helpers every figure draws with.

/** Make an element with a class and optional text. */
export function h(tag, className = "", text = null) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== null) node.textContent = text;
  return node;
}

/**
 * Words for a mouse and words for a finger, one shown at a time: a hint says "click" or "tap" as
 * the screen's pointer does (shell.css shows `.for-mouse` or `.for-touch` by `pointer: coarse`).
 */
export function byPointer(mouse, touch) {
  return [h("span", "for-mouse", mouse), h("span", "for-touch", touch)];
}

let ids = 0;

/**
 * A hidden element that describes `target` to a screen reader (aria-describedby): a control's
 * name is its visible text, so that speech input finds it by what it shows; what the text does
 * not say (what a press does, the arithmetic of a row) goes here.
 */
export function describedBy(target) {
  const description = h("span", "fig-description");
  description.hidden = true;
  description.id = `fig-description-${(ids += 1)}`;
  target.setAttribute("aria-describedby", description.id);
  return description;
}

/** A mark: a symbol that only the eye needs, then its words, as "✓ relevant". */
export function drawMark(node, symbol, words) {
  const [icon, text] = node.childNodes;
  if (node.childNodes.length === 2 && text.nodeType === Node.TEXT_NODE && icon.getAttribute?.("aria-hidden") === "true") {
    // Drawn before: a click rewrites the two texts and makes no nodes.
    setText(icon, symbol);
    if (text.data !== ` ${words}`) text.data = ` ${words}`;
    return;
  }
  const made = h("span", "", symbol);
  made.setAttribute("aria-hidden", "true");
  node.replaceChildren(made, ` ${words}`);
}

// A click changes a few of the many values a figure shows. Writing only those spares the
// browser the style and layout work of every rewritten node, and the page's readers a
// mutation for each value that stayed.

/**
 * Set a node's text, if it differs. A node that holds one text node keeps it and changes its data:
 * reading it costs no walk of the node's children and no new string, and writing it makes no node
 * (an empty text goes the long way, so that :empty still matches).
 */
export function setText(node, text) {
  const only = node.firstChild;
  if (only !== null && only === node.lastChild && only.nodeType === Node.TEXT_NODE && text !== "") {
    if (only.data !== text) only.data = text;
  } else if (node.textContent !== text) {
    node.textContent = text;
  }
}

/** Set an attribute, if it differs. */
export function setAttr(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/**
 * Show the focus ring of `node`, focused by a pointer with none (focus({ focusVisible: false })):
 * the keyboard is in use now. (Focusing a focused element changes nothing, hence the blur.)
 */
export function refocus(node) {
  node.blur();
  node.focus({ preventScroll: true, focusVisible: true });
}
