# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets seconds
# Kyoto Cabinet's cache database (kccachetest order -rnd): every thread
# stores, then reads, then removes its share of random keys in one
# in-memory hash database. Kyoto Cabinet guards its records with slotted
# pthread mutexes and the database with a pthread rwlock (which the
# library leaves to glibc): contention is light and spread over the
# slots, another real program where the library must cost nothing.
# It has no time limit: the run is sized to about the requested seconds
# (100000 operations/s in all: 70000 to 160000 measured in the TCG guest), and its
# figure is its own rate over the three phases; CPU per operation
# includes setting up.
description="kccachetest order -rnd, sized: operations/s of its 3 phases"
part=locks
min_threads=1
alone_at_1_thread=1
# Records per thread; each phase does that many operations per thread.
wl_records() { echo $((100000 * ${2%.*} / 3 / $1 + 1)); }
wl_command() { echo "kccachetest order -th $1 -rnd $(wl_records "$1" "$2")"; }
wl_parse() {
	grep -q '^ok$' "$2" &&
		awk -v ops="$((3 * $1 * $(wl_records "$1" "$seconds")))" '
			/^cputime: status=0/ { split($4, c, "="); cpu = c[2] }
			/^(setting|getting|removing) records:$/ { timed = 1 }
			/^(opening|closing) the database:$/ { timed = 0 }
			/^time: / && timed { t += $2 }
			END { if (t > 0)
				printf "seconds=%.3f ops_per_sec=%.1f cpu_ns_per_op=%.0f\n", t, ops / t, cpu / ops }' "$2"
}
