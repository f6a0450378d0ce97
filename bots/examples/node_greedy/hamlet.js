// hamlet.js: the Hamlet stdio protocol for Node.js bots, in one file with no dependencies.
// Copy it beside your main.js, and declare the JSON framing in your archive's hamlet.json:
//
//   {"runtime": "node", "entry": "main.js", "framing": "json"}
//
// Then your bot is:
//
//   const hamlet = require('./hamlet.js');
//   hamlet.run((req) => 0); // the index, in req.legal, of the action you choose
//
// The worker writes one hamlet.v1.DecisionRequest per decision and reads one
// hamlet.v1.DecisionResponse back, each as UTF-8 JSON (the protobuf JSON mapping, field names
// as in proto/hamlet/v1/*.proto) framed by its length as 4 big-endian bytes. `run` reads the
// frames, hands `decide` the request with three conveniences added, and writes the answer:
//
//   req.game              "village", "my_village" or "farmaria"
//   req.seat              your seat (0-based)
//   req.seat_decision_index, req.match_id
//   req.time_left_ms      a Number (the JSON mapping writes int64 as a string)
//   req.obs               your observation: req.observation[req.game]
//   req.legal             the legal actions, each {kind: "pay_well", ...its fields}, from
//                         req.legal_actions[i][req.game] = {"pay_well": {...its fields}}
//
// Enum fields are their proto names ("VILLAGE_SPACE_HARVEST"): `hamlet.name(value, words)`
// drops the enum's prefix, its type's name in upper snake case ("VILLAGE_SPACE", 2 words;
// "MY_VILLAGE_CATEGORY", 3), and gives the short lower-case form ("harvest").
// Anything written to stdout that is not a frame forfeits the seat, so `run` sends
// console.log to stderr (where the worker keeps the tail for you).
'use strict';

// The action's kind and fields, flattened: {"take": {"space": ...}} -> {kind: "take", space: ...}.
function flatten(action) {
  const kind = Object.keys(action)[0];
  return Object.assign({ kind }, action[kind]);
}

// "VILLAGE_SPACE_HARVEST" -> "harvest" (drop the first `prefixWords` words of the enum name).
function name(value, prefixWords = 2) {
  if (typeof value !== 'string') return value;
  return value.split('_').slice(prefixWords).join('_').toLowerCase();
}

// A small seeded generator (the same match plays the same way): returns a function of [0, 1).
function rng(seed) {
  let s = Math.imul(seed | 0, 0x9e3779b1) >>> 0 || 1; // spread small seeds over 32 bits
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}

// Read framed JSON requests on stdin until it closes; answer each with decide(req).
function run(decide, input = process.stdin, output = process.stdout) {
  console.log = console.error; // stdout carries the protocol's frames only
  let pending = Buffer.alloc(0);
  input.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const length = pending.readUInt32BE(0);
      if (pending.length < 4 + length) break;
      const req = JSON.parse(pending.subarray(4, 4 + length).toString('utf8'));
      pending = pending.subarray(4 + length);
      req.time_left_ms = Number(req.time_left_ms);
      req.obs = req.observation[req.game];
      req.legal = req.legal_actions.map((a) => flatten(a[req.game]));
      const body = Buffer.from(JSON.stringify({ action_index: decide(req) }), 'utf8');
      const head = Buffer.alloc(4);
      head.writeUInt32BE(body.length);
      output.write(Buffer.concat([head, body]));
    }
  });
  input.on('end', () => process.exit(0));
}

module.exports = { run, flatten, name, rng };
