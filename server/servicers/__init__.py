"""Thin gRPC servicers: translate protobuf <-> service calls, map errors to status codes."""
