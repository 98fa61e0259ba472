#!/usr/bin/env bash
# usage: [T=SECONDS] [EXTRA="run-vm.sh options"] boots.sh BOOTS OUT REPS LABEL:PREFIX...
# BOOTS boots of the guest, each running ../rotate.sh over one stress-ng
# --mutex 2 run of T seconds (default 2; ../skip-decision-1207/sng.sh)
# REPS times per label, the order rotated each repetition; appends the
# rows to OUT as "R bN REP LABEL OPS_PER_S". Give libraries with EXTRA
# (--file LIB, then /extra/LIB in PREFIX). Analyse with
# python3 ../stress-ng-4-1206/ratio.py OUT [BASE].
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,8s/^# //p' "$0" >&2; exit 2; }
boots=$1 out=$2 reps=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
specs=
for spec in "$@"; do
	case $spec in *"'"*) echo "boots.sh: no single quotes in $spec" >&2; exit 2 ;; esac
	specs="$specs '$spec'"
done
# shellcheck disable=SC2206 # EXTRA holds options, split on purpose
extra=(${EXTRA:-})
for b in $(seq 1 "$boots"); do
	"$top/vm-image/run-vm.sh" --file "$here/../rotate.sh" --file "$here/../skip-decision-1207/sng.sh" \
		"${extra[@]}" "T=${T:-2} sh /extra/rotate.sh $reps 'sh /extra/sng.sh' $specs" 2>&1 |
		grep '^R ' | sed "s/^R /R b$b /" >>"$out"
	echo "boot $b of $boots: $(grep -c "^R b$b " "$out") rows" >&2
done
