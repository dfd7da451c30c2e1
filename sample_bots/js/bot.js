#!/usr/bin/env node
'use strict';
// A Waraq bot in JavaScript: a gRPC server for waraq.v1.Bot
// (protocol/waraq/v1/bot.proto), the standard health service and server
// reflection (so grpcurl can list and call it).
//
//   node sample_bots/js/bot.js --port 50051
//
// This file is only the plumbing: the decisions are in hokm.js and hand.js.

const path = require('node:path');
const { parseArgs } = require('node:util');
const { performance } = require('node:perf_hooks');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { ReflectionService } = require('@grpc/reflection');
const hokm = require('./hokm');
const hand = require('./hand');

const NAME = 'js-sample';
const VERSION = require('./package.json').version;
const AUTHOR = 'Waraq sample bots';
const PROTOCOL_VERSION = 1;
const NOTE_LIMIT = 1024; // bytes; a longer note is a fault

const BOT_PROTO = path.join(__dirname, '..', '..', 'protocol', 'waraq', 'v1', 'bot.proto');
const HEALTH_PROTO = path.join(__dirname, 'health.proto');

// Messages as plain objects: field names as in the .proto, uint64 as strings,
// every field present, and `body` / `action` naming the oneof member set.
const LOAD_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, arrays: true, oneofs: true };

function definition(file) {
  return protoLoader.loadSync(file, LOAD_OPTIONS);
}

function load(file) {
  return grpc.loadPackageDefinition(definition(file));
}

// -- waraq.v1.Bot ------------------------------------------------------------

function hello(call, callback) {
  callback(null, {
    name: NAME,
    version: VERSION,
    author: AUTHOR,
    games: [
      { game: 'hokm', players: [2, 3, 4] },
      { game: 'hand', players: [2, 3, 4] },
    ],
    protocol_version: PROTOCOL_VERSION,
  });
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
        call.write({ reply: reply(message.decision, match) });
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

// Which game decides a request: the one whose view it carries (the oneof
// `view`); a view this bot does not know goes to hokm.js, which answers any
// unknown kind with its first legal action.
const GAMES = { hokm, hand };

function reply(request, match) {
  const begun = performance.now();
  const game = GAMES[request.view] || hokm;
  const { action, note } = game.decide(request, match);
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

// -- the server ----------------------------------------------------------------

function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
    },
  });
  if (!/^\d+$/.test(values.port)) {
    console.error(`--port ${values.port}: expected a port number (0: any free port)`);
    process.exit(2);
  }

  const server = new grpc.Server();
  server.addService(load(BOT_PROTO).waraq.v1.Bot.service, { Hello: hello, Play: play });
  server.addService(load(HEALTH_PROTO).grpc.health.v1.Health.service, { Check: healthCheck, Watch: healthWatch });
  new ReflectionService(definition(BOT_PROTO)).addToServer(server);

  const address = `${values.host}:${values.port}`;
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

main();
