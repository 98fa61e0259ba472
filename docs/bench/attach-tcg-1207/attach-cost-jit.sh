# shellcheck shell=sh
# attach-cost-jit.sh: in the guest, with attach_cost in /extra; attach_cost
# without and with states, twice, each phase between marks for jit-stats.sh.
for a in 0 1 0 1; do
	echo "MARK begin$a" >/dev/kmsg
	sleep 2
	echo "RATE att$a $(/extra/attach_cost 150000 $a)"
	echo "MARK end$a" >/dev/kmsg
	sleep 2
done
