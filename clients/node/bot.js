#!/usr/bin/env node
// A hearts.v1 bot in Node.js, written from proto/hearts/v1/bot.proto alone: it plays its lowest
// legal card and passes its highest cards. Run: node bot.js --port N (0 = any free port); it
// prints "listening on 127.0.0.1:PORT" once bound, like the Python SDK, serves grpc.health.v1
// (SERVING, from the npm package grpc-health-check) so the tournament launcher can tell when it is
// up, and server reflection (@grpc/reflection) for tools such as grpcurl, and stops on SIGTERM.
// Every variant plays legally from legal_cards alone: under rules.booster_nines, say, a boosted trick
// (current_trick.boosted) takes a second round, and legal_cards already says what may follow. With
// two packs (rules.packs 2) view.hand lists a card held twice twice, so a pass may name it twice.
// Under rules.partnership the view names the partner (view.partner, the seat opposite) and the teams'
// totals (view.team_scores); this bot needs neither: its lowest legal card is always legal.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { HealthImplementation } = require('grpc-health-check');
const { ReflectionService } = require('@grpc/reflection');

const PROTO = path.join(__dirname, '..', '..', 'proto', 'hearts', 'v1', 'bot.proto');
const PROTOCOL_VERSION = 2; // it answers every RPC and plays every preset of version 2 (docs/protocol.md)
const MOON_CHOICE_ADD_TO_OTHERS = 1;

// keepCase: fields keep their .proto names (legal_cards, pass_count); enums stay numbers, which
// is how cards are compared below; defaults: an empty repeated field arrives as [].
const definition = protoLoader.loadSync(PROTO, {
  keepCase: true,
  enums: Number,
  longs: Number,
  defaults: true,
  oneofs: true,
});
const hearts = grpc.loadPackageDefinition(definition).hearts.v1;

// A Card enum value v: v - 1 = suit * 13 + rank - 2 (suits clubs 0, diamonds 1, spades 2, hearts 3).
function rank(card) {
  return ((card - 1) % 13) + 2;
}
function suit(card) {
  return Math.floor((card - 1) / 13);
}
// Rank first, then suit: the same order as the Python "lowest" bot, so both break ties alike.
function byRank(a, b) {
  return rank(a) - rank(b) || suit(a) - suit(b);
}

function lowestLegal(view) {
  if (!view || view.legal_cards.length === 0) {
    throw new Error('no legal cards in the request');
  }
  return [...view.legal_cards].sort(byRank)[0];
}

function highestCards(view) {
  const count = view.rules.pass_count;
  if (view.hand.length < count) {
    throw new Error(`cannot pass ${count} cards from a hand of ${view.hand.length}`);
  }
  return [...view.hand].sort(byRank).slice(view.hand.length - count);
}

// Under rules.kitty_discard: discard as many cards as the kitty held, pointless high cards first.
function discardCards(req) {
  const points = req.view.rules.card_points;
  const cost = (c) => (points[c - 1] === 0 ? 0 : 1000 + Math.abs(points[c - 1]));
  return [...req.view.hand].sort((a, b) => cost(a) - cost(b) || rank(b) - rank(a)).slice(0, req.count);
}

// Each handler answers, or reports the error as a status: the referee records a fault.
function unary(answer) {
  return (call, callback) => {
    try {
      callback(null, answer(call.request));
    } catch (err) {
      callback({ code: grpc.status.UNKNOWN, details: `${err.name}: ${err.message}` });
    }
  };
}

const service = {
  Handshake: unary(() => ({
    protocol_version: PROTOCOL_VERSION,
    name: 'node-lowest',
    version: require('./package.json').version,
    author: 'hearts-arena',
    language: 'javascript',
    presets: [],
    options: [],
    max_concurrent_games: 0,
    wants_notifications: false,
  })),
  PassCards: unary((req) => ({ cards: highestCards(req.view) })),
  PlayCard: unary((req) => ({ card: lowestLegal(req.view) })),
  CallPass: unary((req) => ({ offsets: Array(req.view.rules.pass_count).fill(1) })), // the dealer calls left
  DiscardCards: unary((req) => ({ cards: discardCards(req) })),
  // Under rules.turbo_charging: charge nothing (charging is optional; it raises the stakes). Its plays
  // stay legal from legal_cards, which leaves out a charged card on its suit's first lead.
  ChargeCards: unary(() => ({ cards: [] })),
  ChooseMoon: unary(() => ({ choice: MOON_CHOICE_ADD_TO_OTHERS })),
  Notify: unary(() => ({})),
};

// grpc.health.v1: the whole server ("") and the bot service are SERVING while the process runs;
// any other service is NOT_FOUND (Check) or SERVICE_UNKNOWN (Watch).
const health = new HealthImplementation({ '': 'SERVING', 'hearts.v1.BotService': 'SERVING' });
// grpc.reflection (v1 and v1alpha): describes hearts.v1 from the loaded bot.proto.
const reflection = new ReflectionService(definition);

function parseArgs(argv) {
  // HEARTS_BOT_ADDRESS (or --address): a whole address such as unix:/run/hearts/bot.sock, which a
  // sandboxed bot is given instead of a port (it has no network); it wins over --port and --host.
  const args = { port: 0, host: '127.0.0.1', address: process.env.HEARTS_BOT_ADDRESS || null };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2);
    const value = inline !== undefined ? inline : argv[++i];
    if (flag === '--port') args.port = Number(value);
    else if (flag === '--host') args.host = value;
    else if (flag === '--address') args.address = value;
    else throw new Error(`unknown argument ${argv[i]} (usage: node bot.js [--port N] [--host H] [--address A])`);
    if (flag === '--port' && !(Number.isInteger(args.port) && args.port >= 0 && args.port < 65536)) {
      throw new Error(`--port must be 0..65535, not ${value}`);
    }
  }
  return args;
}

function main() {
  const { port, host, address: listen } = parseArgs(process.argv.slice(2));
  const server = new grpc.Server();
  server.addService(hearts.BotService.service, service);
  health.addToServer(server);
  reflection.addToServer(server);
  const address = listen || (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, bound) => {
    if (err) {
      console.error(`cannot listen on ${address}: ${err.message}`);
      process.exit(1);
    }
    // The line a launcher reads to learn the port (port 0 picks one).
    process.stdout.write(listen ? `listening on ${listen}\n` : `listening on ${host.includes(':') ? `[${host}]` : host}:${bound}\n`);
  });
  const stop = () => {
    // Let calls in flight finish, but never hang: force after a second.
    const force = setTimeout(() => server.forceShutdown(), 1000);
    server.tryShutdown(() => {
      clearTimeout(force);
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    console.error(err.message);
    process.exit(2);
  }
}

module.exports = { lowestLegal, highestCards, rank, suit };
