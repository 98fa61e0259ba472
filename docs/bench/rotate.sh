# usage: rotate.sh REPS COMMAND LABEL:PREFIX...
# In the guest: runs "PREFIX COMMAND" for each LABEL, REPS times, the
# order rotated each repetition, and prints "R REP LABEL OUTPUT" with
# the command's output on one line. PREFIX is evaluated by the shell:
# environment assignments, a command such as taskset, or nothing.
if [ $# -lt 3 ]; then
	sed -n '1,5s/^# //p' "$0" >&2
	exit 2
fi
reps=$1; cmd=$2; shift 2
n=$#
r=0
while [ $r -lt "$reps" ]; do
	i=0
	for _ in "$@"; do
		k=$(( (i + r) % n + 1 ))
		eval "spec=\${$k}"
		label=${spec%%:*}
		prefix=${spec#*:}
		echo "R $r $label $(eval "$prefix $cmd" 2>&1 | tr '\n' ' ')"
		i=$((i + 1))
	done
	r=$((r + 1))
done
