/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A clock's time in ms, for the helpers' holds and CPU-time figures. */
#ifndef CLOCK_MS_H
#define CLOCK_MS_H

#include <time.h>

static inline double clock_ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Stay on the CPU for @ms, as an owner that works inside its section. */
static inline void busy_ms(double ms)
{
	double end = clock_ms(CLOCK_MONOTONIC) + ms;

	while (clock_ms(CLOCK_MONOTONIC) < end)
		;
}

#endif /* CLOCK_MS_H */
