# shellcheck shell=sh
# Sourced by the test scripts (POSIX sh: busybox's in the guest, where
# this file is /tests/bounded.sh): run a command with a time limit, so
# that a hang fails its test by name instead of stopping the run.
#
#   bounded SECONDS COMMAND...
#
# The limit is SECONDS times $TEST_TIMEOUT_SCALE (default 1), which a
# slower machine raises (run-suite.sh does, for the TCG guest). Sets rc
# to the command's exit status, and timed_out to the limit if the
# command was stopped there, else to the empty string.

bounded() {
	case "${TEST_TIMEOUT_SCALE:-1}" in
	'' | *[!0-9]* | 0)
		echo "bounded: TEST_TIMEOUT_SCALE=$TEST_TIMEOUT_SCALE: expected a positive integer" >&2
		exit 2
		;;
	esac
	limit=$(($1 * ${TEST_TIMEOUT_SCALE:-1}))
	shift
	started=$(date +%s)
	rc=0
	# SIGTERM at the limit; SIGKILL 5 s later if the command is still there.
	timeout -k 5 "$limit" "$@" || rc=$?
	# coreutils' timeout exits 124 when it stopped the command; busybox's
	# exits as the command did, 143 (SIGTERM) or 137 (SIGKILL). The time
	# taken tells those apart from a command killed by something else.
	# shellcheck disable=SC2034 # for the caller
	timed_out=
	case "$rc" in
	124 | 137 | 143)
		if [ $(($(date +%s) - started)) -ge "$limit" ]; then
			# shellcheck disable=SC2034 # for the caller
			timed_out=$limit
		fi
		;;
	esac
}
