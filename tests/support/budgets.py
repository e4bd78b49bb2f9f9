"""What the exported files may weigh: goals the benchmark reports and the export tests hold."""

# Each light figure page, with explainer.js for its one figure inside it.
LIGHT_FIGURE_MAX_BYTES = 250_000
# The story, with every figure inside it.
LIGHT_STORY_MAX_BYTES = 400_000
# explainer.js, every figure, for documentation pages: the bytes a browser parses, as export writes
# them (minified, runtime.minified), before any gzip (README "The benchmark" says why).
RUNTIME_MAX_BYTES = 200_000
