// The model stand-in (figures/model.js): what a figure module may read, write and send without Panel.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createModel } from "explainer/model";

test("a figure's writes reach onWrite with the value before", () => {
  const heard = [];
  const { model } = createModel("fig", { state: { k: 1 } }, (key, value, previous) => heard.push([key, value, previous]));
  model.state = { k: 2 };
  assert.deepEqual(heard, [["state", { k: 2 }, { k: 1 }]]);
  assert.deepEqual(model.state, { k: 2 });
});

test("reading or writing a property the view does not have throws, naming it", () => {
  const { model } = createModel("fig", { state: {} }, () => {});
  assert.throws(() => model.table, /fig: the figure read model\.table/);
  assert.throws(() => {
    model.table = 1;
  }, /fig: the figure wrote model\.table/);
});

test("send_msg goes to onMessage, and with none given it is dropped without an error", () => {
  const sent = [];
  const { model } = createModel("fig", { state: {} }, () => {}, (message) => sent.push(message));
  model.send_msg({ type: "judge", qid: "q1" });
  assert.deepEqual(sent, [{ type: "judge", qid: "q1" }]);
  const alone = createModel("fig", { state: {} }, () => {}).model;
  assert.doesNotThrow(() => alone.send_msg({ type: "undo", qid: "q1" }));
});

test("receive sets a property from elsewhere and tells its listeners, without onWrite", () => {
  const writes = [];
  const { model, receive } = createModel("fig", { state: 1 }, () => writes.push("write"));
  let told = 0;
  model.on("state", () => (told += 1));
  receive("state", 2);
  assert.equal(model.state, 2);
  assert.equal(told, 1);
  assert.deepEqual(writes, []);
});
