'use strict';
// YOUR HAND BOT: chooseHand below is the one function to change.
//
// Hand is the rummy of docs/rules.md "## Hand". Two kinds of decision, each
// given the seat's view (the request's HandView: view.hand, view.melds,
// view.pile, view.opened, view.took, view.uses, view.rules_json, ... as
// documented in bot.proto), the legal choices as plain values, and what
// MatchStart said (match.seat, match.players, match.partners):
//
//   kind   asked                                    legal               your choice
//   TAKE   when the top discard has a use this turn ["stock", "discard"] "stock" or "discard"
//   TURN   every turn, after the draw               [] (see below)      { steps: [...], discard: "KD#0" }
//
// Cards are spelled "7H#1" (the face, then which of its two copies), jokers
// "JK#0" and "JK#1". A TURN has no list of legal actions: the referee checks
// the whole turn (its steps are Step messages of bot.proto: meld, add, swap),
// so the sample strategy below keeps its own model of the hand and the table
// while it builds one (hand_melds.js).
//
// Return { choice, note }: the note is written in the match record next to the
// decision. answers.js turns the choice into the reply; a TAKE that is not
// legal, or a choice that throws, is replaced by a plain legal one and the note
// says `fallback: ...`.

const {
  charge,
  meldValue,
  fromTable,
  greedyMelds,
  addPlace,
  swapsFor,
  applyStep,
  costliestLoose,
} = require('./hand_melds');

/** The Hand decision of one seat: { choice, note }. Replace its body with your own logic. */
function chooseHand(kind, view, legal, match) {
  if (kind === 'TAKE') return chooseTake(view);
  if (kind === 'TURN') return chooseTurn(view);
  throw new Error(`unknown Hand decision kind ${kind}`);
}

// -- the sample strategy: simple, and meant to be replaced -------------------------

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

module.exports = { chooseHand, chooseTake, chooseTurn };
