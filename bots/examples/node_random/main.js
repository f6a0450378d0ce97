// A Hamlet bot in Node.js: plays a random legal action, preferring the first one the
// game lists for its kind ("take", "harvest", ...) half of the time.
//
// The stdio protocol: the worker writes hamlet.v1.DecisionRequest messages to stdin and
// reads hamlet.v1.DecisionResponse messages from stdout, each framed by its length as 4
// big-endian bytes. Messages are protobuf binary form (proto/hamlet/v1/common.proto):
//
//   message DecisionRequest {                message DecisionResponse {
//     string match_id = 1;                     int32 action_index = 1;
//     string game = 2;                       }
//     int32 seat = 3;
//     int32 decision_index = 4;
//     GameObservation observation = 5;
//     repeated GameAction legal_actions = 6;
//     int64 time_left_ms = 7;
//   }
//
// This file decodes the wire format by hand (no npm package needed; the sandbox has no
// network). With protobufjs you would load the same .proto files instead. Anything written
// to stdout that is not a frame forfeits the seat: log with console.error (stderr).
'use strict';

// --- protobuf wire format (https://protobuf.dev/programming-guides/encoding/) ---------

function readVarint(buf, pos) {
  let value = 0;
  let factor = 1;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated varint');
    const byte = buf[pos++];
    value += (byte & 0x7f) * factor; // no bit operators: int64 values exceed 32 bits
    if (byte < 0x80) return [value, pos];
    factor *= 128;
  }
}

// Yields [fieldNumber, wireType, value]: a Number for varints, a Buffer for
// length-delimited fields (strings, bytes, sub-messages); fixed-width fields are skipped.
function* fields(buf) {
  let pos = 0;
  while (pos < buf.length) {
    let key;
    [key, pos] = readVarint(buf, pos);
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (wire === 0) {
      let v;
      [v, pos] = readVarint(buf, pos);
      yield [field, wire, v];
    } else if (wire === 2) {
      let len;
      [len, pos] = readVarint(buf, pos);
      yield [field, wire, buf.subarray(pos, pos + len)];
      pos += len;
    } else if (wire === 1) {
      pos += 8;
    } else if (wire === 5) {
      pos += 4;
    } else {
      throw new Error(`unsupported wire type ${wire}`);
    }
  }
}

function writeVarint(value) {
  const out = [];
  while (value >= 0x80) {
    out.push((value % 128) | 0x80);
    value = Math.floor(value / 128);
  }
  out.push(value);
  return Buffer.from(out);
}

// GameAction { oneof game { VillageAction village = 1; ... } }, and each game's action
// message is again a oneof of one message per kind: the kind is its field number.
function actionKind(actionBuf) {
  for (const [, wire, gameAction] of fields(actionBuf)) {
    if (wire !== 2) continue;
    for (const [kind] of fields(gameAction)) return kind;
  }
  return 0;
}

function decodeRequest(buf) {
  const req = { matchId: '', game: '', seat: 0, decisionIndex: 0, legal: [], timeLeftMs: 0 };
  for (const [field, , value] of fields(buf)) {
    if (field === 1) req.matchId = value.toString('utf8');
    else if (field === 2) req.game = value.toString('utf8');
    else if (field === 3) req.seat = value;
    else if (field === 4) req.decisionIndex = value;
    else if (field === 6) req.legal.push(actionKind(value));
    else if (field === 7) req.timeLeftMs = value;
  }
  return req;
}

function encodeResponse(actionIndex) {
  // field 1, wire type 0 (varint): key 0x08
  return Buffer.concat([Buffer.from([0x08]), writeVarint(actionIndex)]);
}

// --- the bot ----------------------------------------------------------------------------

let seed = 12345;
function random() { // a small seeded generator: the same match plays the same way
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}

function decide(req) {
  if (req.legal.length === 0) throw new Error('no legal actions');
  if (random() < 0.5) return 0; // the engine's first legal action
  return Math.floor(random() * req.legal.length);
}

// --- framing ------------------------------------------------------------------------------

let pending = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  while (pending.length >= 4) {
    const length = pending.readUInt32BE(0);
    if (pending.length < 4 + length) break;
    const request = decodeRequest(pending.subarray(4, 4 + length));
    pending = pending.subarray(4 + length);
    const body = encodeResponse(decide(request));
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    process.stdout.write(Buffer.concat([head, body]));
  }
});
process.stdin.on('end', () => process.exit(0));
