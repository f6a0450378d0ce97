// A Hamlet bot in Node.js that reads its observation: it scores every legal action and plays
// the best (ties broken by a seeded generator). Plays village, my_village and farmaria.
//
// The score of an action is what its kind is worth in that game (KIND, below: how often a
// one-step lookahead on the game's heuristic, the built-in `greedy`, picks that kind when it
// has a choice of kinds) plus what the observation says about it:
//
// - money: an action that spends coins costs in proportion to the share of your purse it
//   takes (`coins` in Village, `wallet` in Farmaria, your village's `coins` in My Village),
//   so the bot keeps money for what scores;
// - Village: taking a cube of the colour you hold fewest of, and from the space whose action
//   you can afford, is better; plague cubes are worse;
// - Farmaria: a bid is only made while you are not in debt and within a fifth of your wallet.
//
// The protocol is handled by hamlet.js (beside this file; see its header), with the JSON
// framing declared in hamlet.json: no protobuf decoding anywhere.
'use strict';

const hamlet = require('./hamlet.js');

// How good each kind of action is, per game (0..1; an unlisted kind is 0.3).
const KIND = {
  village: {
    birth: 1, advance: 1, pay_well: 1, travel: 1, harvest: 0.95, serve: 0.92, take: 0.91,
    done: 0.76, privilege: 0.75, use: 0.6, mill: 0.55, to_bag: 0.46, decline: 0.38, buy: 0.37,
    buy_out: 0.35, no_privilege: 0.25, return: 0.18, train: 0.17, promote: 0.11, well: 0.09,
    pass: 0.08, enter: 0.03, pay_well_coins: 0, produce: 0,
  },
  my_village: {
    white: 1, black: 0.77, white_mode: 0.36, chronicle: 0.21, end_white: 0,
  },
  farmaria: {
    bid: 1, borrow: 1, stop_discarding: 0.92, pick: 0.89, end_turn: 0.47, move: 0.41,
    buy_hand: 0.28, buy_market: 0.14, play_card: 0.12, no_pick: 0.11, discard: 0.08,
    sell: 0.01, done: 0, demolish: 0, uproot: 0, pass: 0,
  },
};

// The coins in your purse, as your observation shows them.
function purse(req) {
  const obs = req.obs;
  if (req.game === 'village') return obs.players[req.seat].coins;
  if (req.game === 'farmaria') return obs.players[req.seat].wallet;
  if (req.game === 'my_village') return obs.villages[req.seat].coins;
  return 0;
}

// What an action spends from the purse (the field is named after the game's currency).
function spends(action) {
  return Number(action.coins || action.amount || 0);
}

function villageBonus(req, action) {
  if (action.kind !== 'take') return 0;
  const mine = req.obs.players[req.seat].cubes || {};
  const colour = hamlet.name(action.colour);
  if (colour === 'plague') return -0.2;
  const held = Object.values(mine);
  const fewest = held.length ? Math.min(...held) : 0;
  return (mine[colour] || 0) === fewest ? 0.05 : 0;
}

function farmariaBonus(req, action) {
  if (action.kind !== 'bid') return 0;
  const me = req.obs.players[req.seat];
  return me.debt > 0 || spends(action) > me.wallet / 5 ? -2 : 0;
}

function score(req, action, money) {
  const table = KIND[req.game] || {};
  let value = action.kind in table ? table[action.kind] : 0.3;
  value -= (0.5 * spends(action)) / (1 + money);
  if (req.game === 'village') value += villageBonus(req, action);
  if (req.game === 'farmaria') value += farmariaBonus(req, action);
  return value;
}

let random = null;

function decide(req) {
  if (random === null) random = hamlet.rng(1 + req.seat); // one generator per match
  const money = Math.max(0, Number(purse(req)) || 0);
  let best = [];
  let bestValue = -Infinity;
  req.legal.forEach((action, index) => {
    const value = score(req, action, money);
    if (value > bestValue + 1e-9) {
      best = [index];
      bestValue = value;
    } else if (value > bestValue - 1e-9) {
      best.push(index);
    }
  });
  return best[Math.floor(random() * best.length)];
}

hamlet.run(decide);
