"""Domain services: what the servicers and the CLI delegate to (no gRPC here)."""
