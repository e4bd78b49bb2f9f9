// The class's pure logic (explainer/classroom/*.js): the spread of the guesses on the projector, the
// channel's messages and its reconnecting, the plan's keys, what a phone says after a reveal, and
// where a page moves to.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CLOSE, describeSpread, dotPlot, median, shareWithin } from "explainer/class-spread";
import { channelUrl, decode, encode, FINAL_CODES, reconnectDelay } from "explainer/class-channel";
import { isPlanKey, stepFor } from "explainer/class-teacher";
import { guessLine, revealedLines } from "explainer/class-student";
import { figureAddress, studentId } from "explainer/class";

test("the median of sorted guesses: the middle one, or the mean of the middle two", () => {
  assert.equal(median([]), null);
  assert.equal(median([0.3]), 0.3);
  assert.equal(median([0.1, 0.4, 0.9]), 0.4);
  assert.equal(median([0.1, 0.4, 0.6, 0.9]), (0.4 + 0.6) / 2);
});

test("the share within 0.05 of the truth counts a guess exactly 0.05 away", () => {
  assert.equal(CLOSE, 0.05);
  assert.equal(shareWithin([], 0.5), null);
  // 0.55 and 0.45 are 0.05 from 0.5 (in floating point a hair more or less): both count.
  assert.equal(shareWithin([0.45, 0.5, 0.55, 0.56, 0.1], 0.5), 3 / 5);
  assert.equal(shareWithin([0.6], 0.65), 1);
});

test("equal guesses stack in one column; guesses 0.05 apart get columns of their own", () => {
  const { dots, tallest } = dotPlot([0.4, 0.4, 0.4, 0.45, 1, 0], 20);
  assert.deepEqual(
    dots.map(({ column, row }) => [column, row]),
    [
      [8, 0],
      [8, 1],
      [8, 2],
      [9, 0],
      [20, 0],
      [0, 0],
    ],
  );
  assert.equal(tallest, 3);
  assert.deepEqual(dotPlot([], 20), { dots: [], tallest: 0 });
  // A value outside 0 to 1 (none reaches here: the server refuses them) stays on the strip.
  assert.equal(dotPlot([1.7], 20).dots[0].column, 20);
});

test("the spread in words: how many, the median and the range, then the truth and the share near it", () => {
  assert.equal(describeSpread("P@5", []), "P@5: no guesses yet.");
  assert.equal(describeSpread("P@5", [0.4]), "P@5: 1 guess, median 0.40, from 0.40 to 0.40.");
  assert.equal(
    describeSpread("AP", [0.2, 0.42, 0.48, 0.9], 0.45),
    "AP: 4 guesses, median 0.45, from 0.20 to 0.90. The true value is 0.45; 50% of the guesses were within 0.05 of it.",
  );
});

test("a message to the server carries the version; one from it is read only at that version", () => {
  assert.equal(encode({ type: "ping", n: 2 }), '{"v":1,"type":"ping","n":2}');
  assert.deepEqual(decode('{"v":1,"type":"pong","n":2}'), { v: 1, type: "pong", n: 2 });
  for (const text of ['{"v":2,"type":"pong"}', '{"type":"pong"}', '{"v":1}', "[1]", "null", "not json", '{"v":1,"type":3}']) {
    assert.equal(decode(text), null, text);
  }
});

test("a dropped channel is reopened after 1, 2, 4, 8 then 15 s, each with up to a quarter more", () => {
  const none = () => 0;
  assert.deepEqual([0, 1, 2, 3, 4, 9].map((attempt) => reconnectDelay(attempt, none)), [1000, 2000, 4000, 8000, 15000, 15000]);
  assert.equal(reconnectDelay(0, () => 0.999), Math.round(1000 * (1 + 0.999 / 4)));
  // The server refused the page itself: no point in coming back (a restart's new server, say).
  assert.ok(FINAL_CODES.has("bad-token") && !FINAL_CODES.has("token-in-use") && !FINAL_CODES.has("flooding"));
});

test("the channel's address keeps the page's prefix and scheme", () => {
  const at = (href) => channelUrl(new URL(href));
  assert.equal(at("http://192.168.1.20:5006/binary?k=3#x"), "ws://192.168.1.20:5006/channel");
  assert.equal(at("https://school.example/explainer/ndcg?k=2"), "wss://school.example/explainer/channel");
  assert.equal(at("http://localhost:5006/"), "ws://localhost:5006/channel");
});

test("the clicker steps the plan forward and back, never past its ends", () => {
  assert.equal(stepFor("PageDown", null, 3), 0); // not started: the first step
  assert.equal(stepFor("PageUp", null, 3), null);
  assert.equal(stepFor("PageDown", 0, 3), 1);
  assert.equal(stepFor("ArrowRight", 1, 3), 2);
  assert.equal(stepFor("ArrowDown", 2, 3), null);
  assert.equal(stepFor("ArrowLeft", 2, 3), 1);
  assert.equal(stepFor("ArrowUp", 0, 3), null);
  assert.equal(stepFor("Enter", 0, 3), null);
  assert.equal(stepFor("PageDown", null, 0), null);
});

test("Page Up and Down step the plan unless a text field has them; the arrows only when nothing has the focus", () => {
  const body = { tagName: "BODY" };
  globalThis.document = { body };
  const key = (name, more = {}) => ({ key: name, altKey: false, ctrlKey: false, metaKey: false, ...more });
  try {
    assert.equal(isPlanKey(key("PageDown"), body), true);
    assert.equal(isPlanKey(key("PageDown"), { tagName: "RELEVANCE-FIGURE" }), true);
    assert.equal(isPlanKey(key("PageDown"), { tagName: "INPUT" }), false);
    assert.equal(isPlanKey(key("ArrowRight"), body), true);
    assert.equal(isPlanKey(key("ArrowRight"), null), true);
    assert.equal(isPlanKey(key("ArrowRight"), { tagName: "RELEVANCE-FIGURE" }), false); // the figure's k
    assert.equal(isPlanKey(key("PageDown", { ctrlKey: true }), body), false); // the browser's tab switch
    assert.equal(isPlanKey(key("a"), body), false);
  } finally {
    delete globalThis.document;
  }
});

test("after a reveal a phone reads each true value and how far its own guess was", () => {
  const targets = [
    { key: "P@5", label: "P@5" },
    { key: "AP", label: "AP" },
  ];
  assert.deepEqual(revealedLines(targets, { "P@5": 0.6, AP: 0.45 }, { "P@5": 0.4, AP: null }), [
    "P@5 = 0.60: your guess 0.40, off by 0.20.",
    "AP = 0.45: no guess.",
  ]);
  assert.deepEqual(revealedLines(targets.slice(0, 1), { "P@5": 0.6 }, null), ["P@5 = 0.60: no guess."]);
  assert.equal(guessLine(targets, { "P@5": 0.4, AP: 0.5 }), "P@5 0.40, AP 0.50");
  assert.equal(guessLine(targets, { "P@5": null, AP: 0.5 }), "AP 0.50");
});

test("a phone's id is random, kept by its tab, and a kept id that is not one is made anew", () => {
  const kept = new Map();
  const storage = { getItem: (key) => kept.get(key) ?? null, setItem: (key, value) => kept.set(key, value) };
  const bytes = (filled) => (array) => array.fill(filled);
  const first = studentId(storage, bytes(171));
  assert.equal(first, "ab".repeat(16));
  assert.equal(studentId(storage, bytes(1)), first); // the same tab: the same id
  kept.set("explainerStudent", "<script>");
  assert.equal(studentId(storage, bytes(1)), "01".repeat(16));
  const refusing = { getItem: () => { throw new Error("denied"); }, setItem: () => { throw new Error("denied"); } };
  assert.equal(studentId(refusing, bytes(2)), "02".repeat(16)); // storage refused: an id for this page
});

test("a figure's address is relative (the prefix kept) and keeps the page's theme, and presenter view when asked", () => {
  assert.equal(figureAddress("/ndcg", "k=3", "?theme=dark&k=9"), "./ndcg?k=3&theme=dark");
  assert.equal(figureAddress("/binary", "", "?present=1"), "./binary");
  assert.equal(figureAddress("/binary", "relevant=2,3", "?present=1&theme=light", ["theme", "present"]), "./binary?relevant=2,3&theme=light&present=1");
});
