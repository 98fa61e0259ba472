# shellcheck shell=sh
# attach-cost-prof.sh: in the guest, with attach_cost in /extra; three
# rounds of attach_cost without and with states, each marked for prof.sh.
# N: yields per thread, 350000 unless given (about 7 s each in TCG).
n=${1:-350000}
for r in 1 2 3; do
	for a in 0 1; do
		echo "MARK att$a $r" >/dev/kmsg
		echo "RATE att$a $r $(/extra/attach_cost "$n" $a)"
	done
done
