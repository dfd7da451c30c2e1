'use strict';
// YOUR HOKM BOT: chooseHokm below is the one function to change.
//
// It gets the decision's kind, the seat's view (the request's HokmView:
// view.hand, view.trump, view.trick, view.tricks, view.scores, view.offered,
// ... as documented in bot.proto, cards spelled "10H"), the legal choices as
// plain values, and what MatchStart said (match.seat, match.players,
// match.partners). It returns { choice, note }: one of the legal values and a
// short reason that the referee writes in the match record.
//
//   kind     legal values            example choice   asked
//   TRUMP    suit letters            "H"              of the hakem, every round
//   PLAY     cards                   "10H"            every trick
//   DISCARD  pairs of cards          ["2C", "3S"]     2 players (--rules two)
//   DRAW     "keep", "pass"          "keep"           2 players (--rules two)
//   REDEAL   true, false             true             with max_redeals > 0
//   BAM      true, false             false            with bam = true
//
// answers.js turns the request into those values and the choice back into the
// reply's Action; a choice that is not legal (or that throws) is replaced by
// the first legal action, and the note says `fallback: ...`, so the bot never
// loses a match by a fault.

const { RANKS, suitOf, rankOf, beats, winningIndex, worth, cheapest } = require('./cards');

const JACK = RANKS.indexOf('J');

/** The Hokm decision of one seat: { choice, note }. Replace its body with your own logic. */
function chooseHokm(kind, view, legal, match) {
  switch (kind) {
    case 'TRUMP':
      return chooseTrump(view, legal);
    case 'PLAY':
      return choosePlay(view, legal, match);
    case 'DISCARD':
      return chooseDiscard(view);
    case 'DRAW':
      return chooseDraw(view);
    case 'REDEAL':
      return chooseRedeal();
    case 'BAM':
      return chooseBam();
    default:
      throw new Error(`unknown Hokm decision kind ${kind}`);
  }
}

// -- the sample strategy: simple, and meant to be replaced -----------------

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

module.exports = { chooseHokm, chooseTrump, choosePlay, chooseDiscard, chooseDraw, chooseRedeal, chooseBam };
