// Every element matching a selector, in the page and in every shadow root below `root`.
(selector, root = document) => {
  const found = [];
  const walk = (node) => {
    found.push(...node.querySelectorAll(selector));
    for (const el of node.querySelectorAll("*")) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(root);
  return found;
};
