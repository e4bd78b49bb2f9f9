// Predict, then reveal: a mode of the figure shell that hides a figure's headline numbers until
// the reader has guessed them. Each figure names its hidden values on every redraw
// (shell.predict(targets)), each value computed by the metrics module; this module hides them
// (and their arithmetic), asks for a guess of each, and on Reveal shows them with how far each
// guess was. A change to the figure hides the numbers again. While they are hidden, nothing else
// says them either: the live region and the narrow screen's headline bar say what to guess.
//
// It imports only the metrics module: shell.js imports it (mountFigure makes one per figure).
import { formatNumber } from "explainer/metrics";

const HIDDEN = "predict-hidden"; // a node hidden until Reveal
const ASK = "Guess the hidden numbers, each from 0 to 1, then press Reveal.";
const STEP = 0.05; // what the arrow keys add to a guess, or take from it

function node(tag, className, text = null) {
  const made = document.createElement(tag);
  made.className = className;
  if (text !== null) made.textContent = text;
  return made;
}

/** "a", "a and b", "a, b and c". */
function listed(words) {
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

/**
 * A guess as the reader typed it: a number from 0 to 1 ("0.4", ".4", "0,4"), or a percentage
 * ("40%"). Returns { value } or, for anything else, { problem } (plain text, never markup);
 * empty text is { value: null }.
 */
export function parseGuess(text) {
  const typed = text.trim();
  if (typed === "") return { value: null };
  const match = /^(\d{1,3}(?:[.,]\d{0,6})?|[.,]\d{1,6})(\s?%)?$/.exec(typed);
  const value = match ? Number(match[1].replace(",", ".")) / (match[2] ? 100 : 1) : NaN;
  if (!(value >= 0 && value <= 1)) {
    const shown = typed.length > 12 ? `${typed.slice(0, 12)}…` : typed;
    return { problem: `“${shown}” is not a number from 0 to 1: type one as 0.4 (or 40%).` };
  }
  return { value };
}

/** A guess moved by `step`, kept from 0 to 1; from one half when there is no guess yet (or no number). */
export function stepped(text, step) {
  const { value = null } = parseGuess(text);
  if (value === null) return 0.5;
  return Math.min(1, Math.max(0, Math.round((value + step) / STEP) * STEP));
}

/**
 * What Reveal says of one guess of a value that is shown as `formatNumber(value)`: right when the
 * guess, rounded as the value is, is the value shown; otherwise how far apart the two numbers
 * are as written.
 */
export function judgeGuess(guess, value) {
  const shown = formatNumber(value);
  if (guess === null) return { right: false, text: `${shown}: no guess.` };
  const guessed = formatNumber(guess);
  if (guessed === shown) return { right: true, text: `${shown}: your guess ${guessed}, right.` };
  // The distance between the two numbers as written, so that the reader can check it (0.38 and
  // 0.50 are 0.12 apart, though recall 0.375 is 0.125 from 0.50).
  const off = formatNumber(Math.abs(Number(guessed) - Number(shown)));
  return { right: false, text: `${shown}: your guess ${guessed}, off by ${off}.` };
}

/**
 * The mode for one figure. `frame` is the figure's frame (its classes show the mode),
 * `announce(text)` its live region, `headline(text)` its narrow screen's bar of numbers, `on`
 * whether it starts on, `onSwitch(on)` what else the reader's switch does (a page writes predict=1
 * into its URL). Returns { button (the switch), set(on), follow(state)
 * (call on every state drawn), targets(list, { after }) (call on every redraw), say(text) }.
 *
 * A target is { key, label, value, el, hide }: `value` the number hidden (0 to 1), `label` its
 * name as the figure writes it ("P@5"), `el` where its guess goes, `hide` the nodes that show it
 * or its arithmetic. `after` is where the Reveal button goes (default: after the last target).
 */
export function createPredict({ frame, announce, headline, on = false, onSwitch = () => {} }) {
  const { button, bar, prompt, reveal, status } = createControls();
  let active = false;
  let revealed = false;
  let together = null; // a class's question (served for a class): { label, needsGuess, submit(values) }
  let drawn = null; // the state last drawn
  let shown = ""; // what the figure last said of its numbers
  let current = []; // the targets of the last redraw
  let barAfter = null; // where the figure wants the Reveal button
  const guesses = new Map(); // a target's key -> its { row, words (the label's), input, result }

  const mode = () => {
    frame.classList.toggle("predicting", active);
    frame.classList.toggle("predict-watching", active && Boolean(together?.watching));
    frame.classList.toggle("predict-hide", active && !revealed);
    // The projector's bar says what the class is asked, until the class has its answer.
    bar.hidden = !active || (revealed && Boolean(together?.watching));
  };
  const asking = () => askFor(current, together, reveal.textContent);

  function guessRow(target) {
    if (!guesses.has(target.key)) guesses.set(target.key, createGuessRow(target.key, press));
    return guesses.get(target.key);
  }

  function hideAgain() {
    revealed = false;
    clearGuesses(guesses);
    status.textContent = "";
    mode();
  }

  /** Check every guess; with at least one, and none malformed, show the numbers and each guess's distance. */
  function show() {
    const read = readGuesses(current, guesses, status, true);
    if (read) showJudged(read);
  }

  /** Show the numbers, each guess of `read` judged (none: the projector's, which asked for none). */
  function showJudged(read) {
    const said = read ? judgeGuesses(read) : [shown];
    revealed = true;
    status.textContent = "";
    mode();
    announce(said.join(" "));
    headline(shown); // the bar has room for the numbers, not for every guess's distance
  }

  /** In a class's question, the button hands the guesses in (the teacher reveals); otherwise it reveals. */
  function press() {
    if (!together) return show();
    const read = readGuesses(current, guesses, status, together.needsGuess);
    if (!read) return;
    const values = Object.fromEntries(read.map(({ t, parsed }) => [t.key, parsed.value]));
    status.textContent = together.submit(values) ?? "";
  }
  reveal.addEventListener("click", press);

  /** Put each target's guess in place and hide what shows its value: only in predict mode, so that a figure without it pays nothing per click. */
  function place() {
    if (!active) return;
    for (const target of current) placeGuess(target, guessRow(target));
    if (barAfter && bar.previousSibling !== barAfter) barAfter.after(bar);
  }

  function set(next) {
    active = Boolean(next);
    place();
    button.setAttribute("aria-pressed", String(active));
    hideAgain();
    const text = active ? asking() : shown;
    announce(text);
    headline(text);
  }
  button.addEventListener("click", () => {
    set(!active);
    onSwitch(active);
  });
  active = Boolean(on);
  button.setAttribute("aria-pressed", String(active));
  mode();

  return {
    button,
    set,
    /**
     * A state is about to be drawn: a new one hides revealed numbers again. (The shell draws a
     * state only when it changed: a click makes a new one, and Python's echo of it is not drawn.)
     */
    follow(state) {
      if (revealed && state !== drawn) hideAgain();
      drawn = state;
    },
    /** The figure's hidden values for what it draws now. */
    targets(list, { after = list.at(-1)?.el } = {}) {
      current = list;
      barAfter = after;
      place();
    },
    /** The hidden values of the figure as drawn now: { key, label, value } each. */
    values: () => current.map(({ key, label, value }) => ({ key, label, value })),
    /**
     * A class's question (null: none): the bar says `prompt`, its button says `label` and hands the reader's guesses to
     * `submit(values)` ({ key: value or null }; with `needsGuess`, at least one), whose answer is
     * shown under it, instead of revealing; the class reveals with revealAll(). With `watching`
     * (the projector's) the figure asks for no guess of its own: its numbers hide, and show again.
     */
    together(next) {
      together = next;
      reveal.textContent = next?.label ?? "Reveal";
      prompt.textContent = next?.prompt ?? ASK;
      mode();
      if (active && !revealed) headline(asking());
    },
    /** Show the numbers, with each guess typed so far judged (one that does not read counts as none). */
    revealAll() {
      place();
      showJudged(together?.watching ? null : current.map((t) => readTyped(t, guessRow(t))));
    },
    /** What the figure says of its numbers: said while they show, and in their place a request for guesses. */
    say(text) {
      shown = text;
      const said = active && !revealed ? asking() : text;
      announce(said);
      headline(said);
    },
  };
}

/** The mode's switch, and its bar: the prompt, the Reveal button and a status line. */
function createControls() {
  const button = node("button", "fig-button predict-toggle", "Predict first");
  button.type = "button";
  button.title = "Hide the numbers until you have guessed them";
  const bar = node("div", "predict-bar");
  const prompt = node("p", "predict-prompt", ASK);
  const reveal = node("button", "fig-button predict-reveal", "Reveal");
  reveal.type = "button";
  const status = node("p", "predict-status");
  status.setAttribute("role", "status");
  bar.append(prompt, reveal, status);
  return { button, bar, prompt, reveal, status };
}

/** What the mode says while the numbers hide: what to guess and which button to press (the projector's: what the class guesses). */
function askFor(targets, together, pressed) {
  const labels = listed(targets.map((t) => t.label));
  if (together?.watching) return `Numbers hidden: the class is guessing ${labels}.`;
  return `Numbers hidden. Guess ${labels}, then press ${pressed}.`;
}

/** Empty every guess and its judgment. */
function clearGuesses(guesses) {
  for (const { input, result } of guesses.values()) {
    input.value = "";
    input.removeAttribute("aria-invalid");
    result.hidden = true;
    result.textContent = "";
  }
}

/** Put a target's guess row `g` where its value was (after the last hidden node of its own box, else at the box's end), and hide the value. */
function placeGuess(target, g) {
  if (g.row.parentNode !== target.el) {
    const at = target.hide.filter((hidden) => hidden.parentNode === target.el).at(-1);
    if (at) at.after(g.row);
    else target.el.append(g.row);
  }
  if (g.words.textContent !== `Your guess for ${target.label}`) g.words.textContent = `Your guess for ${target.label}`;
  for (const hidden of target.hide) hidden.classList.add(HIDDEN);
}

/** A target's guess as typed, for a reveal that needs none: one that does not read counts as none. */
function readTyped(t, g) {
  const parsed = parseGuess(g.input.value);
  return { t, g, parsed: parsed.problem ? { value: null } : parsed };
}

/** A card's hidden value: the card (createCard's parts) holds the guess; its formula and note hide. */
export function cardTarget(key, card, label, value) {
  return { key, label, value, el: card.el, hide: [card.formula, card.note].filter(Boolean) };
}

/** A guess's row: its label, its input (Enter calls `onEnter`), the line that judges it. */
function createGuessRow(key, onEnter) {
  const row = node("div", "predict-guess");
  row.dataset.predict = key;
  const label = node("label", "predict-label");
  const words = node("span", "predict-words");
  const input = node("input", "predict-input");
  Object.assign(input, { type: "text", inputMode: "decimal", autocomplete: "off", spellcheck: false, maxLength: 12 });
  input.placeholder = "0 to 1";
  // Enter reveals; the arrow keys pick a guess, a step at a time, as on a slider.
  input.addEventListener("keydown", (event) => {
    const step = { ArrowUp: STEP, ArrowDown: -STEP }[event.key];
    if (event.key === "Enter") onEnter();
    else if (step) input.value = formatNumber(stepped(input.value, step));
    else return;
    event.preventDefault();
    input.removeAttribute("aria-invalid");
  });
  input.addEventListener("input", () => input.removeAttribute("aria-invalid"));
  label.append(words, input);
  const result = node("p", "predict-result");
  result.hidden = true;
  row.append(label, result);
  return { row, words, input, result };
}

/**
 * Read every guess of `targets` (their rows in `guesses`): with none malformed (and, with
 * `needsGuess`, at least one) the guesses read; otherwise `status` says what is wrong, the input in
 * question takes the focus, and null is returned.
 */
function readGuesses(targets, guesses, status, needsGuess) {
  const read = targets.map((t) => ({ t, g: guesses.get(t.key), parsed: parseGuess(guesses.get(t.key).input.value) }));
  const bad = read.find((r) => r.parsed.problem);
  if (bad) {
    bad.g.input.setAttribute("aria-invalid", "true");
    status.textContent = `${bad.t.label}: ${bad.parsed.problem}`;
    bad.g.input.focus();
    return null;
  }
  if (needsGuess && read.every((r) => r.parsed.value === null)) {
    status.textContent = "Type a guess first: a number from 0 to 1.";
    read[0]?.g.input.focus();
    return null;
  }
  return read;
}

/** Each guess read, judged: its row says its distance; the sentences are returned. */
function judgeGuesses(read) {
  const said = read.map(({ t, g, parsed }) => {
    const judged = judgeGuess(parsed.value, t.value);
    g.result.textContent = `${t.label} = ${judged.text}`;
    g.result.classList.toggle("is-right", judged.right);
    g.result.hidden = false;
    return g.result.textContent;
  });
  return said;
}
