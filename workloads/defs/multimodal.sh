# shellcheck shell=sh disable=SC2034 # sourced by workloads/run-bench.sh
# Our multi-modal benchmark (workloads/multimodal.c): one mutex, sections
# of 100 ns (90%), 20 us on CPU (9%) and 100 us to 1 ms asleep (1%).
description="timed run, mix 90:9:1 of 100 ns / 20 us / 0.1-1 ms asleep"
part=locks
min_threads=1
alone_at_1_thread=1
multimodal_args="-m 90:9:1"
# run-bench.sh calibrates the busy loop once per boot (multimodal -c).
multimodal_options() { echo "${multimodal_calibration:+-c $multimodal_calibration }$multimodal_args"; }
wl_command() { echo "/workloads/multimodal -t $1 -d $2 $(multimodal_options)"; }
# It measures itself over its own interval, without its start-up calibration;
# fairness is its fewest over its most operations of a thread. A
# definition whose holders must block (expect_blocked=1) fails a run in
# which none did.
expect_blocked=
wl_parse() {
	awk -v expect_blocked="$expect_blocked" '/^threads=.* ops_per_sec=/ {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["max_thread_ops"] > 0 && (!expect_blocked || v["blocked"] > 0))
			printf "seconds=%s ops_per_sec=%s cpu_ns_per_op=%s p50_us=%s p99_us=%s fairness=%.4f p999_us=%s max_us=%s\n",
				v["seconds"], v["ops_per_sec"], v["cpu_ns_per_op"], v["p50_us"], v["p99_us"],
				v["min_thread_ops"] / v["max_thread_ops"], v["p999_us"], v["max_us"] }' "$2"
}
