/*
 * test_carve.h - carve-out exhaustion for the error paths of the rknn_*
 * calls: every free byte of the platform's carve-out taken but `leave`
 * bytes, which stay free in one block, so that the next allocations of the
 * call under test fail where their sizes add up to more. Needs
 * rknpu_platform_init() (or board_init()) first.
 */
#ifndef TEST_CARVE_H
#define TEST_CARVE_H

#include <stddef.h>

#include "mem.h"
#include "rknpu_platform_internal.h"

#define TEST_CARVE_MAX_HOGS 64

static void *test_hogs[TEST_CARVE_MAX_HOGS];
static unsigned test_n_hogs;

/* Gives every block test_carve_fill took back. */
static inline void test_carve_release(void)
{
    while (test_n_hogs)
        mem_carveout_free(rknpu_platform_carveout(), test_hogs[--test_n_hogs]);
}

/* Takes every free block, then gives `leave` bytes (a multiple of 64) of
 * the first back as one free block; 0, or -1 when that cannot be done. */
static inline int test_carve_fill(size_t leave)
{
    mem_carveout *c = rknpu_platform_carveout();
    size_t first = 0;
    mem_stats st;

    test_carve_release();
    for (;;) {
        mem_carveout_stats(c, &st);
        if (st.largest_free == 0)
            break;
        if (test_n_hogs == TEST_CARVE_MAX_HOGS ||
            mem_carveout_alloc(c, st.largest_free, 64, &test_hogs[test_n_hogs]) != MEM_OK)
            return -1;
        if (test_n_hogs++ == 0)
            first = st.largest_free;
    }
    if (leave == 0)
        return 0;
    if (first < leave || mem_carveout_free(c, test_hogs[0]) != MEM_OK)
        return -1;
    /* the only free block: the allocation takes its start, the rest stays free */
    if (first == leave)
        test_hogs[0] = test_hogs[--test_n_hogs];
    else if (mem_carveout_alloc(c, first - leave, 64, &test_hogs[0]) != MEM_OK)
        return -1;
    mem_carveout_stats(c, &st);
    return st.largest_free == leave ? 0 : -1;
}

#endif
