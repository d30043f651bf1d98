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
const PANELS = ["token-panel", "start-panel", "session-panel", "history-panel", "documents-panel", "operations-panel", "missing-panel"];
const GOAL_MIN = 5; // the API's limits (models.GOAL_MIN_CHARS, GOAL_MAX_CHARS), checked before sending
const GOAL_MAX = 2000;
const REFRESH_MS = 5000; // the operations view, while it is shown
const FIELDS = { goal: "The goal", depth: "The depth", seeds: "The seeds", agents: "The number of researchers",
  max_pages: "The page limit", question: "The question", sources: "The sources", mode: "The mode" };
let operationsTimer = null;
let webKind = null; // "offline" where the engine reads the offline test web (from /status)

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

function plural(n, word) { return `${n} ${word}${Number(n) === 1 ? "" : "s"}`; }

// The API's refusal as sentences a person reads, each with the field it concerns ("" for none): a
// validation error's list (field, position, message) becomes "Seed 2 (file:///x): ...", never JSON.
function sentences(detail, status) {
  if (typeof detail === "string") return [{ field: "", text: capital(detail) + (/[.!?]$/.test(detail) ? "" : ".") }];
  if (!Array.isArray(detail)) return [{ field: "", text: `The server refused the request (HTTP ${status}).` }];
  return detail.map((problem) => {
    const where = (problem.loc || []).filter((part) => part !== "body");
    const field = typeof where[0] === "string" ? where[0] : "";
    const seed = field === "seeds" && Number.isInteger(where[1]);
    const name = seed ? `Seed ${where[1] + 1}` : FIELDS[field] || "The request";
    const shown = seed && typeof problem.input === "string" ? ` (${problem.input})` : "";
    const message = String(problem.msg || "is not valid").replace(/^Value error, /, "");
    return { field, text: `${name}${shown}: ${message.charAt(0).toLowerCase()}${message.slice(1)}.` };
  });
}

function capital(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

async function problems(response) {
  try { return sentences((await response.json()).detail, response.status); }
  catch { return [{ field: "", text: `The server answered HTTP ${response.status}.` }]; }
}

async function detail(response) { return (await problems(response)).map((p) => p.text).join(" "); }

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
    this.titles = new Map(); // a page's title, from its "analyzed" event
    $("s-goal").textContent = "Loading the session";
    $("stop").disabled = false;
    $("stop").hidden = false;
    $("s-body").hidden = false;
    $("s-offline").hidden = webKind !== "offline";
    this.status("connecting");
  }

  status(text) { $("s-status").textContent = text; }

  // The session's own record first: its goal as the heading, or "no such session" (nothing to stop).
  async begin() {
    const response = await api(`/research/${encodeURIComponent(this.id)}`);
    if (response.status === 404) {
      this.finished = true;
      $("s-goal").textContent = "No such session";
      $("stop").hidden = true;
      $("s-body").hidden = true;
      $("s-offline").hidden = true;
      this.status(`There is no session ${this.id} here: it never existed, or another token started it.`);
      return false;
    }
    if (response.ok) $("s-goal").textContent = (await response.json()).goal || this.id;
    return true;
  }

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
    const sources = [...numbers].flatMap(([url, n]) => [document.createTextNode(` [${n}] `), webLink(url, this.titles.get(url))]);
    $("s-answer-sources").replaceChildren(...sources);
    $("s-answer-box").hidden = false;
  }

  page(url, outcome, state = "") {
    let li = this.pages.get(url);
    if (!li) {
      li = el("li");
      this.pages.set(url, li);
      $("s-pages").append(li);
    }
    li.className = state;
    li.replaceChildren(webLink(url, this.titles.get(url)), document.createTextNode(" "), el("span", outcome, "outcome"));
  }

  // A fact: its claim, then its quote where the quote says more than the claim, then its sources.
  fact(fact, sources, agent) {
    const li = el("li");
    for (const id of fact.ids || [fact.id]) { // merged facts: every id stays an anchor for the report
      if (!id || $(`fact-${anchorKey(id)}`)) continue;
      if (!li.id) li.id = `fact-${anchorKey(id)}`;
      else li.append(Object.assign(el("span"), { id: `fact-${anchorKey(id)}` }));
    }
    const claim = plain(fact.claim);
    li.append(el("span", claim));
    const quote = plain(fact.evidence);
    if (quote && quote !== claim) li.append(el("blockquote", quote));
    const source = el("span", sources.length > 1 ? "sources: " : "source: ", "source");
    sources.forEach((url, k) => {
      if (k) source.append(document.createTextNode("; "));
      source.append(webLink(url, this.titles.get(url)));
    });
    if (agent) source.append(document.createTextNode(` (${agent})`));
    li.append(source);
    $("s-facts").append(li);
  }

  // The session's kept facts, one item per claim (the same claim from several pages once, with every
  // source), each an anchor (fact-F1) that the report's fact ids link to.
  facts(facts) {
    $("s-facts").replaceChildren();
    const merged = new Map();
    for (const fact of facts) {
      const key = plain(fact.claim).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim(); // case and punctuation aside
      const seen = merged.get(key);
      if (!seen) merged.set(key, { fact: { ...fact, ids: [fact.id] }, sources: [fact.source_url] });
      else {
        seen.fact.ids.push(fact.id);
        if (!seen.sources.includes(fact.source_url)) seen.sources.push(fact.source_url);
      }
    }
    for (const { fact, sources } of merged.values()) this.fact(fact, sources, fact.agent);
  }

  agent(data) {
    $("s-agents-box").hidden = false;
    const text = `${data.agent}: ${data.status}${data.goal ? ` (${data.goal})` : ""}` +
      `${data.facts !== undefined ? `, ${plural(data.facts, "fact")}` : ""}${data.why ? `: ${data.why}` : ""}`;
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
        for (const url of data.urls || []) this.page(url, "fetching", "fetching");
        this.status(`fetching ${plural(data.count, "page")}`);
        break;
      case "analyzed":
        if (data.title) this.titles.set(data.url, plain(data.title));
        this.page(data.url, `read: ${plural(data.fact_count, "fact")}`);
        for (const fact of data.facts || []) this.fact(fact, [data.url], agent);
        break;
      case "fetch_failed":
        this.page(data.url, `failed: ${data.reason}`, "failed");
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
        if (!this.finished && await this.over()) this.finish("complete"); // ended with no end sent
      } catch (error) {
        if (this.finished) return;
        if (++failures > RECONNECTS) { this.status(`the stream keeps dropping: ${error.message}`); return; }
        this.status("reconnecting");
        await new Promise((resolve) => setTimeout(resolve, 300 * 2 ** failures));
      }
    }
  }

  async over() { // whether the session no longer runs (its status, not its stream, says)
    const response = await api(`/research/${encodeURIComponent(this.id)}`);
    return response.ok && (await response.json()).status !== "running";
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
    const status = result.status || how;
    for (const [url, li] of this.pages) { // every page ends in a final state: none stays "fetching"
      if (li.className === "fetching") this.page(url, status === "cancelled" ? "not read: stopped first" : "not read", "unread");
    }
    const reason = result.stop_reason && result.stop_reason !== status ? `: ${result.stop_reason}` : "";
    this.status(`${status}${reason}`);
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
      ["report.pdf", async () => { // printed by the engine's Chromium
        const response = await api(`/research/${encodeURIComponent(this.id)}/report.pdf`);
        if (!response.ok) throw new Error(await detail(response));
        return response.blob();
      }],
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

async function watch(id, focus = false) {
  showOnly("session-panel");
  const view = new SessionView(id);
  current = view;
  if (focus) $("s-goal").focus();
  try {
    if (!(await view.begin())) return;
  } catch (error) { view.status(error.message); return; }
  view.follow();
}

// A page's or a source's text, shown plainly: no pilcrows (a heading's anchor), one space between words.
function plain(text) { return String(text ?? "").replaceAll("¶", "").replace(/\s+/g, " ").trim(); }

// --- the form, the history, the routes --------------------------------------------------------------

// What the API would refuse, said before sending: an empty, short or long goal, a seed that is no web page.
function startProblems(goal, seeds) {
  const found = [];
  if (!goal) found.push({ field: "goal", text: "Write a goal: the question to research." });
  else if (goal.length < GOAL_MIN) found.push({ field: "goal", text: `The goal is too short: write at least ${GOAL_MIN} characters.` });
  if (goal.length > GOAL_MAX) {
    found.push({ field: "goal", text: `The goal is ${goal.length.toLocaleString("en")} characters long; ` +
      `the limit is ${GOAL_MAX.toLocaleString("en")}. Shorten it, then start again.` });
  }
  seeds.forEach((seed, k) => {
    let url = null;
    try { url = new URL(seed); } catch { url = null; }
    if (!url) found.push({ field: "seeds", text: `Seed ${k + 1} (${seed}) is not a web address: write it whole, with http:// or https://.` });
    else if (!["http:", "https:"].includes(url.protocol)) {
      found.push({ field: "seeds", text: `Seed ${k + 1} (${seed}) is a ${url.protocol} address: only http:// and https:// pages can be read.` });
    }
  });
  return found;
}

// Each problem as a sentence next to the field it concerns; the first such field gets the focus.
function showStartProblems(found) {
  const byField = { goal: [], seeds: [] };
  const other = [];
  for (const problem of found) (byField[problem.field] ?? other).push(problem.text);
  for (const field of ["goal", "seeds"]) {
    $(`${field}-error`).textContent = byField[field].join(" ");
    if (byField[field].length) $(field).setAttribute("aria-invalid", "true");
    else $(field).removeAttribute("aria-invalid");
  }
  $("start-error").textContent = other.join(" ");
  const first = ["goal", "seeds"].find((field) => byField[field].length);
  if (first) $(first).focus();
}

function countGoal() {
  const length = $("goal").value.trim().length;
  $("goal-count").textContent = `${length.toLocaleString("en")} of ${GOAL_MAX.toLocaleString("en")} characters`;
  $("goal-count").className = length > GOAL_MAX ? "error" : "muted";
}

async function start(event) {
  event.preventDefault();
  const agents = Number($("agents").value || 0);
  const body = {
    goal: $("goal").value.trim(),
    depth: $("depth").value,
    seeds: $("seeds").value.split("\n").map((s) => s.trim()).filter(Boolean),
    sources: $("docs").checked ? ["web", "documents"] : ["web"],
    keep_running: true,
  };
  if (agents > 0) Object.assign(body, { mode: "swarm", agents });
  const found = startProblems(body.goal, body.seeds);
  showStartProblems(found);
  if (found.length) return;
  try {
    const response = await api("/research", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    if (!response.ok) { showStartProblems(await problems(response)); return; }
    const { id } = await response.json();
    history.pushState({}, "", `${ROOT}/sessions/${encodeURIComponent(id)}`);
    routed = location.pathname;
    watch(id, true);
  } catch (error) { $("start-error").textContent = error.message; }
}

// A table cell with the column's name, which a phone's stacked rows show before the value.
function cell(label, content) {
  const td = el("td");
  td.dataset.label = label;
  if (content instanceof Node) td.append(content);
  else td.textContent = String(content ?? "-");
  return td;
}

async function showHistory() {
  showOnly("history-panel");
  const response = await api("/research");
  const rows = response.ok ? await response.json() : [];
  $("history").replaceChildren(...rows.map((row) => {
    const tr = el("tr");
    tr.dataset.goal = String(row.goal).toLowerCase();
    const a = el("a", row.goal);
    a.href = `${ROOT}/sessions/${encodeURIComponent(row.id)}`;
    const when = row.updated ? new Date(row.updated * 1000).toLocaleString() : "-";
    const action = el("td");
    if (row.status !== "running") action.append(forgetButton(row));
    tr.append(cell("Goal", a), cell("Depth", row.depth || "-"), cell("Status", row.status), cell("Pages", row.pages),
      cell("Facts", row.facts), cell("When", when), action);
    return tr;
  }));
  filterHistory();
}

// Delete an ended session from the stores, once the person has said yes.
function forgetButton(row) {
  const remove = el("button", "Delete");
  remove.type = "button";
  remove.setAttribute("aria-label", `Delete ${row.goal}`);
  remove.addEventListener("click", async () => {
    if (!window.confirm(`Delete the session "${row.goal}", its report and its facts? This cannot be undone.`)) return;
    const response = await api(`/research/${encodeURIComponent(row.id)}/record`, { method: "DELETE" });
    $("history-error").textContent = response.ok ? "" : await detail(response);
    await showHistory();
  });
  return remove;
}

function filterHistory() {
  const words = $("history-search").value.toLowerCase().split(/\s+/).filter(Boolean);
  for (const tr of $("history").children) tr.hidden = !words.every((word) => tr.dataset.goal.includes(word));
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
      if (!window.confirm(`Delete "${doc.title}" and its ${plural(doc.chunks, "chunk")}? This cannot be undone.`)) return;
      await api(`/documents/${encodeURIComponent(doc.id)}`, { method: "DELETE" });
      await listDocuments();
    });
    const action = el("td");
    action.append(remove);
    const file = String(doc.source ?? "").split(/[\\/]/).pop() || "-"; // the file's name, not the server's path
    tr.append(cell("Title", doc.title), cell("Chunks", doc.chunks), cell("Flags", (doc.flags || []).join(", ") || "-"),
      cell("File", file), action);
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

// The dashboard as this browser reaches it: an address on the engine's own loopback means the
// engine's host, which is the host this page came from.
function reachable(url) {
  try {
    const parsed = new URL(url);
    if (["127.0.0.1", "localhost", "0.0.0.0", "[::1]"].includes(parsed.hostname)) parsed.hostname = location.hostname;
    return parsed.href;
  } catch { return url; }
}

async function showOperations() {
  showOnly("operations-panel");
  await refreshOperations();
  clearInterval(operationsTimer);
  operationsTimer = setInterval(() => {
    if ($("operations-panel").hidden) clearInterval(operationsTimer);
    else refreshOperations();
  }, REFRESH_MS);
}

async function refreshOperations() {
  const [status, sessions] = await Promise.all([api("/status"), api("/research")]);
  const facts = status.ok ? await status.json() : {};
  const rows = [
    ["Judge", facts.judge || "-"],
    ["Web", facts.web === "offline" ? "the offline test web" : "the internet"],
    ["Sessions running", `${facts.running ?? "-"} of at most ${facts.max_sessions ?? "-"}`],
  ];
  const list = $("operations");
  list.replaceChildren();
  for (const [name, value] of rows) list.append(el("dt", name), el("dd", value));
  const dashboard = el("dd");
  const url = facts.dashboard_url ? reachable(facts.dashboard_url) : null;
  dashboard.append(url ? webLink(url, url) : el("span", "not known"));
  list.append(el("dt", "Ray dashboard"), dashboard);
  const running = (sessions.ok ? await sessions.json() : []).filter((row) => row.status === "running");
  $("running").replaceChildren(...running.map((row) => {
    const li = el("li");
    const a = el("a", row.goal);
    a.href = `${ROOT}/sessions/${encodeURIComponent(row.id)}`;
    li.append(a, document.createTextNode(` (${row.depth || "-"}, ${plural(row.pages ?? 0, "page")} so far)`));
    return li;
  }));
  if (!running.length) $("running").replaceChildren(el("li", "none"));
  $("operations-updated").textContent = `Updated ${new Date().toLocaleTimeString()}; refreshed every ${REFRESH_MS / 1000} s.`;
}

function route() {
  const path = location.pathname.slice(ROOT.length) || "/";
  const match = path.match(/^\/sessions\/([A-Za-z0-9_-]+)$/);
  if (match) return watch(match[1]);
  if (path === "/sessions") return showHistory();
  if (path === "/library") return showDocuments();
  if (path === "/operations") return showOperations();
  if (path !== "/") return showOnly("missing-panel");
  showOnly("start-panel");
  countGoal();
  $("goal").focus();
}

// The engine's kind of web, once (from /health, which needs no token): a note on the session view
// says where offline links lead.
async function learnWeb() {
  try {
    const response = await fetch(`${ROOT}/health`);
    if (response.ok) webKind = (await response.json()).web || null;
  } catch { webKind = null; }
  if (!$("session-panel").hidden && !$("s-body").hidden) $("s-offline").hidden = webKind !== "offline";
}

$("start-form").addEventListener("submit", start);
$("goal").addEventListener("input", countGoal);
for (const field of ["goal", "seeds"]) { // Ctrl+Enter (or Cmd+Enter) in a field starts the research
  $(field).addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      $("start-form").requestSubmit();
    }
  });
}
$("history-search").addEventListener("input", filterHistory);
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
learnWeb();
window.addEventListener("popstate", () => {
  if (location.pathname === routed) return; // a citation's #anchor on this view, not another view
  routed = location.pathname;
  route();
});
route();
