#!/usr/bin/env bash
# The susie2 benchmark's long run (days on 2 cores), resumable on a new machine:
#   1. the fits the repository archives (benchmarks/cache/susie2-benchmark) are put in the
#      cache (results/susie2-benchmark/cache), so that nothing finished is fitted again;
#   2. the stages (default 100 200 500 replicates) run from a snapshot of the current commit
#      with its own virtual environment, so that edits to this working copy cannot reach the
#      running study (a worker that imports a half-edited module caches a failure);
#   3. before stopping, `python benchmarks/study_cache_archive.py pack
#      results/susie2-benchmark/cache benchmarks/cache/susie2-benchmark` adds the fits
#      finished since as a new part, to be committed.
# Pause it (for timed work beside it) with: kill -STOP -- -$(cat "$RUN/pgid"); resume: -CONT.
#
# Run: setsid nohup benchmarks/susie2_long_run.sh [STAGE ...] > /dev/null 2>&1 &
#      (ALPHAVB_DATA names the data home; default ../shared/data beside the repository;
#      SUSIE2_RUN_DIR the snapshot's folder, default ../susie2-run)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUN=${SUSIE2_RUN_DIR:-$ROOT/../susie2-run}
export ALPHAVB_DATA=${ALPHAVB_DATA:-$(cd "$ROOT/../shared/data" && pwd)}
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
STAGES=("$@")
[ ${#STAGES[@]} -gt 0 ] || STAGES=(100 200 500)
CACHE="$ROOT/results/susie2-benchmark"
mkdir -p "$CACHE/cache"

rm -rf "$RUN" && git clone --quiet "$ROOT" "$RUN"
python3 -m venv "$RUN/.venv"
"$RUN/.venv/bin/pip" install --quiet "$RUN"
echo $$ > "$RUN/pgid"
if [ -d "$ROOT/benchmarks/cache/susie2-benchmark" ]; then
    "$RUN/.venv/bin/python" "$RUN/benchmarks/study_cache_archive.py" unpack \
        "$ROOT/benchmarks/cache/susie2-benchmark" "$CACHE/cache" >> "$RUN/chain.log"
fi
cd "$RUN"
for n in "${STAGES[@]}"; do
    echo "$(date -u +%FT%TZ) stage $n start at $(git rev-parse --short HEAD)" >> "$RUN/chain.log"
    status=0
    .venv/bin/alphavb reproduce susie2-benchmark --jobs 2 --replications "$n" \
        --out "$CACHE" > "$RUN/run_$n.log" 2>&1 || status=$?
    echo "$(date -u +%FT%TZ) stage $n exit $status" >> "$RUN/chain.log"
done
