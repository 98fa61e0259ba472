# usage: attach_cost.sh REPS ITERATIONS; in the guest, with attach_cost in
# /extra. Prints "R REP ATTACH RATE", without and with states in turn,
# the order swapped every repetition.
r=0
while [ $r -lt $1 ]; do
	if [ $((r % 2)) = 0 ]; then order="0 1"; else order="1 0"; fi
	for a in $order; do
		echo "R $r $(/extra/attach_cost $2 $a)"
	done
	r=$((r + 1))
done
