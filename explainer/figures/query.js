// A figure's state in a URL query: the parsers of its keys, with a sentence for each value ignored.

/** A query value that was ignored, and why, for the figure's notice. */
export class Ignored extends Error {}

const MAX_SHOWN = 40;

/** Quote what the reader typed, shortened (never inside a character); it is only ever set as text, never as markup. */
export function quoted(text) {
  const characters = Array.from(text);
  const short = characters.length > MAX_SHOWN ? `${characters.slice(0, MAX_SHOWN).join("")}…` : text;
  return `“${short}”`;
}

// A query longer than the model's `max_query_length` is ignored whole: no figure's state needs a
// tenth of it. A served page turns such a query away before it makes a session, redirecting to
// `#ignored-query=<length>`.
export const tooLong = (length, maxLength) =>
  `Ignored the whole query: it is ${length.toLocaleString("en")} characters long, ` +
  `and no figure's settings take more than ${maxLength.toLocaleString("en")}.`;

/** A whole number from lo to hi, or Ignored with a reason. */
export function parseInteger(text, name, lo, hi) {
  const value = /^\s*\d{1,6}\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(value) || value < lo || value > hi) {
    throw new Ignored(`${name} must be a whole number from ${lo} to ${hi}`);
  }
  return value;
}

/** A comma-separated list of whole numbers from lo to hi (empty text is an empty list). */
export function parseIntegers(text, name, lo, hi, what = `whole numbers from ${lo} to ${hi}`) {
  if (text.trim() === "") return [];
  const parts = text.split(",");
  if (parts.length > 64) throw new Ignored(`${name} must list ${what}, separated by commas`);
  return parts.map((part) => {
    try {
      return parseInteger(part, name, lo, hi);
    } catch {
      throw new Ignored(`${name} must list ${what}, separated by commas`);
    }
  });
}

/** One of `options`, as typed, or Ignored naming them. */
export function parseChoice(text, name, options) {
  if (!options.includes(text)) throw new Ignored(`${name} must be ${options.slice(0, -1).join(", ")} or ${options.at(-1)}`);
  return text;
}

/** Comma-separated ranks 1..length as one flag per rank, rank 1 first (empty text: none flagged). */
export function parseRankFlags(text, name, length) {
  const ranks = parseIntegers(text, name, 1, length, `ranks from 1 to ${length}`);
  return Array.from({ length }, (_, i) => ranks.includes(i + 1));
}

/** The ranks (1-based) whose flag is set, comma-separated: the URL form of a list of flags. */
export function flaggedRanks(flags, wanted = true) {
  return flags.flatMap((flag, i) => (flag === wanted ? [i + 1] : [])).join(",");
}

/** Exactly `length` comma-separated grades from `min` to `max`, in the order written. */
export function parseGradeList(text, name, { length, min_grade: min, max_grade: max }) {
  const what = `exactly ${length} grades from ${min} to ${max}`;
  const grades = parseIntegers(text, name, min, max, what);
  if (grades.length !== length) throw new Ignored(`${name} must list ${what}, separated by commas`);
  return grades;
}

// Keys the page itself uses, and the values each takes: left alone by every figure's state.
export const PAGE_KEYS = { present: ["0", "1"], theme: ["light", "dark", "auto"], embed: ["0", "1"], predict: ["0", "1"] };

/** The page keys of a URL query that are set to a value they do not take, as notice lines. */
export function ignoredPageKeys(search) {
  const params = new URLSearchParams(search);
  return Object.entries(PAGE_KEYS).flatMap(([key, values]) => {
    const text = params.getAll(key).at(-1);
    if (text === undefined || values.includes(text)) return [];
    return [`Ignored ${key}=${quoted(text)}: ${key} must be ${values.slice(0, -1).join(", ")} or ${values.at(-1)}.`];
  });
}

/**
 * Read a figure's state from the URL query. `fields` maps each key to a function
 * (text, state) => new state, which throws Ignored for a bad value; they apply in
 * the order `fields` lists them, whatever the order in the URL. Returns the state
 * with every valid value applied, and a sentence for each ignored one; a query
 * longer than `maxLength` is ignored whole.
 */
export function stateFromQuery(search, fields, base, maxLength) {
  let state = structuredClone(base);
  const length = search.replace(/^\?/, "").length;
  if (length > maxLength) return { state, ignored: [tooLong(length, maxLength)] };
  const ignored = [];
  const params = new URLSearchParams(search);
  for (const key of new Set(params.keys())) {
    if (!Object.hasOwn(PAGE_KEYS, key) && !Object.hasOwn(fields, key)) {
      ignored.push(`Ignored ${quoted(key)}: this figure has no such setting.`);
    }
  }
  for (const [key, field] of Object.entries(fields)) {
    if (!params.has(key)) continue;
    const text = params.getAll(key).at(-1);
    try {
      state = field(text, state);
    } catch (error) {
      if (!(error instanceof Ignored)) throw error;
      ignored.push(`Ignored ${key}=${quoted(text)}: ${error.message}.`);
    }
  }
  return { state, ignored };
}


/** A query string with commas, bars and question marks left as they are typed, so a link stays readable. */
export function queryText(params) {
  return params.toString().replace(/%2C/g, ",").replace(/%7C/g, "|").replace(/%3F/g, "?");
}
