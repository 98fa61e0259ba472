# hx.sh: stress-ng at 4 threads as run-bench.sh runs it (timeout, cputime, output to a file); prints its ops/s
timeout 122 /workloads/cputime su -p -s /bin/sh nobody -c 'cd /tmp && stress-ng --mutex 2 --timeout 1 --metrics-brief' </dev/null >/tmp/hx.out 2>&1
awk '$4 == "mutex" && $5 ~ /^[0-9]+$/ { print int($9) }' /tmp/hx.out
