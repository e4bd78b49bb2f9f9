"""The ids the page shows, escaped by Python's escaping.py, which the command line prints with."""

import json

from explainer.evaluation.escaping import escaped

CASES = [
    "g044",
    "\x1b[32mSHIPS\x1b[0m",
    "doc\u202eabc",
    "a\u2066b\u2069c\u200fd\u061c",
    "tab\there\nnew\x7f\x85",
    "line\u2028para\u2029",
    "bytes\udc80\udcff",
    "emoji \U0001f480 stays",
    "caf\u00e9 \u05e9\u05dc\u05d5\u05dd",
]

print(json.dumps([{"text": text, "escaped": escaped(text)} for text in CASES]))
