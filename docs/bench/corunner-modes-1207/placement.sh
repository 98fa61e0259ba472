# shellcheck shell=sh
# usage: placement.sh
# In the guest, under ../rotate.sh beside a co-runner: one run of the same
# sysbench threads command as probe.sh, sampling every 0.1 s where its
# two worker threads and the co-runner's workers (stress-ng-cpu) are.
# Prints "RATE SAMPLES", a sample being, for each sysbench worker in tid
# order, how many co-runner workers shared its CPU: "00" is a sample in
# which both sysbench workers had their CPUs free of the co-runner.
sysbench threads --threads=2 --thread-locks=1 --thread-yields=100 --events=0 --time=1 run >/tmp/sb.out 2>&1 &
pid=$!
samples=
while sleep 0.1 && [ -d "/proc/$pid/task" ]; do
	s=$(awk -v pid="$pid" '
		FNR == 1 {
			n = split(FILENAME, p, "/")
			comm = $2; cpu = $39
			if (comm == "(stress-ng-cpu)") hogs[cpu]++
			else if (comm == "(sysbench)" && p[3] == pid && p[5] != pid) worker[p[5]] = cpu
		}
		END {
			m = 0
			for (t in worker) tids[++m] = t
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
				if (tids[j] + 0 < tids[i] + 0) { x = tids[i]; tids[i] = tids[j]; tids[j] = x }
			for (i = 1; i <= m; i++) printf "%d", hogs[worker[tids[i]]] + 0
		}' /proc/[0-9]*/task/*/stat 2>/dev/null)
	[ -n "$s" ] && samples="$samples $s"
done
wait "$pid"
rate=$(awk '/total time:/ { t = $3; sub(/s$/, "", t) } /total number of events:/ { e = $NF }
	END { if (t > 0) printf "%.1f", e / t; else printf "fail" }' /tmp/sb.out)
echo "$rate$samples"
