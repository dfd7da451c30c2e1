'use strict';
// From a DecisionRequest to the Action of its reply, around the two functions
// a bot author changes (chooseHokm in hokm.js, chooseHand in hand.js): the
// request's legal actions go in as plain values ("10H", ["2C", "3S"], "keep",
// true, "stock"), the choice comes out checked. A choice that is not legal, or
// a strategy that throws, gets a plain legal action instead, a note that
// starts `fallback: ` and a line on stderr: a bug in the strategy costs one
// decision, never the match by a fault. No need to change this file.

const { chooseHokm } = require('./hokm');
const { chooseHand } = require('./hand');
const { without, costliestLoose } = require('./hand_melds');

/** What MatchStart said, or as much as the request tells when the stream gave no MatchStart. */
function matchFacts(request, match) {
  return match || { seat: request.seat, partners: [] };
}

// -- Hokm ----------------------------------------------------------------------

// Per kind: which field of Action carries its value.
const HOKM_FIELDS = { TRUMP: 'suit', PLAY: 'card', DISCARD: 'discard', DRAW: 'draw', REDEAL: 'answer', BAM: 'answer' };

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

/** A DecisionRequest whose view is a HokmView -> { action, note }: always one of its legal actions. */
function answerHokm(request, match) {
  const legal = request.legal;
  if (legal.length === 0) throw new Error(`a ${request.kind} request with no legal action`);
  const field = HOKM_FIELDS[request.kind];
  if (field === undefined) {
    // A kind this bot does not know (a newer referee's): any legal action keeps the match going.
    const member = legal[0].action;
    return { action: { [member]: legal[0][member] }, note: `unknown kind ${request.kind}: first legal action` };
  }
  const values = legal.map((a) => valueOf(a, field));
  let choice;
  let note;
  try {
    ({ choice, note } = chooseHokm(request.kind, request.hokm, values, matchFacts(request, match)));
  } catch (error) {
    console.error(`${request.kind} decision failed:`, error);
    return { action: actionOf(values[0], field), note: `fallback: ${error.message}` };
  }
  const legalChoice = values.find((v) => sameValue(v, choice));
  if (legalChoice === undefined) {
    console.error(`${request.kind}: ${JSON.stringify(choice)} is not legal; playing ${JSON.stringify(values[0])}`);
    return { action: actionOf(values[0], field), note: `fallback: ${JSON.stringify(choice)} is not legal` };
  }
  return { action: actionOf(legalChoice, field), note };
}

// -- Hand ----------------------------------------------------------------------

/** The first TAKE value the referee allows ("stock" is always there). */
function firstTake(request) {
  return request.legal.length > 0 ? request.legal[0].take : 'stock';
}

/** A turn the referee always takes: the taken discard down its first listed way, then the costliest loose card. */
function fallbackTurn(view) {
  const turn = { hand: [...view.hand], steps: [] };
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
 * A DecisionRequest whose view is a HandView -> { action, note }. A TURN is
 * not checked here (it has no list of legal actions): the referee checks it.
 */
function answerHand(request, match) {
  if (request.kind !== 'TAKE' && request.kind !== 'TURN') {
    throw new Error(`unknown Hand decision kind ${request.kind}`);
  }
  const view = request.hand;
  try {
    if (request.kind === 'TAKE') {
      const legal = request.legal.map((a) => a.take);
      const { choice, note } = chooseHand('TAKE', view, legal, matchFacts(request, match));
      if (!legal.includes(choice)) {
        return { action: { take: firstTake(request) }, note: `fallback: ${choice} is not legal` };
      }
      return { action: { take: choice }, note };
    }
    const { choice, note } = chooseHand('TURN', view, [], matchFacts(request, match));
    return { action: { turn: choice }, note };
  } catch (error) {
    console.error(`${request.kind} decision failed:`, error);
    const action = request.kind === 'TAKE' ? { take: firstTake(request) } : { turn: fallbackTurn(view) };
    return { action, note: `fallback: ${error.message}` };
  }
}

module.exports = { answerHokm, answerHand };
