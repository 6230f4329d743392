// The dashboard page: reads its token from the link's fragment, takes it out of the address bar
// (kept for this tab only, so a reload still works), then asks the service for the session's
// state and picture, more often while an operation runs. Text goes in as text, never as markup.
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
  let pictureUrl;
  let lastPicture = 0;

  const nothing = () => {
    $("view").hidden = true;
    $("status").textContent = "";
    $("nothing").hidden = false;
  };
  if (!token) return nothing();

  const time = (ms) => new Date(ms).toLocaleTimeString();
  const cell = (row, text, className) => {
    const td = row.insertCell();
    td.textContent = text;
    if (className) td.className = className;
  };

  function render(state) {
    $("nothing").hidden = true;
    $("view").hidden = false;
    $("session-id").textContent = state.id;
    const status = $("status");
    status.textContent = state.current ? `running ${state.current.method}` : "idle";
    status.className = state.current ? "busy" : "";
    $("title").textContent = state.title;
    $("url").textContent = state.url;
    const body = $("operations");
    body.replaceChildren();
    for (const op of state.operations) {
      const row = body.insertRow();
      cell(row, op.method);
      cell(row, time(op.startedAt));
      cell(row, `${op.durationMs} ms`);
      cell(row, `${op.inputTokens} / ${op.outputTokens}`);
      cell(row, op.ok ? "done" : "failed", op.ok ? "" : "failed");
    }
    if (state.current) {
      const row = body.insertRow();
      cell(row, state.current.method);
      cell(row, time(state.current.since));
      cell(row, `${Date.now() - state.current.since} ms so far`);
      cell(row, "");
      cell(row, "running", "busy");
    }
    const log = $("log");
    const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    for (const line of state.log.lines) {
      log.append(`${time(line.time)} [${line.category}] ${line.message}\n`);
    }
    if (atEnd) log.scrollTop = log.scrollHeight;
    after = state.log.next;
  }

  async function refreshPicture() {
    lastPicture = Date.now();
    const answer = await fetch(`${base}/picture`, { headers, cache: "no-store" });
    if (answer.status !== 200) return;
    const next = URL.createObjectURL(await answer.blob());
    $("picture").src = next;
    if (pictureUrl) URL.revokeObjectURL(pictureUrl);
    pictureUrl = next;
  }

  async function poll() {
    let busy = false;
    try {
      const answer = await fetch(`${base}/state?after=${after}`, { headers, cache: "no-store" });
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
