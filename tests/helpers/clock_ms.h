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

#endif /* CLOCK_MS_H */
