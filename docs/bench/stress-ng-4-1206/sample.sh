# usage: sample.sh SECONDS POLICY ; prints policy ops/s and the share of samples with each process's threads together
secs=$1; pol=$2
pre=
[ "$pol" = glibc ] || pre="LD_PRELOAD=/usr/lib/libadaptive.so ADAPTIVE_POLICY=$pol"
eval "$pre su -p -s /bin/sh nobody -c 'cd /tmp && stress-ng --mutex 2 --timeout $secs --metrics-brief'" > /tmp/out.$$ 2>&1 &
sleep 0.3
procs=
for p in $(ps | awk '/stress-ng/ && !/awk/ { print $1 }'); do
	[ "$(ls /proc/$p/task 2>/dev/null | wc -l)" -ge 3 ] && procs="$procs $p"
done
hist=
end=$(( $(date +%s) + secs - 1 ))
while [ "$(date +%s)" -lt "$end" ]; do
	cpus=
	for p in $procs; do
		for t in /proc/$p/task/*; do
			[ "${t##*/}" = "$p" ] && continue
			read -r line < $t/stat 2>/dev/null || continue
			set -- $line
			shift 38
			cpus="$cpus$1"
		done
		cpus="$cpus-"
	done
	hist="$hist $cpus"
	sleep 0.05
done
wait
ops=$(awk '$4 == "mutex" && $5 ~ /^[0-9]+$/ { print int($9) }' /tmp/out.$$)
echo "$pol $ops $(echo $hist | tr ' ' '\n' | sed 's/-$//' | awk -F- '{ k = ($1 == "00" || $1 == "11") && ($2 == "00" || $2 == "11") ? ($1 == $2 ? "one-vcpu" : "split-by-process") : "mixed"; c[k]++ } END { for (k in c) printf "%s=%d ", k, c[k] }')"
