// The load test's scaffolding, run in every frame before its scripts: a frame named "student-N" gets a
// sessionStorage of its own (the tab's, its keys prefixed with the frame's name, which outlives the
// frame's navigations), as the phone it stands for has its own tab. Frames of one tab share its
// sessionStorage, where class.js keeps the phone's id in the class: twenty of them would be one student.
() => {
  if (window === window.top || !window.name.startsWith("student-")) return;
  const tabs = window.sessionStorage;
  const prefix = `${window.name}:`;
  const own = {
    getItem: (key) => tabs.getItem(prefix + key),
    setItem: (key, value) => tabs.setItem(prefix + key, value),
    removeItem: (key) => tabs.removeItem(prefix + key),
  };
  Object.defineProperty(window, "sessionStorage", { configurable: true, get: () => own });
};
