# sng.sh: one stress-ng --mutex 2 run of $T seconds; prints its ops/s (real time)
su -p -s /bin/sh nobody -c "cd /tmp && stress-ng --mutex 2 --timeout $T --metrics-brief" 2>&1 |
	awk '$4 == "mutex" && $5 ~ /^[0-9]+$/ { print int($9) }'
