// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What atomic instructions cost in the guest: 12 rounds, each timing
 * 2 million iterations of two compare-and-swaps (an uncontended lock and
 * the old library's unlock), then of a compare-and-swap and an exchange
 * (glibc's lock and unlock). Prints "CAS+CAS/CAS+XCHG" seconds per round.
 * Build it static, so that it runs the same code with and without any
 * library in the guest.
 */
#include <stdio.h>
#include <time.h>

#define ITERATIONS	2000000L

static int word;

static double seconds(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

static void cas_cas(void)
{
	for (long i = 0; i < ITERATIONS; i++) {
		int unlocked = 0, locked = 1;

		__atomic_compare_exchange_n(&word, &unlocked, 1, 0, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED);
		__atomic_compare_exchange_n(&word, &locked, 0, 0, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED);
	}
}

static void cas_xchg(void)
{
	for (long i = 0; i < ITERATIONS; i++) {
		int unlocked = 0;

		__atomic_compare_exchange_n(&word, &unlocked, 1, 0, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED);
		__atomic_exchange_n(&word, 0, __ATOMIC_RELEASE);
	}
}

int main(void)
{
	struct timespec a, b, c;

	for (int round = 0; round < 12; round++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		cas_cas();
		clock_gettime(CLOCK_MONOTONIC, &b);
		cas_xchg();
		clock_gettime(CLOCK_MONOTONIC, &c);
		printf("%.3f/%.3f ", seconds(&a, &b), seconds(&b, &c));
		fflush(stdout);
	}
	putchar('\n');
	return 0;
}
