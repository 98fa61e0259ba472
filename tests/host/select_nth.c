// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * workloads/select_nth.h, which multimodal's percentiles rely on: on
 * random arrays, with and without repeated values, the ranks of
 * multimodal's percentiles (select_per_mille()) are where they should be
 * and hold the value a sort puts there.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "../../workloads/select_nth.h"

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* Arrays of @n values below @range, selected at multimodal's ranks. */
static void check_ranks(long n, uint64_t range)
{
	uint64_t *a = malloc(n * sizeof(*a)), *sorted = malloc(n * sizeof(*a));
	unsigned int seed = 1;
	int round;

	CHECK(a && sorted, "out of memory");
	for (round = 0; round < 50; round++) {
		static const long per_mille[] = { 500, 990, 999, 1000 };
		long ranks[] = { n / 2, n * 99 / 100, n * 999 / 1000, n - 1 };
		long rank[ARRAY_SIZE(per_mille)];
		size_t r;

		for (long i = 0; i < n; i++)
			a[i] = ((uint64_t) rand_r(&seed) << 31 ^ rand_r(&seed)) % range;
		memcpy(sorted, a, n * sizeof(*a));
		qsort(sorted, n, sizeof(*sorted), compare_u64);
		select_per_mille(a, n, per_mille, ARRAY_SIZE(per_mille), rank);
		for (r = 0; r < ARRAY_SIZE(ranks); r++) {
			CHECK(rank[r] == ranks[r], "n=%ld: rank %zu is %ld, expected %ld", n, r,
			      rank[r], ranks[r]);
			CHECK(a[ranks[r]] == sorted[ranks[r]],
			      "n=%ld range=%llu round %d: rank %ld selected %llu, sorted %llu", n,
			      (unsigned long long) range, round, ranks[r],
			      (unsigned long long) a[ranks[r]], (unsigned long long) sorted[ranks[r]]);
		}
	}
	free(a);
	free(sorted);
}

static void test_distinct_values(void)
{
	check_ranks(1, 1ULL << 40);
	check_ranks(2, 1ULL << 40);
	check_ranks(1001, 1ULL << 40);
	check_ranks(100000, 1ULL << 40);
}

static void test_repeated_values(void)
{
	check_ranks(1001, 1);
	check_ranks(1001, 3);
	check_ranks(100000, 50);
}

static const struct test_case cases[] = {
	TEST_CASE(distinct_values),
	TEST_CASE(repeated_values),
};

int main(int argc, char **argv)
{
	return run_tests("select_nth", cases, ARRAY_SIZE(cases), argc > 1 ? argv[1] : NULL);
}
