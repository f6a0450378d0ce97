"""Hamlet's wire package: generated protobuf code (``hamlet.v1``) and the codec.

``hamlet.codec`` is the one package that converts between protobuf messages and the
games' domain values (actions, observations). Everything else speaks one or the other.
"""
