// Uploads from the workbench's page: files dropped or picked, sent to upload.py in pieces.
import { h } from "explainer/dom";

const SLOTS = [
  ["qrels", "Judgments (qrels)", "qid iter docid grade"],
  ["baseline", "Run: the baseline", "qid Q0 docid rank score tag"],
  ["candidate", "Runs: the candidates (optional, several at once)", "the same, for other systems or settings"],
  ["topics", "Query texts (optional)", "qid, a tab, the text"],
  ["documents", "Document titles (optional)", "docid, a tab, the title"],
];

export function createUpload(model, statusBox) {
  const limits = model.upload_limits;
  const el = h("details", "wb-upload");
  const summaryLine = h("summary", "", "Use your own files");
  const mb = (bytes) => `${(bytes / 2 ** 20).toLocaleString("en")} MB`;
  const note = h(
    "p",
    "wb-note",
    `Files stay in this page's session on the server, for you alone, until you close the page; nothing is written to disk. Each file at most ${mb(limits.max_file_bytes)} (gzipped files are fine, up to ${mb(limits.max_unpacked_bytes)} unpacked); at most ${limits.max_runs} runs. A candidate sent again under its file's name takes its own place.`,
  );
  el.append(summaryLine, note);
  for (const [slot, label, format] of SLOTS) {
    const zone = h("label", "wb-drop");
    zone.dataset.slot = slot;
    const input = h("input");
    input.type = "file";
    input.className = "wb-file";
    input.multiple = slot === "candidate";
    zone.append(h("span", "wb-drop-label", label), h("span", "wb-drop-format", format), input);
    zone.append(h("span", "wb-drop-hint", input.multiple ? "Drop files here, or choose them" : "Drop a file here, or choose one"));
    input.addEventListener("change", () => sendAll(slot, input.files));
    zone.addEventListener("dragover", (event) => {
      event.preventDefault();
      zone.classList.add("is-over");
    });
    zone.addEventListener("dragleave", () => zone.classList.remove("is-over"));
    zone.addEventListener("drop", (event) => {
      event.preventDefault();
      zone.classList.remove("is-over");
      sendAll(slot, event.dataTransfer?.files);
    });
    el.append(zone);
  }

  // A file goes in pieces, each sent when the server has the one before: the page shows how far
  // it is, and no message is larger than upload_limits.chunk_bytes of the file. The server answers
  // its end once it has read the file; files chosen meanwhile wait their turn (qrels and a run may
  // be dropped back to back), as the server takes one file at a time from a page.
  let queue = Promise.resolve();
  // Several candidates go in the order of their names (weight=0.25 before weight=1); each but the
  // last says more follow, so that the server evaluates the runs once, with the last.
  function sendAll(slot, fileList) {
    const files = [...(fileList ?? [])].slice(0, slot === "candidate" ? limits.max_runs : 1);
    files.sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
    files.forEach((file, i) => {
      queue = queue.then(() => sendNow(slot, file, i < files.length - 1));
    });
  }

  async function sendNow(slot, file, more) {
    if (file.size > limits.max_file_bytes) {
      statusBox.show({ kind: "error", lines: [`${file.name}: ${mb(file.size)} is more than the ${mb(limits.max_file_bytes)} a file may have here. Evaluate it from the command line: relevance-explainer evaluate … --serve.`] });
      return;
    }
    const chunk = limits.chunk_bytes;
    const pieces = Math.max(1, Math.ceil(file.size / chunk));
    try {
      await request({ type: "start", slot, name: file.name.slice(0, 200), size: file.size, pieces });
      for (let i = 0; i < pieces; i++) {
        const bytes = new Uint8Array(await file.slice(i * chunk, (i + 1) * chunk).arrayBuffer());
        statusBox.show({ kind: "busy", lines: [`Sending ${file.name}…`], done: i, total: pieces });
        await request({ type: "chunk", slot, index: i, data: toBase64(bytes) });
      }
    } catch (error) {
      statusBox.show({ kind: "error", lines: [`${file.name} did not arrive: ${error.message}`] });
      return;
    }
    // What the server made of the file, each bad line named, is in its status; the answer only says it is done.
    await request({ type: "end", slot, more }).catch(() => {});
  }

  // One message, then wait for the server's answer to it.
  let waiting = null;
  model.on("msg:custom", (msg) => {
    if (!waiting || !msg.upload) return;
    const { resolve, reject } = waiting;
    waiting = null;
    if (msg.ok) resolve();
    else reject(new Error(msg.error ?? "the server refused it"));
  });
  function request(msg) {
    return new Promise((resolve, reject) => {
      waiting = { resolve, reject };
      model.send_msg(msg);
    });
  }
  return { el };
}

function toBase64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}
