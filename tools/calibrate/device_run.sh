#!/usr/bin/env bash
# One call of the device tool for issue 33's cases (docs/calibration.md "Issue 33: prepared cases").
#
#   bash tools/calibrate/device_run.sh PART [BUDGET_S] [RESUME_TSV]
#
# PART       1, 2, ... : the part of tools/calibrate/plan.py's order (tier, then estimated time)
# BUDGET_S   start no case after this many seconds (default 330; calibrate.py --time-budget)
# RESUME_TSV a TSV of an earlier call of the same part (copied into the working tree): its cases
#            are skipped and its rows kept
#
# Writes under $OUT (the device tool's folder; ./device-out when unset):
#   env.txt            the machine: nvidia-smi, the Python packages (torch, transformers, peft,
#                      trl, accelerate, pynvml, bitsandbytes, flash_attn, liger_kernel)
#   issue33-partN.tsv  the rows, appended and flushed after each case (a time-out loses nothing)
#   partN.log          calibrate.py's progress
# Exit status: calibrate.py's (0 all ran, 3 the budget stopped it, 2 nothing could be measured).
set -u
part=${1:?usage: device_run.sh PART [BUDGET_S] [RESUME_TSV]}
budget=${2:-330}
resume=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/device-out}
py=${PYTHON:-python3}
mkdir -p "$out"
export PYTHONUNBUFFERED=1

{
  echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ) part $part budget ${budget}s"
  nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version --format=csv,noheader 2>&1 \
    || echo "nvidia-smi: not available"
  "$py" - <<'EOF' 2>&1
import importlib
for name in ("torch", "transformers", "peft", "trl", "accelerate", "pynvml", "bitsandbytes",
             "flash_attn", "liger_kernel", "sentence_transformers"):
    try:
        mod = importlib.import_module(name)
        print("%s %s" % (name, getattr(mod, "__version__", "present")))
    except Exception as e:  # a missing package is reported, not fatal
        print("%s missing (%s)" % (name, type(e).__name__))
try:
    import torch
    print("cuda %s %s" % (torch.cuda.is_available(), torch.version.cuda))
    if torch.cuda.is_available():
        free, total = torch.cuda.mem_get_info(0)
        print("device %s, %d MiB, %d MiB free" % (torch.cuda.get_device_name(0), total >> 20, free >> 20))
except Exception as e:
    print("torch unusable: %s" % e)
EOF
} > "$out/env.txt"
cat "$out/env.txt"

ids=$("$py" "$here/plan.py" --part "$part" --ids) || exit 2
tsv="$out/issue33-part$part.tsv"
args=(--cases "$ids" --out "$tsv" --time-budget "$budget" --case-timeout 150)
if [ -n "$resume" ]; then
  cp "$resume" "$tsv" || exit 2
  args+=(--resume)
fi
echo "part $part: $(echo "$ids" | tr ',' ' ' | wc -w) cases"
"$py" "$here/calibrate.py" "${args[@]}" 2>&1 | tee "$out/part$part.log"
rc=${PIPESTATUS[0]}
echo "calibrate.py exit $rc; rows in $tsv: $(grep -vc '^#' "$tsv" 2>/dev/null || echo 0) lines"
exit "$rc"
