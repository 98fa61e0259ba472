# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets seconds
# memcached with as many worker threads as clients, driven over the
# guest's loopback by memcslap (libmemcached-tools), which sets keys over
# the binary protocol. The server's hot pthread mutexes are its item
# locks, its LRU locks and its statistics locks, taken by every worker;
# the preload applies to the server only (memcslap runs without it).
# The client shares the vCPUs, as a co-located client would. It has no
# time limit: the run is sized to about the requested seconds (1600 sets/s
# in all: 1100 to 2400 measured in the TCG guest, where a set costs about
# 1 ms of CPU), and its figure is memcslap's own rate; CPU per set counts
# the server and the client.
description="memcached -t N, memcslap -c N set (binary protocol) over loopback, sized: sets/s"
part=locks
min_threads=1
# Not alone at 1 thread: memcached's other threads share its locks and
# memcslap runs beside it, so the policy may change which vCPUs are busy.
wl_sets_per_client() { echo $((1600 * ${2%.*} / $1 + 1)); }
# The client starts once the server listens on port 11311 (2C2F in
# /proc/net/tcp, state 0A), looked for every 50 ms for up to 10 s, and
# only if the server is its own: a run fails if its server died,
# whoever answered meanwhile.
wl_command() {
	echo "sh -c 'memcached -u root -t $1 -p 11311 -U 0 -l 127.0.0.1 & server=\$!;
		for i in \$(seq 200); do grep -q \":2C2F 00000000:0000 0A\" /proc/net/tcp && break; sleep 0.05; done;
		kill -0 \$server || exit 1;
		env -u LD_PRELOAD memcslap -s 127.0.0.1:11311 -b -t set -c $1 -e $(wl_sets_per_client "$1" "$2");
		rc=\$?; kill \$server || rc=1; wait \$server; exit \$rc'"
}
# Its line: "Time to set N keys by T threads: S seconds."
wl_parse() {
	awk '/^cputime: status=0/ { split($4, c, "="); cpu = c[2] }
		/^Time to set/ { n = $4; secs = $(NF - 1) }
		END { if (n > 0 && secs > 0)
			printf "seconds=%s ops_per_sec=%.1f cpu_ns_per_op=%.0f\n", secs, n / secs, cpu / n }' "$2"
}
