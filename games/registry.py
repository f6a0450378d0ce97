"""The game registry: one line per game, imported on first use."""

from __future__ import annotations

import importlib

from games.core import GameSpec

#: name -> module that defines ``SPEC``. Adding a game is one line here.
_MODULES: dict[str, str] = {
    "village": "games.village",
    "my_village": "games.my_village",
    "farmaria": "games.farmaria",
}

_loaded: dict[str, GameSpec] = {}


def names() -> list[str]:
    """Registered game names, in registration order."""
    return list(_MODULES)


def get(name: str) -> GameSpec:
    """The spec of game ``name``; ``KeyError`` with the known names if unknown."""
    spec = _loaded.get(name)
    if spec is None:
        module = _MODULES.get(name)
        if module is None:
            raise KeyError(f"unknown game {name!r}; known games: {', '.join(_MODULES)}")
        spec = importlib.import_module(module).SPEC
        if not isinstance(spec, GameSpec):
            raise TypeError(f"{module}.SPEC is not a GameSpec")
        _loaded[name] = spec
    return spec
