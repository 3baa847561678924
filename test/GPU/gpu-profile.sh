#!/usr/bin/env bash
# Nsight Compute's view of bench/gpu.py's kernels: one CSV row per kernel
# launch of `bench/gpu.py --profile` (each row's dlbridge kernels, once each),
# with the counters that explain a miss: time, DRAM bytes and throughput,
# load sectors per request, occupancy and the launch shape. Run after
# gpu-check.sh, whose extension build it uses; the clocks are left alone.
#   gpu-profile.sh OUT_CSV [MAX_KERNELS]
set -uo pipefail
out=$1
count=${2:-80}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${GPU_CHECK_WORK:-/tmp/dlbridge-gpu}
cublas=$(python3 -c 'import nvidia.cublas as c; print(list(c.__path__)[0] + "/lib")' 2>/dev/null)
export LD_LIBRARY_PATH="$work/core/lib:/usr/local/cuda/lib64${cublas:+:$cublas}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$work/python/python${PYTHONPATH:+:$PYTHONPATH}"
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
metrics+=,launch__grid_size,launch__block_size,launch__registers_per_thread
metrics+=,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic
ncu --clock-control none --profile-from-start off --launch-count "$count" --csv --page raw \
  --metrics "$metrics" python3 "$root/bench/gpu.py" --profile >"$out"
