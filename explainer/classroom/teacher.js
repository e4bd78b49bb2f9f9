// The teacher's side of the class, on the projector's page: how many are in the class, Ask the class
// (predict together: the figure hides its numbers, the class's guesses gather under it, Reveal shows
// the truth over them), Send to class (every phone moves to this figure as it stands), the lecture
// plan's steps (a clicker's Page Down and Page Up, or the arrow keys), and the class's results.
import { drawSpread } from "explainer/class-strips";
import { settled } from "explainer/settled";

/** The step a key asks for from `step` in a plan of `count` steps, or null for a key that is not a step's. */
export function stepFor(key, step, count) {
  const next = { PageDown: 1, ArrowRight: 1, ArrowDown: 1, PageUp: -1, ArrowLeft: -1, ArrowUp: -1 }[key];
  if (next === undefined || count === 0) return null;
  const to = step === null ? (next > 0 ? 0 : null) : step + next;
  return to !== null && to >= 0 && to < count ? to : null;
}

/** Whether a key press is the plan's: Page Up and Down anywhere but in a text field, the arrows only when nothing has the focus (they move a figure's k). */
export function isPlanKey(event, active) {
  if (event.altKey || event.ctrlKey || event.metaKey) return false;
  if (event.key === "PageDown" || event.key === "PageUp") return !(active && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName));
  return event.key.startsWith("Arrow") && (active === null || active === document.body);
}

const SETTLE_MS = 250;
const ASK_TITLE = "Hide the numbers and have every phone predict them";
const REVEAL_TITLE = "Show the true numbers here and on every phone";

function button(text, title) {
  const made = document.createElement("button");
  made.type = "button";
  made.className = "class-button";
  made.textContent = text;
  made.title = title;
  return made;
}

/** The teacher's controls, put in the class bar: the class's size, Ask (and Reveal), Send, the plan's steps, the results. */
function createControls(page) {
  const count = document.createElement("span");
  count.className = "class-count";
  count.setAttribute("role", "status");
  const ask = button("Ask the class", ASK_TITLE);
  const sendNow = button("Send to class", "Move every phone to this figure, as it is now");
  const back = button("◀", "The plan's previous figure (Page Up)");
  const forward = button("▶", "The plan's next figure (Page Down)");
  back.setAttribute("aria-label", "Previous step of the plan");
  forward.setAttribute("aria-label", "Next step of the plan");
  const where = document.createElement("span");
  where.className = "class-step";
  const results = document.createElement("a");
  results.className = "class-button";
  results.textContent = "Results";
  results.title = "Download the class's questions, true values and guesses (CSV)";
  results.href = new URL("class/results.csv", window.location.href).href;
  results.download = "class-results.csv";
  page.controls(count, ask, sendNow, back, where, forward, results);
  return { count, ask, sendNow, back, where, forward };
}

/**
 * The teacher's side: `page` is the class page (class.js), `send(message)` the channel's. Returns
 * receive(message) for the server's messages.
 */
export function createTeacher(page, send) {
  const figure = page.figure;
  let plan = [];
  let step = null;
  let question = null; // the question asked: { question, route, query, targets (with values), revealed }
  let guesses = null;

  const { count, ask, sendNow, back, where, forward } = createControls(page);
  const panel = page.panel(() => closeQuestion());

  function drawPlan() {
    const shown = step === null ? `${plan.length} steps, Page Down starts` : `${step + 1} of ${plan.length}: ${plan[step].title}`;
    where.textContent = `Plan: ${shown}`;
    back.disabled = stepFor("PageUp", step, plan.length) === null;
    forward.disabled = stepFor("PageDown", step, plan.length) === null;
  }

  function drawQuestion() {
    const open = question !== null && !question.revealed;
    ask.textContent = open ? "Reveal" : "Ask the class";
    ask.title = open ? REVEAL_TITLE : ASK_TITLE;
    if (!question) return panel.hide();
    panel.show();
    return drawSpread(panel.body, question.targets, guesses, question.revealed);
  }

  function closeQuestion() {
    figure.classroom.together(null);
    figure.removeAttribute("predict");
    question = null;
    drawQuestion();
  }

  function askTogether() {
    figure.setAttribute("predict", "");
    figure.classroom.together({
      label: "Reveal to the class",
      prompt: "The class is guessing these numbers: their guesses gather below.",
      needsGuess: false,
      watching: true,
      submit: () => {
        send({ type: "reveal", question: question.question });
        return "";
      },
    });
  }

  ask.addEventListener("click", () => {
    if (question && !question.revealed) return send({ type: "reveal", question: question.question });
    const targets = figure.classroom.values();
    if (!targets.length) return page.say("This figure has no numbers to predict.");
    send({ type: "ask", route: page.route, query: figure.classroom.query(), targets });
    return undefined;
  });
  sendNow.addEventListener("click", () => {
    send({ type: "send", route: page.route, query: figure.classroom.query() });
    page.say("Sent: every phone in the class shows this figure now.");
  });
  const stepBy = (key) => {
    const to = stepFor(key, step, plan.length);
    if (to !== null) send({ type: "step", to });
    return to !== null;
  };
  back.addEventListener("click", () => stepBy("PageUp"));
  forward.addEventListener("click", () => stepBy("PageDown"));
  document.addEventListener("keydown", (event) => isPlanKey(event, document.activeElement) && stepBy(event.key) && event.preventDefault());
  // The projector's figure as it changes, so that the join address opens it; a change after a
  // reveal ends the question's view.
  // Once the figure has settled (a dragged k changes it many times a second; the channel takes ten messages a second).
  const reportShowing = settled(SETTLE_MS, () => send({ type: "showing", route: page.route, query: figure.classroom.query() }));
  page.onChange(() => {
    if (question?.revealed) closeQuestion();
    reportShowing();
  });

  return function receive(message) {
    if (message.type === "welcome") {
      plan = message.plan;
      step = message.step;
      count.textContent = `${message.students} in class`;
      question = message.question;
      guesses = message.guesses;
      if (question && !question.revealed && page.isAt(question.route, question.query)) askTogether();
      drawPlan();
      drawQuestion();
      reportShowing();
    } else if (message.type === "students") {
      count.textContent = `${message.count} in class`;
    } else if (message.type === "question") {
      question = message;
      guesses = { answered: 0, values: null };
      askTogether();
      drawQuestion();
    } else if (message.type === "guesses" && question && message.question === question.question) {
      guesses = message;
      drawQuestion();
    } else if (message.type === "revealed" && question && message.question === question.question) {
      question.revealed = true;
      figure.classroom.revealAll();
      drawQuestion();
      page.say("Revealed on every phone.", true);
    } else if (message.type === "step") {
      step = message.step;
      drawPlan();
      if (!page.isAt(message.route, message.query)) page.go(message.route, message.query, null, true);
    } else if (message.type === "refused") {
      page.say(`The server refused that (${message.code}).`);
    }
  };
}
