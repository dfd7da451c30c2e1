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
 * "playable"; Hand's builder has #turn-hand (.card[data-card], .selected), #meld (and button.meld-order, a
 * run's other order: a joker at its other end), #discard, #undo, and a
 * button.add[data-meld][data-at] or button.swap[data-meld] per step the selection could make; while the
 * referee is asked what the selection allows, #turn-builder has data-pending and the tools are disabled.
 * A match over shows #result (data-won, data-reason, data-score: the score by side, comma-separated) and,
 * once offered, #replay-link; every match over stays listed in #matches (li.match-result[data-match]
 * [data-seat], the seat it is said from; its a.replay-link while the page is served).
 * #waraq[data-run="over"]: the run is over (the referee said so, #kept says how long the page stays, or it no
 * longer answers) and no seat has a match under way.
 * Keys: 1-9 choose the offered action of that number; Escape clears a selection.
 */
"use strict";
(function () {
  const root = document.getElementById("waraq");
  const base = location.pathname.replace(/\/+$/, "");
  const name = root.getAttribute("data-name") || "you";
  const T = window.WaraqTable;
  const el = T.drawing({ game: "hokm", players: 4, teams: 2, seats: [], rules: {} }).el;
  const seats = new Map(); // "match/seat" -> what this person was told of that seat
  const order = []; // the keys, oldest first
  const replays = new Set(); // the matches whose replay is offered (the desk tells one seat of each match)
  const ended = []; // the matches over, oldest first: {match, seat, end}
  let after = 0;
  let offline = false; // the last request for events failed
  let kept = null; // the run is over and the page kept until kept.until (ms since the epoch)
  let shown = null; // the key on the page
  let sending = false;
  let problem = ""; // the last refusal, shown until the next question
  let builder = null; // Hand's turn under way: {key, seq, steps, selected, options}
  let picked = []; // 2-player Hokm's discard: the cards selected
  let clock = null;

  // -- what the referee said -------------------------------------------------------------------------

  function take(event) {
    after = Math.max(after, event.n + 1);
    if (event.door === "over") { // the run is over; the page is served a while more, for its replays
      kept = { until: Date.now() + event.keep_s * 1000 };
      return;
    }
    const key = event.match_id + "/" + event.seat;
    let seat = seats.get(key);
    if (!seat) {
      seat = { key: key, match: event.match_id, seat: event.seat, start: null, request: null, askedAt: 0,
        answered: true, end: null, lost: false };
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
      if (!ended.some((e) => e.match === seat.match)) ended.push({ match: seat.match, seat: seat.seat, end: seat.end });
    } else if (event.door === "answered" && seat.request && String(event.seq) === String(seat.request.seq)) {
      seat.answered = true;
    } else if (event.door === "lost") {
      seat.lost = true;
      seat.answered = true;
    } else if (event.door === "replay") {
      replays.add(event.match_id);
    }
  }

  /** The seat to show: the oldest with a question out; else the newest with something to show (a question
   * answered, an end), so a match over stays on the page until the next one asks; else the newest. */
  function choose() {
    const all = order.map((k) => seats.get(k));
    const waiting = all.filter((s) => s.request && !s.answered && !s.lost);
    const told = all.filter((s) => s.request || s.end || s.lost);
    shown = waiting.length ? waiting[0].key : told.length ? told[told.length - 1].key : order[order.length - 1] || null;
  }

  /** Every seat this page holds has its match over (or lost): nothing more is asked unless a new match starts. */
  function allOver() {
    return order.length > 0 && order.every((k) => seats.get(k).end || seats.get(k).lost);
  }

  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  async function poll() {
    let backoff = 1000;
    for (;;) {
      try {
        const response = await fetch(base + "/events?after=" + after, { cache: "no-store" });
        if (!response.ok) throw new Error("the referee answered " + response.status);
        const body = await response.json();
        const wasOffline = offline;
        offline = false;
        backoff = 1000;
        for (const event of body.events) take(event);
        if (body.events.length || wasOffline || root.getAttribute("data-state") === "connecting") {
          choose();
          render();
        }
        // The referee answers none after waiting for news, or at once when the run is closing: either way,
        // no hurry (a run that closes would otherwise be asked again and again until its server stops).
        if (!body.events.length) await pause(1000);
      } catch (error) {
        if (!offline) {
          offline = true;
          render();
        }
        // The referee may be gone for good (the run is over) or for a moment: ask again, less and less often.
        await pause(backoff);
        backoff = Math.min(backoff * 2, 30000);
      }
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
    for (let s = 0; s < players; s++) {
      const mine = seats.has(seat.match + "/" + s); // a person may hold several seats of one match
      seatsList.push({ seat: s, bot: mine ? name + ", you" : partners.indexOf(s) >= 0 ? "partner" : "opponent" });
    }
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
    if (offline) nodes.push(offlineLine());
    else if (kept) nodes.push(keptLine());
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
      // Once answered (or over), nobody is shown "to act": the next question, if any, says who is.
      const step = { seat: asked ? view.to_act : null, kind: view.kind || request.kind, action: null, round: view.round,
        trick: view.tricks ? view.tricks.length + 1 : null };
      const row = [];
      row[seat.seat] = view;
      table.replaceChildren(...drawing.table(step, row, seat.seat, view));
      const panel = el("section", { class: "panel", id: "panel", "aria-label": "your decision" });
      panel.replaceChildren(...(asked ? question(seat, drawing, table) : after_(seat, drawing)));
      body.append(table, panel);
      nodes.push(body);
    }
    if (ended.length) nodes.push(matchesList());
    nodes.push(el("p", { class: "keys" }, "Keys: 1\u20139 choose the offered action of that number; Esc clears a selection."));
    root.replaceChildren(...nodes);
    tick();
  }

  function keptLine() {
    const minutes = Math.max(0, Math.round((kept.until - Date.now()) / 60000));
    return el("p", { class: "banner", id: "kept" }, "The run is over. This page keeps your matches' replays for about " +
      minutes + " min more, until the command that serves it is stopped.");
  }

  function offlineLine() {
    return allOver()
      ? el("p", { class: "banner", id: "offline" }, "The run is over: the referee no longer serves this page " +
        "(its records replay with waraq replay RECORD --html).")
      : el("p", { class: "banner bad", id: "offline" }, "The referee does not answer: trying again\u2026");
  }

  /** A match's end, said from the seat's side: who won, why, the score by side. */
  function endText(end, seat, drawing) {
    const won = (end.winners || []).indexOf(seat) >= 0;
    const faulty = end.faulty || [];
    return (won ? "You win" : "You lose") + " (" + end.reason + "); score " + drawing.bySide(end.score || []) +
      (faulty.length ? "; faulty " + faulty.map((s) => "s" + s).join(", ") : "");
  }

  function replayLink(match, attrs) {
    return el("a", Object.assign({ class: "replay-link", href: base + "/replay/" + encodeURIComponent(match),
      target: "_blank", rel: "noopener noreferrer" }, attrs || {}), "Replay this match");
  }

  /** Every match over, so one's result and replay stay at hand while the next is played. */
  function matchesList() {
    return el("section", { class: "matches", "aria-label": "your matches over" }, el("h2", {}, "Your matches over"),
      el("ol", { id: "matches" }, ended.map((e) => {
        const seat = seats.get(e.match + "/" + e.seat);
        const won = (e.end.winners || []).indexOf(e.seat) >= 0;
        return el("li", { class: "match-result", "data-match": e.match, "data-seat": e.seat, "data-won": won ? "yes" : "no" },
          "match " + e.match + ": " + endText(e.end, e.seat, T.drawing(matchOf(seat))) + " ",
          replays.has(e.match) && !offline ? replayLink(e.match, { "data-match": e.match }) : null);
      })));
  }

  function setState(state, seat) {
    root.setAttribute("data-state", state);
    if ((offline || kept) && allOver()) root.setAttribute("data-run", "over"); else root.removeAttribute("data-run");
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
      const banner = el("div", { class: "banner " + (won ? "good" : "bad"), id: "result", "data-won": won ? "yes" : "no",
        "data-reason": end.reason, "data-score": (end.score || []).join(",") },
        el("b", {}, "Match over. "), endText(end, seat.seat, drawing));
      if (replays.has(seat.match) && !offline) banner.append(" ", replayLink(seat.match, { id: "replay-link" }));
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
    if (kind === "TURN") return turnBuilder(seat, drawing, table);
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
    const request = seat.request;
    sending = true;
    problem = "";
    render();
    const sent = await post("/reply", { match_id: seat.match, seat: seat.seat,
      message: { reply: { seq: request.seq, action: action } } });
    sending = false;
    if (sent.ok) {
      // The next question may have come (by events) before this answer's own reply: only this one is answered.
      if (seat.request === request) seat.answered = true;
      if (builder && builder.key === seat.key && builder.seq === request.seq) builder = null;
      picked = [];
    } else {
      problem = sent.body.error || "the referee refused the answer";
    }
    choose();
    render();
  }

  // -- Hand's turn, step by step --------------------------------------------------------------------------

  function turnBuilder(seat, drawing, table) {
    const seq = seat.request.seq;
    if (!builder || builder.key !== seat.key || builder.seq !== seq) {
      builder = { key: seat.key, seq: seq, steps: [], selected: [], options: null, asks: 0, pending: false };
      refreshTurn(seat);
    }
    const options = builder.options;
    const out = [el("h2", {}, "Your turn: meld, add, swap, then discard")];
    if (!options) {
      out.push(el("p", { class: "small" }, "Asking the referee what your turn allows\u2026"));
      return out;
    }
    const selected = builder.selected;
    const pending = builder.pending; // the options are for an earlier selection: no tool acts until they are new
    // The hand in the order the table draws it (the referee's is by copy: the two 7H apart); a joker won back last.
    const drawn = Array.from(table.querySelectorAll('.hand[data-seat="' + seat.seat + '"] .card[data-card]'),
      (card) => card.getAttribute("data-card"));
    const place = (name) => (drawn.indexOf(name) >= 0 ? drawn.indexOf(name) : drawn.length);
    const inHand = options.hand.slice().sort((a, b) => place(a) - place(b));
    const hand = el("div", { class: "hand", id: "turn-hand" }, inHand.map((name) => {
      const card = drawing.card(name, selected.indexOf(name) >= 0 ? "selected" : "");
      card.setAttribute("role", "button");
      card.addEventListener("click", () => {
        // Read the selection now, not as drawn: a second click may come before the referee's options for the first.
        const now = builder.selected;
        builder.selected = now.indexOf(name) >= 0 ? now.filter((c) => c !== name) : now.concat([name]);
        refreshTurn(seat);
      });
      return card;
    }));
    const tool = (id, label, enabled, title, action, attrs) => {
      const on = enabled && !pending;
      const button = el("button", Object.assign({ type: "button", class: "tool", id: id, disabled: !on, title: title || null }, attrs || {}), label);
      button.addEventListener("click", () => { if (on && !builder.pending) action(); });
      return button;
    };
    const doStep = (step) => { builder.steps = builder.steps.concat([step]); builder.selected = []; refreshTurn(seat); };
    // The referee gives each order the selection may be laid in (a run ascending, a joker at either end):
    // #meld lays the first; another order, a meld of its own meaning, has a button of its own.
    const orders = options.meld_orders || [];
    const meldOk = options.meld === true && orders.length > 0;
    const others = orders.slice(1).map((order, k) => tool("meld-" + (k + 1), ["Lay as ", drawing.cards(order)], true, null,
      () => doStep({ meld: order.slice() }), { class: "tool meld-order" }));
    const tools = el("div", { class: "row" },
      tool("meld", orders.length > 1 ? ["Lay as ", drawing.cards(orders[0])] : "Lay as a meld", meldOk,
        meldOk ? "lay the selected cards as a new meld" : options.meld, () => doStep({ meld: orders[0].slice() })),
      others,
      tool("discard", "Discard and end the turn", options.discard, options.discard ? null :
        (options.problem || "select one card to discard"), () => finishTurn(seat, selected[0])),
      tool("undo", "Undo the last step", builder.steps.length > 0, null, () => {
        builder.steps = builder.steps.slice(0, -1); builder.selected = []; refreshTurn(seat);
      }),
      tool("clear", "Clear the selection", selected.length > 0, null, () => { builder.selected = []; refreshTurn(seat); }));
    const melds = el("div", { class: "melds-built" }, options.melds.map((meld, i) => {
      const adds = options.adds.filter((a) => a.meld === i).map((a) => tool("add-" + i + "-" + (a.at || "set"),
        "add here" + (a.at ? " (" + a.at + " end)" : ""), true, null,
        () => doStep(Object.assign({ add: i, cards: (a.cards || selected).slice() }, a.at ? { at: a.at } : {})),
        { class: "tool add", "data-meld": i, "data-at": a.at || "" }));
      const swaps = options.swaps.indexOf(i) >= 0 ? [tool("swap-" + i, "swap for its joker", true, null,
        () => doStep({ swap: i, card: selected[0] }), { class: "tool swap", "data-meld": i })] : [];
      return el("div", { class: "row meld-row", "data-meld": i }, el("small", {}, "#" + i + " s" + meld.owner + " " + meld.kind),
        drawing.cards(meld.cards), adds, swaps);
    }));
    const steps = el("ol", { class: "turn", id: "turn-steps" }, builder.steps.map((step) => el("li", {},
      "meld" in step ? ["meld ", drawing.cards(step.meld)] : "add" in step ? ["add ", drawing.cards(step.cards), " to #" + step.add +
        (step.at ? " at the " + step.at + " end" : "")] : ["swap ", drawing.card(step.card), " for the joker of #" + step.swap])));
    out.push(el("div", { class: "builder", id: "turn-builder", "data-pending": pending ? "yes" : null },
      el("div", { class: "label" }, "Your hand (click to select):"), hand, tools,
      el("p", { id: "problem" }, options.problem ? "To end the turn: " + options.problem :
        "The turn may end here: select one card and discard it."),
      el("div", { class: "label" }, "Steps so far:"), steps,
      el("div", { class: "label" }, "The table after them:"), melds.childNodes.length ? melds : el("p", { class: "small" }, "No meld yet.")));
    return out;
  }

  /** Ask the referee what the turn allows after its steps with its selection; only the last ask's answer is used. */
  async function refreshTurn(seat) {
    const mine = builder;
    const ask = ++mine.asks;
    mine.pending = true;
    if (mine.options) render(); // the selection shows at once; the tools wait for the answer
    const sent = await post("/turn", { match_id: seat.match, seat: seat.seat, steps: mine.steps, selected: mine.selected });
    if (builder !== mine || ask !== mine.asks) return; // another question, or a newer ask, since
    mine.pending = false;
    if (sent.ok) {
      mine.options = sent.body;
      problem = "";
    } else {
      problem = sent.body.error || "the referee refused the turn";
      if (sent.status === 422 && mine.steps.length) { mine.steps = mine.steps.slice(0, -1); return refreshTurn(seat); }
      mine.selected = [];
    }
    if (shown === seat.key) render();
  }

  async function finishTurn(seat, card) {
    const mine = builder;
    mine.pending = true;
    render();
    const sent = await post("/turn", { match_id: seat.match, seat: seat.seat, steps: mine.steps, discard: card });
    if (builder !== mine) return;
    mine.pending = false;
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
      const s = shown ? seats.get(shown) : null;
      if (builder && builder.selected.length && s && builder.key === s.key) { builder.selected = []; refreshTurn(s); }
      if (picked.length) { picked = []; render(); }
      return;
    }
    if (!/^[1-9]$/.test(event.key)) return;
    // The button of that number, in order: a discard's one button (data-index: the pair selected) is 1.
    const button = root.querySelectorAll("#legal button.legal")[Number(event.key) - 1];
    if (button && !button.disabled) { event.preventDefault(); button.click(); }
  });

  poll();
})();
