'use strict';
// Dialling in: the bot opens streams to a referee's lobby (waraq.v1.Lobby in
// bot.proto) instead of serving a port the referee dials. For a bot behind
// NAT, on a laptop, or whose code stays with its author:
//
//   WARAQ_TOKEN=wq_... node bot.js --connect arena.example:7070 --tls
//
// The decisions are the same as when serving (bot.js passes its reply in).
// No need to change this file. What the lobby expects, from bot.proto:
//
// - One Dial stream offers one seat. Its first message is `dial` (the token
//   and the Hello). It then waits until a match seats the bot, and from there
//   carries what a Play stream carries: `start`, `decision`s, `end`, then OK.
// - One spare stream waits at all times: as soon as a stream gets its
//   `start`, another is opened, so a match that seats the bot twice (or two
//   matches at once) finds a stream for each seat.
// - A seated stream that breaks is dialled again with its match_id and seat;
//   the referee sends the `start` again, then the decision it waits on.

const grpc = require('@grpc/grpc-js');

const SPARE = 1; // streams kept open waiting for a seat
const FIRST_WAIT_MS = 500; // the wait before dialling again after a drop; it doubles on each drop...
const MOST_WAIT_MS = 30_000; // ...up to this, and starts over once a stream stood longer than this

// Dialling again would not help: a token the lobby does not hold, or this bot
// already connected from another address. The bot stops.
const REFUSED = new Set([grpc.status.UNAUTHENTICATED, grpc.status.FAILED_PRECONDITION]);
// The seat is no longer this bot's (its grace is over, or a newer stream took
// it back): that seat stops, and the bot plays on.
const SEAT_GONE = new Set([grpc.status.NOT_FOUND, grpc.status.ABORTED]);

const CHANNEL_OPTIONS = {
  // Pings keep a NAT mapping open while a stream waits for a match, and find a dead connection.
  'grpc.keepalive_time_ms': 20_000,
  'grpc.keepalive_permit_without_calls': 1,
  // gRPC's own reconnect back-off grows to 120 s by default: a lobby back up is found within our longest wait.
  'grpc.max_reconnect_backoff_ms': MOST_WAIT_MS,
};

class Refused extends Error {}

/** How a stream ended, for a line on stderr: "UNAVAILABLE: Connection dropped". */
function spelled(status) {
  return `${grpc.status[status.code]}${status.details ? `: ${status.details}` : ''}`;
}

class DialIn {
  /**
   * @param Lobby    the Lobby client class of the loaded bot.proto
   * @param hello    what this bot's Hello answers (a HelloReply)
   * @param reply    (request, match) -> DecisionReply: bot.js's, the same as when serving
   */
  constructor(Lobby, address, token, credentials, hello, reply) {
    this.token = token;
    this.hello = hello;
    this.reply = reply;
    this.lobby = new Lobby(address, credentials, CHANNEL_OPTIONS);
    this.open = new Set(); // every stream open now, to cancel on stop
    this.stopping = false;
  }

  /** Dial, and keep dialling until stop(); rejects with Refused when the lobby refuses this bot. */
  run() {
    return new Promise((_, reject) => {
      this.refused = reject;
      for (let i = 0; i < SPARE; i++) this.offer();
    });
  }

  stop() {
    this.stopping = true;
    for (const call of this.open) call.cancel();
    this.lobby.close();
  }

  /** Start one seat offer; its refusal stops the whole bot. */
  offer() {
    this.offerSeat().catch((error) => {
      this.stop();
      this.refused(error);
    });
  }

  /**
   * One seat offer, dialled again after each drop, until a match seats it and
   * that seat is over (or gone).
   */
  async offerSeat() {
    let wait = FIRST_WAIT_MS;
    let resume = null; // the MatchStart of the seat this offer holds, once it has one
    while (!this.stopping) {
      const begun = Date.now();
      const { status, start } = await this.stream(resume);
      const seat = start || resume;
      if (this.stopping) return;
      if (REFUSED.has(status.code)) throw new Refused(spelled(status));
      if (seat !== null && status.code === grpc.status.OK) return; // the match is over for this seat
      if (seat !== null && SEAT_GONE.has(status.code)) {
        console.error(`lobby: seat ${seat.seat} of ${seat.match_id}: ${spelled(status)}`);
        return;
      }
      resume = seat;
      if (Date.now() - begun > MOST_WAIT_MS) wait = FIRST_WAIT_MS; // it stood a while: a fresh drop
      console.error(`lobby: ${spelled(status)}; dialling again in ${(wait / 1000).toFixed(1)} s`);
      // Jitter, so bots cut off together do not all dial back in the same instant.
      await new Promise((resolve) => setTimeout(resolve, wait * (0.8 + 0.4 * Math.random())));
      wait = Math.min(MOST_WAIT_MS, wait * 2);
    }
  }

  /**
   * One Dial stream until the lobby ends it. Resolves with its status and the
   * MatchStart it got (null if it was never seated). With `resume`, it takes
   * that seat back rather than offer a new one.
   */
  stream(resume) {
    return new Promise((resolve) => {
      const call = this.lobby.Dial();
      this.open.add(call);
      let start = null;
      let match = null; // what answers.js is told of the match, as in bot.js's play()
      call.on('data', (message) => {
        switch (message.body) {
          case 'start':
            if (start === null && resume === null) this.offer(); // seated: a new spare takes its place
            start = message.start;
            match = { seat: start.seat, players: start.players, partners: start.partners };
            break;
          case 'decision':
            try {
              call.write({ reply: this.reply(message.decision, match) });
            } catch (error) {
              // A request this bot cannot read: give up this seat only (the referee faults
              // it), as bot.js's play() does; the bot plays on in its other seats.
              console.error(`seq ${message.decision.seq}: ${error.stack || error}`);
              call.end();
            }
            break;
          default:
            break;
        }
      });
      call.on('error', () => {}); // the status below says what happened
      call.on('status', (status) => {
        this.open.delete(call);
        resolve({ status, start });
      });
      const dial = { token: this.token, hello: this.hello };
      if (resume !== null) Object.assign(dial, { match_id: resume.match_id, seat: resume.seat });
      call.write({ dial });
    });
  }
}

module.exports = { DialIn, Refused };
