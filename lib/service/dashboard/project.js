// The project view: reads its token from the link's fragment, takes it out of the address bar
// (kept for this tab only), then lists the project's live sessions every few seconds, each
// linked to its own dashboard. Read-only: the token opens this list and nothing else. Text goes
// in as text, never as markup.
(() => {
  const stored = "wayfarer-project-view";
  const given = new URLSearchParams(location.hash.slice(1)).get("token");
  if (given) {
    sessionStorage.setItem(stored, given);
    history.replaceState(null, "", location.pathname + location.search);
  }
  const token = sessionStorage.getItem(stored);
  const $ = (name) => document.getElementById(name);
  const time = (ms) => new Date(ms).toLocaleTimeString();

  const nothing = (message) => {
    $("view").hidden = true;
    $("until").textContent = "";
    $("nothing").textContent = message;
    $("nothing").hidden = false;
  };
  if (!token) return nothing("Nothing to show: this link is not valid.");

  function render(list) {
    $("nothing").hidden = true;
    $("view").hidden = false;
    $("project").textContent = list.project;
    $("until").textContent = `this link works until ${new Date(list.expiresAt).toLocaleString()}`;
    const body = $("sessions");
    body.replaceChildren();
    for (const session of list.sessions) {
      const row = body.insertRow();
      const link = document.createElement("a");
      link.href = session.link;
      link.rel = "noreferrer";
      link.textContent = session.id;
      row.insertCell().append(link);
      row.insertCell().textContent = time(session.createdAt);
      const status = row.insertCell();
      status.textContent = session.running ? `running ${session.running}` : "idle";
      if (session.running) status.className = "busy";
      const url = row.insertCell();
      url.className = "url";
      url.textContent = session.url;
      row.insertCell().textContent = String(session.operationCount);
    }
    $("none").hidden = list.sessions.length > 0;
  }

  async function poll() {
    try {
      const answer = await fetch("/dashboard/sessions", {
        headers: { "x-wf-view-token": token },
        cache: "no-store",
      });
      if (answer.status === 404) {
        const refused = await answer.json().catch(() => ({}));
        return nothing(refused.message || "Nothing to show: this link is not valid.");
      }
      if (answer.ok) render(await answer.json());
    } catch {
      // The service may be restarting: ask again.
    }
    setTimeout(poll, 3000);
  }
  poll();
})();
