'use strict';
// A model of Hand's cards, melds and turns (the rummy of docs/rules.md
// "## Hand"), for a strategy to build a turn with: what a card is worth, which
// melds a hand can make, where a card goes on a table meld, the hand and table
// a turn's steps leave, and which cards are loose. The sample strategy in
// hand.js uses it, and answers.js's fallback turn discards its costliest loose
// card; your strategy may use it or not.
//
// Cards are spelled "7H#1" (the face, then which of its two copies), jokers
// "JK#0" and "JK#1".

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

// -- turns ---------------------------------------------------------------------
//
// A turn being built: { hand, table, opened, steps }, the seat's cards, the
// table's melds (as melds of this file), whether the seat has opened, and the
// steps so far (Step messages of bot.proto).

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


// -- loose cards -----------------------------------------------------------------

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

module.exports = {
  face,
  isJoker,
  suitOf,
  rankOf,
  rankValue,
  charge,
  places,
  meldValue,
  fromTable,
  candidateMelds,
  without,
  greedyMelds,
  addPlace,
  swapsFor,
  applyStep,
  isRun,
  isLoose,
  costliestLoose,
};
