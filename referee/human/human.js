/* A human seat's page (waraq match --bots human ...): a person answers the referee's questions by clicking.
 *
 * The page is sent the protocol's own messages for this person's seats (MatchStart, DecisionRequest, MatchEnd,
 * in protobuf's JSON mapping) by GET events, and answers each DecisionRequest with a BotMessage by POST reply:
 * the referee checks it, times it and records it as any bot's. The table is drawn by table.js, the replay's
 * own drawing, from the seat's view alone, with text nodes only. Only the request's legal actions are offered;
 * a card that is not one has no handler. Hand's turn is built step by step, and what may come next is asked
 * of the referee's turn rules (POST turn): the page knows no rule.
 *
 * The DOM is a contract for the tests (tests/browser/test_human_seat.py): #waraq carries data-state
 * ("connecting", "waiting", "asked", "sending", "over", "lost"), data-match, data-seat, data-kind and
 * data-seq; each offered action is a button.legal[data-index]; a card that answers by a click has class
 * "playable"; Hand's builder has #turn-hand (.card[data-card], .selected), #meld, #discard, #undo, and a
 * button.add[data-meld][data-at] or button.swap[data-meld] per step the selection could make.
 * Keys: 1-9 choose the offered action of that number; Escape clears a selection.
 */
"use strict";
(function () {
  const root = document.getElementById("waraq");
  const base = location.pathname.replace(/\/+$/, "");
  const name = root.getAttribute("data-name") || "you";
  const T = window.WaraqTable;
  const el = (...args) => T.drawing({ game: "hokm", players: 4, teams: 2, seats: [], rules: {} }).el(...args);
  const seats = new Map(); // "match/seat" -> what this person was told of that seat
  const order = []; // the keys, oldest first
  let after = 0;
  let shown = null; // the key on the page
  let sending = false;
  let problem = ""; // the last refusal, shown until the next question
  let builder = null; // Hand's turn under way: {key, seq, steps, selected, options}
  let picked = []; // 2-player Hokm's discard: the cards selected
  let clock = null;

  // -- what the referee said -------------------------------------------------------------------------

  function take(event) {
    after = Math.max(after, event.n + 1);
    const key = event.match_id + "/" + event.seat;
    let seat = seats.get(key);
    if (!seat) {
      seat = { key: key, match: event.match_id, seat: event.seat, start: null, request: null, askedAt: 0,
        answered: true, end: null, lost: false, replay: false };
      seats.set(key, seat);
      order.push(key);
    }
    const message = event.message;
    if (message && message.start) seat.start = message.start;
    else if (message && message.decision) {
      seat.request = message.decision;
      seat.answered = false;
      seat.askedAt = performance.now();
    } else if (message && message.end) {
      seat.end = message.end;
      seat.answered = true;
    } else if (event.door === "answered" && seat.request && String(event.seq) === String(seat.request.seq)) {
      seat.answered = true;
    } else if (event.door === "lost") {
      seat.lost = true;
      seat.answered = true;
    } else if (event.door === "replay") {
      seat.replay = true;
    }
  }

  /** The seat to show: the oldest with a question out, else the newest. */
  function choose() {
    const waiting = order.map((k) => seats.get(k)).filter((s) => s.request && !s.answered && !s.lost);
    shown = waiting.length ? waiting[0].key : order[order.length - 1] || null;
  }

  async function poll() {
    for (;;) {
      try {
        const response = await fetch(base + "/events?after=" + after, { cache: "no-store" });
        if (!response.ok) throw new Error("the referee answered " + response.status);
        const body = await response.json();
        for (const event of body.events) take(event);
        if (body.events.length || root.getAttribute("data-state") === "connecting") {
          choose();
          render();
        }
      } catch (error) {
        root.setAttribute("data-offline", "yes");
        await new Promise((resolve) => setTimeout(resolve, 1000)); // the referee may be gone: ask again
        continue;
      }
      root.removeAttribute("data-offline");
    }
  }

  async function post(path, body) {
    const response = await fetch(base + path, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), cache: "no-store",
    });
    let answer = {};
    try { answer = await response.json(); } catch (error) { answer = { error: "the referee answered " + response.status }; }
    return { ok: response.ok, status: response.status, body: answer };
  }

  // -- the match as the seat knows it -------------------------------------------------------------------

  function matchOf(seat) {
    const start = seat.start || {};
    const players = start.players || 4;
    const partners = start.partners || [];
    const rules = start.rules_json ? JSON.parse(start.rules_json) : {};
    const seatsList = [];
    for (let s = 0; s < players; s++) seatsList.push({ seat: s, bot: s === seat.seat ? name + " (you)" : "s" + s });
    return { game: start.game || "hokm", players: players, teams: players / (partners.length + 1), seats: seatsList,
      rules: rules, match_id: seat.match };
  }

  function viewOf(request) {
    return request.hokm || request.hand || null;
  }

  function valueOf(action) {
    const keys = Object.keys(action);
    return keys.length ? action[keys[0]] : null;
  }

  // -- drawing ---------------------------------------------------------------------------------------

  function render() {
    const seat = shown ? seats.get(shown) : null;
    const nodes = [];
    nodes.push(el("header", {}, el("h1", {}, "Waraq: " + name + "'s seat"),
      seat ? el("p", { class: "meta small" }, "match " + seat.match + " \u00b7 seat s" + seat.seat +
        (seat.start && seat.start.partners && seat.start.partners.length ? " \u00b7 partner " +
          seat.start.partners.map((p) => "s" + p).join(", ") : "") + (seat.start ? " \u00b7 " + seat.start.game : "")) : null));
    if (!seat) {
      setState("waiting", null);
      nodes.push(el("p", { class: "banner", id: "status" }, "Waiting for the match to start\u2026"));
      root.replaceChildren(...nodes);
      return;
    }
    const match = matchOf(seat);
    const drawing = T.drawing(match);
    const request = seat.request;
    const asked = request && !seat.answered && !seat.lost;
    setState(seat.lost ? "lost" : seat.end ? "over" : asked ? (sending ? "sending" : "asked") : "waiting", seat);
    nodes.push(statusLine(seat, asked, drawing));
    if (problem) nodes.push(el("p", { class: "banner bad", id: "refused" }, problem));
    if (request) {
      const view = viewOf(request);
      const body = el("div", { class: "body" });
      const table = el("section", { class: "table seats-" + match.players, id: "table", "aria-label": "the table" });
      const step = { seat: view.to_act, kind: view.kind || request.kind, action: null, round: view.round,
        trick: view.tricks ? view.tricks.length + 1 : null };
      const row = [];
      row[seat.seat] = view;
      table.replaceChildren(...drawing.table(step, row, seat.seat, view));
      const panel = el("section", { class: "panel", id: "panel", "aria-label": "your decision" });
      panel.replaceChildren(...(asked ? question(seat, drawing, table) : after_(seat, drawing)));
      body.append(table, panel);
      nodes.push(body);
    }
    nodes.push(el("p", { class: "keys" }, "Keys: 1\u20139 choose the offered action of that number; Esc clears a selection."));
    root.replaceChildren(...nodes);
    tick();
  }

  function setState(state, seat) {
    root.setAttribute("data-state", state);
    for (const [attr, value] of [["data-match", seat && seat.match], ["data-seat", seat && seat.seat],
      ["data-kind", seat && seat.request && !seat.answered ? seat.request.kind : null],
      ["data-seq", seat && seat.request && !seat.answered ? seat.request.seq : null]]) {
      if (value === null || value === undefined) root.removeAttribute(attr); else root.setAttribute(attr, value);
    }
  }

  function statusLine(seat, asked, drawing) {
    if (seat.lost) {
      return el("p", { class: "banner bad", id: "status" }, "The referee closed this seat: a fault (the clock ran out, " +
        "or an answer it could not take). The match goes on under its rules without you.");
    }
    if (seat.end) {
      const end = seat.end;
      const won = (end.winners || []).indexOf(seat.seat) >= 0;
      const text = (won ? "You win" : "You lose") + " (" + end.reason + "); score " +
        (end.score || []).join("-") + ((end.faulty || []).length ? "; faulty " + end.faulty.map((s) => "s" + s).join(", ") : "");
      const banner = el("div", { class: "banner " + (won ? "good" : "bad"), id: "result", "data-won": won ? "yes" : "no" },
        el("b", {}, "Match over. "), text);
      if (seat.replay) {
        banner.append(" ", el("a", { id: "replay-link", href: base + "/replay/" + encodeURIComponent(seat.match),
          target: "_blank", rel: "noopener noreferrer" }, "Replay this match"));
      }
      return banner;
    }
    if (asked) {
      return el("p", { class: "banner good", id: "status" }, el("b", { class: "status" }, "Your decision: " + seat.request.kind + ". "),
        el("span", { id: "clock" }, ""));
    }
    return el("p", { class: "banner", id: "status" }, "Waiting for the other seats\u2026");
  }

  function after_(seat, drawing) {
    return [el("p", { class: "small" }, seat.end ? "The match is over." : "Your answer was taken.")];
  }

  // -- the question -------------------------------------------------------------------------------------

  function question(seat, drawing, table) {
    const request = seat.request;
    const kind = request.kind;
    if (kind === "TURN") return turnBuilder(seat, drawing);
    if (kind === "DISCARD") return discardPicker(seat, drawing, table);
    const legal = request.legal || [];
    const out = [el("h2", {}, "Choose: " + kind)];
    const buttons = legal.map((action, i) => {
      const button = el("button", { type: "button", class: "legal", "data-index": i, title: "key " + (i + 1) },
        i < 9 ? el("small", {}, String(i + 1) + " ") : null, drawing.legalAction(kind, valueOf(action)));
      button.addEventListener("click", () => answer(seat, action));
      return button;
    });
    out.push(el("div", { id: "legal" }, buttons));
    if (kind === "PLAY") {
      // The hand's own cards answer too, but only the legal ones: the others have no handler at all.
      const byCard = new Map(legal.map((action) => [action.card, action]));
      for (const card of table.querySelectorAll('.hand[data-seat="' + seat.seat + '"] .card[data-card]')) {
        const action = byCard.get(card.getAttribute("data-card"));
        if (!action) continue;
        card.classList.add("playable");
        card.setAttribute("role", "button");
        card.addEventListener("click", () => answer(seat, action));
      }
    }
    return out;
  }

  function discardPicker(seat, drawing, table) {
    const legal = seat.request.legal || [];
    const pairs = legal.map((action) => (action.discard.cards || []).slice().sort());
    const usable = new Set(pairs.flat());
    const out = [el("h2", {}, "Lay aside two cards")];
    for (const card of table.querySelectorAll('.hand[data-seat="' + seat.seat + '"] .card[data-card]')) {
      const name = card.getAttribute("data-card");
      if (!usable.has(name)) continue;
      card.classList.add("playable");
      if (picked.indexOf(name) >= 0) card.classList.add("selected");
      card.addEventListener("click", () => {
        picked = picked.indexOf(name) >= 0 ? picked.filter((c) => c !== name) : picked.concat([name]).slice(-2);
        render();
      });
    }
    const chosen = picked.slice().sort();
    const index = pairs.findIndex((pair) => pair.length === chosen.length && pair.every((c, i) => c === chosen[i]));
    const button = el("button", { type: "button", class: "legal", id: "lay-aside", "data-index": index, disabled: index < 0 },
      "Lay aside ", chosen.length ? drawing.cards(chosen) : "(select two cards)");
    button.addEventListener("click", () => { if (index >= 0) answer(seat, legal[index]); });
    out.push(el("div", { id: "legal" }, button));
    return out;
  }

  async function answer(seat, action) {
    if (sending || seat.answered || seat.lost) return;
    sending = true;
    problem = "";
    render();
    const sent = await post("/reply", { match_id: seat.match, seat: seat.seat,
      message: { reply: { seq: seat.request.seq, action: action } } });
    sending = false;
    if (sent.ok) {
      seat.answered = true;
      builder = null;
      picked = [];
    } else {
      problem = sent.body.error || "the referee refused the answer";
    }
    render();
  }

  // -- Hand's turn, step by step --------------------------------------------------------------------------

  function turnBuilder(seat, drawing) {
    const seq = seat.request.seq;
    if (!builder || builder.key !== seat.key || builder.seq !== seq) {
      builder = { key: seat.key, seq: seq, steps: [], selected: [], options: null, asking: false };
      refreshTurn(seat);
    }
    const options = builder.options;
    const out = [el("h2", {}, "Your turn: meld, add, swap, then discard")];
    if (!options) {
      out.push(el("p", { class: "small" }, "Asking the referee what your turn allows\u2026"));
      return out;
    }
    const selected = builder.selected;
    const hand = el("div", { class: "hand", id: "turn-hand" }, options.hand.map((name) => {
      const card = drawing.card(name, selected.indexOf(name) >= 0 ? "selected" : "");
      card.setAttribute("role", "button");
      card.addEventListener("click", () => {
        builder.selected = selected.indexOf(name) >= 0 ? selected.filter((c) => c !== name) : selected.concat([name]);
        refreshTurn(seat);
      });
      return card;
    }));
    const tool = (id, label, enabled, title, action, attrs) => {
      const button = el("button", Object.assign({ type: "button", class: "tool", id: id, disabled: !enabled, title: title || null }, attrs || {}), label);
      button.addEventListener("click", () => { if (enabled) action(); });
      return button;
    };
    const doStep = (step) => { builder.steps = builder.steps.concat([step]); builder.selected = []; refreshTurn(seat); };
    const meldOk = options.meld === true;
    const tools = el("div", { class: "row" },
      tool("meld", "Lay as a meld", meldOk, meldOk ? "lay the selected cards as a new meld" : options.meld,
        () => doStep({ meld: selected.slice() })),
      tool("discard", "Discard and end the turn", options.discard, options.discard ? null :
        (options.problem || "select one card to discard"), () => finishTurn(seat, selected[0])),
      tool("undo", "Undo the last step", builder.steps.length > 0, null, () => {
        builder.steps = builder.steps.slice(0, -1); builder.selected = []; refreshTurn(seat);
      }),
      tool("clear", "Clear the selection", selected.length > 0, null, () => { builder.selected = []; refreshTurn(seat); }));
    const melds = el("div", { class: "melds-built" }, options.melds.map((meld, i) => {
      const adds = options.adds.filter((a) => a.meld === i).map((a) => tool("add-" + i + "-" + (a.at || "set"),
        "add here" + (a.at ? " (" + a.at + " end)" : ""), true, null,
        () => doStep(Object.assign({ add: i, cards: selected.slice() }, a.at ? { at: a.at } : {})),
        { class: "tool add", "data-meld": i, "data-at": a.at || "" }));
      const swaps = options.swaps.indexOf(i) >= 0 ? [tool("swap-" + i, "swap for its joker", true, null,
        () => doStep({ swap: i, card: selected[0] }), { class: "tool swap", "data-meld": i })] : [];
      return el("div", { class: "row meld-row", "data-meld": i }, el("small", {}, "#" + i + " s" + meld.owner + " " + meld.kind),
        drawing.cards(meld.cards), adds, swaps);
    }));
    const steps = el("ol", { class: "turn", id: "turn-steps" }, builder.steps.map((step) => el("li", {},
      "meld" in step ? ["meld ", drawing.cards(step.meld)] : "add" in step ? ["add ", drawing.cards(step.cards), " to #" + step.add +
        (step.at ? " at the " + step.at + " end" : "")] : ["swap ", drawing.card(step.card), " for the joker of #" + step.swap])));
    out.push(el("div", { class: "builder" }, el("div", { class: "label" }, "Your hand (click to select):"), hand, tools,
      el("p", { id: "problem" }, options.problem ? "To end the turn: " + options.problem :
        "The turn may end here: select one card and discard it."),
      el("div", { class: "label" }, "Steps so far:"), steps,
      el("div", { class: "label" }, "The table after them:"), melds.childNodes.length ? melds : el("p", { class: "small" }, "No meld yet.")));
    return out;
  }

  async function refreshTurn(seat) {
    const mine = builder;
    mine.asking = true;
    const sent = await post("/turn", { match_id: seat.match, seat: seat.seat, steps: mine.steps, selected: mine.selected });
    if (builder !== mine) return;
    mine.asking = false;
    if (sent.ok) {
      mine.options = sent.body;
      problem = "";
    } else {
      problem = sent.body.error || "the referee refused the turn";
      if (sent.status === 422 && mine.steps.length) { mine.steps = mine.steps.slice(0, -1); return refreshTurn(seat); }
      mine.selected = [];
    }
    render();
  }

  async function finishTurn(seat, card) {
    const sent = await post("/turn", { match_id: seat.match, seat: seat.seat, steps: builder.steps, discard: card });
    if (!sent.ok) {
      problem = sent.body.error || "the referee refused the turn";
      render();
      return;
    }
    answer(seat, sent.body.action);
  }

  // -- the clock and the keys --------------------------------------------------------------------------

  function tick() {
    clearInterval(clock);
    const seat = shown ? seats.get(shown) : null;
    if (!seat || !seat.request || seat.answered || seat.lost) return;
    const show = () => {
      const node = document.getElementById("clock");
      if (!node) return;
      const spent = performance.now() - seat.askedAt;
      const deadline = seat.request.deadline_ms, bank = seat.request.bank_ms;
      const left = deadline - spent;
      const seconds = (ms) => Math.max(0, Math.ceil(ms / 1000)) + " s";
      node.textContent = left > 0 ? seconds(left) + " to decide, then a bank of " + seconds(bank)
        : "on your bank: " + seconds(bank + left) + " left";
      node.classList.toggle("low", left < 10000);
    };
    show();
    clock = setInterval(show, 250);
  }

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "Escape") {
      if (builder && builder.selected.length) { builder.selected = []; const s = seats.get(shown); if (s) refreshTurn(s); }
      if (picked.length) { picked = []; render(); }
      return;
    }
    if (!/^[1-9]$/.test(event.key)) return;
    const button = root.querySelector('#legal button.legal[data-index="' + (Number(event.key) - 1) + '"]');
    if (button && !button.disabled) { event.preventDefault(); button.click(); }
  });

  poll();
})();
