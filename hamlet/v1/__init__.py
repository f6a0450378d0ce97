"""Generated protobuf and gRPC code for hamlet.v1 (do not edit; see hamlet/protogen.py)."""
