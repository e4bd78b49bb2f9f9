// A resolve hook: the modules' bare names (`explainer/shell`) to their files, as the pages' import map
// does. modules.json is the map; tests/test_node.py checks that it is the project's own.
import { readFileSync } from "node:fs";

const ROOT = new URL("../../", import.meta.url);
const PACKAGE = new URL("explainer/", ROOT).href;
const MODULES = JSON.parse(readFileSync(new URL("./modules.json", import.meta.url), "utf8"));

export async function resolve(specifier, context, nextResolve) {
  if (Object.hasOwn(MODULES, specifier)) {
    return { url: new URL(MODULES[specifier], ROOT).href, format: "module", shortCircuit: true };
  }
  const resolved = await nextResolve(specifier, context);
  // The package has no package.json saying its .js files are ES modules (a page is told so by its
  // <script type="module">): say it here, for Node 18 and 20, which would read them as CommonJS.
  if (resolved.url.startsWith(PACKAGE) && resolved.url.endsWith(".js")) return { ...resolved, format: "module" };
  return resolved;
}
