# usage: alt.sh REPS SECONDS POLICY... ; rotates the order each repetition
reps=$1; secs=$2; shift 2
n=$#
r=0
while [ $r -lt $reps ]; do
	i=0
	for _ in "$@"; do
		# rotation r of the policy list
		k=$(( (i + r) % n + 1 ))
		eval "p=\${$k}"
		case $p in
		glibc) pre= ;;
		empty) pre="LD_PRELOAD=/workloads/libempty-preload.so" ;;
		old) pre="LD_PRELOAD=/extra/libold.so ADAPTIVE_POLICY=sched-state" ;;
		futex-x) pre="LD_PRELOAD=/extra/libx.so ADAPTIVE_POLICY=futex" ;;
		futex-att) pre="LD_PRELOAD=/extra/libx.so ADAPTIVE_POLICY=futex X_ATTACH=1" ;;
		*) pre="LD_PRELOAD=/usr/lib/libadaptive.so ADAPTIVE_POLICY=$p" ;;
		esac
		eval "$pre su -p -s /bin/sh nobody -c 'cd /tmp && stress-ng --mutex 2 --timeout $secs --metrics-brief'" > /tmp/o 2>&1
		echo "R $r $p $(awk '$4 == "mutex" && $5 ~ /^[0-9]+$/ { print $9 }' /tmp/o)"
		i=$((i + 1))
	done
	r=$((r + 1))
done
