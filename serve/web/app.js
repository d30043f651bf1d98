// fathom-ray's page: start research, watch it live, read and download the cited report.
// Everything a page or a model wrote is untrusted: it goes into the DOM as text (textContent), links
// only when they are http(s), opened with rel="noopener noreferrer"; the report's HTML is the API's
// own rendering (raw HTML and images off). The token, when the API needs one, stays in this tab's
// sessionStorage and travels only as the Authorization header.

const ROOT = document.documentElement.dataset.root || "";
const TOKEN_KEY = "fathom-token";
const RECONNECTS = 6;
const $ = (id) => document.getElementById(id);
let routed = location.pathname; // the view's path: a popstate that keeps it is an in-page #anchor
const PANELS = ["token-panel", "start-panel", "session-panel", "history-panel", "documents-panel", "operations-panel"];

function token() { return sessionStorage.getItem(TOKEN_KEY); }

async function api(path, options = {}) {
  const headers = new Headers(options.headers || {});
  if (token()) headers.set("Authorization", `Bearer ${token()}`);
  const response = await fetch(`${ROOT}${path}`, { ...options, headers });
  if (response.status === 401) {
    showOnly("token-panel");
    throw new Error("the API needs a valid token");
  }
  return response;
}

async function detail(response) {
  try {
    const body = await response.json();
    return typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail ?? body);
  } catch { return `HTTP ${response.status}`; }
}

function showOnly(id) {
  for (const panel of PANELS) $(panel).hidden = panel !== id;
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function webLink(url, text) {
  let parsed = null;
  try { parsed = new URL(url); } catch { parsed = null; }
  if (!parsed || !["http:", "https:"].includes(parsed.protocol)) return el("span", text ?? url);
  const a = el("a", text ?? url);
  a.href = parsed.href;
  a.rel = "noopener noreferrer";
  a.target = "_blank";
  return a;
}

// An element id from a fact id or a number, as the API's report links to it (report_html.anchor).
function anchorKey(key) { return String(key).replace(/[^A-Za-z0-9_-]/g, "-"); }

// --- the live view ------------------------------------------------------------------------------

class SessionView {
  constructor(id) {
    this.id = id;
    this.pages = new Map();
    this.finished = false;
    for (const list of ["s-answers", "s-answer-sources", "s-checklist", "s-pages", "s-facts", "s-agents", "s-report", "s-downloads"]) $(list).replaceChildren();
    $("s-answer-box").hidden = true;
    $("s-agents-box").hidden = true;
    $("s-report-box").hidden = true;
    $("s-goal").textContent = id;
    $("stop").disabled = false;
    this.status("connecting");
  }

  status(text) { $("s-status").textContent = text; }

  checklist(items) {
    $("s-checklist").replaceChildren(...items.map((item) => {
      const li = el("li", item.question, item.satisfied ? "done" : "open");
      li.setAttribute("aria-label", `${item.satisfied ? "answered" : "open"}: ${item.question}`);
      return li;
    }));
  }

  // The answer lines at the top: each item's answer with [n] links to its source page (and, in the
  // link's title, the fact's evidence), the other value where sources disagree, or "not found".
  answers(answers, facts) {
    if (!answers || !answers.length) return;
    const byId = new Map((facts || []).map((fact) => [fact.id, fact]));
    const numbers = new Map();
    const cite = (ids, li) => {
      for (const id of ids || []) {
        const fact = byId.get(id);
        if (!fact) continue;
        if (!numbers.has(fact.source_url)) numbers.set(fact.source_url, numbers.size + 1);
        const a = webLink(fact.source_url, `[${numbers.get(fact.source_url)}]`);
        a.classList.add("cite");
        a.title = `${id}: ${fact.evidence || fact.claim}`;
        a.setAttribute("aria-label", `source ${numbers.get(fact.source_url)} (${id})`);
        li.append(a);
      }
      const known = (ids || []).filter((id) => byId.has(id));
      if (!known.length) return;
      li.append(document.createTextNode(" ("));
      known.forEach((id, k) => { // each fact id a link to its evidence among the facts below
        const a = el("a", id, "fact-ref");
        a.href = `#fact-${anchorKey(id)}`;
        a.setAttribute("aria-label", `evidence of ${id}`);
        li.append(a, document.createTextNode(k + 1 < known.length ? ", " : ")"));
      });
    };
    $("s-answers").replaceChildren(...answers.map((answer) => {
      const li = el("li");
      li.dataset.status = answer.status;
      li.append(el("span", answer.question, "question"));
      if (answer.status === "not_found") {
        li.append(el("span", `not found in ${answer.pages_read ?? 0} pages read`, "not-found"));
        return li;
      }
      li.append(el("span", answer.answer, "value"));
      cite(answer.fact_ids, li);
      if (answer.status === "conflicting") {
        li.append(el("span", `; other sources say ${answer.other_answer}`, "other"));
        cite(answer.other_fact_ids, li);
      }
      return li;
    }));
    const sources = [...numbers].flatMap(([url, n]) => [document.createTextNode(` [${n}] `), webLink(url)]);
    $("s-answer-sources").replaceChildren(...sources);
    $("s-answer-box").hidden = false;
  }

  page(url, outcome, failed = false) {
    let li = this.pages.get(url);
    if (!li) {
      li = el("li");
      this.pages.set(url, li);
      $("s-pages").append(li);
    }
    li.className = failed ? "failed" : "";
    li.replaceChildren(webLink(url), document.createTextNode(" "), el("span", outcome, "outcome"));
  }

  fact(fact, url, agent) {
    const li = el("li");
    if (fact.id && !$(`fact-${anchorKey(fact.id)}`)) li.id = `fact-${anchorKey(fact.id)}`;
    li.append(el("span", fact.claim));
    if (fact.evidence) li.append(el("blockquote", fact.evidence));
    const source = el("span", "source: ", "source");
    source.append(webLink(url));
    if (agent) source.append(document.createTextNode(` (${agent})`));
    li.append(source);
    $("s-facts").append(li);
  }

  // The session's kept facts, each an anchor (fact-F1) that the report's fact ids link to.
  facts(facts) {
    $("s-facts").replaceChildren();
    for (const fact of facts) this.fact(fact, fact.source_url, fact.agent);
  }

  agent(data) {
    $("s-agents-box").hidden = false;
    const text = `${data.agent}: ${data.status}${data.goal ? ` (${data.goal})` : ""}` +
      `${data.facts !== undefined ? `, ${data.facts} facts` : ""}${data.why ? `: ${data.why}` : ""}`;
    $("s-agents").append(el("li", text));
  }

  apply(type, data) {
    const agent = data.agent && type !== "agent" ? data.agent : "";
    switch (type) {
      case "decompose":
        this.checklist((data.questions || []).map((question) => ({ question, satisfied: false })));
        break;
      case "checklist_progress":
        if (!agent) this.checklist(data.items || []);
        break;
      case "searching":
        this.status(`searching: ${(data.queries || []).join("; ")}`);
        break;
      case "fetching":
        for (const url of data.urls || []) this.page(url, "fetching");
        this.status(`fetching ${data.count} pages`);
        break;
      case "analyzed":
        this.page(data.url, `read: ${data.fact_count} facts`);
        for (const fact of data.facts || []) this.fact(fact, data.url, agent);
        break;
      case "fetch_failed":
        this.page(data.url, `failed: ${data.reason}`, true);
        break;
      case "agent":
        this.agent(data);
        break;
      case "composing":
        this.status("composing the report");
        break;
      case "complete":
      case "error":
        this.finish(type === "error" ? `error: ${data.status}` : "complete");
        break;
      default:
        break;
    }
  }

  async follow() {
    let last = 0;
    let failures = 0;
    while (!this.finished) {
      try {
        const response = await api(`/research/${encodeURIComponent(this.id)}/stream`, {
          headers: { Accept: "text/event-stream", "Last-Event-ID": String(last) },
        });
        if (!response.ok) { this.status(await detail(response)); return; }
        this.status("running");
        for await (const message of messages(response)) {
          last = message.id;
          failures = 0;
          this.apply(message.type, message.data);
        }
      } catch (error) {
        if (this.finished) return;
        if (++failures > RECONNECTS) { this.status(`the stream keeps dropping: ${error.message}`); return; }
        this.status("reconnecting");
        await new Promise((resolve) => setTimeout(resolve, 300 * 2 ** failures));
      }
    }
  }

  async finish(how) {
    if (this.finished) return;
    this.finished = true;
    $("stop").disabled = true;
    const response = await api(`/research/${encodeURIComponent(this.id)}`);
    const result = response.ok ? await response.json() : {};
    if (result.goal) $("s-goal").textContent = result.goal;
    if (result.checklist) this.checklist(result.checklist);
    if (result.facts && result.facts.length) this.facts(result.facts);
    this.answers(result.answers, result.facts);
    this.status(`${result.status || how}${result.stop_reason ? `: ${result.stop_reason}` : ""}`);
    const report = await api(`/research/${encodeURIComponent(this.id)}/report`);
    if (report.ok) {
      const body = await report.json();
      const holder = $("s-report");
      holder.innerHTML = body.html; // the API's rendering: raw HTML and images off, web and in-page links only
      for (const a of holder.querySelectorAll("a")) {
        if (a.getAttribute("href")?.startsWith("#")) continue; // [n] and fact ids: anchors on this page
        a.rel = "noopener noreferrer";
        a.target = "_blank";
      }
      $("s-report-box").hidden = false;
      this.downloads(body.markdown);
    }
  }

  downloads(markdown) {
    const buttons = [
      ["result.json", async () => {
        const response = await api(`/research/${encodeURIComponent(this.id)}/result`);
        if (!response.ok) throw new Error(await detail(response));
        return new Blob([JSON.stringify(await response.json(), null, 2)], { type: "application/json" });
      }],
      ["report.md", () => new Blob([markdown], { type: "text/markdown" })],
    ];
    if (this.id.startsWith("w")) {
      buttons.push(["bundle.zip", async () => {
        const response = await api(`/research/${encodeURIComponent(this.id)}/bundle`);
        if (!response.ok) throw new Error(await detail(response));
        return response.blob();
      }]);
    }
    $("s-downloads").replaceChildren(...buttons.map(([name, make]) => {
      const button = el("button", `Download ${name}`);
      button.type = "button";
      button.addEventListener("click", async () => {
        try { save(`${this.id}-${name}`, await make()); } catch (error) { this.status(error.message); }
      });
      return button;
    }));
  }
}

async function* messages(response) {
  // The messages of an SSE response body, as they arrive (heartbeats and comments skipped).
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replaceAll("\r\n", "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const message = parse(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 2);
      if (message) yield message;
    }
  }
}

function parse(block) {
  const fields = {};
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const key = colon < 0 ? line : line.slice(0, colon);
    fields[key] = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
  }
  if (!fields.event || !fields.id) return null;
  try { return { type: fields.event, id: Number(fields.id), data: JSON.parse(fields.data || "{}") }; }
  catch { return null; }
}

function save(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = el("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

let current = null;

function watch(id) {
  showOnly("session-panel");
  current = new SessionView(id);
  current.follow();
}

// --- the form, the history, the routes --------------------------------------------------------------

async function start(event) {
  event.preventDefault();
  $("start-error").textContent = "";
  const agents = Number($("agents").value || 0);
  const body = {
    goal: $("goal").value.trim(),
    depth: $("depth").value,
    seeds: $("seeds").value.split("\n").map((s) => s.trim()).filter(Boolean),
    sources: $("docs").checked ? ["web", "documents"] : ["web"],
    keep_running: true,
  };
  if (agents > 0) Object.assign(body, { mode: "swarm", agents });
  try {
    const response = await api("/research", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    if (!response.ok) { $("start-error").textContent = await detail(response); return; }
    const { id } = await response.json();
    history.pushState({}, "", `${ROOT}/sessions/${encodeURIComponent(id)}`);
    routed = location.pathname;
    watch(id);
  } catch (error) { $("start-error").textContent = error.message; }
}

async function showHistory() {
  showOnly("history-panel");
  const response = await api("/research");
  const rows = response.ok ? await response.json() : [];
  $("history").replaceChildren(...rows.map((row) => {
    const tr = el("tr");
    const goal = el("td");
    const a = el("a", row.goal);
    a.href = `${ROOT}/sessions/${encodeURIComponent(row.id)}`;
    goal.append(a);
    const when = row.updated ? new Date(row.updated * 1000).toLocaleString() : "-";
    tr.append(goal, el("td", row.status), el("td", row.pages ?? "-"), el("td", row.facts ?? "-"), el("td", when));
    return tr;
  }));
}

// --- documents: upload with progress, the list, ask --------------------------------------------------

function upload(file) {
  const item = el("li", file.name);
  const bar = el("progress");
  bar.max = 100;
  bar.value = 0;
  bar.setAttribute("aria-label", `uploading ${file.name}`);
  item.append(bar);
  $("uploads").append(item);
  return new Promise((resolve) => {
    const request = new XMLHttpRequest(); // fetch reports no upload progress
    request.open("POST", `${ROOT}/documents`);
    if (token()) request.setRequestHeader("Authorization", `Bearer ${token()}`);
    request.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) bar.value = Math.round((100 * event.loaded) / event.total);
    });
    request.addEventListener("load", () => {
      bar.value = 100;
      let text = `HTTP ${request.status}`;
      try {
        const outcome = JSON.parse(request.responseText);
        const first = Array.isArray(outcome) ? outcome[0] : null;
        text = first ? `${first.status}${first.error ? `: ${first.error}` : ""}` : String(outcome.detail ?? text);
      } catch { /* the status line says enough */ }
      item.replaceChildren(el("span", `${file.name}: ${text}`));
      resolve();
    });
    request.addEventListener("error", () => { item.replaceChildren(el("span", `${file.name}: upload failed`)); resolve(); });
    const form = new FormData();
    form.append("files", file, file.name);
    request.send(form);
  });
}

async function uploadAll(files) {
  for (const file of files) await upload(file);
  await listDocuments();
}

async function listDocuments() {
  const response = await api("/documents");
  const rows = response.ok ? await response.json() : [];
  $("documents").replaceChildren(...rows.map((doc) => {
    const tr = el("tr");
    const remove = el("button", "Delete");
    remove.type = "button";
    remove.setAttribute("aria-label", `Delete ${doc.title}`);
    remove.addEventListener("click", async () => {
      await api(`/documents/${encodeURIComponent(doc.id)}`, { method: "DELETE" });
      await listDocuments();
    });
    const action = el("td");
    action.append(remove);
    tr.append(el("td", doc.title), el("td", doc.chunks), el("td", (doc.flags || []).join(", ") || "-"),
      el("td", doc.source), action);
    return tr;
  }));
}

async function askDocuments(event) {
  event.preventDefault();
  $("ask-error").textContent = "";
  $("answer-box").hidden = false;
  $("answer").replaceChildren();
  $("citations").replaceChildren();
  $("trace").textContent = "asking";
  const response = await api("/ask", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify({ question: $("question").value.trim() }),
  });
  if (!response.ok) { $("ask-error").textContent = await detail(response); $("answer-box").hidden = true; return; }
  let answered = null;
  for await (const message of messages(response)) {
    const data = message.data;
    if (message.type === "answer") {
      answered = data;
      showAnswer(data);
    } else if (message.type === "complete") {
      showCitations(answered ? answered.citations : [], data);
    } else if (message.type === "error") {
      $("ask-error").textContent = data.detail || data.status;
    } else {
      $("trace").textContent = `${message.type} …`; // a stage of the answer as it happens
    }
  }
}

// A passage marker: a link to the passage's quote below the answer (an anchor on this page).
function passageLink(n) {
  const a = el("a", `[${n}]`, "cite");
  a.href = `#passage-${Number(n)}`;
  a.setAttribute("aria-label", `passage ${Number(n)}`);
  return a;
}

// The answer first: a line per part (its span) or per item of a listed answer, each with its [n]
// links; a "not found" line says how many passages were read. Without lines, the answer's text.
function showAnswer(data) {
  const lines = data.answers || [];
  if (!lines.length) { $("answer").replaceChildren(el("p", data.answer)); return; }
  const several = new Set(lines.map((line) => line.question)).size > 1;
  const list = el("ul", undefined, "answers");
  for (const line of lines) {
    const li = el("li");
    li.dataset.status = line.status;
    if (several) li.append(el("span", line.question, "question"));
    if (line.status === "not_found") {
      li.append(el("span", `not found in the ${line.passages_read ?? 0} passages read`, "not-found"));
    } else {
      li.append(el("span", line.answer, "value"));
      for (const n of line.passages || []) li.append(passageLink(n));
      if (line.status === "conflicting") {
        li.append(el("span", `; other passages say ${line.other_answer}`, "other"));
        for (const n of line.other_passages || []) li.append(passageLink(n));
      }
    }
    list.append(li);
  }
  $("answer").replaceChildren(list);
}

function showCitations(citations, record) {
  const passages = new Map((record.passages || []).map((p) => [p.number, p]));
  $("citations").replaceChildren(...citations.map((citation) => {
    const li = el("li");
    li.id = `passage-${Number(citation.passage)}`;
    li.value = Number(citation.passage);
    li.append(el("span", citation.claim));
    li.append(el("blockquote", citation.evidence));
    const passage = passages.get(citation.passage);
    if (passage) li.append(el("span", `[${citation.passage}] ${passage.title} — ${passage.source}`, "muted"));
    return li;
  }));
  const stages = Object.entries(record.stages_s || {}).map(([k, v]) => `${k} ${Number(v).toFixed(2)} s`).join(", ");
  const usage = record.usage || {};
  $("trace").textContent = `trace ${record.trace_id}; ${stages}; tokens ${usage.tokens_in ?? 0} in, ` +
    `${usage.tokens_out ?? 0} out; cost ${usage.cost_usd ?? "-"}`;
}

function showDocuments() {
  showOnly("documents-panel");
  listDocuments();
}

async function showOperations() {
  showOnly("operations-panel");
  const response = await api("/status");
  const facts = response.ok ? await response.json() : {};
  const rows = [
    ["Judge", facts.judge || "-"],
    ["Sessions running", `${facts.running ?? "-"} of at most ${facts.max_sessions ?? "-"}`],
  ];
  const list = $("operations");
  list.replaceChildren();
  for (const [name, value] of rows) list.append(el("dt", name), el("dd", value));
  const dashboard = el("dd");
  dashboard.append(facts.dashboard_url ? webLink(facts.dashboard_url, facts.dashboard_url) : el("span", "not known"));
  list.append(el("dt", "Ray dashboard"), dashboard);
}

function route() {
  const path = location.pathname.slice(ROOT.length) || "/";
  const match = path.match(/^\/sessions\/([A-Za-z0-9_-]+)$/);
  if (match) return watch(match[1]);
  if (path === "/sessions") return showHistory();
  if (path === "/library") return showDocuments();
  if (path === "/operations") return showOperations();
  showOnly("start-panel");
  $("goal").focus();
}

$("start-form").addEventListener("submit", start);
$("ask-form").addEventListener("submit", askDocuments);
$("files").addEventListener("change", () => uploadAll([...$("files").files]));
for (const kind of ["dragenter", "dragover"]) {
  $("drop").addEventListener(kind, (event) => { event.preventDefault(); $("drop").classList.add("over"); });
}
$("drop").addEventListener("dragleave", () => $("drop").classList.remove("over"));
$("drop").addEventListener("drop", (event) => {
  event.preventDefault();
  $("drop").classList.remove("over");
  uploadAll([...event.dataTransfer.files]);
});
$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $("token").value);
  $("token").value = "";
  route();
});
$("stop").addEventListener("click", async () => {
  if (!current) return;
  $("stop").disabled = true;
  const response = await api(`/research/${encodeURIComponent(current.id)}`, { method: "DELETE" });
  current.status(response.ok ? "stopping" : await detail(response));
});
window.addEventListener("popstate", () => {
  if (location.pathname === routed) return; // a citation's #anchor on this view, not another view
  routed = location.pathname;
  route();
});
route();
