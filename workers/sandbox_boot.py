"""Boot script of a sandboxed bot, run *inside* the sandbox (standard library only, never
imported by the worker):

- ``python -I -S -B /opt/hamlet/boot.py READY_FD /bot/ENTRY`` for a Python bot;
- ``python -I -S -B /opt/hamlet/boot.py READY_FD --exec /bot/ENTRY`` for a native one.

It first writes ``ready`` to ``READY_FD`` and closes it: the worker then knows the sandbox
was built (a failure before this is bubblewrap's, an infrastructure fault; after it, any
exit is the bot's), and the bot never holds that descriptor. Then it puts the bot's own
directory and the SDK's read-only library directory on ``sys.path`` and runs the entry file
as ``__main__``, or execs the native executable.
"""

import os
import runpy
import sys

if __name__ == "__main__":
    ready = int(sys.argv[1])
    os.write(ready, b"ready")
    os.close(ready)
    if sys.argv[2] == "--exec":
        os.execv(sys.argv[3], sys.argv[3:])
    entry = sys.argv[2]
    sys.argv = sys.argv[2:]
    sys.path[:1] = [entry.rsplit("/", 1)[0], "/opt/hamlet/lib"]
    runpy.run_path(entry, run_name="__main__")
