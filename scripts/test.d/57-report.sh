#!/usr/bin/env bash
# The verifier's audit report for people (`krabka-worm-verify --report FILE.html`) in a real browser:
# Debian's Chromium renders a clean and a tampered report headless (the rendered DOM shows the verdict
# and the findings; a screenshot and a PDF of each are kept in build/test-artefacts/report/), and
# html5lib (PyPI; the WHATWG parsing algorithm, strict) validates the HTML.
set -euo pipefail
cd "$(dirname "$0")/../.."
KRABKA_TOOLS=${KRABKA_TOOLS:-$HOME/.cache/krabka-test}

if ! command -v chromium > /dev/null; then
  echo "installing chromium (Debian)"
  apt-get install -y -qq chromium > /dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq chromium > /dev/null; }
fi
venv=$KRABKA_TOOLS/venv-html
if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import html5lib' 2> /dev/null; then
  echo "installing html5lib into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check html5lib==1.1
fi
validator=$(mktemp "${TMPDIR:-/tmp}/krabka-validate.XXXXXX")
trap 'rm -f "$validator"' EXIT
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$venv/bin/python" "$PWD/tests/html/validate.py" > "$validator"
chmod +x "$validator"
artefacts=$PWD/build/test-artefacts/report
mkdir -p "$artefacts"
KRABKA_CHROMIUM=$(command -v chromium) KRABKA_HTML_VALIDATOR=$validator KRABKA_ARTEFACTS=$artefacts \
  KRABKA_REQUIRE_BROWSER=1 cargo test --workspace --locked --test report -- "$@"
echo "--- screenshots and PDFs of the reports: ${artefacts#"$PWD/"}/"
ls "$artefacts"
