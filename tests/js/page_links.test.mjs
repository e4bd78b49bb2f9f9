// What a teacher's link keeps (figures/page_url.js, theme.js, undo.js, shell.js's figureLink): the
// query a page opened with, kept in its history entry through reloads; the theme in the story's
// links to each figure; the host page's theme a tag with theme="auto" takes; Undo's history.
import assert from "node:assert/strict";
import { test } from "node:test";
import { openingQuery, withOpening } from "explainer/page-url";
import { hostTheme, themeOfQuery } from "explainer/theme";
import { createHistory } from "explainer/undo";
import { figureLink } from "explainer/shell";

test("a page opened from a link keeps that link as its opening, and a reload finds it in the history entry", () => {
  const teacher = "?relevant=1,4&missed=0&k=3";
  // First load: nothing kept yet, so the address's own query is the opening.
  assert.equal(openingQuery(null, teacher), teacher);
  const kept = withOpening(null, teacher);
  // The reader clicks: the address changes, the entry keeps the opening; a reload reads it back.
  assert.equal(openingQuery(kept, "?relevant=1,2,4&missed=0&k=3"), teacher);
  // What other code keeps in the entry stays; an entry's odd state is not mistaken for one.
  assert.deepEqual(withOpening({ scroll: 40 }, teacher), { scroll: 40, explainerOpened: teacher });
  assert.equal(openingQuery({ explainerOpened: 7 }, "?k=2"), "?k=2");
  assert.equal(openingQuery("text", "?k=2"), "?k=2");
  // An empty opening (the article's example) is an opening too.
  assert.equal(openingQuery(withOpening(null, ""), "?k=9"), "");
});

test("the story's links to a figure carry its state and the page's theme, the presenter link present=1 too", () => {
  const pairs = [["relevant", "2,3"], ["missed", "1"], ["k", "4"]];
  assert.equal(figureLink("binary.html", pairs, "?theme=dark"), "binary.html?relevant=2,3&missed=1&k=4&theme=dark");
  assert.equal(figureLink("binary", pairs, "?theme=dark", true), "binary?relevant=2,3&missed=1&k=4&theme=dark&present=1");
  // No theme on the story's address (or auto): the figure's page follows the system as the story does.
  assert.equal(figureLink("binary", pairs, "", true), "binary?relevant=2,3&missed=1&k=4&present=1");
  assert.equal(figureLink("binary", pairs, "?theme=auto"), "binary?relevant=2,3&missed=1&k=4");
});

test("a link's theme is light or dark, and anything else is auto", () => {
  assert.equal(themeOfQuery("?theme=dark"), "dark");
  assert.equal(themeOfQuery("?k=2&theme=light"), "light");
  for (const search of ["", "?theme=auto", "?theme=purple", "?theme=Dark"]) assert.equal(themeOfQuery(search), null, search);
});

test("theme=auto takes furo's data-theme, else a color-scheme naming one scheme, else the system (null)", () => {
  assert.equal(hostTheme({ dataTheme: "dark", colorScheme: "light" }), "dark"); // furo's switch comes first
  assert.equal(hostTheme({ dataTheme: "light", colorScheme: "dark" }), "light");
  assert.equal(hostTheme({ dataTheme: "auto", colorScheme: "normal" }), null); // furo's auto: the system's
  assert.equal(hostTheme({ dataTheme: undefined, colorScheme: "dark" }), "dark");
  assert.equal(hostTheme({ dataTheme: undefined, colorScheme: "only light" }), "light");
  assert.equal(hostTheme({ dataTheme: undefined, colorScheme: "light dark" }), null);
  assert.equal(hostTheme({ dataTheme: undefined, colorScheme: "normal" }), null);
  assert.equal(hostTheme({}), null);
});

test("Undo's history gives back the states before each change, newest first, and forgets the oldest past its size", () => {
  const history = createHistory(3);
  const states = [{ k: 1 }, { k: 2 }, { k: 3 }, { k: 4 }];
  for (const state of states) history.push(state);
  history.push(states[3]); // the same state twice in a row (a change that changed nothing) is one step
  assert.equal(history.size, 3);
  assert.equal(history.pop(), states[3]);
  assert.equal(history.pop(), states[2]);
  assert.equal(history.pop(), states[1]);
  assert.equal(history.pop(), undefined);
  history.push(states[0]);
  history.clear();
  assert.equal(history.size, 0);
});
