#!/usr/bin/env bash
# The main job of `make run`. Placeholder until certs, serve/bench and link land.
set -euo pipefail
pqtls=${1:-build/pqtls}
"$pqtls" --version
