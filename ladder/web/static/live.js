// The standings follow the matches as they end: the server says when its data changed (server-sent
// events), and the table is rebuilt from /api/standings with text nodes only, as the server renders it.
"use strict";

(function () {
  const table = document.getElementById("standings");
  if (!table || !window.EventSource) return;
  const all = table.dataset.all === "1";
  let shown = Number(table.dataset.version);

  function cell(text, className) {
    const td = document.createElement("td");
    if (className) td.className = className;
    td.textContent = text;
    return td;
  }
  function signed(value) {
    if (value === null || value === undefined) return "–";
    const rounded = Math.round(value);
    return (rounded >= 0 ? "+" : "-") + Math.abs(rounded);
  }
  function row(r) {
    const tr = document.createElement("tr");
    tr.dataset.bot = r.bot;
    if (r.status !== "active") tr.className = "inactive";
    tr.append(cell(String(r.rank)));
    const name = cell("", "bot");
    const link = document.createElement("a");
    link.href = "/bots/" + encodeURIComponent(r.base);
    link.textContent = r.bot;
    name.append(link);
    tr.append(name, cell(r.author || "", "text"), cell(r.version || "", "text"), cell(signed(r.elo)));
    tr.append(cell(r.elo_low === null ? "" : signed(r.elo_low) + " … " + signed(r.elo_high)));
    tr.append(cell(r.score === null ? "–" : Math.round(100 * r.score) + " %"));
    tr.append(cell(r.mu.toFixed(2)), cell(r.sigma.toFixed(2)), cell(String(r.boards)), cell(String(r.matches)));
    tr.append(cell(String(r.faults)), cell(r.vs_next && r.vs_next !== "open" ? r.vs_next : "", "text"));
    const status = cell(r.status === "active" ? "" : r.status, "text");
    status.title = r.reason || "";
    tr.append(status);
    return tr;
  }
  async function refresh(version) {
    if (version <= shown) return;
    const answer = await fetch("/api/standings" + (all ? "?all=1" : ""), { credentials: "same-origin" });
    if (!answer.ok) return;
    const data = await answer.json();
    const body = table.tBodies[0];
    body.replaceChildren(...data.standings.map(row));
    shown = data.version;
    table.dataset.version = String(shown);
    const played = document.getElementById("played");
    if (played) played.textContent = String(data.played);
  }
  const events = new EventSource("/api/events");
  events.addEventListener("standings", (event) => refresh(Number(event.data)));
})();
