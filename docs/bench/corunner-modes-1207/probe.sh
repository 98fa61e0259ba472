# shellcheck shell=sh
# usage: probe.sh
# In the guest, under ../rotate.sh beside a co-runner: one run of sysbench
# threads at 2 threads (as workloads/defs/sysbench-threads-corunner.sh
# before it had a co-runner of its own; the environment picks the
# policy); prints "RATE MOVED hogs=CPUS sb=CPUS vol=N invol=N": events/s,
# whether the co-runner's workers (stress-ng-cpu) changed CPUs during the
# run, their CPUs and the sysbench threads' sampled 0.5 s in, and the
# sysbench threads' context switches by then.
hog_cpus() {
	for s in /proc/[0-9]*/stat; do
		read -r line <"$s" 2>/dev/null || continue
		case $line in *"(stress-ng-cpu)"*) echo "$line" | awk '{ printf "%s", $39 }' ;; esac
	done
}
thread_info() {
	for t in /proc/"$1"/task/*; do
		awk '{ printf "%s", $39 }' "$t/stat"
	done
	cat /proc/"$1"/task/*/status | awk '/^voluntary_ctxt/ { v += $2 } /^nonvoluntary_ctxt/ { i += $2 }
		END { printf " vol=%d invol=%d", v, i }'
}
before=$(hog_cpus)
sysbench threads --threads=2 --thread-locks=1 --thread-yields=100 --events=0 --time=1 run >/tmp/sb.out 2>&1 &
pid=$!
sleep 0.5
hogs=$(hog_cpus)
info=$(thread_info "$pid")
wait "$pid"
after=$(hog_cpus)
rate=$(awk '/total time:/ { t = $3; sub(/s$/, "", t) } /total number of events:/ { e = $NF }
	END { if (t > 0) printf "%.1f", e / t; else printf "fail" }' /tmp/sb.out)
moved=same
[ "$before" = "$hogs" ] && [ "$hogs" = "$after" ] || moved=moved
echo "$rate $moved hogs=$hogs sb=$info"
