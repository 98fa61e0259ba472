# shellcheck shell=sh disable=SC2034 # sourced by workloads/run-bench.sh
# A real application's hot mutex: RocksDB's LRU cache with a single shard
# (cache_bench -num_shard_bits=0), every lookup and insert under one
# pthread mutex. p50/p99 are its operation latencies, not lock waits;
# CPU per operation includes its cache population phase.
description="rocksdb cache_bench -num_shard_bits=0: 50000 ops per thread, 1 MiB cache"
part=locks
min_threads=1
wl_ops() { echo $(($1 * 50000)); }
wl_command() { echo "cache_bench -threads=$1 -num_shard_bits=0 -ops_per_thread=50000 -cache_size=1048576"; }
wl_parse() {
	cpu=$(parse_cputime "$@" | sed -n 's/.*\(cpu_ns_per_op=[0-9.]*\).*/\1/p')
	awk -v cpu="$cpu" '
		/Rough parallel ops\/sec/ { ops = $NF }
		/^Percentiles:/ { p50 = $3 / 1000; p99 = $7 / 1000 }
		END { if (ops) printf "ops_per_sec=%s %s p50_us=%.2f p99_us=%.2f\n", ops, cpu, p50, p99 }' "$2"
}
