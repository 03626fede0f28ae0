#!/usr/bin/env bash
# The next machine's first call, in one command (refused starts cost 90-360 s each): gpuK.sh (the
# GPU suite at the final library, replay A/B against ffe6d39), then gpuJ.sh's training rounds
# (ROUNDS=4). Each writes under $OUT/r; both are packed at the end. gpuL.sh (about 560 s).
set -u
cd "$(dirname "$0")"
bash gpuK.sh 330
mkdir -p "$OUT/k" && (cd "$OUT" && tar xzf r.tgz -C k && rm r.tgz)
ROUNDS=4 bash gpuJ.sh
