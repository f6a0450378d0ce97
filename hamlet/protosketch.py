"""Print a starting ``.proto`` for a game's actions, from its action dataclasses.

``python -m hamlet.protosketch my_village > proto/hamlet/v1/my_village.proto`` writes the
messages :mod:`hamlet.codec` expects (one per action class, same field names, a ``oneof``
wrapper, proto enums for the game's enums, a ``Struct`` observation). Review it, commit it,
then run ``make proto``. Field numbers follow declaration order: once a file is committed,
edit it by hand so numbers are never reused.
"""

from __future__ import annotations

import dataclasses
import enum
import sys
import typing

import games
from hamlet.codec import camel, snake, upper_snake

_SCALARS = {int: "int32", bool: "bool", str: "string"}


def sketch(game: str) -> str:
    """The proto text for ``game``."""
    spec = games.get(game)
    prefix = camel(game)
    enums: dict[type[enum.Enum], str] = {}
    messages: list[str] = []

    def proto_type(hint: object) -> tuple[str, str]:
        label = ""
        args = typing.get_args(hint)
        if typing.get_origin(hint) is tuple:
            label, hint = "repeated ", args[0]
        elif type(None) in args:
            label, hint = "optional ", next(a for a in args if a is not type(None))
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            enums.setdefault(hint, f"{prefix}{hint.__name__}")
            return label, enums[hint]
        if hint in _SCALARS:
            return label, _SCALARS[hint]  # type: ignore[index]
        raise TypeError(f"no proto type for {hint!r}")

    oneof = []
    for number, cls in enumerate(spec.action_types, start=1):
        hints = typing.get_type_hints(cls)
        lines = []
        for fnum, f in enumerate(dataclasses.fields(cls), start=1):  # type: ignore[arg-type]
            label, typ = proto_type(hints[f.name])
            lines.append(f"  {label}{typ} {f.name} = {fnum};")
        doc = (cls.__doc__ or cls.__name__).strip().splitlines()[0]
        body = "\n".join(lines)
        name = f"{prefix}{cls.__name__}"
        messages.append(
            f"// {doc}\nmessage {name} {{\n{body}\n}}"
            if lines
            else f"// {doc}\nmessage {name} {{}}"
        )
        oneof.append(f"    {name} {snake(cls.__name__)} = {number};")
    enum_text = []
    for py_enum, name in enums.items():
        values = [f"  {upper_snake(name)}_UNSPECIFIED = 0;"]
        values += [
            f"  {upper_snake(name)}_{upper_snake(str(m.value))} = {i};"
            for i, m in enumerate(py_enum, 1)
        ]
        enum_text.append(f"enum {name} {{\n" + "\n".join(values) + "\n}")
    wrapper = f"message {prefix}Action {{\n  oneof action {{\n" + "\n".join(oneof) + "\n  }\n}"
    observation = f"message {prefix}Observation {{\n  google.protobuf.Struct view = 1;\n}}"
    header = (
        f"// {spec.display_name} ({spec.min_players}-{spec.max_players} players): its actions and "
        "observations.\n// Sketched by hamlet.protosketch from the game's action dataclasses.\n"
        'syntax = "proto3";\n\npackage hamlet.v1;\n\nimport "google/protobuf/struct.proto";\n'
    )
    return "\n\n".join([header.rstrip("\n"), wrapper, *messages, *enum_text, observation]) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m hamlet.protosketch GAME``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(f"usage: python -m hamlet.protosketch GAME  (one of {', '.join(games.names())})")
        return 2
    sys.stdout.write(sketch(args[0]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
