'use strict';
// The bot's Hokm decisions: this is the file to change to write your own bot.
//
// Each choose* function below gets the seat's view (the request's HokmView:
// view.hand, view.trump, view.trick, view.tricks, view.scores, ... as
// documented in protocol/waraq/v1/bot.proto), the legal choices as plain
// values, and what MatchStart said (match.seat, match.players,
// match.partners). It returns { choice, note }: one of the legal values and
// a short reason that the referee writes in the match record.
//
//   kind     legal values            example choice
//   TRUMP    suit letters            "H"
//   PLAY     cards                   "10H"
//   DISCARD  pairs of cards          ["2C", "3S"]   (2 players)
//   DRAW     "keep", "pass"          "keep"         (2 players)
//   REDEAL   true, false             true           (max_redeals > 0)
//   BAM      true, false             false          (bam = true)
//
// decide() at the bottom turns a DecisionRequest into those values and the
// choice back into the reply's Action; a choice that is not legal is
// replaced by the first legal action (and said so in the note), so the bot
// never loses a match by a fault.

const { RANKS, suitOf, rankOf, beats, winningIndex, worth, cheapest } = require('./cards');

const JACK = RANKS.indexOf('J');

// -- the strategy: simple, and meant to be replaced ---------------------

/** Trump: the suit with most cards among the first five; a tie goes to the higher cards. */
function chooseTrump(view, suits) {
  const ranksIn = (suit) =>
    view.hand.filter((c) => suitOf(c) === suit).map(rankOf).sort((a, b) => b - a);
  const better = (a, b) => {
    const ra = ranksIn(a);
    const rb = ranksIn(b);
    if (ra.length !== rb.length) return ra.length > rb.length;
    for (let i = 0; i < ra.length; i++) {
      if (ra[i] !== rb[i]) return ra[i] > rb[i];
    }
    return false;
  };
  const suit = suits.reduce((best, s) => (better(s, best) ? s : best));
  return { choice: suit, note: `trump ${suit}: ${ranksIn(suit).length} of my ${view.hand.length} cards` };
}

/**
 * Play: lead the highest card; when following, let a winning partner have
 * the trick, else take it with the lowest card that wins, else throw the
 * lowest card (a trump only when nothing else is allowed).
 */
function choosePlay(view, cards, match) {
  const trump = view.trump;
  if (view.trick.length === 0) {
    const top = Math.max(...cards.map(rankOf));
    const card = cheapest(cards.filter((c) => rankOf(c) === top), trump);
    return { choice: card, note: `lead my highest, ${card}` };
  }
  const played = view.trick.map((p) => p.card);
  const leader = view.trick[winningIndex(played, trump)];
  if (match.partners.includes(leader.seat)) {
    return { choice: cheapest(cards, trump), note: `partner (seat ${leader.seat}) is winning: lowest` };
  }
  const winners = cards.filter((c) => beats(c, leader.card, trump));
  if (winners.length > 0) {
    return { choice: cheapest(winners, trump), note: `lowest card that beats ${leader.card}` };
  }
  return { choice: cheapest(cards, trump), note: `cannot beat ${leader.card}: lowest` };
}

/** Discard (2 players): the two lowest cards, trumps kept while there are other cards. */
function chooseDiscard(view) {
  const pair = [...view.hand].sort((a, b) => worth(a, view.trump) - worth(b, view.trump)).slice(0, 2);
  return { choice: pair, note: `discard the two lowest, ${pair.join(' ')}` };
}

/** Draw (2 players): keep the offered card if it is a trump or a jack or better. */
function chooseDraw(view) {
  const card = view.offered;
  const keep = suitOf(card) === view.trump || rankOf(card) >= JACK;
  return { choice: keep ? 'keep' : 'pass', note: `${keep ? 'keep' : 'pass'} ${card}` };
}

/** Redeal: asked only when the first five hold no A, K, Q or J; always ask for new cards. */
function chooseRedeal() {
  return { choice: true, note: 'no A, K, Q or J: new deal' };
}

/** Bam: at 7-0 in tricks, take the round and its kot rather than risk it for the game. */
function chooseBam() {
  return { choice: false, note: 'take the kot, no bam' };
}

// -- from the request to the reply: no need to change below ----------------

// Per kind: which field of Action carries it, and who chooses.
const KINDS = {
  TRUMP: { field: 'suit', choose: chooseTrump },
  PLAY: { field: 'card', choose: choosePlay },
  DISCARD: { field: 'discard', choose: chooseDiscard },
  DRAW: { field: 'draw', choose: chooseDraw },
  REDEAL: { field: 'answer', choose: chooseRedeal },
  BAM: { field: 'answer', choose: chooseBam },
};

/** An Action message -> its plain value ("10H", ["2C", "3S"], "keep", true, ...). */
function valueOf(action, field) {
  return field === 'discard' ? [...action.discard.cards] : action[field];
}

/** A plain value -> the Action message that carries it. */
function actionOf(value, field) {
  return field === 'discard' ? { discard: { cards: value } } : { [field]: value };
}

function sameValue(a, b) {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && [...a].sort().join() === [...b].sort().join();
  }
  return a === b;
}

/**
 * A DecisionRequest (and the match's MatchStart facts) -> { action, note }:
 * always one of the request's legal actions.
 */
function decide(request, match) {
  const legal = request.legal;
  if (legal.length === 0) throw new Error(`a ${request.kind} request with no legal action`);
  const kind = KINDS[request.kind];
  if (kind === undefined) {
    // A kind this bot does not know: any legal action keeps the match going.
    const field = legal[0].action;
    return { action: { [field]: legal[0][field] }, note: `unknown kind ${request.kind}: first legal action` };
  }
  const values = legal.map((a) => valueOf(a, kind.field));
  let choice;
  let note;
  try {
    ({ choice, note } = kind.choose(request.hokm, values, match || { seat: request.seat, partners: [] }));
  } catch (error) {
    console.error(`${request.kind} decision failed:`, error);
    return { action: actionOf(values[0], kind.field), note: `fallback: ${error.message}` };
  }
  const legalChoice = values.find((v) => sameValue(v, choice));
  if (legalChoice === undefined) {
    console.error(`${request.kind}: ${JSON.stringify(choice)} is not legal; playing ${JSON.stringify(values[0])}`);
    return { action: actionOf(values[0], kind.field), note: `fallback: ${JSON.stringify(choice)} is not legal` };
  }
  return { action: actionOf(legalChoice, kind.field), note };
}

module.exports = { decide, chooseTrump, choosePlay, chooseDiscard, chooseDraw, chooseRedeal, chooseBam };
