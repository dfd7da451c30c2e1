'use strict';
// The bot's Hand decisions (the rummy of docs/rules.md "## Hand"): the file to
// change to write your own Hand bot.
//
// Two kinds of decision, each given the seat's view (the request's HandView:
// view.hand, view.melds, view.pile, view.opened, view.uses, ... as documented
// in protocol/waraq/v1/bot.proto):
//
//   kind   asked                                    the reply's Action
//   TAKE   when the top discard has a use this turn { take: "stock" } or { take: "discard" }
//   TURN   every turn, after the draw               { turn: { steps: [...], discard: "KD#0" } }
//
// Cards are spelled "7H#1" (the face, then which of its two copies), jokers
// "JK#0" and "JK#1". A TURN has no list of legal actions: the referee checks
// the whole turn, so this file keeps its own model of the hand and the table
// while it builds one (see planTurn).

const { RANKS, SUITS } = require('./cards');

const ACE = RANKS.indexOf('A');
const TEN = RANKS.indexOf('10');
const JOKER_CHARGE = 15;
// A run's places, from the ace below the 2 (LOW_ACE) to the ace above the king (ACE).
const LOW_ACE = -1;

// -- cards -------------------------------------------------------------------

function face(card) {
  return card.split('#')[0];
}

function isJoker(card) {
  return face(card) === 'JK';
}

function suitOf(card) {
  return face(card).slice(-1);
}

/** 0 for a 2 up to 12 for an ace; a joker has none. */
function rankOf(card) {
  const rank = RANKS.indexOf(face(card).slice(0, -1));
  if (rank < 0 || !SUITS.includes(suitOf(card))) {
    throw new Error(`not a Hand card: ${JSON.stringify(card)}`);
  }
  return rank;
}

/** What a card of this rank is worth in a meld: ace 11, K Q J 10, others their number. */
function rankValue(rank) {
  if (rank === ACE || rank === LOW_ACE) return 11;
  return rank >= TEN ? 10 : rank + 2;
}

/** What a card left in hand costs at the round's end: a joker 15, the rest their value. */
function charge(card) {
  return isJoker(card) ? JOKER_CHARGE : rankValue(rankOf(card));
}

/** The ranks a real card can stand at in a run: an ace both below the 2 and above the king. */
function places(card) {
  const rank = rankOf(card);
  return rank === ACE ? [LOW_ACE, ACE] : [rank];
}

// -- melds ---------------------------------------------------------------------
//
// A meld here: { kind: "run", suit, start, cards } (cards ascending, the
// joker at its place, start the place of the first) or { kind: "set", rank,
// cards }.

function meldValue(meld) {
  if (meld.kind === 'set') return meld.cards.length * rankValue(meld.rank);
  return meld.cards.reduce((sum, _, i) => sum + rankValue(meld.start + i), 0);
}

/** A table meld of the view, as a meld of this file. */
function fromTable(tableMeld) {
  const cards = [...tableMeld.cards];
  const real = cards.filter((c) => !isJoker(c));
  if (tableMeld.kind === 'set') return { kind: 'set', rank: rankOf(real[0]), cards };
  // A real card that is not an ace tells where the run starts (two real cards, never two aces).
  const i = cards.findIndex((c) => !isJoker(c) && rankOf(c) !== ACE);
  return { kind: 'run', suit: suitOf(real[0]), start: rankOf(cards[i]) - i, cards };
}

/**
 * Every meld the hand can make, some with its joker: for each suit every
 * window of places of 3 to 13 ranks (never both aces) missing at most the one
 * card the joker fills, and for each rank the set of its suits (with the
 * joker when only two suits are there). One copy of a card is enough.
 */
function candidateMelds(hand) {
  const joker = hand.find(isJoker);
  const real = hand.filter((c) => !isJoker(c));
  const melds = [];
  for (const suit of SUITS) {
    const at = new Map(); // place -> a card of this suit there
    for (const card of real.filter((c) => suitOf(c) === suit)) {
      for (const place of places(card)) at.set(place, card);
    }
    for (let start = LOW_ACE; start <= ACE - 2; start++) {
      for (let end = start + 2; end <= ACE && !(start === LOW_ACE && end === ACE); end++) {
        const missing = [];
        for (let p = start; p <= end; p++) if (!at.has(p)) missing.push(p);
        if (missing.length > (joker ? 1 : 0)) break; // longer windows miss at least as much
        const cards = [];
        for (let p = start; p <= end; p++) cards.push(at.has(p) ? at.get(p) : joker);
        melds.push({ kind: 'run', suit, start, cards });
      }
    }
  }
  for (let rank = 0; rank < RANKS.length; rank++) {
    const bySuit = new Map();
    for (const card of real.filter((c) => rankOf(c) === rank)) bySuit.set(suitOf(card), card);
    const cards = [...bySuit.values()];
    if (cards.length >= 3) melds.push({ kind: 'set', rank, cards });
    else if (cards.length === 2 && joker) melds.push({ kind: 'set', rank, cards: [...cards, joker] });
  }
  return melds;
}

function without(hand, cards) {
  const rest = [...hand];
  for (const card of cards) rest.splice(rest.indexOf(card), 1);
  return rest;
}

/**
 * The bot's simple search: take the most valuable meld the hand can make,
 * then the most valuable of what is left, until none is left; never the
 * last card (one must stay to discard). Greedy, so it can miss a better
 * combination: the Python heuristic searches properly.
 */
function greedyMelds(hand) {
  const chosen = [];
  let rest = [...hand];
  for (;;) {
    const melds = candidateMelds(rest).filter((m) => m.cards.length < rest.length);
    if (melds.length === 0) return chosen;
    const best = melds.reduce((a, b) => (meldValue(b) > meldValue(a) ? b : a));
    chosen.push(best);
    rest = without(rest, best.cards);
  }
}

/** Where `card` could be added to `meld`: "low", "high", "" (a set), or null if nowhere. */
function addPlace(meld, card) {
  if (isJoker(card)) return null; // the joker is kept for the bot's own melds
  if (meld.kind === 'set') {
    const suits = meld.cards.filter((c) => !isJoker(c)).map(suitOf);
    return meld.cards.length < 4 && rankOf(card) === meld.rank && !suits.includes(suitOf(card)) ? '' : null;
  }
  if (suitOf(card) !== meld.suit) return null;
  const end = meld.start + meld.cards.length - 1;
  // Never both aces: a run from the low ace cannot reach the high one.
  const low = meld.start - 1;
  if (low >= LOW_ACE && !(low === LOW_ACE && end === ACE) && places(card).includes(low)) return 'low';
  const high = end + 1;
  if (high <= ACE && !(meld.start === LOW_ACE && high === ACE) && places(card).includes(high)) return 'high';
  return null;
}

/** The card that can replace `meld`'s joker, if the meld has one and such a card exists (docs/rules.md). */
function swapsFor(meld, card) {
  const j = meld.cards.findIndex(isJoker);
  if (j < 0 || isJoker(card)) return false;
  if (meld.kind === 'run') return suitOf(card) === meld.suit && places(card).includes(meld.start + j);
  const suits = meld.cards.filter((c) => !isJoker(c)).map(suitOf);
  return meld.cards.length === 4 && rankOf(card) === meld.rank && !suits.includes(suitOf(card));
}

// -- the strategy: simple, and meant to be replaced ------------------------------

function openingPoints(view) {
  return JSON.parse(view.rules_json || '{}').opening_points || 51;
}

/**
 * TAKE: the discard when the bot can see a use for it now (opened: it makes a
 * meld with the hand or goes on a table meld; not opened: the simple search
 * finds an opening with it in a meld), else the stock.
 */
function chooseTake(view) {
  const top = view.pile[view.pile.length - 1];
  const hand = [...view.hand, top];
  if (view.opened[view.seat]) {
    if (greedyMelds(hand).some((m) => m.cards.includes(top))) return { choice: 'discard', note: `${top} makes a meld` };
    const meld = view.melds.map(fromTable).find((m) => addPlace(m, top) !== null);
    if (meld) return { choice: 'discard', note: `${top} goes on the ${meld.kind} ${meld.cards.join(' ')}` };
    return { choice: 'stock', note: `no use for ${top}` };
  }
  const melds = greedyMelds(hand);
  const worth = melds.reduce((sum, m) => sum + meldValue(m), 0);
  if (worth >= openingPoints(view) && melds.some((m) => m.cards.includes(top))) {
    return { choice: 'discard', note: `${top} opens with ${worth}` };
  }
  return { choice: 'stock', note: `${top} does not open for me` };
}

/**
 * TURN: put the taken discard down the first way the referee lists
 * (view.uses), swap table jokers for cards in hand, lay the melds the simple
 * search finds (before opening: only if they are worth opening_points
 * together), add cards to table melds, then discard the costliest loose card.
 */
function chooseTurn(view) {
  const turn = { hand: [...view.hand], table: view.melds.map(fromTable), opened: view.opened[view.seat], steps: [] };
  const notes = [];
  if (view.took) {
    for (const step of view.uses[0].steps) applyStep(turn, step);
    turn.opened = true; // a use of the discard is laid on the table: the seat has opened (or had)
    notes.push(`${view.took} used`);
  }
  if (turn.opened) swapJokers(turn, notes);
  const melds = greedyMelds(turn.hand);
  const worth = melds.reduce((sum, m) => sum + meldValue(m), 0);
  if (melds.length > 0 && (turn.opened || worth >= openingPoints(view))) {
    for (const meld of melds) applyStep(turn, { step: 'meld', meld: { cards: meld.cards } });
    notes.push(`${turn.opened ? 'laid' : 'opened with'} ${worth}`);
    turn.opened = true;
  }
  if (turn.opened) addToTable(turn, notes);
  const discard = costliestLoose(turn.hand);
  notes.push(`discard ${discard}${turn.hand.length === 1 ? ', out' : ''}`);
  return { choice: { steps: turn.steps, discard }, note: notes.join('; ') };
}

/** A table joker for the card it stands for, while there is one (the joker then joins the search). */
function swapJokers(turn, notes) {
  for (let i = 0; i < turn.table.length; i++) {
    const card = turn.hand.find((c) => swapsFor(turn.table[i], c));
    if (card !== undefined) {
      applyStep(turn, { step: 'swap', swap: { meld: i, card } });
      notes.push(`swap ${card} for a joker`);
    }
  }
}

/** Each card that fits a table meld goes there, highest first, while a card stays to discard. */
function addToTable(turn, notes) {
  let added = true;
  while (added && turn.hand.length > 1) {
    added = false;
    for (const card of [...turn.hand].sort((a, b) => charge(b) - charge(a))) {
      const i = turn.table.findIndex((m) => addPlace(m, card) !== null);
      if (i >= 0 && turn.hand.length > 1) {
        applyStep(turn, { step: 'add', add: { meld: i, cards: [card], at: addPlace(turn.table[i], card) } });
        notes.push(`add ${card}`);
        added = true;
      }
    }
  }
}

/** One step (as a Step message) on the bot's model of its hand and the table, and into the turn. */
function applyStep(turn, step) {
  turn.steps.push(step);
  if (step.step === 'meld') {
    const cards = [...step.meld.cards];
    turn.hand = without(turn.hand, cards);
    turn.table.push(fromTable({ kind: isRun(cards) ? 'run' : 'set', cards }));
  } else if (step.step === 'add') {
    const { meld, cards, at } = step.add;
    turn.hand = without(turn.hand, cards);
    const old = turn.table[meld];
    const grown = at === 'low' ? [...cards, ...old.cards] : [...old.cards, ...cards];
    turn.table[meld] = { ...old, cards: grown, start: at === 'low' ? old.start - cards.length : old.start };
  } else {
    const { meld, card } = step.swap;
    const old = turn.table[meld];
    const j = old.cards.findIndex(isJoker);
    turn.hand = [...without(turn.hand, [card]), old.cards[j]];
    turn.table[meld] = { ...old, cards: old.cards.map((c, k) => (k === j ? card : c)) };
  }
}

/** A meld's cards are a run when its real cards are of one suit and not all of one rank. */
function isRun(cards) {
  const real = cards.filter((c) => !isJoker(c));
  return new Set(real.map(suitOf)).size === 1 && new Set(real.map(rankOf)).size > 1;
}

/**
 * A loose card is one no other card of the hand could meld with: no card of
 * its rank in another suit, no card of its suit within two ranks (an ace
 * counting both low and high).
 */
function isLoose(card, hand) {
  return !hand.some((other) => {
    if (other === card || isJoker(other)) return false;
    if (rankOf(other) === rankOf(card)) return suitOf(other) !== suitOf(card);
    if (suitOf(other) !== suitOf(card)) return false;
    return places(card).some((p) => places(other).some((q) => Math.abs(p - q) <= 2));
  });
}

/**
 * The card to discard: the costliest loose card; with none loose the
 * costliest card that is not a joker; the joker only when it is all there
 * is. Ties go to the first in hand order.
 */
function costliestLoose(hand) {
  const real = hand.filter((c) => !isJoker(c));
  const loose = real.filter((c) => isLoose(c, hand));
  const pool = loose.length > 0 ? loose : real.length > 0 ? real : hand;
  return pool.reduce((best, c) => (charge(c) > charge(best) ? c : best));
}

// -- from the request to the reply: no need to change below ----------------------

/** The first TAKE value the referee allows ("stock" is always there). */
function firstLegal(request) {
  return request.legal.length > 0 ? request.legal[0].take : 'stock';
}

/** A turn the referee always takes: the taken discard down its first listed way, then the highest card. */
function fallbackTurn(view) {
  const turn = { hand: [...view.hand], table: [], opened: true, steps: [] };
  if (view.took) {
    for (const step of view.uses[0].steps) {
      turn.steps.push(step);
      if (step.step === 'meld') turn.hand = without(turn.hand, step.meld.cards);
      if (step.step === 'add') turn.hand = without(turn.hand, step.add.cards);
    }
  }
  return { steps: turn.steps, discard: costliestLoose(turn.hand) };
}

/**
 * A DecisionRequest whose view is a HandView (and the match's MatchStart
 * facts) -> { action, note }. A choice that fails (a bug in the strategy)
 * falls back to a plain legal one and says so in the note.
 */
function decide(request) {
  const view = request.hand;
  try {
    if (request.kind === 'TAKE') {
      const { choice, note } = chooseTake(view);
      const legal = request.legal.map((a) => a.take);
      if (!legal.includes(choice)) {
        return { action: { take: firstLegal(request) }, note: `fallback: ${choice} is not legal` };
      }
      return { action: { take: choice }, note };
    }
    if (request.kind === 'TURN') {
      const { choice, note } = chooseTurn(view);
      return { action: { turn: choice }, note };
    }
  } catch (error) {
    console.error(`${request.kind} decision failed:`, error);
    const action = request.kind === 'TAKE' ? { take: firstLegal(request) } : { turn: fallbackTurn(view) };
    return { action, note: `fallback: ${error.message}` };
  }
  throw new Error(`unknown Hand decision kind ${request.kind}`);
}

module.exports = {
  decide,
  chooseTake,
  chooseTurn,
  candidateMelds,
  greedyMelds,
  meldValue,
  costliestLoose,
  isLoose,
  charge,
};
