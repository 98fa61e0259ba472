#!/bin/sh
# Turn the TAP output of a kselftest_harness.h program into one line per
# case, "PASS|FAIL|SKIP PREFIX/CASE[: reason]", the form of the project's
# suites. POSIX sh and awk: it runs on the host and, under busybox, in
# the guest.
#
# usage: ksft-tap.sh PREFIX EXPECT STATUS <OUTPUT
#   PREFIX  e.g. patched/abi; CASE is the harness's name without its
#           fixture ("sched_state.feature" becomes "feature");
#   EXPECT  pass: every case must pass (a skip is a failure);
#           skip: every case must skip (a pass is a failure);
#   STATUS  the program's exit status.
# A missing plan, fewer results than planned (a crash), or a non-zero
# status without a failed case is a FAIL line of its own. A failed
# case's log follows its line, indented. Exit status 1 if any line is a
# FAIL, else 0.
set -u

if [ $# -ne 3 ]; then
	sed -n '2,17s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
case "$2" in
pass | skip) ;;
*) echo "ksft-tap.sh: EXPECT must be pass or skip, not $2" >&2; exit 2 ;;
esac

awk -v prefix="$1" -v expect="$2" -v status="$3" '
function emit(verdict, name, why) {
	if (why != "")
		print verdict " " prefix "/" name ": " why
	else
		print verdict " " prefix "/" name
	if (verdict == "FAIL")
		failed++
}
function show_log(   i) {
	for (i = 0; i < nlog; i++)
		print "    " logs[i]
}
BEGIN { planned = -1; results = 0; failed = 0; not_ok = 0; nlog = 0 }
/^1\.\.[0-9]+/ {
	planned = substr($1, 4) + 0
	next
}
/^#  RUN / { nlog = 0 }
/^#/ { logs[nlog++] = $0; next }
/^(not )?ok [0-9]+ / {
	results++
	ok = ($1 == "ok")
	line = $0
	sub(/^(not )?ok [0-9]+ /, "", line)
	reason = ""
	directive = ""
	if (match(line, / # [A-Z]+/)) {
		directive = substr(line, RSTART + 3, RLENGTH - 3)
		reason = substr(line, RSTART + RLENGTH)
		sub(/^ +/, "", reason)
		line = substr(line, 1, RSTART - 1)
	}
	name = line
	sub(/^[^.]*\./, "", name)
	if (!ok) {
		not_ok++
		emit("FAIL", name, reason)
		show_log()
	} else if (directive == "SKIP") {
		if (expect == "skip")
			emit("SKIP", name, reason)
		else
			emit("FAIL", name, "skipped where it must run: " reason)
	} else if (directive != "") {
		emit("FAIL", name, directive " " reason)
	} else if (expect == "skip") {
		emit("FAIL", name, "passed where it must skip")
	} else {
		emit("PASS", name, "")
	}
	nlog = 0
}
END {
	if (planned < 0) {
		emit("FAIL", "plan", "no TAP plan (exit status " status "): the program did not start")
		show_log()
	} else if (results != planned) {
		emit("FAIL", "plan", planned " cases planned, " results " reported (exit status " status "): it crashed or hung")
		show_log()
	} else if (status != 0 && !not_ok) {
		emit("FAIL", "exit", "exit status " status " without a failed case")
	}
	exit failed > 0
}'
