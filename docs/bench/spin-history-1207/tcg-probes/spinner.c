// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A waiter's spin without a lock: loops on `pause` (MODE pause) or on a
 * plain load (MODE load) for SECONDS, then prints its iterations per
 * second. spinner.sh runs it beside a one-thread multimodal to see what
 * a spinning vCPU does to the other one's speed under TCG.
 *
 * usage: spinner pause|load SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	volatile int word = 0;
	unsigned long iterations = 0;
	double seconds, end;
	int use_pause, i;

	if (argc != 3 || (strcmp(argv[1], "pause") && strcmp(argv[1], "load")) ||
	    (seconds = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: spinner pause|load SECONDS\n");
		return 2;
	}
	use_pause = !strcmp(argv[1], "pause");
	end = now_s() + seconds;
	do {
		for (i = 0; i < 256; i++) {
			if (use_pause)
				__builtin_ia32_pause();
			else
				(void) word;
		}
		iterations += 256;
	} while (now_s() < end);
	printf("%s iters_per_s=%.0f\n", argv[1], iterations / seconds);
	return 0;
}
