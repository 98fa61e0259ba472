#!/bin/sh
# In the guest: how long multimodal's on-CPU sections last against
# their nominal length, one thread, nothing outside the lock (-o 0),
# with one calibration for all; twice, each round ending with a fresh
# calibration to show its spread.
#   vm-image/run-vm.sh --file docs/bench/spin-history-1207/tcg-probes/sections.sh "sh /extra/sections.sh"
cal=$(/workloads/multimodal -C | sed -n 's/^iterations_per_ms=//p')
echo "cal=$cal"
for _ in 1 2; do
	for l in 5 20 100; do
		/workloads/multimodal -t 1 -d 1 -c "$cal" -m 0:1:0 -l "$l" -o 0 |
			grep -o 'ops_per_sec=[0-9.]*' | sed "s/^/l=$l /"
	done
	/workloads/multimodal -t 1 -d 1 -c "$cal" -m 1:0:0 -o 0 | grep -o 'ops_per_sec=[0-9.]*' |
		sed "s/^/short /"
	/workloads/multimodal -C
done
