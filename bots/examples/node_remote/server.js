// A Hamlet remote bot in Node.js: a gRPC server implementing hamlet.v1.Bot, built from the
// .proto files alone (proto/hamlet/v1/bot.proto and what it imports).
//
//   service Bot { rpc Decide(DecisionRequest) returns (DecisionResponse); }
//
// Each Decide carries the seat's observation and the legal actions (never empty, in the
// engine's stable order); the answer is an index into legal_actions. The call's deadline is
// the decision's deadline plus what is left of the seat's time bank (time_left_ms says the
// same). When you register the bot, the server sends one handshake Decide (match_id
// "handshake", the game's first decision) and wants a legal index within 2 s.
//
// Usage: node server.js [--port 50070] [--host 0.0.0.0] [--proto-dir ../../../proto]
//        (or HAMLET_BOT_PORT / HAMLET_BOT_HOST / HAMLET_PROTO_DIR)
// It prints "listening on HOST:PORT" on stdout once it serves.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

function option(name, envName, fallback) {
  const flag = process.argv.indexOf(`--${name}`);
  if (flag >= 0 && flag + 1 < process.argv.length) return process.argv[flag + 1];
  return process.env[envName] || fallback;
}

const protoDir = path.resolve(
  option('proto-dir', 'HAMLET_PROTO_DIR', path.join(__dirname, '..', '..', '..', 'proto')),
);
const host = option('host', 'HAMLET_BOT_HOST', '0.0.0.0');
const port = Number(option('port', 'HAMLET_BOT_PORT', '50070'));

// keepCase: field names as in the .proto (legal_actions, not legalActions); oneofs: the
// name of the set field of each oneof (GameAction.game is "village", ...).
const definition = protoLoader.loadSync(path.join(protoDir, 'hamlet', 'v1', 'bot.proto'), {
  includeDirs: [protoDir],
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
});
const hamlet = grpc.loadPackageDefinition(definition).hamlet.v1;

// The kind of an action: GameAction { oneof game { VillageAction village = 1; ... } }, and
// each game's action is a oneof of one message per kind ("take", "harvest", ...).
function actionKind(action) {
  const perGame = action[action.game];
  return perGame ? perGame.action : undefined;
}

// A random legal action, preferring the first one of a kind other than the first action's
// half of the time: enough to be a little different from pure random.
function decide(request) {
  const legal = request.legal_actions;
  if (Math.random() < 0.5) {
    const firstKind = actionKind(legal[0]);
    const other = legal.findIndex((a) => actionKind(a) !== firstKind);
    if (other >= 0) return other;
  }
  return Math.floor(Math.random() * legal.length);
}

function Decide(call, callback) {
  try {
    callback(null, { action_index: decide(call.request) });
  } catch (err) {
    console.error(`decide failed: ${err.stack || err}`);
    callback({ code: grpc.status.INTERNAL, details: String(err) });
  }
}

const server = new grpc.Server();
server.addService(hamlet.Bot.service, { Decide });
server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => {
  if (err) {
    console.error(`cannot listen on ${host}:${port}: ${err.message}`);
    process.exit(1);
  }
  console.log(`listening on ${host}:${bound}`);
});

function stop() {
  server.tryShutdown(() => process.exit(0));
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
