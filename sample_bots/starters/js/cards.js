'use strict';
// Cards as the protocol spells them: rank then suit, "10H", "AS", "2D".
// Ranks 2..A (ace high), suits S H D C.

const RANKS = ['2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K', 'A'];
const SUITS = ['S', 'H', 'D', 'C'];

/** The suit letter of a card: suitOf("10H") === "H". */
function suitOf(card) {
  return card.slice(-1);
}

/** The rank of a card as a number, 0 for a 2 up to 12 for an ace. */
function rankOf(card) {
  const rank = RANKS.indexOf(card.slice(0, -1));
  if (rank < 0 || !SUITS.includes(suitOf(card))) {
    throw new Error(`not a card: ${JSON.stringify(card)}`);
  }
  return rank;
}

/** True when `card` beats `best`, the card winning the trick so far. */
function beats(card, best, trump) {
  if (suitOf(card) === suitOf(best)) return rankOf(card) > rankOf(best);
  return suitOf(card) === trump;
}

/** The index of the card winning `cards` (in play order; the first led). */
function winningIndex(cards, trump) {
  let best = 0;
  for (let i = 1; i < cards.length; i++) {
    if (beats(cards[i], cards[best], trump)) best = i;
  }
  return best;
}

/**
 * How much a card is worth keeping: any trump above any other card, then by
 * rank. Sorting by it puts the cheapest card to give away first.
 */
function worth(card, trump) {
  return (suitOf(card) === trump ? 100 : 0) + rankOf(card);
}

/** The cheapest card of `cards` (see worth). */
function cheapest(cards, trump) {
  return cards.reduce((low, c) => (worth(c, trump) < worth(low, trump) ? c : low));
}

module.exports = { RANKS, SUITS, suitOf, rankOf, beats, winningIndex, worth, cheapest };
