// The model a figure module expects, without Panel: for the <relevance-figure> tag and the workbench's figures.

/**
 * A model as Panel gives a figure module: the view's properties (`values`, which it keeps),
 * on(name or names, callback) for changes that come from elsewhere, and writes.
 * `onWrite(key, value, previous)` hears each write the figure makes; `receive(key, value)` sets a
 * property from elsewhere (Python, on a served page or in the workbench) and tells the figure's
 * listeners, as Panel does, with no onWrite. A click's write costs no more than storing a value.
 * Reading a property the view does not have throws, naming it: a module that works in Panel
 * only by luck of an undefined must fail here, loudly, not draw half a figure.
 * `send_msg(message)`, Panel's message to Python, goes to `onMessage(message)`; with no Python
 * (the tag, a saved workbench) there is none to hear it and the page does its own work.
 * `who` names the figure in those messages. Returns { model, receive(key, value) }.
 */
export function createModel(who, values, onWrite, onMessage = () => {}) {
  const listeners = [];
  const target = {
    send_msg: (message) => onMessage(message),
    on(keys, callback) {
      for (const key of [keys].flat()) {
        // Panel also sends lifecycle events (after_render, remove, msg:custom...); no figure uses them,
        // and a tag that never sent one would leave a figure waiting in silence.
        if (!Object.hasOwn(values, key)) throw new Error(`${who}: the figure listens for model "${key}", which the tag does not send`);
        listeners.push([key, callback]);
      }
    },
  };
  for (const key of Object.keys(values)) {
    Object.defineProperty(target, key, {
      enumerable: true,
      get: () => values[key],
      set: (value) => {
        const previous = values[key];
        values[key] = value;
        onWrite(key, value, previous);
      },
    });
  }
  const model = new Proxy(target, {
    get(object, key) {
      if (typeof key === "symbol" || key in object) return object[key];
      throw new Error(`${who}: the figure read model.${key}, which its view does not have`);
    },
    set(object, key, value) {
      if (!(key in values)) throw new Error(`${who}: the figure wrote model.${String(key)}, which its view does not have`);
      object[key] = value;
      return true;
    },
  });
  return {
    model,
    receive(key, value) {
      values[key] = value;
      for (const [listened, callback] of listeners) if (listened === key) callback();
    },
  };
}
