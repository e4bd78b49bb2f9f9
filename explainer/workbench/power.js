// How many queries the gate's test needs to find a difference the reader sets. Pure: no DOM.
//
// Python sends, with each gate measure's effect (data._effects: the difference, d_z, the standard
// deviation of the per-query differences, the power's alpha and sides), a table of the paired
// t-test's minimum detectable effect in standard deviations for query counts n
// (significance.detectable_effects: every n from 2 to 2,000, then about one every 1% to a
// million). The effect falls as n grows, so the queries a difference needs are the first n
// whose minimum detectable effect is at most that difference over the standard deviation:
// exact where the table has every count, a range between two counts beyond.

/**
 * The queries the gate's test needs to find a true `difference` (in the measure's units) as often
 * as its power (80%), with differences as spread as this set's.
 *
 * `effect`: an entry of a comparison's `effects`; `tables`: the page table's `detectable`.
 * Returns `{ fewest, most }` (the same count when exact; else the answer is between them), or
 * `{ beyond }` (more than the table's largest count), or `{ problem }`: a sentence saying why
 * there is no answer (no spread to measure power by, or a difference not past H0's).
 */
export function queriesNeeded(effect, difference, tables) {
  const table = tables?.[effect.detectable];
  if (!table) return { problem: "Power needs at least two queries whose differences are not all the same." };
  if (!Number.isFinite(difference)) return { problem: "Type a difference, in the measure's units." };
  const twoSided = effect.alternative === "two-sided";
  const { shift } = effect.power; // H0's difference
  const past = twoSided ? Math.abs(difference) : difference - shift;
  if (!(past > 0)) {
    return { problem: twoSided ? "Type a difference other than 0." : `Type a difference above ${shift}, H0's.` };
  }
  const wanted = past / effect.sd_of_differences;
  const { n, effect: smallest } = table;
  if (smallest[smallest.length - 1] > wanted) return { beyond: n[n.length - 1] };
  let low = 0;
  let high = n.length - 1; // smallest[high] <= wanted: find the first such index
  while (low < high) {
    const middle = (low + high) >> 1;
    if (smallest[middle] <= wanted) high = middle;
    else low = middle + 1;
  }
  return { fewest: high === 0 || n[high - 1] === n[high] - 1 ? n[high] : n[high - 1] + 1, most: n[high] };
}
