/* The replay page's viewer (waraq replay --html): draws one decision of a recorded match at a time.
 *
 * Its data is the page's JSON element #waraq-data (referee/replay/html/page.py, escaped by write.py):
 * the steps (one per decision), and every seat's view at every decision, patched view to view. A seat's
 * view is drawn from that seat's views alone; the all-hands view draws each seat's hand from that
 * seat's own view. So the page shows a seat nothing its requests did not hold.
 *
 * This file is the driver: the controls, the scrubber, the fragment, the keys and the decision's panel.
 * The table (cards, seats, trick, melds) is table.js's (window.WaraqTable), inlined before this file and
 * shared with the other pages that draw a seat's table, so they draw it as the replay does.
 *
 * The DOM is a contract for the tests (tests/browser/test_replay_page.py): the table's, in table.js;
 * #waraq carries data-mode ("all" or "seat") and data-seat; #decision carries data-n and data-total; a
 * connection line (a dial-in seat away or back: public) is a .connection[data-seat][data-change][data-line]
 * note in the decision it falls by (#connections-before, #connections-after), in the words of
 * data.connections[].text.
 * Keys: ArrowLeft/ArrowRight one decision, Home/End the ends, space plays and pauses.
 * The URL's fragment names the decision and the view: #d42 (all hands) or #d42/s1 (seat 1's view).
 */
(function () {
  "use strict"; // in the function, not the file: table.js comes first in the same script
  const data = JSON.parse(document.getElementById("waraq-data").textContent);
  const root = document.getElementById("waraq");
  const match = data.match;
  const game = match.game;
  const players = match.players;
  const steps = data.steps;
  const total = steps.length;
  const views = decodeViews(data.views);
  const connections = data.connections || [];
  const draw = WaraqTable.drawing(match);
  const { el, ms, seatName, sideName, bySide, legalAction, recordAction, sameAction, SUIT_SYMBOL } = draw;
  const SPEEDS = [0.5, 1, 2, 4, 8, 16]; // decisions a second
  // Kinds whose answer the other seats learn (a card played, a trump named, a redeal or a bam called,
  // Hand's take and turn); a 2-player Hokm discard or draw choice stays the seat's own.
  const PUBLIC_KINDS = new Set(["PLAY", "TRUMP", "REDEAL", "BAM", "TAKE", "TURN"]);

  const at = { n: total ? 1 : 0, seat: null, playing: false, speed: 2, timer: null };

  // -- the data --------------------------------------------------------------------------------

  /** views.base[seat], then at each later decision a patch per seat, or a list of patches applied in turn;
   * a list field's patch is a splice [start, removed, ...inserted]: the inverse of page.py's encode_views. */
  function decodeViews(encoded) {
    if (!encoded.base.length) return [];
    const rows = [encoded.base.map((v) => Object.assign({}, v))];
    for (const refs of encoded.refs) {
      const previous = rows[rows.length - 1];
      rows.push(refs.map((ref, seat) => {
        const view = Object.assign({}, previous[seat]);
        for (const part of Array.isArray(ref) ? ref : [ref]) {
          const patch = encoded.patch[part];
          for (const key of Object.keys(patch)) {
            if (Array.isArray(previous[seat][key])) {
              const list = previous[seat][key].slice();
              list.splice(patch[key][0], patch[key][1], ...patch[key].slice(2));
              view[key] = list;
            } else {
              view[key] = patch[key];
            }
          }
        }
        return view;
      }));
    }
    return rows;
  }

  // -- the page's frame, built once ----------------------------------------------------------------

  const frame = {};

  function build() {
    root.setAttribute("data-game", game || "");
    const who = match.seats.map((s) => "s" + s.seat + " " + s.bot + (s.version ? " " + s.version : "") +
      (s.via ? " (" + s.via + ")" : "")).join(", ");
    const rules = match.rules ? Object.entries(match.rules).map(([k, v]) => k + "=" + JSON.stringify(v)).join(" ") : "";
    const tc = match.time_control || {};
    const header = el("header", {},
      el("h1", {}, ({ hand: "Hand replay", hokm: "Hokm replay" }[game] || "Replay") + ": " + match.match_id),
      el("p", { class: "meta" }, who),
      el("p", { class: "meta small" },
        [data.file, match.seed !== undefined && match.seed !== null ? "seed " + match.seed : null,
          match.started ? "started " + match.started : null,
          match.policy ? "policy " + match.policy : null,
          tc.decision_ms !== undefined ? ms(tc.decision_ms) + " a decision, " + ms(tc.bank_ms) + " bank" : null]
          .filter(Boolean).join(" \u00b7 ")),
      rules ? el("p", { class: "meta small rules" }, rules) : null);
    root.append(header);

    if (data.status !== "ok") {
      root.append(el("p", { class: "banner bad", id: "status", "data-status": data.status },
        el("b", {}, "This record is " + data.status + ": "), data.problem || "",
        total ? " It is shown as far as it replays." : ""));
    }
    const result = data.result;
    if (result) {
      const reason = result.reason;
      const banner = el("div", { class: "banner " + (reason === "forfeit" || reason === "aborted" ? "bad" : "good"),
        id: "result", "data-reason": reason });
      // The result's words are the terminal replay's ("aborted by the referee: ...", "s0+s2 win by the forfeit of s3").
      if (reason === "forfeit") banner.append(el("b", {}, "Forfeit. "), el("span", {}, result.text));
      else if (reason === "aborted") banner.append(el("b", {}, "Aborted"), el("span", {}, result.text.replace(/^aborted/, "")));
      else banner.append(el("span", {}, result.text));
      frame.forfeit = el("div", { id: "forfeit-faults" });
      banner.append(frame.forfeit);
      fillForfeit(null);
      root.append(banner);
    }
    if (!total) {
      root.append(el("p", { class: "banner", id: "empty" }, "No decision to show: the record has none that replays."));
      for (const fault of data.opening_faults) root.append(el("p", { class: "fault-line" }, faultLine(fault, true)));
      if (connections.length) root.append(el("div", { id: "connections-before" }, connections.map((c) => connectionNote(c, ""))));
      root.append(el("span", { id: "decision", "data-n": 0, "data-total": 0, hidden: true }, "0 / 0"));
      return;
    }

    frame.controls = el("div", { class: "controls" });
    frame.scrubber = el("input", { type: "range", id: "scrubber", min: 1, max: total, value: 1, "aria-label": "decision" });
    frame.scrubber.addEventListener("input", () => go(Number(frame.scrubber.value)));
    frame.decision = el("span", { id: "decision", "aria-live": "polite" });
    const button = (id, label, title, action) => {
      const b = el("button", { id: id, type: "button", title: title }, label);
      b.addEventListener("click", action);
      return b;
    };
    frame.play = button("play", "\u25b6", "play / pause (space)", togglePlay);
    frame.speed = el("select", { id: "speed", title: "play speed" },
      SPEEDS.map((s) => el("option", { value: s, selected: s === at.speed }, s + "/s")));
    frame.speed.addEventListener("change", () => { at.speed = Number(frame.speed.value); if (at.playing) schedule(); });
    frame.view = el("select", { id: "view", title: "whose view" },
      el("option", { value: "all" }, "all hands"),
      match.seats.map((s) => el("option", { value: "s" + s.seat }, "s" + s.seat + "'s view (" + s.bot + ")")));
    frame.view.addEventListener("change", () => {
      at.seat = frame.view.value === "all" ? null : Number(frame.view.value.slice(1));
      render();
    });
    frame.round = el("select", { id: "jump-round", title: "jump to a round" }, el("option", { value: "" }, "round\u2026"),
      rounds().map((r) => el("option", { value: r }, "round " + r)));
    frame.round.addEventListener("change", () => {
      const r = Number(frame.round.value);
      const first = steps.find((s) => s.round === r);
      if (first) go(first.n);
    });
    frame.trick = el("select", { id: "jump-trick", title: "jump to a trick of this round", hidden: game !== "hokm" });
    frame.trick.addEventListener("change", () => {
      const [r, t] = frame.trick.value.split(".").map(Number);
      const first = steps.find((s) => s.round === r && s.trick === t);
      if (first) go(first.n);
    });
    frame.controls.append(
      button("first", "|\u25c0", "first decision (Home)", () => go(1)),
      button("back", "\u25c0", "one decision back (\u2190)", () => go(at.n - 1)),
      frame.play,
      button("next", "\u25b6\u25b6", "one decision on (\u2192)", () => go(at.n + 1)),
      button("last", "\u25b6|", "last decision (End)", () => go(total)),
      frame.scrubber, frame.decision, frame.speed, frame.round, frame.trick, frame.view);
    root.append(frame.controls);
    const faulted = steps.filter((s) => s.fault);
    if (faulted.length) {
      root.append(el("div", { class: "faults", id: "faults" }, el("span", { class: "label" }, "Faults: "),
        faulted.map((s) => {
          const b = el("button", { type: "button", "data-n": s.n, title: "go to decision " + s.n },
            "d" + s.n + " s" + s.fault.seat + " " + s.fault.kind + (s.action === null ? " (ends the match)" : ""));
          b.addEventListener("click", () => go(s.n));
          return b;
        })));
    }

    if (connections.length) {
      root.append(el("div", { class: "faults connections", id: "connections" }, el("span", { class: "label" }, "Connections: "),
        connections.map((c) => {
          const b = el("button", { type: "button", "data-n": c.n, "data-line": c.line, title: "go to decision " + c.n },
            "d" + c.n + " s" + c.seat + " " + c.change);
          b.addEventListener("click", () => go(c.n));
          return b;
        })));
    }

    frame.body = el("div", { class: "body" });
    frame.table = el("section", { class: "table seats-" + players, id: "table", "aria-label": "the table" });
    frame.panel = el("section", { class: "panel", id: "panel", "aria-label": "the decision" });
    frame.body.append(frame.table, frame.panel);
    root.append(frame.body);
    root.append(el("p", { class: "keys" },
      "Keys: \u2190 \u2192 one decision, Home / End the ends, space plays and pauses. " +
      "This page's address ends in #dN or #dN/sS: send it to open decision N, in seat S's view."));
  }

  function rounds() {
    return [...new Set(steps.map((s) => s.round))];
  }

  /** The faults that ended the match (a forfeit): on its last question, or when the seats were opened. */
  function forfeitFaults() {
    const faulty = new Set((data.result && data.result.faulty) || []);
    const found = [];
    for (const f of data.opening_faults) if (faulty.has(f.seat)) found.push(f);
    for (const s of steps) if (s.fault && faulty.has(s.fault.seat) && s.action === null) found.push(s.fault);
    return found;
  }

  /** The faults that forfeited, their detail only in the all-hands view or the faulty seat's own:
   * an illegal play's detail lists the faulty seat's hand. */
  function fillForfeit(seen) {
    if (!frame.forfeit) return;
    frame.forfeit.replaceChildren(...forfeitFaults().map((fault) =>
      el("div", { class: "fault-line", "data-seat": fault.seat }, faultLine(fault, seen === null || seen === fault.seat))));
  }

  /** A fault: its seat, kind and code; with ``withDetail`` (the all-hands view, the faulty seat's own) its
   * detail and the action played in its place, which, like any of its choices, is that seat's until played. */
  function faultLine(fault, withDetail, kind) {
    const line = el("span", { class: "fault", "data-kind": fault.kind, "data-code": fault.code || "" },
      el("b", {}, "fault: s" + fault.seat + " (" + seatName(fault.seat) + ") " + fault.kind),
      fault.code ? " " + fault.code : "");
    if (!withDetail) {
      line.append(" (its detail is that seat's own)", "substituted" in fault ? "; an action was played for it" : "");
      return line;
    }
    if (fault.detail) line.append(": " + fault.detail);
    if ("substituted" in fault) line.append("; played for it: ", recordAction(kind, fault.substituted));
    else line.append("; nothing was played for it");
    return line;
  }

  /** A connection line as a note, its words the terminal replay's (page.py): text, never markup. */
  function connectionNote(connection, label) {
    return el("p", { class: "connection", "data-seat": connection.seat, "data-change": connection.change,
      "data-line": connection.line }, label ? el("span", { class: "label" }, label) : null, connection.text);
  }

  /** The connection lines shown with decision ``n``: before it, or (the last decision) after it. */
  function connectionNotes(n, after) {
    const here = connections.filter((c) => c.n === n && (c.after >= n) === after);
    if (!here.length) return null;
    return el("div", { class: "connections-here", id: after ? "connections-after" : "connections-before" },
      here.map((c) => connectionNote(c, after ? "After this decision: " : "Before this decision: ")));
  }

  // -- one decision ---------------------------------------------------------------------------------

  function render() {
    const step = steps[at.n - 1];
    const row = views[at.n - 1];
    const seen = at.seat === null ? null : at.seat;
    root.setAttribute("data-mode", seen === null ? "all" : "seat");
    if (seen === null) root.removeAttribute("data-seat"); else root.setAttribute("data-seat", seen);
    frame.view.value = seen === null ? "all" : "s" + seen;
    frame.scrubber.value = at.n;
    frame.decision.textContent = at.n + " / " + total;
    frame.decision.setAttribute("data-n", at.n);
    frame.decision.setAttribute("data-total", total);
    frame.round.value = String(step.round);
    fillTricks(step);
    // The public facts come from the view of the seat looked through, or of the seat asked: table()'s default.
    frame.table.replaceChildren(...draw.table(step, row, seen));
    frame.panel.replaceChildren(...panel(step, row, seen));
    fillForfeit(seen);
    writeFragment();
  }

  function fillTricks(step) {
    if (game !== "hokm") return;
    const tricks = [...new Set(steps.filter((s) => s.round === step.round && s.trick).map((s) => s.trick))];
    const key = step.round + ":" + tricks.length;
    if (frame.trick.getAttribute("data-key") !== key) {
      frame.trick.replaceChildren(el("option", { value: "" }, "trick\u2026"),
        ...tricks.map((t) => el("option", { value: step.round + "." + t }, "trick " + t)));
      frame.trick.setAttribute("data-key", key);
    }
    frame.trick.value = step.trick ? step.round + "." + step.trick : "";
  }

  function panel(step, row, seen) {
    const mine = seen === null || seen === step.seat;
    const out = [];
    const where = "round " + step.round + (step.trick ? ", trick " + step.trick : "");
    out.push(el("h2", {}, "Decision " + step.n + " of " + total));
    out.push(el("p", { class: "small" }, "record line " + step.line + " \u00b7 " + where +
      (seen === null ? " \u00b7 all hands" : " \u00b7 as s" + seen + " (" + seatName(seen) + ") saw it")));
    out.push(el("p", { id: "actor", "data-seat": step.seat, "data-kind": step.kind },
      el("b", {}, "s" + step.seat + " (" + seatName(step.seat) + ")"), " to " + step.kind));
    const before = connectionNotes(step.n, false);
    if (before) out.push(before);
    if (mine) {
      if (step.legal.length) {
        out.push(el("div", { id: "legal" }, el("span", { class: "label" }, "Legal: "),
          step.legal.map((a) => el("span", { class: "legal" + (sameAction(step.kind, a, step.action) ? " chosen" : "") },
            legalAction(step.kind, a)))));
      } else if (step.kind === "TURN") {
        out.push(el("div", { id: "legal", class: "small" }, "Legal: a TURN lists none; the referee checks the whole turn."));
      }
      out.push(el("div", { id: "action" }, el("span", { class: "label" }, "Played: "),
        step.action === null ? el("span", { class: "word bad" }, "nothing: the match ended on this question's fault")
          : recordAction(step.kind, step.action)));
      if (step.note) out.push(el("div", { id: "note" }, el("span", { class: "label" }, "Note: "), el("q", {}, step.note)));
    } else {
      out.push(el("p", { id: "hidden-choice", class: "small" },
        "s" + seen + " does not see s" + step.seat + "'s legal actions, choice or note now" +
        (PUBLIC_KINDS.has(step.kind) ? "; what it played shows at the next decision." : ".")));
    }
    out.push(timeLine(step));
    if (step.fault) out.push(el("div", { id: "fault", class: "banner bad", "data-kind": step.fault.kind, "data-code": step.fault.code || "" },
      faultLine(step.fault, mine, step.kind)));
    if (step.sent === false) out.push(el("p", { class: "small bad" }, "Not sent: the seat was already lost."));
    const after = connectionNotes(step.n, true);
    if (after) out.push(after);
    const ended = data.rounds.filter((r) => r.after < step.n || (step.n === total && r.after <= step.n));
    if (ended.length) {
      out.push(el("h3", {}, "Rounds"));
      out.push(el("table", { class: "rounds", id: "rounds" }, ended.map((r) => el("tr", { "data-round": r.round },
        el("td", {}, "round " + r.round), el("td", {}, roundWords(r))))));
    }
    if (step.n === total && data.result) out.push(el("p", { id: "end", class: "end" }, "Then: " + data.result.text));
    return out;
  }

  function timeLine(step) {
    const tc = match.time_control || {};
    const deadline = tc.decision_ms, bank = tc.bank_ms;
    const share = deadline ? Math.min(1, (step.ms || 0) / deadline) : 0;
    const bar = el("span", { class: "bar" + ((step.ms || 0) > deadline ? " over" : "") },
      el("span", { style: null }));
    bar.firstChild.style.width = (share * 100).toFixed(1) + "%";
    const took = step.ms === null ? "none recorded, against a " + ms(deadline) + " deadline" : ms(step.ms) +
      (step.bot_ms !== undefined ? " (bot says " + ms(step.bot_ms) + ")" : "") + " of a " + ms(deadline) + " deadline";
    return el("div", { id: "time" }, el("span", { class: "label" }, "Time: "),
      took + "; bank " + ms(step.bank_ms) + " of " + ms(bank) + " left when asked; seq " + step.seq,
      bar);
  }

  function roundWords(r) {
    if (game === "hand") {
      if (r.void) return "void: dealt again";
      return "s" + r.out + " goes out" + (r.hand ? " (a hand: charges doubled)" : "") + "; charges " +
        r.charges.map((c, s) => "s" + s + " " + c).join(", ") + "; score " + bySide(r.score);
    }
    const side = r.points.findIndex((p) => p);
    const kot = { kot: " (kot)", hakem_kot: " (hakem-kot)" }[r.kot] || "";
    const bam = { won: ", bam won", lost: ", bam lost" }[r.bam] || "";
    const won = side < 0 ? "no points" : sideName(side) + " +" + r.points[side] + kot + bam;
    const tricks = [];
    for (let s = 0; s < match.teams; s++) {
      let sum = 0;
      for (let t = s; t < players; t += match.teams) sum += r.tricks[t] || 0;
      tricks.push(sum);
    }
    return "hakem s" + r.hakem + ", trump " + SUIT_SYMBOL[r.trump] + "; tricks " + tricks.join("-") + ": " + won +
      "; score " + r.score.join("-");
  }

  // -- moving -----------------------------------------------------------------------------------------

  function go(n) {
    const next = Math.max(1, Math.min(total, n));
    if (next === at.n && frame.decision.hasAttribute("data-n")) return;
    at.n = next;
    render();
  }

  function schedule() {
    clearTimeout(at.timer);
    at.timer = setTimeout(() => {
      if (!at.playing) return;
      if (at.n >= total) { togglePlay(); return; }
      go(at.n + 1);
      schedule();
    }, 1000 / at.speed);
  }

  function togglePlay() {
    at.playing = !at.playing && at.n < total;
    frame.play.textContent = at.playing ? "| |" : "\u25b6";
    root.setAttribute("data-playing", at.playing ? "yes" : "no");
    if (at.playing) schedule(); else clearTimeout(at.timer);
  }

  function onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && target.tagName === "SELECT") return; // its own arrows choose an option
    const moves = { ArrowRight: () => go(at.n + 1), ArrowLeft: () => go(at.n - 1), Home: () => go(1), End: () => go(total),
      " ": togglePlay };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault(); // the scrubber would move too, and space would scroll
    move();
  }

  // -- the fragment: #d42, #d42/s1 ------------------------------------------------------------------

  function readFragment() {
    const found = /^#d(\d+)(?:\/s(\d+))?$/.exec(location.hash);
    if (!found) return false;
    at.n = Math.max(1, Math.min(total, Number(found[1])));
    const seat = found[2] === undefined ? null : Number(found[2]);
    at.seat = seat !== null && seat < players ? seat : null;
    return true;
  }

  function writeFragment() {
    const fragment = "#d" + at.n + (at.seat === null ? "" : "/s" + at.seat);
    if (location.hash === fragment) return;
    try {
      history.replaceState(null, "", fragment);
    } catch (error) { // some browsers refuse it for a file: page; replace() keeps history short as well
      location.replace(fragment);
    }
  }

  build();
  if (total) {
    readFragment();
    render();
    document.addEventListener("keydown", onKey);
    window.addEventListener("hashchange", () => { if (readFragment()) render(); });
  }
  root.setAttribute("data-ready", "yes");
})();
