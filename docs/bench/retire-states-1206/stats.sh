for lib in /extra/libold.so /extra/libretire.so; do
	echo "== $lib"
	LD_PRELOAD=$lib ADAPTIVE_STATS=1 su -p -s /bin/sh nobody -c 'cd /tmp && stress-ng --mutex 2 --timeout 2 --metrics-brief' 2>&1 | grep -E "libadaptive|mutex "
done
