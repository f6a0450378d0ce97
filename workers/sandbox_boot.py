"""Boot script of a sandboxed Python bot: ``python -I -S -B /opt/hamlet/boot.py /bot/ENTRY``.

Runs inside the sandbox (standard library only, never imported by the worker): it puts the
bot's own directory and the SDK's read-only library directory on ``sys.path``, then runs
the bot's entry file as ``__main__``.
"""

import runpy
import sys

if __name__ == "__main__":
    entry = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path[:1] = [entry.rsplit("/", 1)[0], "/opt/hamlet/lib"]
    runpy.run_path(entry, run_name="__main__")
