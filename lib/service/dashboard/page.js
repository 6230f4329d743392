// The dashboard page: reads its token from the link's fragment, takes it out of the address bar
// (kept for this tab only, so a reload still works), then asks the service for the session's
// state and picture, more often while an operation runs. Each operation opens to what it was
// asked and answered (an agent's steps); the picture opens full size; a log line said again
// and again is one line with its count. Text goes in as text, never as markup.
(() => {
  const id = decodeURIComponent(location.pathname.split("/").pop() || "");
  const stored = `wayfarer-view:${id}`;
  const given = new URLSearchParams(location.hash.slice(1)).get("token");
  if (given) {
    sessionStorage.setItem(stored, given);
    history.replaceState(null, "", location.pathname + location.search);
  }
  const token = sessionStorage.getItem(stored);
  const $ = (name) => document.getElementById(name);
  const base = location.pathname;
  const headers = { "x-wf-view-token": token || "" };
  let after = 0;
  let seen = 0;
  let pictureUrl;
  let lastPicture = 0;
  let lastLine;

  const nothing = () => {
    $("view").hidden = true;
    $("status").textContent = "";
    $("nothing").hidden = false;
  };
  if (!token) return nothing();

  const time = (ms) => new Date(ms).toLocaleTimeString();
  const el = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  function stepList(steps) {
    const list = el("ol", "steps");
    for (const step of steps) {
      const item = el("li");
      item.append(el("span", "tool", step.tool));
      if (step.input) item.append(" ", el("span", "input", step.input));
      if (step.reasoning) item.append(el("div", "reasoning", step.reasoning));
      if (step.outcome !== undefined) {
        item.append(el("div", step.failed ? "outcome failed" : "outcome", `→ ${step.outcome}`));
      }
      list.append(item);
    }
    return list;
  }

  /** What an operation was asked and answered, and an agent's steps. */
  function body(op, running) {
    const parts = el("dl", "body");
    const entry = (term, node) => {
      const value = el("dd");
      value.append(node);
      parts.append(el("dt", "", term), value);
    };
    if (op.asked !== undefined) entry("Asked", el("pre", "asked", op.asked));
    if (running && op.asking) {
      const waited = Math.round((Date.now() - op.asking.since) / 1000);
      entry("Now", el("span", "busy", `waiting for ${op.asking.model} (${waited} s)`));
    }
    if (op.cache) entry("Server cache", el("span", "", op.cache === "HIT" ? "hit" : "miss"));
    if (op.steps?.length) entry(`Steps (${op.steps.length})`, stepList(op.steps));
    if (op.answer !== undefined) entry("Answered", el("pre", "answer", op.answer));
    if (op.error !== undefined) entry("Failed", el("pre", "error failed", op.error));
    return parts;
  }

  function opItem(op, running) {
    const item = el("li", "op");
    const details = el("details");
    const summary = el("summary");
    const took = running ? `${Date.now() - op.since} ms so far` : `${op.durationMs} ms`;
    const outcome = running ? "running" : op.ok ? "done" : "failed";
    summary.append(
      el("span", "method", op.method),
      el("span", "asked", op.asked ?? ""),
      el("span", "time", time(running ? op.since : op.startedAt)),
      el("span", "took", took),
      el("span", "tokens", running ? "" : `${op.inputTokens} / ${op.outputTokens}`),
      el("span", running ? "outcome busy" : op.ok ? "outcome" : "outcome failed", outcome),
    );
    details.append(summary, body(op, running));
    item.append(details);
    return item;
  }

  function renderOperations(state) {
    const list = $("operations");
    const running = $("current");
    const wasOpen = running?.querySelector("details").open;
    running?.remove();
    for (const op of state.operations) {
      if (op.index < seen) continue;
      list.append(opItem(op, false));
    }
    seen = state.operationCount;
    if (state.current) {
      const item = opItem(state.current, true);
      item.id = "current";
      if (wasOpen) item.querySelector("details").open = true;
      list.append(item);
    }
  }

  /** Appends log lines; one that repeats the line before it adds to that line's count. */
  function renderLog(lines) {
    const log = $("log");
    const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    for (const line of lines) {
      const text = `[${line.category}] ${line.message}`;
      if (lastLine && lastLine.text === text) {
        lastLine.count++;
        lastLine.times.textContent = `×${lastLine.count}`;
        lastLine.times.hidden = false;
        continue;
      }
      const row = el("div", "line", `${time(line.time)} ${text}`);
      const times = el("span", "times");
      times.hidden = true;
      row.append(times);
      log.append(row);
      lastLine = { text, count: 1, times };
    }
    if (atEnd) log.scrollTop = log.scrollHeight;
  }

  function render(state) {
    $("nothing").hidden = true;
    $("view").hidden = false;
    $("session-id").textContent = state.id;
    const status = $("status");
    status.textContent = state.current ? `running ${state.current.method}` : "idle";
    status.className = state.current ? "busy" : "";
    $("title").textContent = state.title;
    $("url").textContent = state.url;
    renderOperations(state);
    renderLog(state.log.lines);
    after = state.log.next;
  }

  // The picture, full size: opened by a click on it, closed by a click or Escape.
  const enlarged = $("enlarged");
  const close = () => {
    enlarged.hidden = true;
    const shown = enlarged.querySelector("img");
    if (shown.src && shown.src !== pictureUrl) URL.revokeObjectURL(shown.src);
    shown.removeAttribute("src");
  };
  $("picture").addEventListener("click", () => {
    if (!pictureUrl) return;
    enlarged.querySelector("img").src = pictureUrl;
    enlarged.hidden = false;
  });
  enlarged.addEventListener("click", close);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") close();
  });

  async function refreshPicture() {
    lastPicture = Date.now();
    const answer = await fetch(`${base}/picture`, { headers, cache: "no-store" });
    if (answer.status !== 200) return;
    const next = URL.createObjectURL(await answer.blob());
    $("picture").src = next;
    // The enlarged picture keeps the one it shows until it is closed.
    const shown = enlarged.querySelector("img").src;
    if (pictureUrl && pictureUrl !== shown) URL.revokeObjectURL(pictureUrl);
    pictureUrl = next;
  }

  async function poll() {
    let busy = false;
    try {
      const query = `after=${after}&seen=${seen}`;
      const answer = await fetch(`${base}/state?${query}`, { headers, cache: "no-store" });
      if (answer.status === 404) return nothing();
      if (answer.ok) {
        const state = await answer.json();
        render(state);
        busy = state.current !== null;
        if (busy || Date.now() - lastPicture > 5000) await refreshPicture();
      }
    } catch {
      // The service may be restarting: ask again.
    }
    setTimeout(poll, busy ? 700 : 2000);
  }
  poll();
})();
