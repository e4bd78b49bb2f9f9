"""What the tests and the benchmark share: a served explainer, browserless sessions, page helpers."""
