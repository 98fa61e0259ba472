# usage: place.sh MODE SECONDS ; MODE: free | together | apart
mode=$1; secs=$2
su -p -s /bin/sh nobody -c "cd /tmp && stress-ng --mutex 2 --timeout $secs --metrics-brief" > /tmp/out.$$ 2>&1 &
sleep 0.5
if [ "$mode" != free ]; then
	for p in $(ps | awk '/stress-ng/ && !/awk/ { print $1 }'); do
		[ "$(ls /proc/$p/task | wc -l)" -ge 3 ] || continue
		n=0
		for t in /proc/$p/task/*; do
			tid=${t##*/}
			[ "$tid" = "$p" ] && continue
			n=$((n + 1))
			if [ $mode = together ]; then cpu=$((p % 2)); else cpu=$((n % 2)); fi
			taskset -p -c $cpu $tid >/dev/null && echo "pin $p/$tid -> $cpu" >&2
		done
	done
fi
wait
awk -v m=$mode '$4 == "mutex" && $5 ~ /^[0-9]+$/ { print m, $9 }' /tmp/out.$$
