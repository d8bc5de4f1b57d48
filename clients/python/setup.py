"""Build hook of the rtphys Python client: the gRPC stubs (package ``rtphys.v1``)
are generated from the repository's ``proto/`` by grpcio-tools' bundled protoc
whenever the package is built (``pip install ./clients/python``, ``pip wheel
./clients/python``, an sdist). Nothing generated is committed, so the stubs
always match the proto the server was built from.

The proto tree is looked up at ``../../proto`` (a build from the repository) and
at ``./proto`` (an sdist: ``sdist`` copies the tree in).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
PROTO_FILES = ["rtphys/v1/sim.proto"]


def proto_root() -> Path:
    for root in (HERE / "proto", HERE.parent.parent / "proto"):
        if all((root / f).is_file() for f in PROTO_FILES):
            return root
    raise SystemExit(
        "rtphys_client build: proto/rtphys/v1/sim.proto not found "
        f"(looked in {HERE / 'proto'} and {HERE.parent.parent / 'proto'})"
    )


def generate_stubs(dest: Path) -> None:
    """`protoc --python_out --pyi_out --grpc_python_out` into dest/rtphys/v1."""
    import grpc_tools
    from grpc_tools import protoc

    root = proto_root()
    wkt = Path(grpc_tools.__file__).resolve().parent / "_proto"
    dest.mkdir(parents=True, exist_ok=True)
    args = [
        "grpc_tools.protoc",
        f"-I{root}",
        f"-I{wkt}",
        f"--python_out={dest}",
        f"--pyi_out={dest}",
        f"--grpc_python_out={dest}",
    ] + [str(root / f) for f in PROTO_FILES]
    if protoc.main(args) != 0:
        raise SystemExit(f"rtphys_client build: protoc failed on {root}")
    for pkg in ("rtphys", "rtphys/v1"):
        (dest / pkg / "__init__.py").touch()
        (dest / pkg / "py.typed").touch()


class BuildPyWithStubs(build_py):
    def run(self) -> None:
        super().run()
        generate_stubs(Path(self.build_lib))


class SdistWithProto(sdist):
    def make_release_tree(self, base_dir, files) -> None:
        super().make_release_tree(base_dir, files)
        root = proto_root()
        for f in PROTO_FILES:
            target = Path(base_dir) / "proto" / f
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / f, target)


setup(cmdclass={"build_py": BuildPyWithStubs, "sdist": SdistWithProto})
