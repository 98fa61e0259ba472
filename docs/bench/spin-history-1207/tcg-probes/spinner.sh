#!/bin/sh
# In the guest: a one-thread multimodal of 20 us on-CPU sections only,
# alone and beside spinner (pause, then load) on the other vCPU, twice.
# Host side (spinner built static):
#   gcc -O2 -static -o /tmp/spinner docs/bench/spin-history-1207/tcg-probes/spinner.c
#   vm-image/run-vm.sh --file /tmp/spinner --file docs/bench/spin-history-1207/tcg-probes/spinner.sh \
#       "sh /extra/spinner.sh"
cal=$(/workloads/multimodal -C | sed -n 's/^iterations_per_ms=//p')
for _ in 1 2; do
	for mode in none pause load; do
		[ "$mode" != none ] && /extra/spinner "$mode" 3 >/tmp/spinner.$mode &
		sleep 0.2
		/workloads/multimodal -t 1 -d 2 -c "$cal" -m 0:1:0 | grep -o 'ops_per_sec=[0-9.]*' |
			sed "s/^/$mode /"
		wait
		cat "/tmp/spinner.$mode" 2>/dev/null
	done
done
