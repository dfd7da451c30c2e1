/* A seat's card table, drawn in the browser: the one drawing of it, shared by every page that shows one.
 *
 * The replay page (viewer.js) draws it at each decision; a page where a person plays a seat draws it
 * from the requests that seat is sent. So both show a table the same way, from the same data: a seat's
 * view as protobuf's JSON mapping of a DecisionRequest's view (`hokm`, `hand`; a plug-in game's
 * `view_json`, parsed), as referee/replay/html/page.py writes it.
 *
 * One global: window.WaraqTable. WaraqTable.drawing(match) returns the drawing functions bound to
 * `match` (the page's header: {game, players, teams, seats: [{seat, bot, version, via}], rules, ...}).
 * Its table(step, row, seen, view) is the table at one decision: `step` is {seat, kind, action, trick,
 * round} (the seat to act, its decision's kind, the action taken or null), `row` every seat's view by
 * seat, `seen` the seat looked through (null: every hand), `view` the public facts' view (by default
 * row[seen], or the acting seat's when seen is null).
 *
 * The contract: a seat's hand is drawn only from that seat's own view; with `seen` set, only `row[seen]`
 * is read, so a row holding that one view (the others undefined) draws the same table. (The asides of a
 * seat not shown are handed no view at all: before, they were handed its entry of `row` and did not read
 * it.) The DOM is a contract for the tests (tests/browser/test_replay_page.py): every card is an element
 * with data-card="AS" (Hand: "7H#1", "JK#0"), a card face down is .card.back with none; every hand is
 * .hand[data-seat]; Hokm has #trick, #last-trick, #trump, #hakem; Hand .meld[data-owner], #pile-top, #stock.
 */
(function () {
  "use strict"; // in the function, not the file: a page inlines this file with others, one script
  const SUIT_SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  const SUIT_NAME = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  const SUIT_ORDER = "SHDC", RANK_ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

  // -- small elements ------------------------------------------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /** "10H" -> rank 10 of hearts; Hand's "7H#1" is its copy 1; "JK#0" a joker. */
  function cardParts(name) {
    const [face, copy] = name.split("#");
    if (face === "JK") return { rank: "JK", suit: null, copy: copy };
    return { rank: face.slice(0, -1), suit: face.slice(-1), copy: copy };
  }

  function card(name, extra) {
    const parts = cardParts(name);
    const red = parts.suit === "H" || parts.suit === "D";
    const classes = ["card", parts.suit ? (red ? "red" : "black") : "joker", extra || ""].join(" ").trim();
    const label = parts.suit ? parts.rank + " of " + SUIT_NAME[parts.suit] : "joker";
    return el("span", { class: classes, "data-card": name, title: name, "aria-label": label },
      el("b", { text: parts.suit ? parts.rank : "\u2605" }),
      el("i", { text: parts.suit ? SUIT_SYMBOL[parts.suit] : "JK" }));
  }

  function backs(count) {
    const row = [];
    for (let i = 0; i < count; i++) row.push(el("span", { class: "card back", "aria-hidden": "true" }));
    return row;
  }

  function suit(letter) {
    const red = letter === "H" || letter === "D";
    return el("span", { class: "suit " + (red ? "red" : "black"), "data-suit": letter, title: SUIT_NAME[letter] },
      SUIT_SYMBOL[letter]);
  }

  function cards(names) {
    return el("span", { class: "cards" }, names.map((n) => card(n)));
  }

  function ms(value) {
    return value === null || value === undefined ? "?" : (Math.round(value * 1000) / 1000).toLocaleString("en") + " ms";
  }

  // -- actions, as the record spells them ---------------------------------------------------------

  /** A request's legal action of ``kind``, as the value of its Action's one field: "7H", "S", {cards}, "keep",
   * true, "stock". */
  function legalAction(kind, value) {
    if (kind === "PLAY") return card(value);
    if (kind === "TRUMP") return suit(value);
    if (kind === "DISCARD") return cards(value.cards || []);
    if (kind === "REDEAL" || kind === "BAM") return el("span", { class: "word", text: value ? "yes" : "no" });
    return el("span", { class: "word", text: String(value) });
  }

  /** A record's action of ``kind`` (a card, a suit letter, a list, "keep", true, a Hand turn). */
  function recordAction(kind, action) {
    if (action === null || action === undefined) return el("span", { class: "word", text: "none" });
    if (kind === "PLAY") return card(action);
    if (kind === "TRUMP") return suit(action);
    if (kind === "DISCARD") return cards(action);
    if (kind === "REDEAL" || kind === "BAM") return el("span", { class: "word", text: action ? "yes" : "no" });
    if (kind === "TURN") return turnSteps(action);
    return el("span", { class: "word", text: String(action) });
  }

  function turnSteps(turn) {
    const list = el("ol", { class: "turn" });
    for (const step of turn.steps || []) {
      if ("meld" in step) list.append(el("li", {}, "meld ", cards(step.meld)));
      else if ("add" in step) {
        list.append(el("li", {}, "add ", cards(step.cards), " to #" + step.add + (step.at ? " at the " + step.at + " end" : "")));
      } else if ("swap" in step) list.append(el("li", {}, "swap ", card(step.card), " for the joker of #" + step.swap));
    }
    list.append(el("li", {}, "discard ", card(turn.discard)));
    return list;
  }

  function sameAction(kind, legal, action) {
    if (kind !== "DISCARD") return legal === action;
    const a = (legal.cards || []).slice().sort(), b = (action || []).slice().sort();
    return a.length === b.length && a.every((c, i) => c === b[i]);
  }

  // -- the table of one match -----------------------------------------------------------------------

  function drawing(match) {
    const game = match.game;
    const players = match.players;

    function seatName(seat) {
      const entry = match.seats[seat];
      return entry ? entry.bot : "?";
    }

    function sideName(side) {
      const seats = [];
      for (let s = side; s < players; s += match.teams) seats.push("s" + s);
      return seats.join("+");
    }

    function bySide(values) {
      return values.map((v, side) => sideName(side) + " " + v).join(", ");
    }

    /** A hand to show: Hokm's views hold it in card order already; Hand's, by copy, so the two 7H apart. */
    function inOrder(names) {
      if (game !== "hand") return names;
      const key = (name) => {
        const p = cardParts(name);
        return p.suit ? SUIT_ORDER.indexOf(p.suit) * 100 + RANK_ORDER.indexOf(p.rank) * 2 + Number(p.copy || 0) : 1000 + Number(p.copy || 0);
      };
      return names.slice().sort((a, b) => key(a) - key(b));
    }

    /** Where each seat sits: the seat looked through (else s0) at the bottom, the others in play order. */
    function positions(seen) {
      const places = { 2: ["south", "north"], 3: ["south", "east", "west"], 4: ["south", "east", "north", "west"] }[players]
        || ["south", "east", "north", "west"];
      const base = seen === null ? 0 : seen;
      const at = {};
      for (let i = 0; i < players; i++) at[(base + i) % players] = places[i];
      return at;
    }

    function seatBox(seat, step, row, seen, place, extra) {
      const mine = seen === null || seen === seat;
      const view = row[mine ? seat : seen]; // the hand: only ever from the seat's own view
      const badges = [];
      if (game === "hokm" && view.hakem === seat) badges.push(el("span", { class: "badge hakem" }, "hakem"));
      if (step.seat === seat) badges.push(el("span", { class: "badge act" }, "to " + step.kind));
      if (game === "hand" && view.opened[seat]) badges.push(el("span", { class: "badge" }, "opened"));
      if (match.teams && match.teams < players) badges.push(el("span", { class: "badge team" }, sideName(seat % match.teams)));
      const size = view.hand_sizes[seat];
      const hand = el("div", { class: "hand", "data-seat": seat, "data-size": size },
        mine ? inOrder(row[seat].hand).map((n) => card(n, step.seat === seat && step.kind === "PLAY" && step.action === n ? "chosen" : ""))
          : backs(size));
      const box = el("div", { class: "seat " + place + (step.seat === seat ? " acting" : "") + (mine ? " shown" : " hidden"),
        "data-seat-box": seat },
        el("div", { class: "who" }, el("b", {}, "s" + seat), " " + seatName(seat), badges,
          el("span", { class: "count" }, size + " card" + (size === 1 ? "" : "s"))),
        hand, extra || null);
      return box;
    }

    // Every seat's box, with the asides its game adds: ``asides(own, mine, seat)``, ``mine`` whether the
    // seat is shown and ``own`` its own view then, else null: an aside of a seat not shown has no view to read.
    function seatBoxes(step, row, seen, asides) {
      const place = positions(seen);
      const out = [];
      for (let seat = 0; seat < players; seat++) {
        const mine = seen === null || seen === seat;
        out.push(seatBox(seat, step, row, seen, place[seat], asides(mine ? row[seat] : null, mine, seat)));
      }
      return out;
    }

    function hokmTable(step, row, seen, view) {
      const place = positions(seen);
      const out = seatBoxes(step, row, seen, (own, mine, seat) => {
        const extra = [];
        if (mine && own.discarded.length) extra.push(el("div", { class: "aside" }, "discarded ", cards(own.discarded)));
        if (mine && own.draws.length) {
          extra.push(el("div", { class: "aside" }, "draws: ", own.draws.map((d, i) => el("span", { class: "draw" },
            i ? "; " : "", d.choice === "pass" ? ["passed ", card(d.offered), ", took ", card(d.second)]
              : ["kept ", card(d.offered), d.second ? [", burned ", card(d.second)] : ", burned a card unseen"]))));
        }
        if (mine && own.offered) extra.push(el("div", { class: "aside" }, "offered ", card(own.offered)));
        extra.push(el("div", { class: "won" }, "tricks won: " + view.tricks_won[seat]));
        return extra;
      });
      const trick = el("div", { class: "trick", id: "trick", "aria-label": "the trick in play" },
        view.trick.map((p) => el("div", { class: "play " + place[p.seat], "data-seat": p.seat }, card(p.card),
          el("small", {}, "s" + p.seat))));
      const trump = view.trump ? [suit(view.trump), " " + SUIT_NAME[view.trump]] : ["not named yet"];
      const teams = match.teams;
      const wonBySide = [];
      for (let side = 0; side < teams; side++) {
        let sum = 0;
        for (let s = side; s < players; s += teams) sum += view.tricks_won[s];
        wonBySide.push(sum);
      }
      const info = el("div", { class: "info", id: "info" },
        el("div", { id: "trump", "data-trump": view.trump || "" }, "Trump: ", trump),
        el("div", { id: "hakem", "data-hakem": view.hakem }, "Hakem: s" + view.hakem + " (" + seatName(view.hakem) + ")"),
        el("div", { id: "round" }, "Round " + view.round + (step.trick ? ", trick " + step.trick : "") +
          (view.bam ? " \u00b7 bam called: its side plays all 13 tricks" : "")),
        el("div", { id: "round-score" }, "Tricks this round: " + bySide(wonBySide)),
        el("div", { id: "match-score" }, "Match: " + bySide(view.scores) + " (to " + (match.rules || {}).target_score + ")"));
      const center = el("div", { class: "center" }, info, trick);
      if (view.tricks.length) {
        const last = view.tricks[view.tricks.length - 1];
        center.append(el("div", { class: "last-trick", id: "last-trick" }, "last trick (" + view.tricks.length + "): ",
          last.cards.map((c, i) => el("span", { class: "play-small", "data-seat": (last.leader + i) % players }, card(c),
            el("small", {}, "s" + ((last.leader + i) % players)))),
          el("span", {}, "won by s" + last.winner)));
      }
      for (const shown of view.redeals) {
        center.append(el("div", { class: "aside" }, "s" + shown.hakem + " showed ", cards(shown.cards), " for a redeal"));
      }
      out.push(center);
      return out;
    }

    // A game this page has no drawing of (a plug-in's: docs/new-game.md): each seat's view as its
    // fields, and only a seat looked through (or every seat, in the all-hands view) shows its own.
    function plainTable(step, row, seen) {
      const place = positions(seen);
      const out = [];
      for (let seat = 0; seat < players; seat++) {
        const mine = seen === null || seen === seat;
        const fields = mine ? Object.entries(row[seat]).map(([key, value]) =>
          el("div", { class: "field" }, el("b", {}, key + ": "), JSON.stringify(value))) : [el("div", {}, "(not shown)")];
        out.push(el("div", { class: "seat " + place[seat] + (step.seat === seat ? " acting" : "") + (mine ? " shown" : " hidden"),
          "data-seat-box": seat },
          el("div", { class: "who" }, el("b", {}, "s" + seat), " " + seatName(seat),
            step.seat === seat ? el("span", { class: "badge act" }, "to " + step.kind) : null),
          el("div", { class: "view" }, fields)));
      }
      return out;
    }

    function handTable(step, row, seen, view) {
      const out = seatBoxes(step, row, seen, (own, mine) => {
        const extra = [];
        if (mine && own.drawn) extra.push(el("div", { class: "aside" }, "drew ", card(own.drawn)));
        if (mine && own.took) extra.push(el("div", { class: "aside" }, "took ", card(own.took), " from the pile: it must be laid this turn"));
        return extra;
      });
      const melds = el("div", { class: "melds", id: "melds" });
      for (let owner = 0; owner < players; owner++) {
        const laid = view.melds.map((m, i) => [m, i]).filter(([m]) => m.owner === owner);
        if (!laid.length) continue;
        melds.append(el("div", { class: "owner", "data-owner": owner }, el("b", {}, "s" + owner + "'s melds"),
          laid.map(([m, i]) => el("div", { class: "meld", "data-meld": i, "data-owner": owner, "data-kind": m.kind },
            el("small", {}, "#" + i + " " + m.kind + (m.joker_as ? " (joker as " + m.joker_as + ")" : "")), cards(m.cards)))));
      }
      if (!melds.childNodes.length) melds.append(el("p", { class: "small" }, "No meld on the table yet."));
      const top = view.pile.length ? view.pile[view.pile.length - 1] : null;
      const info = el("div", { class: "info", id: "info" },
        el("div", { id: "round" }, "Round " + view.round + " of " + (match.rules || {}).rounds + ", first s" + view.first),
        el("div", { id: "pile", "data-size": view.pile.length }, "Pile: ",
          el("span", { id: "pile-top" }, top ? card(top) : "empty"), top ? " on " + (view.pile.length - 1) + " more" : ""),
        el("div", { id: "stock", "data-size": view.stock_size }, "Stock: " + view.stock_size + " cards"),
        el("div", { id: "match-score" }, "Score: " + bySide(view.scores) + " (lower is better)"));
      out.push(el("div", { class: "center" }, info, melds));
      return out;
    }

    /** The table's elements at one decision, by game; the public facts (trump, trick, melds, scores) from
     * ``view``: by default the view of the seat looked through, or of the seat asked in the all-hands view. */
    function table(step, row, seen, view) {
      const facts = view === undefined ? row[seen === null ? step.seat : seen] : view;
      const draw = { hokm: hokmTable, hand: handTable }[game] || plainTable;
      return draw(step, row, seen, facts);
    }

    return Object.freeze({
      table, el, card, suit, cards, ms, legalAction, recordAction, turnSteps, sameAction,
      seatName, sideName, bySide, SUIT_SYMBOL, SUIT_NAME,
    });
  }

  window.WaraqTable = Object.freeze({ drawing: drawing });
})();
