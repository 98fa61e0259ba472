# mm.sh: one 1 s run of multimodal-sweep-0 at $T threads, calibrated at $CAL; prints its ops/s
/workloads/multimodal -t "$T" -d 1 -c "$CAL" -m 100:100:0 -s 1000 -l 10 -o 5000:20000 -b 20:200 2>&1 |
	sed -n 's/.* ops_per_sec=\([0-9.]*\).*/\1/p; /^libadaptive:/p'
