"""Observation dicts <-> ``<Game>Observation`` messages, schema-driven, and the Struct helpers.

See :mod:`hamlet.codec` for the conventions and ``proto/hamlet/v1/shape.proto`` for the
options that say what json_format's mapping cannot.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Mapping
from typing import Any

from google.protobuf import json_format, struct_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from hamlet.codec.messages import CodecError, game_messages
from hamlet.v1 import common_pb2, shape_pb2


def observation_to_proto(game: str, observation: Mapping[str, Any]) -> Message:
    """The game's observation message for an observation dict.

    A typed message is filled by :func:`json_format.ParseDict` after the values whose dict form
    is not json_format's (see :func:`dict_to_message`) are rewritten; it stays strict: a key the
    schema lacks, or a value of the wrong type, is a :class:`CodecError`.
    """
    msg = game_messages(game).observation()
    struct_field = _struct_field(msg)
    try:
        if struct_field is not None:
            getattr(msg, struct_field).update(observation)
        else:
            dict_to_message(observation, msg)
    except (ValueError, TypeError, json_format.ParseError) as exc:
        raise CodecError(f"{game} observation does not fit {msg.DESCRIPTOR.name}: {exc}") from exc
    return msg


def observation_from_proto(game: str, msg: Message) -> dict[str, Any]:
    """The observation dict of a game's observation message (or of a ``GameObservation``)."""
    if isinstance(msg, common_pb2.GameObservation):
        which = msg.WhichOneof("game")
        if which != game:
            raise CodecError(f"expected a {game} observation, got {which or 'nothing'}")
        msg = getattr(msg, game)
    struct_field = _struct_field(msg)
    if struct_field is not None:
        return typing.cast(dict[str, Any], struct_to_dict(getattr(msg, struct_field)))
    return typing.cast(dict[str, Any], message_to_dict(msg))


# A typed observation maps to its dict by field name, as json_format does, with two additions
# declared in proto/hamlet/v1/shape.proto: a field with presence marked ``null_if_unset`` is a
# key holding ``None`` when unset (other unset fields are absent keys), and a message's
# ``dict_form`` option makes it a bare value, a fixed-length list or a union instead of a dict.


#: Descriptors as the stubs see them: ``descriptor.Descriptor`` or its upb twin.
_MessageType = Any
_FieldType = Any


def dict_to_message(data: Mapping[str, Any], msg: Message) -> None:
    """Fill ``msg`` from the JSON-like ``data`` (strict: unknown keys raise ``ParseError``)."""
    json_format.ParseDict(_json_message(data, msg.DESCRIPTOR), msg)


def message_to_dict(msg: Message) -> Any:
    """The JSON-like value of ``msg``: exactly the dict :func:`dict_to_message` was given."""
    descriptor = msg.DESCRIPTOR
    form = _dict_form(descriptor)
    if form == shape_pb2.DICT_FORM_VALUE:
        return _field_value(msg, _only_field(descriptor))
    if form == shape_pb2.DICT_FORM_TUPLE:
        return [_field_value(msg, f) for f in _by_number(descriptor)]
    if form == shape_pb2.DICT_FORM_UNION:
        which = _union(descriptor).name
        member = msg.WhichOneof(which)
        if member is None:
            raise CodecError(f"{descriptor.full_name} has no member of its oneof {which} set")
        field = descriptor.fields_by_name[member]
        value = _field_value(msg, field)
        return value if field.message_type is None else {member: value}
    out: dict[str, Any] = {}
    for field in descriptor.fields:
        value = _field_value(msg, field)
        if value is not None or _null_if_unset(field):
            out[field.name] = value
    return out


def _field_value(msg: Message, field: _FieldType) -> Any:
    """The dict value of one field; ``None`` when it has presence and is unset."""
    value = getattr(msg, field.name)
    if _is_map(field):
        value_field = field.message_type.fields_by_name["value"]
        return {k: _element_value(v, value_field) for k, v in value.items()}
    if field.is_repeated:
        return [_element_value(v, field) for v in value]
    if field.has_presence and not msg.HasField(field.name):
        return None
    return _element_value(value, field)


def _element_value(value: Any, field: _FieldType) -> Any:
    if field.message_type is not None:
        return message_to_dict(value)
    if field.type in _INT64_TYPES:
        return int(value)
    if field.enum_type is not None:
        return field.enum_type.values_by_number[int(value)].name
    return value


def _json_message(value: Any, descriptor: _MessageType) -> Any:
    """``value`` (the dict form of a ``descriptor`` message) in json_format's form."""
    form = _dict_form(descriptor)
    if form == shape_pb2.DICT_FORM_VALUE:
        field = _only_field(descriptor)
        return {} if value is None else {field.name: _json_field(value, field)}
    if form == shape_pb2.DICT_FORM_TUPLE:
        fields_ = _by_number(descriptor)
        if not isinstance(value, list | tuple) or len(value) != len(fields_):
            raise json_format.ParseError(
                f"{descriptor.full_name} expects a list of {len(fields_)} values, got {value!r}"
            )
        return {f.name: _json_field(v, f) for f, v in zip(fields_, value, strict=True)}
    if form == shape_pb2.DICT_FORM_UNION and not isinstance(value, Mapping):
        scalars = [f for f in _union(descriptor).fields if f.message_type is None]
        if len(scalars) != 1:
            raise json_format.ParseError(f"{descriptor.full_name} has no single scalar member")
        return {scalars[0].name: value}
    if not isinstance(value, Mapping):
        return value  # ParseDict reports it
    out: dict[str, Any] = {}
    for key, item in value.items():
        field = descriptor.fields_by_name.get(key)
        out[key] = item if field is None else _json_field(item, field)  # unknown: ParseDict fails
    return out


def _json_field(value: Any, field: _FieldType) -> Any:
    if value is None or field.message_type is None:
        return value
    if _is_map(field):
        value_field = field.message_type.fields_by_name["value"]
        if value_field.message_type is None or not isinstance(value, Mapping):
            return value
        return {k: _json_message(v, value_field.message_type) for k, v in value.items()}
    if field.is_repeated:
        if not isinstance(value, list | tuple):
            return value
        return [_json_message(v, field.message_type) for v in value]
    return _json_message(value, field.message_type)


_INT64_TYPES = frozenset(
    {
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED64,
        FieldDescriptor.TYPE_SFIXED64,
    }
)


@functools.cache
def _dict_form(descriptor: _MessageType) -> int:
    return int(descriptor.GetOptions().Extensions[shape_pb2.dict_form])


@functools.cache
def _null_if_unset(field: _FieldType) -> bool:
    return bool(field.GetOptions().Extensions[shape_pb2.null_if_unset])


@functools.cache
def _is_map(field: _FieldType) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _by_number(descriptor: _MessageType) -> list[_FieldType]:
    return sorted(descriptor.fields, key=lambda f: f.number)


def _only_field(descriptor: _MessageType) -> _FieldType:
    if len(descriptor.fields) != 1:
        raise CodecError(f"{descriptor.full_name} has dict form VALUE but not exactly one field")
    return descriptor.fields[0]


def _union(descriptor: _MessageType) -> Any:
    if len(descriptor.oneofs) != 1 or len(descriptor.oneofs[0].fields) != len(descriptor.fields):
        raise CodecError(f"{descriptor.full_name} has dict form UNION but is not one oneof")
    return descriptor.oneofs[0]


def dict_to_struct(data: Mapping[str, Any]) -> struct_pb2.Struct:
    """A ``Struct`` holding JSON-like ``data`` (public states in replays)."""
    out = struct_pb2.Struct()
    out.update(data)
    return out


def struct_to_dict(struct: struct_pb2.Struct) -> Any:
    """Inverse of :func:`dict_to_struct`; whole numbers come back as ``int``."""
    return _ints(json_format.MessageToDict(struct))


def _ints(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_ints(v) for v in value]
    return value


def _struct_field(msg: Message) -> str | None:
    descriptor = msg.DESCRIPTOR
    if len(descriptor.fields) == 1:
        field = descriptor.fields[0]
        if (
            field.message_type is not None
            and field.message_type.full_name == "google.protobuf.Struct"
        ):
            return str(field.name)
    return None
