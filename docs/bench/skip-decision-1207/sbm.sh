# sbm.sh: one sysbench mutex run at $T threads, sized as workloads/defs/sysbench-mutex.sh; prints locks/s
n=$((3000000 / T + 1))
sysbench mutex --threads="$T" --mutex-num=1 --mutex-locks=$n --mutex-loops=0 run 2>&1 |
	awk -v t="$T" -v n="$n" '/total time:/ { sub("s", "", $3); printf "%d\n", t * n / $3 } /^libadaptive:/'
