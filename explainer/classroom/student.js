// A student's side of the class, on a phone or a laptop: the page follows the teacher (a figure sent
// to the class, a step of the plan), predicts together when asked (the guess goes to the class, the
// teacher reveals), and is free to explore in between, with a button back to the teacher's figure.
// Nothing here names the student: the server knows the phone by a random id its sessionStorage keeps.
import { judgeGuess } from "explainer/predict";

/** What the bar says of a revealed question: each number's true value and how far the phone's guess was. */
export function revealedLines(targets, truth, guess) {
  return targets.map((target) => {
    const value = truth[target.key];
    const judged = judgeGuess(guess?.[target.key] ?? null, value);
    return `${target.label} = ${judged.text}`;
  });
}

/** What a phone says once the teacher has moved it: a step of the plan, or a figure sent. */
export function movedBy(why) {
  return why === "step" ? "The class moved on: the teacher's next figure." : "The teacher sent the class this figure.";
}

/** The guess as the bar repeats it: "P@5 0.40, R@5 0.50". */
export function guessLine(targets, guess) {
  return targets
    .filter((target) => typeof guess?.[target.key] === "number")
    .map((target) => `${target.label} ${guess[target.key].toFixed(2)}`)
    .join(", ");
}

/**
 * The student's side: `page` is the class page (class.js: its figure, its bar, navigation),
 * `send(message)` the channel's. Returns receive(message) for the server's messages.
 */
export function createStudent(page, send) {
  let classId = null;
  let question = null; // the open question: { question, route, query, targets, revealed }
  let sentGuess = null; // what this phone sent for it
  let teachers = null; // where "Back to the teacher's" goes: { route, query }

  function atQuestion() {
    return question !== null && page.isAt(question.route, question.query);
  }

  function predictTogether() {
    page.figure.setAttribute("predict", "");
    page.figure.classroom.together({
      label: "Send my guess",
      prompt: "Guess the hidden numbers, each from 0 to 1, then send your guess: the teacher reveals them.",
      needsGuess: true,
      submit: (values) => {
        if (!atQuestion()) return "The figure has changed since the teacher asked: go back to the question first.";
        sentGuess = values;
        send({ type: "guess", question: question.question, values });
        return "Sending…";
      },
    });
  }

  function showQuestion(moved) {
    if (atQuestion()) {
      predictTogether();
      page.say(sentGuess ? `Your guess: ${guessLine(question.targets, sentGuess)}. You can change it until the teacher reveals.` : "Predict the hidden numbers, then send your guess.");
      page.offer(null);
    } else if (moved) {
      page.go(question.route, question.query, "The teacher asks the class to predict: guess, then send.");
    } else {
      page.say("The teacher asked the class a question.");
      page.offer({ label: "Go to the question", route: question.route, query: question.query });
    }
  }

  function offerBack() {
    if (question && !question.revealed) return showQuestion(false);
    const away = teachers !== null && !page.isAt(teachers.route, teachers.query);
    page.offer(away ? { label: "Back to the teacher's", route: teachers.route, query: teachers.query } : null);
  }

  page.onChange(() => {
    if (question?.revealed) {
      // The reader moves on from a revealed question: the figure shows its numbers again.
      page.figure.classroom.together(null);
      page.figure.removeAttribute("predict");
      question = null;
    }
    if (question && !atQuestion()) {
      page.say("You changed the figure: your guess is for the teacher's.");
      page.offer({ label: "Back to the question", route: question.route, query: question.query });
    } else offerBack();
  });

  return function receive(message) {
    if (message.type === "welcome") {
      classId = message.class;
      const sent = message.sent;
      teachers = sent ?? message.showing;
      question = message.question && !message.question.revealed ? message.question : null;
      sentGuess = message.guess ?? null;
      // A tab new to the class has followed what came before it (the join address opened the
      // projector's figure); one that was in it follows what it missed while it moved or reconnected.
      const known = page.followed(classId) ?? { serial: sent?.serial ?? 0, question: 0 };
      page.follow(classId, known);
      if (question) {
        if (question.question > known.question) page.follow(classId, { question: question.question });
        return showQuestion(question.question > known.question);
      }
      if (sent && sent.serial > known.serial) {
        page.follow(classId, { serial: sent.serial });
        if (!page.isAt(sent.route, sent.query)) return page.go(sent.route, sent.query, movedBy(sent.why));
      }
      page.say(page.arrival ?? "You are in the class.");
      offerBack();
    } else if (message.type === "go") {
      teachers = { route: message.route, query: message.query };
      page.follow(classId, { serial: message.serial });
      if (!page.isAt(message.route, message.query)) return page.go(message.route, message.query, movedBy(message.why));
      page.say(movedBy(message.why));
      offerBack();
    } else if (message.type === "question") {
      question = message;
      sentGuess = null;
      teachers = { route: message.route, query: message.query };
      page.follow(classId, { question: message.question });
      showQuestion(true);
    } else if (message.type === "guessed") {
      if (question) page.say(`Sent: ${guessLine(question.targets, sentGuess)}. You can change it until the teacher reveals.`);
    } else if (message.type === "revealed" && question && message.question === question.question) {
      question.revealed = true;
      if (atQuestion()) page.figure.classroom.revealAll();
      page.say(revealedLines(question.targets, message.truth, sentGuess).join(" "), true);
      offerBack();
    } else if (message.type === "refused") {
      const said = { "too-fast": "Too many messages at once: wait a moment.", "question-closed": "The teacher has already revealed the numbers.", "no-such-question": "That question is over." }[message.code];
      if (said) page.say(said);
    }
  };
}
