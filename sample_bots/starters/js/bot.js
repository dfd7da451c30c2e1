#!/usr/bin/env node
'use strict';
// A Waraq bot in JavaScript: a gRPC server for waraq.v1.Bot
// (protocol/waraq/v1/bot.proto), the standard health service and server
// reflection (so grpcurl can list and call it); or, with --connect, a bot
// that dials a referee's lobby (waraq.v1.Lobby, dial_in.js).
//
//   node bot.js --port 50051 [--proto PATH/TO/bot.proto]
//   WARAQ_TOKEN=wq_... node bot.js --connect HOST:PORT [--tls | --tls-ca PEM]
//
// This file is only the plumbing: the decisions are chooseHokm in hokm.js and
// chooseHand in hand.js (answers.js carries requests to them and checks their
// choices). Change NAME and AUTHOR below to your bot's.

const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { performance } = require('node:perf_hooks');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { ReflectionService } = require('@grpc/reflection');
const { answerHokm, answerHand } = require('./answers');
const { DialIn, Refused } = require('./dial_in');

const NAME = 'js-sample';
const VERSION = require('./package.json').version;
const AUTHOR = 'Waraq sample bots';
const PROTOCOL_VERSION = 1;
const NOTE_LIMIT = 1024; // bytes; a longer note is a fault

const HEALTH_PROTO = path.join(__dirname, 'health.proto');
// Where a Waraq checkout keeps the contract, relative to its root.
const PROTO_IN_CHECKOUT = path.join('protocol', 'waraq', 'v1', 'bot.proto');

// Messages as plain objects: field names as in the .proto, uint64 as strings,
// every field present, and `body` / `action` naming the oneof member set.
const LOAD_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, arrays: true, oneofs: true };

function definition(file) {
  return protoLoader.loadSync(file, LOAD_OPTIONS);
}

function load(file) {
  return grpc.loadPackageDefinition(definition(file));
}

/**
 * The bot.proto to serve: --proto PATH when given; else bot.proto beside this
 * file (where a copy of this folder keeps it, README "## Install"); else the
 * one of the Waraq checkout this folder sits in (this kit in place). A copy
 * beside the file wins over the checkout's because it is the one its author
 * put there; null when there is none.
 */
function findBotProto(given) {
  if (given !== undefined) return given;
  const beside = path.join(__dirname, 'bot.proto');
  if (fs.existsSync(beside)) return beside;
  for (let folder = __dirname; ; folder = path.dirname(folder)) {
    const candidate = path.join(folder, PROTO_IN_CHECKOUT);
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(folder) === folder) return null;
  }
}

// -- waraq.v1.Bot ------------------------------------------------------------

// What Hello answers; a bot that dials in sends it in its Dial message.
const HELLO = {
  name: NAME,
  version: VERSION,
  author: AUTHOR,
  games: [
    { game: 'hokm', players: [2, 3, 4] },
    { game: 'hand', players: [2, 3, 4] },
  ],
  protocol_version: PROTOCOL_VERSION,
};

function hello(call, callback) {
  callback(null, HELLO);
}

/** One match as one seat: answer each decision with one reply echoing its seq. */
function play(call) {
  let match = null; // this stream's MatchStart facts
  call.on('data', (message) => {
    switch (message.body) {
      case 'start':
        match = { seat: message.start.seat, players: message.start.players, partners: message.start.partners };
        break;
      case 'decision':
        try {
          call.write({ reply: reply(message.decision, match) });
        } catch (error) {
          // A bug (or a request this bot cannot read) ends this stream only: the referee
          // faults this seat, and the process goes on serving its other matches.
          console.error(`seq ${message.decision.seq}: ${error.stack || error}`);
          call.end();
        }
        break;
      case 'end':
        match = null;
        break;
      default:
        break;
    }
  });
  call.on('end', () => call.end());
  call.on('error', () => {}); // the referee closed the stream: nothing left to answer
}

// Which game answers a request: the one whose view it carries (the oneof
// `view`); a view this bot does not know goes to Hokm's, which answers any
// unknown kind with its first legal action.
const GAMES = { hokm: answerHokm, hand: answerHand };

function reply(request, match) {
  const begun = performance.now();
  const answer = GAMES[request.view] || answerHokm;
  const { action, note } = answer(request, match);
  return {
    seq: request.seq,
    action,
    note: trimmed(note || ''),
    think_ms: performance.now() - begun,
  };
}

function trimmed(note) {
  while (Buffer.byteLength(note) > NOTE_LIMIT) note = note.slice(0, -1);
  return note;
}

// -- grpc.health.v1.Health ---------------------------------------------------

const HEALTHY = new Set(['', 'waraq.v1.Bot']);

function healthCheck(call, callback) {
  if (HEALTHY.has(call.request.service)) {
    callback(null, { status: 'SERVING' });
  } else {
    callback({ code: grpc.status.NOT_FOUND, details: `unknown service ${call.request.service}` });
  }
}

function healthWatch(call) {
  // The status never changes while the process runs: send it once, keep the stream open.
  call.write({ status: HEALTHY.has(call.request.service) ? 'SERVING' : 'SERVICE_UNKNOWN' });
}

// -- the server, or dialling in ------------------------------------------------

/** A line saying what is wrong with how the bot was started, and exit 2. */
function refuse(message) {
  console.error(message);
  process.exit(2);
}

function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      proto: { type: 'string' },
      connect: { type: 'string' },
      token: { type: 'string' },
      tls: { type: 'boolean', default: false },
      'tls-ca': { type: 'string' },
    },
  });
  const dialling = values.connect !== undefined;
  if (dialling && (values.port !== undefined || values.host !== undefined)) {
    refuse('--connect dials a lobby, --port and --host serve: give one or the other');
  }
  if (!dialling && (values.token !== undefined || values.tls || values['tls-ca'] !== undefined)) {
    refuse('--token, --tls and --tls-ca go with --connect HOST:PORT');
  }
  const port = values.port ?? '0';
  if (!/^\d+$/.test(port)) refuse(`--port ${port}: expected a port number (0: any free port)`);
  const botProto = findBotProto(values.proto);
  if (botProto === null) {
    refuse(
      `no bot.proto beside ${__filename} nor in a Waraq checkout around it: copy it here ` +
        `(cp WARAQ/${PROTO_IN_CHECKOUT} ${__dirname}/) or give --proto PATH`,
    );
  }
  if (!fs.existsSync(botProto)) {
    refuse(`--proto ${botProto}: no such file (the Waraq checkout has it at ${PROTO_IN_CHECKOUT})`);
  }
  if (dialling) {
    dialIn(botProto, values);
  } else {
    serve(botProto, `${values.host ?? '127.0.0.1'}:${port}`);
  }
}

function serve(botProto, address) {
  const server = new grpc.Server();
  server.addService(load(botProto).waraq.v1.Bot.service, { Hello: hello, Play: play });
  server.addService(load(HEALTH_PROTO).grpc.health.v1.Health.service, { Check: healthCheck, Watch: healthWatch });
  new ReflectionService(definition(botProto)).addToServer(server);

  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) {
      console.error(`cannot serve on ${address}: ${error.message}`);
      process.exit(1);
    }
    console.log(`${NAME} bot serving waraq.v1.Bot on port ${port}`);
  });

  const stop = () => {
    // Let open streams finish for a moment, then go.
    setTimeout(() => {
      server.forceShutdown();
      process.exit(0);
    }, 1000).unref();
    server.tryShutdown(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

function dialIn(botProto, values) {
  const address = values.connect;
  if (!/^[^\s]+:\d+$/.test(address)) refuse(`--connect ${address}: expected HOST:PORT, e.g. arena.example:7070`);
  // From the environment by default: a flag's value shows in every process list on the machine.
  const token = values.token ?? process.env.WARAQ_TOKEN;
  if (!token) refuse('--connect needs the bot\'s token: set $WARAQ_TOKEN, or give --token');
  const Lobby = load(botProto).waraq.v1.Lobby;
  if (Lobby === undefined) {
    refuse(`${botProto} has no Lobby service: it is older than dialling in; copy the checkout's ${PROTO_IN_CHECKOUT}`);
  }
  let credentials = grpc.credentials.createInsecure();
  const ca = values['tls-ca'];
  if (ca !== undefined && !fs.existsSync(ca)) refuse(`--tls-ca ${ca}: no such file`);
  if (values.tls || ca !== undefined) {
    // Without --tls-ca, the lobby's certificate is checked against Node's own CAs.
    credentials = grpc.credentials.createSsl(ca === undefined ? null : fs.readFileSync(ca));
  }

  const bot = new DialIn(Lobby, address, token, credentials, HELLO, reply);
  console.log(`${NAME} bot dialling ${address}`);
  bot.run().catch((error) => {
    if (error instanceof Refused) {
      console.error(`the lobby at ${address} refused this bot: ${error.message}`);
    } else {
      console.error(error.stack || error);
    }
    process.exit(1);
  });
  const stop = () => {
    bot.stop();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main();
