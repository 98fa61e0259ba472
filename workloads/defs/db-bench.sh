# shellcheck shell=sh disable=SC2034 # sourced by workloads/run-bench.sh
# RocksDB's db_bench, readrandomwriterandom: every thread reads (90%) and
# writes (10%) random keys of one database in the guest's tmpfs, created
# empty for each run, without compression. Its hot pthread mutexes are
# the database's (version and write-queue bookkeeping) and the block
# cache's; the memtable is lock-free. On the 2-core host at 4 threads
# under 1 in 10000 acquisitions waits: a real program where the library
# must simply cost nothing.
description="rocksdb db_bench readrandomwriterandom (90% reads), tmpfs, timed: its own ops/s"
part=locks
min_threads=1
# Not alone at 1 thread: RocksDB's flush and compaction threads take the
# DB mutex beside it, so the policy may change which vCPUs are busy.
wl_command() {
	echo "sh -c 'rm -rf /tmp/db-bench && db_bench -benchmarks=readrandomwriterandom -threads=$1 -duration=${2%.*} -num=100000 -db=/tmp/db-bench -compression_type=none -progress_reports=false'"
}
# Its line: "readrandomwriterandom : X micros/op Y ops/sec Z seconds N
# operations; ...", over its own measured interval; CPU per operation
# includes opening the database.
wl_parse() {
	awk '/^cputime: status=0/ { split($4, c, "="); cpu = c[2] }
		$1 == "readrandomwriterandom" && $6 == "ops/sec" { rate = $5; secs = $7; n = $9 }
		END { if (rate > 0 && n > 0)
			printf "seconds=%s ops_per_sec=%s cpu_ns_per_op=%.0f\n", secs, rate, cpu / n }' "$2"
}
