"""Generate the Python code for ``proto/hamlet/v1/*.proto`` into ``hamlet/v1/``.

Run ``python -m hamlet.protogen`` (``make proto``) after editing a ``.proto`` file; the
generated code is committed and ``tests/hamlet/test_generated_code.py`` fails when it is
stale. Output: ``*_pb2.py`` and ``*_pb2_grpc.py`` (grpc_tools) plus ``*.pyi`` stubs
(mypy-protobuf), so type checkers see typed messages.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
PACKAGE_DIR = Path("hamlet") / "v1"

_INIT = (
    '"""Generated protobuf and gRPC code for hamlet.v1 (do not edit; see hamlet/protogen.py)."""\n'
)


def proto_files(proto_root: Path = PROTO_ROOT) -> list[Path]:
    """The ``.proto`` sources, relative to ``proto_root``, in a stable order."""
    return sorted(p.relative_to(proto_root) for p in (proto_root / PACKAGE_DIR).glob("*.proto"))


def _plugin(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        raise SystemExit(f"{name} not found: install the dev extras (pip install -e '.[dev]')")
    return found


def generate(out_root: Path, proto_root: Path = PROTO_ROOT) -> list[Path]:
    """Generate code for every proto file into ``out_root/hamlet/v1``; return the files written."""
    from grpc_tools import protoc  # type: ignore[import-untyped]  # dev dependency only

    out_dir = out_root / PACKAGE_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in out_dir.glob("*_pb2*.py*"):
        stale.unlink()
    well_known = resources.files("grpc_tools") / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{proto_root}",
        f"-I{well_known}",
        f"--plugin=protoc-gen-mypy={_plugin('protoc-gen-mypy')}",
        f"--plugin=protoc-gen-mypy_grpc={_plugin('protoc-gen-mypy_grpc')}",
        f"--python_out={out_root}",
        f"--grpc_python_out={out_root}",
        f"--mypy_out={out_root}",
        f"--mypy_grpc_out={out_root}",
        *[str(p) for p in proto_files(proto_root)],
    ]
    code = protoc.main(args)
    if code != 0:
        raise SystemExit(f"protoc failed with exit code {code}")
    (out_dir / "__init__.py").write_text(_INIT)
    (out_dir / "py.typed").write_text("")
    return sorted(out_dir.iterdir())


def descriptor_set(out_file: Path, proto_root: Path = PROTO_ROOT) -> bytes:
    """A serialized ``FileDescriptorSet`` of the sources (for version-independent comparisons)."""
    from grpc_tools import protoc  # type: ignore[import-untyped]  # dev dependency only

    well_known = resources.files("grpc_tools") / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{proto_root}",
        f"-I{well_known}",
        f"--descriptor_set_out={out_file}",
        *[str(p) for p in proto_files(proto_root)],
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    return out_file.read_bytes()


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m hamlet.protogen [--out DIR]`` (default: the repository)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT, help="output root (default: repo root)")
    args = parser.parse_args(argv)
    written = generate(args.out)
    print(f"generated {len(written)} files in {args.out / PACKAGE_DIR}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
