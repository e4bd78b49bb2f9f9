// The Python oracles: a script in tests/js/ run by the project's Python, whose JSON answer a test
// checks the JavaScript against (metrics.py for metrics.js, pytrec_eval for the workbench's values).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The Python with the explainer and its test tools: EXPLAINER_PYTHON (./serve.sh sets it), else .venv's. */
function python() {
  if (process.env.EXPLAINER_PYTHON) return process.env.EXPLAINER_PYTHON;
  const venv = `${ROOT}.venv/bin/python`;
  if (existsSync(venv)) return venv;
  throw new Error("No Python with the explainer: run ./serve.sh test-js (it installs .venv) or set EXPLAINER_PYTHON.");
}

/** The JSON a Python oracle script (a file name in tests/js/) prints. */
export function oracle(script) {
  const text = execFileSync(python(), [fileURLToPath(new URL(script, import.meta.url))], {
    cwd: ROOT,
    // This tree's explainer, not the one an editable install points at (another worktree's, say):
    // a script's own folder, not the working directory, heads Python's path.
    env: { ...process.env, PYTHONPATH: [ROOT, process.env.PYTHONPATH].filter(Boolean).join(delimiter) },
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return JSON.parse(text);
}
