// Ids and names from a reader's files as the page shows them: control and bidi characters escaped
// visibly, long ones shortened with the whole on demand, each isolated from the text around it.
import { h } from "explainer/dom";

/** The most characters of an id shown; a longer one shows its start and end, the whole in its title. */
export const MAX_SHOWN = 40;

// As explainer/evaluation/escaping.py: C0 and C1 controls and DEL (a terminal's escape sequences),
// the bidi controls (they reorder what follows, so that one id can look like another), line and
// paragraph separators, and the lone surrogates that stand for bytes that were not UTF-8.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|(?<![\ud800-\udbff])[\udc80-\udcff]/g;

const hex = (code, width) => code.toString(16).padStart(width, "0");

/** `text` with every control, bidi and undecodable character written as \xNN or \uNNNN. */
export function escaped(text) {
  return String(text).replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    if (code >= 0xdc80 && code <= 0xdcff) return `\\x${hex(code - 0xdc00, 2)}`;
    return code < 0x100 ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`;
  });
}

/** An id as shown: escaped, and cut to MAX_SHOWN characters (its start, "…", its end) when longer. */
export function shownId(id) {
  const text = escaped(id);
  const chars = Array.from(text);
  if (chars.length <= MAX_SHOWN) return text;
  const head = Math.ceil((MAX_SHOWN - 1) * 0.7);
  return `${chars.slice(0, head).join("")}…${chars.slice(chars.length - (MAX_SHOWN - 1 - head)).join("")}`;
}

/** An id in the page: a <bdi> (isolated from the text around it) with its shown text, the whole id (escaped) in its title when shortened. */
export function idNode(id, className = "wb-id") {
  const node = h("bdi", className, shownId(id));
  const whole = escaped(id);
  if (whole !== node.textContent) node.title = whole;
  return node;
}
