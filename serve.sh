#!/usr/bin/env bash
# The one entry point a newcomer needs.
#   ./serve.sh [options]      serve the explainer on http://localhost:5006 (see --help)
#   ./serve.sh test [args]    install the test tools, lint, run the Node tests, find a Chromium, run the whole suite
#   ./serve.sh test-js [node options]   the Node tests alone (tests/js: the modules' logic, in Node 18.19+ or 20.6+)
#   ./serve.sh lint           lint only: ruff (Python) and, where Node.js is installed, ESLint
#   ./serve.sh export DIR     write the pages as self-contained HTML files
#   ./serve.sh screenshots    regenerate the README's screenshots in assets/
#   ./serve.sh picture [--chart] URL FILE [URL FILE ...]   save a figure's picture (or its chart) for slides (.png or .svg)
#   ./serve.sh bench          measure the figures in Chromium (tests/bench/bench.py)
# Everything is installed into .venv (and ESLint into tests/lint/node_modules) on first use.
set -euo pipefail
cd "$(dirname "$0")"

PYTHON=${PYTHON:-python3}
VENV=.venv
# Python keeps the bytecode of what it imports (packages are installed with --no-compile below):
# with PYTHONDONTWRITEBYTECODE set, as some machines set it, every process of a test run (each
# served explainer, each worker) compiled Panel, Bokeh and scipy from source again, 4 to 8 s each.
unset PYTHONDONTWRITEBYTECODE
# And Python buffers its standard output, as it does by default. With PYTHONUNBUFFERED set (some
# machines set it), a start-up line the server printed without flushing reached the tests at once,
# though a log file or a pipe got it only later; and the Node tests' oracles wrote their JSON a
# token at a time: 1.1 million writes for metrics_oracle.py's 4.4 MB, 2 to 4 s of system time each.
unset PYTHONUNBUFFERED

# Install the package (editable) with the named extra into .venv: pip's way. Neither installer
# compiles bytecode up front (pip's --no-compile, uv's default): Python writes it for what is
# imported, when it is first imported, and compiling every file of every package (JupyterLab's
# server, Panel's and Bokeh's trees) was a good part of the install, for files no run imports.
install_with_pip() {
  "$VENV/bin/python" -m pip install --quiet --no-compile -e ".${1:+[$1]}" >&2
}

# The same with uv, which installs the same versions in 2 to 3 s where pip takes 20 to 30 (the
# test tools into a fresh .venv, caches warm). pip installs uv into .venv first. uv does not read
# pip's configuration (pip.conf, PIP_* variables), so it is told in its own options what pip
# would use: indexes (each looked at for the best version, as pip does), find-links, constraints
# and certificates. It fails, and pip installs everything, where uv cannot be had, where it cannot
# install, or where pip's configuration holds a setting not said to uv here.
install_with_uv() {
  local options=(--index-strategy unsafe-best-match) certificates= line key value item rank
  local -A setting=() ranked=()
  # `pip config list` prints each setting as section.key='value'; a PIP_* variable's section is
  # ":env:", which wins over the files' "install", which wins over their "global" (other sections
  # are other pip commands').
  while IFS= read -r line; do
    key=${line%%=*} value=${line#*=} value=${value#\'} value=${value%\'}
    case ${key%%.*} in :env:) rank=3 ;; install) rank=2 ;; global) rank=1 ;; *) continue ;; esac
    key=${key#*.}
    if [ "${ranked[$key]:-0}" -le "$rank" ]; then setting[$key]=$value ranked[$key]=$rank; fi
  done < <("$VENV/bin/python" -m pip config list 2>/dev/null)
  for key in "${!setting[@]}"; do
    value=${setting[$key]}
    case $key in
      index-url) options+=(--index-url "$value") ;;
      extra-index-url) for item in $value; do options+=(--extra-index-url "$item"); done ;;
      find-links) for item in $value; do options+=(--find-links "$item"); done ;;
      constraint) for item in $value; do options+=(--constraint "$item"); done ;;
      cert) certificates=$value ;;
      timeout | default-timeout | disable-pip-version-check | no-cache-dir | progress-bar | quiet | verbose | \
        no-input | root-user-action | no-warn-script-location | break-system-packages) ;;
      *)
        echo "pip's configuration sets $key, which uv is not told here: pip installs the packages." >&2
        return 1
        ;;
    esac
  done
  if [ ! -x "$VENV/bin/uv" ] && ! "$VENV/bin/python" -m pip install --quiet uv >/dev/null 2>&1; then
    echo "uv could not be installed: pip installs the packages." >&2
    return 1
  fi
  # The certificates go to uv alone (SSL_CERT_FILE), not to the tests this script runs after it.
  if ! env ${certificates:+SSL_CERT_FILE="$certificates"} \
    "$VENV/bin/uv" pip install --quiet --python "$VENV/bin/python" "${options[@]}" -e ".${1:+[$1]}" >&2; then
    echo "uv could not install the packages: pip installs them." >&2
    return 1
  fi
}

# Install the package (editable) with the named extra, again only when pyproject.toml changed;
# EXPLAINER_INSTALLER=pip installs with pip alone (it takes effect then).
ensure_installed() {
  local extra=$1 stamp="$VENV/.installed-$1"
  if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
  fi
  local want
  want=$(sha256sum pyproject.toml | cut -d' ' -f1)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "Installing the explainer${extra:+ with its $extra tools} into $VENV ..." >&2
    # An editable install from pyproject.toml alone needs pip 21.3 (PEP 660); a newer venv's pip
    # has it, and asking the index for the latest pip cost every fresh clone a download.
    if ! "$VENV/bin/python" -c 'import pip, sys; sys.exit(tuple(map(int, pip.__version__.split(".")[:2])) < (21, 3))'; then
      "$VENV/bin/python" -m pip install --quiet --upgrade pip >&2 || true
    fi
    case ${EXPLAINER_INSTALLER:-uv} in
      uv) install_with_uv "$extra" || install_with_pip "$extra" ;;
      pip) install_with_pip "$extra" ;;
      *)
        echo "EXPLAINER_INSTALLER is uv (the default) or pip, not '${EXPLAINER_INSTALLER//[^[:print:]]/?}'." >&2
        exit 2
        ;;
    esac
    echo "$want" >"$stamp"
  fi
}

# Lint the tree: ruff checks and formatting for Python; ESLint for JavaScript where Node.js is.
lint() {
  if ! "$VENV/bin/ruff" check --quiet .; then
    echo "Lint failed: ruff found the problems above (.venv/bin/ruff check --fix . mends many)." >&2
    return 1
  fi
  if ! "$VENV/bin/ruff" format --check --quiet .; then
    echo "Lint failed: the files above are not formatted (.venv/bin/ruff format . formats them)." >&2
    return 1
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "Node.js is not installed: skipping ESLint, so the JavaScript is not linted." >&2
    return 0
  fi
  local stamp=tests/lint/node_modules/.installed want
  want=$(sha256sum tests/lint/package-lock.json | cut -d' ' -f1)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "Installing ESLint into tests/lint/node_modules ..." >&2
    if ! (cd tests/lint && npm ci --prefer-offline --no-audit --no-fund --loglevel=error >&2); then
      echo "Could not install ESLint (is the npm registry reachable?): skipping it, so the JavaScript is not linted." >&2
      return 0
    fi
    echo "$want" >"$stamp"
  fi
  if ! tests/lint/node_modules/.bin/eslint --config tests/lint/eslint.config.mjs explainer tests; then
    echo "Lint failed: ESLint found the problems above in the JavaScript." >&2
    return 1
  fi
}

# The Node tests (tests/js): the figure modules' pure logic under Node's own test runner, their
# `explainer/...` imports resolved by tests/js/register.mjs's hook (module.register: Node 18.19 and
# 20.6 on). Where Node or the hook is missing they are skipped, with one line saying so.
node_tests() {
  if ! command -v node >/dev/null 2>&1; then
    echo "Node.js is not installed: skipping the Node tests (tests/js), which need Node 18.19 or 20.6 and later." >&2
    return 0
  fi
  if ! node -e 'process.exit(typeof require("node:module").register === "function" ? 0 : 1)'; then
    echo "Node.js $(node --version) is too old: skipping the Node tests (tests/js), which need Node 18.19 or 20.6 and later." >&2
    return 0
  fi
  # Four files at a time where Node can (20.10 on; its default is one fewer than the cores): the
  # files whose Python oracle builds their cases wait on Python, 2 to 6 s each, and the three
  # largest (the workbench's) come last by name. On 2 cores, four at a time took 9.7 to 10.0 s
  # where two took 10.9 to 11.1 s (three runs each, in turn); six took 9.0 and 9.2 s.
  local concurrency=()
  if node --help 2>/dev/null | grep -q -- --test-concurrency; then concurrency=(--test-concurrency=4); fi
  # A folder, not a glob: node --test takes globs only from Node 21.
  if ! EXPLAINER_PYTHON="$VENV/bin/python" node --test-reporter=spec "${concurrency[@]}" "$@" --import ./tests/js/register.mjs --test tests/js/; then
    echo "The Node tests failed (tests/js): see above." >&2
    return 1
  fi
}

# Print the path of a Chromium for the browser tests, installing one if none is found.
find_chromium() {
  if [ -n "${EXPLAINER_CHROMIUM:-}" ]; then
    command -v "$EXPLAINER_CHROMIUM" || { echo "EXPLAINER_CHROMIUM=$EXPLAINER_CHROMIUM is not an executable" >&2; return 1; }
    return 0
  fi
  local name
  # Debian's chromium-headless-shell first: the same Blink and V8 without the browser's own layers,
  # it runs the browser tests a quarter faster than the full browser in its headless mode.
  for name in /usr/bin/chromium-headless-shell /usr/bin/chromium chromium-browser google-chrome; do
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
  done
  # Playwright's own build: an empty path tells the tests to let Playwright find it.
  if timeout 300 "$VENV/bin/python" -m playwright install chromium >&2; then
    echo ""
    return 0
  fi
  if [ -f /etc/debian_version ] && [ "$(id -u)" = 0 ]; then
    echo "Installing Debian's chromium-headless-shell ..." >&2
    { apt-get update -qq && apt-get install -y -qq chromium-headless-shell; } >&2
    command -v /usr/bin/chromium-headless-shell && return 0
  fi
  echo "No Chromium found: set EXPLAINER_CHROMIUM to a Chromium or Chrome executable." >&2
  return 1
}

case "${1:-}" in
  test)
    shift
    ensure_installed test
    # The slow tests' own tools (JupyterLab, MkDocs, ranx: pyproject's "slow" extra) are installed
    # only for a run that asks for slow tests (-m slow, or .ci/run's -m "slow and not alone"), not
    # for one that only leaves them out (-m "browser and not slow").
    for arg in "$@"; do
      if [[ ${arg//not slow/} == *slow* ]]; then ensure_installed slow; fi
    done
    lint
    # The whole run includes the Node tests; a run given pytest arguments (one file, -k, -m slow)
    # is a part of the suite, so it leaves them to ./serve.sh test-js and says so.
    # The whole run is shared by two pytest-xdist workers, a file each at a time (a file's module
    # servers and shared pages are made once): the browser tests mostly wait on Chromium, so two
    # workers fill two cores (three were no faster there). EXPLAINER_TEST_WORKERS=0 runs it in one.
    if [ $# -eq 0 ]; then
      node_tests
      workers=${EXPLAINER_TEST_WORKERS:-2}
      if [ "$workers" != 0 ]; then set -- --numprocesses="$workers" --dist=loadfile; fi
    else
      echo "Node tests (tests/js) not run with pytest arguments: ./serve.sh test-js runs them." >&2
    fi
    EXPLAINER_CHROMIUM=$(find_chromium)
    export EXPLAINER_CHROMIUM
    exec "$VENV/bin/python" -m pytest "$@"
    ;;
  test-js)
    # Node's options, e.g. --experimental-test-coverage or --test-name-pattern=flip.
    shift
    ensure_installed test
    node_tests "$@"
    ;;
  lint)
    ensure_installed test
    lint
    ;;
  bench)
    # The benchmark lives with the tests (it uses their server helpers and drives Chromium).
    shift
    ensure_installed test
    EXPLAINER_CHROMIUM=$(find_chromium)
    export EXPLAINER_CHROMIUM
    exec "$VENV/bin/python" tests/bench/bench.py "$@"
    ;;
  screenshots|picture)
    # Screenshots and pictures drive Chromium too, so they need the test tools.
    ensure_installed test
    EXPLAINER_CHROMIUM=$(find_chromium)
    export EXPLAINER_CHROMIUM
    exec "$VENV/bin/relevance-explainer" "$@"
    ;;
  *)
    ensure_installed ""
    exec "$VENV/bin/relevance-explainer" "$@"
    ;;
esac
