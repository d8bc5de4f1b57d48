#!/usr/bin/env bash
# Generate the Python stubs of proto/rtphys/v1/*.proto into DEST (default: this
# directory) as the package rtphys.v1, with grpcio-tools' bundled protoc.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
proto=$(cd "$here/../../proto" && pwd)
dest=${1:-$here}
mkdir -p "$dest"
python -m grpc_tools.protoc -I "$proto" --python_out="$dest" --pyi_out="$dest" --grpc_python_out="$dest" "$proto"/rtphys/v1/*.proto
touch "$dest/rtphys/__init__.py" "$dest/rtphys/v1/__init__.py"
