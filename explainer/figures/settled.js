// A debounce: one call, with the last value, once calls have stopped coming.

/**
 * A function that calls `run` with the last value it was given, once `delay` ms have passed
 * without another: a debounce with one timer per quiet spell, which it re-arms for the time left,
 * instead of clearing a timer and setting a new one on every call (a click's two debounces cost
 * more than its arithmetic).
 */
export function settled(delay, run) {
  let timer = 0;
  let due = 0;
  let latest;
  const fire = () => {
    const left = due - performance.now();
    if (left > 0) {
      timer = setTimeout(fire, left);
      return;
    }
    timer = 0;
    run(latest);
  };
  return (value) => {
    latest = value;
    due = performance.now() + delay;
    if (!timer) timer = setTimeout(fire, delay);
  };
}
