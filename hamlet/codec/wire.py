"""How a message is written inside a stdio frame: protobuf binary or the protobuf JSON mapping.

A bot's archive chooses its framing in its manifest (``"framing": "json"``; the default is
``protobuf``). Both carry the same messages (``hamlet.v1.DecisionRequest`` in,
``hamlet.v1.DecisionResponse`` out) in the same 4-byte length-prefixed frames
(:mod:`hamlet.codec.framing`); only the payload differs. The JSON form is
``google.protobuf.json_format``'s own mapping, with two of its options fixed so that a bot
without a protobuf library reads it easily:

* field names as in the ``.proto`` files (``seat_decision_index``, not ``seatDecisionIndex``);
  the parser accepts either spelling in answers;
* every field without presence is written, at its default value too (``"seat": 0``,
  ``"legal_actions": [...]``), so a bot never has to know proto3's defaults. Fields with
  presence (``optional``, messages) that are unset stay absent, as the mapping says.

As the mapping says too, 64-bit integers are JSON strings (``"time_left_ms": "11000"``) and
enum values are their names (``"VILLAGE_GOOD_GRAIN"``). The payload is UTF-8 JSON text.
"""

from __future__ import annotations

import enum
from typing import TypeVar

from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message

from hamlet.codec.messages import CodecError

M = TypeVar("M", bound=Message)


class Framing(enum.Enum):
    """How messages are written inside frames (the manifest's ``framing``)."""

    PROTOBUF = "protobuf"
    JSON = "json"


def encode_message(message: Message, framing: Framing) -> bytes:
    """The frame payload of ``message`` in ``framing``."""
    if framing is Framing.PROTOBUF:
        return message.SerializeToString()
    text = json_format.MessageToJson(
        message,
        preserving_proto_field_name=True,
        indent=None,
        ensure_ascii=False,
        always_print_fields_with_no_presence=True,
    )
    return text.encode("utf-8")


def decode_message(payload: bytes, cls: type[M], framing: Framing) -> M:
    """The ``cls`` message a frame payload holds; :class:`CodecError` if it holds none.

    The JSON form is parsed strictly: a field ``cls`` lacks, a value of the wrong type or
    text that is not UTF-8 JSON is an error, not something quietly dropped.
    """
    message = cls()
    try:
        if framing is Framing.PROTOBUF:
            message.ParseFromString(payload)
        else:
            json_format.Parse(payload.decode("utf-8"), message)
    except (DecodeError, json_format.ParseError, UnicodeDecodeError, RecursionError) as exc:
        # Short: callers say which message they expected ("answer is not a DecisionResponse").
        raise CodecError(f"{framing.value} framing: {exc}") from None
    return message
