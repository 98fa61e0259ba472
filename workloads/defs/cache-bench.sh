# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets seconds
# A real application's hot mutex: RocksDB's LRU cache with a single shard
# (cache_bench -num_shard_bits=0), every lookup and insert under one
# pthread mutex. p50/p99 are its operation latencies, not lock waits.
# It has no time limit: the run is sized to about the requested seconds
# (a guessed 20000 ops/s in all), and its figure is its own "Rough
# parallel ops/sec" over its operation phase. CPU per operation includes
# its cache population phase.
description="rocksdb cache_bench -num_shard_bits=0, 1 MiB cache, sized: its own ops/s"
part=locks
min_threads=1
alone_at_1_thread=1
wl_ops_per_thread() { echo $((20000 * ${2%.*} / $1 + 1)); }
wl_command() { echo "cache_bench -threads=$1 -num_shard_bits=0 -ops_per_thread=$(wl_ops_per_thread "$1" "$2") -cache_size=1048576"; }
wl_parse() {
	ops=$(($1 * $(wl_ops_per_thread "$1" "$seconds")))
	cpu=$(sed -n 's/^cputime: status=0 wall_ns=[0-9]* cpu_ns=\([0-9]*\).*/\1/p' "$2")
	awk -v cpu="$cpu" -v total="$ops" '
		/Rough parallel ops\/sec/ { rate = $NF }
		/^Percentiles:/ { p50 = $3 / 1000; p99 = $7 / 1000 }
		END { if (rate) printf "seconds=%.3f ops_per_sec=%s cpu_ns_per_op=%.0f p50_us=%.2f p99_us=%.2f\n",
			total / rate, rate, cpu / total, p50, p99 }' "$2"
}
