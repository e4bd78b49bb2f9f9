// The class's script: on a server that holds a class, every served page runs it after explainer.js
// (explainer/classroom/script.py). It opens the page's class channel (class-channel) and, as the
// server says, acts as the teacher's page (class-teacher: the projector) or a student's
// (class-student). This module holds the page's side both use: its figure, where it is, moving to
// another figure, the class bar (a line of news and one button), and the projector's panel.
import { channelUrl, connect } from "explainer/class-channel";
import { h } from "explainer/dom";
import { createStudent } from "explainer/class-student";
import { createTeacher } from "explainer/class-teacher";

const STUDENT_KEY = "explainerStudent"; // sessionStorage: this phone's random id in the class
const NOTICE_KEY = "explainerClassNotice"; // sessionStorage: news to show once the next page opens
const FOLDED_KEY = "explainerClassBarFolded"; // sessionStorage: the teacher folded the bar away
const FOLLOWED_KEY = "explainerClassFollowed"; // sessionStorage: { class, serial, question } this tab has followed

/** This phone's id in the class: random, kept by the tab (sessionStorage), so a reload keeps its guess. */
export function studentId(storage, random = (bytes) => crypto.getRandomValues(bytes)) {
  let id = null;
  try {
    id = storage.getItem(STUDENT_KEY);
  } catch {
    // storage refused (a private window's quirks): a new id for this page
  }
  if (!id || !/^[A-Za-z0-9_-]{8,64}$/.test(id)) {
    id = Array.from(random(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
    try {
      storage.setItem(STUDENT_KEY, id);
    } catch {
      // as above
    }
  }
  return id;
}

/** The address of a figure in a state, relative to this page (its prefix kept), with the page keys of `search` that should stay (the theme, presenter view). */
export function figureAddress(route, query, search, keep = ["theme"]) {
  const params = new URLSearchParams(query);
  const own = new URLSearchParams(search);
  for (const key of keep) if (own.has(key)) params.set(key, own.get(key));
  const text = params.toString().replace(/%2C/g, ",");
  return `.${route}${text ? `?${text}` : ""}`;
}

/** The button that folds the teacher's bar into a corner of the screen and back; the tab remembers which. */
function foldButton(bar) {
  const fold = h("button", "class-button class-fold");
  fold.type = "button";
  const set = (folded) => {
    bar.classList.toggle("is-folded", folded);
    fold.textContent = folded ? "▴" : "▾";
    fold.setAttribute("aria-expanded", String(!folded));
    fold.setAttribute("aria-label", folded ? "Show the class's controls" : "Fold the class's controls into the corner");
    fold.title = fold.getAttribute("aria-label");
    try {
      if (folded) storage().setItem(FOLDED_KEY, "1");
      else storage().removeItem(FOLDED_KEY);
    } catch {
      // not remembered, then
    }
  };
  fold.addEventListener("click", () => set(!bar.classList.contains("is-folded")));
  let folded = false;
  try {
    folded = storage().getItem(FOLDED_KEY) === "1";
  } catch {
    // unfolded
  }
  set(folded);
  return fold;
}

/** The class's page: its parts and what the teacher's and the student's sides use of them. */
function classPage(css, route) {
  const style = document.createElement("style");
  style.textContent = css;
  document.head.append(style);
  const figures = document.querySelectorAll("relevance-figure[standalone]");
  const figure = figures.length === 1 ? figures[0] : null;
  const bar = h("div", "class-bar");
  bar.setAttribute("role", "region");
  bar.setAttribute("aria-label", "The class");
  const controls = h("div", "class-controls");
  const news = h("p", "class-news");
  news.setAttribute("aria-live", "polite");
  const action = h("button", "class-action");
  action.type = "button";
  action.hidden = true;
  bar.append(controls, news, action);
  document.body.append(bar);
  document.body.classList.add("in-class");
  let offered = null;
  action.addEventListener("click", () => offered && page.go(offered.route, offered.query, null));
  const changes = [];
  figure?.addEventListener("statechange", () => changes.forEach((change) => change()));

  const page = {
    figure,
    route,
    arrival: null,
    isAt: (atRoute, query) => figure !== null && atRoute === route && figure.classroom?.query() === figure.classroom?.canonical(query),
    /** Open another figure (or this one in another state); `news` is shown once it is open. */
    go(atRoute, query, said, present = false) {
      try {
        if (said) storage().setItem(NOTICE_KEY, said);
      } catch {
        // no notice, then
      }
      const keep = present ? ["theme", "present"] : ["theme"];
      window.location.assign(figureAddress(atRoute, query, window.location.search, keep));
    },
    /** A line of news in the bar (`loud`: said at once to a screen reader, as the numbers revealed). */
    say(text, loud = false) {
      news.textContent = text;
      news.setAttribute("aria-live", loud ? "assertive" : "polite");
    },
    /** The bar's one button: { label, route, query } to offer, or null for none. */
    offer(what) {
      offered = what;
      action.hidden = what === null;
      if (what) action.textContent = what.label;
    },
    onChange: (change) => changes.push(change),
    /** What this tab has followed of the class `id` ({ serial, question }), or null for a class it was not in. */
    followed(id) {
      try {
        const kept = JSON.parse(storage().getItem(FOLLOWED_KEY) ?? "null");
        return kept?.class === id ? kept : null;
      } catch {
        return null;
      }
    },
    /** Note that this tab has followed `what` ({ serial } of a move, { question } of a question) of the class `id`. */
    follow(id, what) {
      try {
        storage().setItem(FOLLOWED_KEY, JSON.stringify({ serial: 0, question: 0, ...page.followed(id), ...what, class: id }));
      } catch {
        // not remembered: a reload may move the page again
      }
    },
    /** The teacher's buttons, first in the bar, and a button that folds the bar into a corner (to see the whole figure). */
    controls(...nodes) {
      controls.append(...nodes);
      bar.append(foldButton(bar));
    },
    /** The projector's panel of the class's guesses: { body, show(), hide() }; its Close calls `onClose`. */
    panel(onClose) {
      const box = h("section", "class-panel");
      box.setAttribute("aria-label", "The class's guesses");
      const close = h("button", "class-close", "Close");
      close.type = "button";
      const body = h("div", "class-panel-body");
      box.append(close, body);
      box.hidden = true;
      close.addEventListener("click", onClose);
      document.body.append(box);
      return { body, show: () => (box.hidden = false), hide: () => (box.hidden = true) };
    },
  };
  try {
    page.arrival = storage().getItem(NOTICE_KEY); // why this page was opened (the teacher moved the class)
    storage().removeItem(NOTICE_KEY);
    if (page.arrival) page.say(page.arrival, true);
  } catch {
    // no notice
  }
  return page;
}

/** The tab's sessionStorage, or a stand-in that keeps nothing where a framed page may not have it. */
function storage() {
  try {
    return window.sessionStorage;
  } catch {
    return { getItem: () => null, setItem: () => {}, removeItem: () => {} };
  }
}

/** Join the class: `config` is { token, route (this page's: "/binary", "/" for the story), css } (script.py). */
export function startClass(config) {
  const page = classPage(config.css, config.route);
  const student = studentId(storage());
  let side = null;
  const channel = connect({
    url: channelUrl(window.location),
    token: config.token,
    student,
    receive(message) {
      if (message.type === "welcome" && side === null) {
        const teacher = message.role === "teacher" && page.figure !== null;
        side = teacher ? createTeacher(page, channel.send) : createStudent(page, channel.send);
        document.body.classList.toggle("class-teacher", teacher);
        document.body.classList.add("class-joined");
      }
      side?.(message);
    },
    status(state) {
      if (state === "lost") page.say("Lost the class's connection: trying again…");
      if (state === "closed") page.say("The class has ended. This page still works on its own.", true);
    },
  });
}
