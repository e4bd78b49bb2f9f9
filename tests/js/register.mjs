// Loads the explainer's modules in Node as a page loads them: `node --import ./tests/js/register.mjs --test tests/js/`.
import { register } from "node:module";

register("./resolve.mjs", import.meta.url);
