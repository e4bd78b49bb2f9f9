// The metrics core for the browser: the twin of metrics.py, same names in camelCase,
// same arguments (null marks an unjudged document), same trec_eval conventions.
// A pure ES module with no DOM access, so a page and Node can import it as it is.
// The test suite checks it against metrics.py, which is checked against trec_eval.

export const GAINS = ["exponential", "linear"];

// -- validation -------------------------------------------------------------

function isInt(value) {
  return typeof value === "number" && Number.isInteger(value);
}

function show(value) {
  // JSON would write NaN and Infinity as null, which is an allowed grade: name them as they are.
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function checkK(k, name = "k") {
  if (!isInt(k) || k < 1) throw new RangeError(`${name} must be an integer >= 1, got ${show(k)}`);
  return k;
}

function checkGrades(grades, name = "grades", allowUnjudged = true) {
  if (!Array.isArray(grades)) throw new RangeError(`${name} must be an array of grades, got ${show(grades)}`);
  grades.forEach((grade, i) => {
    const ok = (grade === null && allowUnjudged) || (isInt(grade) && grade >= 0);
    if (!ok) {
      const what = "an integer >= 0" + (allowUnjudged ? " or null" : "");
      throw new RangeError(`${name}[${i}] (rank ${i + 1}) must be ${what}, got ${show(grade)}`);
    }
  });
  return grades;
}

function checkGain(gain) {
  if (!GAINS.includes(gain)) throw new RangeError(`gain must be one of ${GAINS.join(", ")}, got ${show(gain)}`);
  return gain;
}

function isRelevant(grade) {
  return grade !== null && grade >= 1;
}

function checkNRelevant(nRelevant, grades) {
  const inList = grades.filter(isRelevant).length;
  if (!isInt(nRelevant) || nRelevant < inList) {
    throw new RangeError(
      `nRelevant must be an integer >= the ${inList} relevant results in the list, got ${show(nRelevant)}`,
    );
  }
  return nRelevant;
}

// -- building blocks that the figures show ------------------------------------

/** The gain of one grade: 2^grade - 1 (exponential) or grade (linear); 0 if unjudged. */
export function gainValue(grade, gain = "exponential") {
  checkGain(gain);
  if (grade === null) return 0;
  if (!isInt(grade) || grade < 0) throw new RangeError(`grade must be an integer >= 0 or null, got ${show(grade)}`);
  return gain === "exponential" ? 2 ** grade - 1 : grade;
}

/** The position discount of a rank: 1 / log2(rank + 1). */
export function discount(rank) {
  checkK(rank, "rank");
  return 1 / Math.log2(rank + 1);
}

/** The ranks (1-based) of the relevant results, within the top k when it is given. */
export function relevantRanks(grades, k = null) {
  checkGrades(grades);
  const depth = k === null ? grades.length : Math.min(checkK(k), grades.length);
  const ranks = [];
  for (let i = 0; i < depth; i++) if (isRelevant(grades[i])) ranks.push(i + 1);
  return ranks;
}

/** The best possible order of the judged grades: high to low, unjudged left out. */
export function idealGrades(grades) {
  return checkGrades(grades).filter((g) => g !== null).sort((a, b) => b - a);
}

/** The discounted gain of each rank in the top k: gain(g_i) / log2(i + 1). */
export function dcgTerms(grades, k, gain = "exponential") {
  checkGrades(grades);
  const depth = Math.min(checkK(k), grades.length);
  checkGain(gain);
  return grades.slice(0, depth).map((g, i) => gainValue(g, gain) * discount(i + 1));
}

// -- the measures -------------------------------------------------------------

/** P@k = (relevant results in the top k) / k, also when the list is shorter than k. */
export function precisionAtK(grades, k) {
  checkK(k);
  return relevantRanks(grades, k).length / k;
}

/** R@k = (relevant results in the top k) / nRelevant; 0 when nRelevant is 0. */
export function recallAtK(grades, k, nRelevant) {
  checkGrades(grades);
  checkNRelevant(nRelevant, grades);
  const hits = relevantRanks(grades, k).length;
  return nRelevant ? hits / nRelevant : 0;
}

/** RR = 1 / (rank of the first relevant result), within the top k if given; 0 if none. */
export function reciprocalRank(grades, k = null) {
  const ranks = relevantRanks(grades, k);
  return ranks.length ? 1 / ranks[0] : 0;
}

/** Hit rate@k = 1 if any relevant result is in the top k, else 0. */
export function hitRateAtK(grades, k) {
  return relevantRanks(grades, checkK(k)).length ? 1 : 0;
}

/** The terms of AP as [hits so far, rank] pairs, one per relevant rank. */
export function averagePrecisionTerms(grades, k = null) {
  return relevantRanks(grades, k).map((rank, i) => [i + 1, rank]);
}

/** AP = (sum of P@i over each relevant rank i, i <= k if given) / nRelevant; 0 if nRelevant is 0. */
export function averagePrecision(grades, nRelevant, k = null) {
  checkGrades(grades);
  checkNRelevant(nRelevant, grades);
  const terms = averagePrecisionTerms(grades, k);
  if (nRelevant === 0) return 0;
  let sum = 0;
  for (const [hits, rank] of terms) sum += hits / rank;
  return sum / nRelevant;
}

/** DCG@k = sum over ranks i <= min(k, len) of gain(g_i) / log2(i + 1). */
export function dcgAtK(grades, k, gain = "exponential") {
  let sum = 0;
  for (const term of dcgTerms(grades, k, gain)) sum += term;
  return sum;
}

/**
 * NDCG@k = DCG@k / ideal DCG@k; 0 when the ideal is 0. The ideal sorts `judged`
 * (every judged document's grade, the list's included) or, without it, the list's own grades.
 */
export function ndcgAtK(grades, k, gain = "exponential", judged = null) {
  checkGrades(grades);
  checkK(k);
  checkGain(gain);
  let ideal;
  if (judged === null) {
    ideal = idealGrades(grades);
  } else {
    ideal = [...checkGrades(judged, "judged", false)].sort((a, b) => b - a);
    const left = [...ideal];
    const missing = [];
    for (const g of grades) {
      if (g === null) continue;
      const at = left.indexOf(g);
      if (at >= 0) left.splice(at, 1);
      else missing.push(g);
    }
    if (missing.length) {
      throw new RangeError(
        `judged must include the grades of the judged results in the list; it lacks ${show(missing)}, got ${show(judged)}`,
      );
    }
  }
  const best = dcgAtK(ideal, k, gain);
  return best ? dcgAtK(grades, k, gain) / best : 0;
}

function mean(values) {
  let sum = 0;
  for (const v of values) sum += v;
  return values.length ? sum / values.length : 0;
}

/** The middle of the values (the mean of the two middle ones for an even count); 0 for none. */
export function median(values) {
  if (!Array.isArray(values)) throw new RangeError(`values must be an array of numbers, got ${show(values)}`);
  const ordered = [...values].sort((a, b) => a - b);
  if (!ordered.length) return 0;
  const middle = Math.floor(ordered.length / 2);
  return ordered.length % 2 ? ordered[middle] : (ordered[middle - 1] + ordered[middle]) / 2;
}

function checkRankings(rankings) {
  if (!Array.isArray(rankings)) throw new RangeError(`rankings must be an array of grade arrays, got ${show(rankings)}`);
  return rankings;
}

/** MRR = the mean of the reciprocal ranks of several queries' rankings; 0 for no queries. */
export function meanReciprocalRank(rankings) {
  return mean(checkRankings(rankings).map((r) => reciprocalRank(r)));
}

/** MAP = the mean of the average precisions of several queries; 0 for no queries. */
export function meanAveragePrecision(rankings, nRelevants) {
  checkRankings(rankings);
  if (!Array.isArray(nRelevants)) throw new RangeError(`nRelevants must be an array of integers, got ${show(nRelevants)}`);
  if (nRelevants.length !== rankings.length) {
    throw new RangeError(`nRelevants must have one count per ranking (${rankings.length}), got ${nRelevants.length}`);
  }
  return mean(rankings.map((r, q) => averagePrecision(r, nRelevants[q])));
}

// -- how numbers are written ----------------------------------------------------

/** Write a metric with fixed digits, halves rounded up (the rule metrics.py's formatNumber copies). */
export function formatNumber(value, digits = 2) {
  return value.toFixed(digits);
}
