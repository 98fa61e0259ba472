# usage: alt.sh REPS ITERATIONS POLICY...; in the guest, with
# pinned_yield and the libraries named below in /extra. Prints "R REP
# POLICY RATE", the order rotated each repetition. A POLICY not listed
# is the image's library under ADAPTIVE_POLICY=POLICY (README.md says
# which build that was in each run).
reps=$1; iters=$2; shift 2
n=$#
r=0
while [ $r -lt $reps ]; do
	i=0
	for _ in "$@"; do
		k=$(( (i + r) % n + 1 ))
		eval "p=\${$k}"
		case $p in
		glibc) pre= ;;
		old) pre="LD_PRELOAD=/extra/libold.so" ;;
		v1-futex) pre="LD_PRELOAD=/extra/libv1.so ADAPTIVE_POLICY=futex" ;;
		v1-futex-noclock) pre="LD_PRELOAD=/extra/libv1.so ADAPTIVE_POLICY=futex X_NOCLOCK=1" ;;
		v1-noclock) pre="LD_PRELOAD=/extra/libv1.so X_NOCLOCK=1" ;;
		v2) pre="LD_PRELOAD=/extra/libv2.so" ;;
		v2-nospin) pre="LD_PRELOAD=/extra/libv2.so X_NOSPIN=1" ;;
		v2-futex) pre="LD_PRELOAD=/extra/libv2.so ADAPTIVE_POLICY=futex" ;;
		v1) pre="LD_PRELOAD=/extra/libv1.so" ;;
		v3) pre="LD_PRELOAD=/extra/libv3.so" ;;
		v3-a) pre="LD_PRELOAD=/extra/libv3.so X_A=1" ;;
		v3-b) pre="LD_PRELOAD=/extra/libv3.so X_B=1" ;;
		v3-futex) pre="LD_PRELOAD=/extra/libv3.so ADAPTIVE_POLICY=futex" ;;
		empty) pre="LD_PRELOAD=/workloads/libempty-preload.so" ;;
		*) pre="LD_PRELOAD=/usr/lib/libadaptive.so ADAPTIVE_POLICY=$p" ;;
		esac
		echo "R $r $p $(eval "$pre /extra/pinned_yield $iters")"
		i=$((i + 1))
	done
	r=$((r + 1))
done
