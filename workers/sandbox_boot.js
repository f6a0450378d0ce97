// Boot module of a sandboxed Node bot (node --require /opt/hamlet/boot.js /bot/ENTRY), run
// inside the sandbox: it tells the worker the sandbox was built by writing "ready" to the
// descriptor in HAMLET_READY_FD and closing it, before any of the bot's code runs.
'use strict';
const fs = require('fs');
const fd = Number(process.env.HAMLET_READY_FD);
delete process.env.HAMLET_READY_FD;
fs.writeSync(fd, 'ready');
fs.closeSync(fd);
