#!/bin/sh
# One 2 s run per cell with ADAPTIVE_STATS=1 under futex and sched-state
# at 20 and 5 us: multimodal (mm), multimodal-sweep-0 (sw0), sysbench
# threads (sbt), at 2 and 4 threads. The counters w2..w20 came from a
# build not kept (README.md); the library's own counters print without.
lib=/usr/lib/libadaptive.so
cal=$(/workloads/multimodal -C | sed -n 's/^iterations_per_ms=//p')
mm="/workloads/multimodal -d 2 -c $cal"
for t in 2 4; do
for w in "mm:-m 90:9:1" "sw0:-m 100:100:0 -s 1000 -l 10 -o 5000:20000 -b 20:200" "sbt:"; do
  name=${w%%:*}; args=${w#*:}
  for cfg in "futex:ADAPTIVE_POLICY=futex" "ss20:ADAPTIVE_SPIN_US=20" "ss5:ADAPTIVE_SPIN_US=5"; do
    if [ "$name" = sbt ]; then
      cmd="sysbench threads --threads=$t --thread-locks=1 --thread-yields=100 --events=0 --time=2 run"
    else
      cmd="$mm -t $t $args"
    fi
    # shellcheck disable=SC2086 # an assignment and a command line
    out=$(env ADAPTIVE_STATS=1 LD_PRELOAD=$lib ${cfg#*:} $cmd 2>&1)
    echo "== $name t=$t ${cfg%%:*}"
    echo "$out" | grep -E "^threads=|events per second|total number of events|libadaptive:" | sed 's/libadaptive: pid=[0-9]* //'
  done
done
done
