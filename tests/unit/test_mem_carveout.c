/*
 * test_mem_carveout - the carve-out allocator against an independent
 * reference: a plain array with one owner entry per 64-byte unit, where
 * "first fit" is simply the lowest aligned unit index whose whole range is
 * free. Random alloc/free sequences (fixed seed) must agree with it address
 * for address; the error paths must leave the state untouched.
 */
#include <stdio.h>
#include <string.h>

#include "mem.h"
#include "test_util.h"

#define UNIT         64u
#define REGION_BYTES (256u * 1024u)
#define UNITS        (REGION_BYTES / UNIT)
#define MAX_LIVE     64

static uint8_t region[REGION_BYTES] __attribute__((aligned(4096)));
static mem_carveout heap;

/* Reference model: owner[u] = 0 free, else allocation id. */
static uint16_t owner[UNITS];

static long ref_first_fit(size_t bytes, size_t align)
{
    size_t n = (bytes + UNIT - 1) / UNIT, step = align / UNIT;

    for (size_t u = 0; u + n <= UNITS; u += step) {
        size_t k = 0;
        while (k < n && owner[u + k] == 0)
            k++;
        if (k == n)
            return (long)u;
    }
    return -1;
}

static void ref_mark(size_t unit, size_t bytes, uint16_t id)
{
    for (size_t k = 0; k < (bytes + UNIT - 1) / UNIT; k++)
        owner[unit + k] = id;
}

static uint32_t rng_state = 12345u;
static uint32_t rng(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

static void test_random_sequence_matches_reference(void)
{
    void *live[MAX_LIVE] = {0};
    size_t live_size[MAX_LIVE] = {0};
    size_t used = 0;

    CHECK(mem_carveout_init(&heap, region, sizeof region) == MEM_OK);
    memset(owner, 0, sizeof owner);
    for (int step = 0; step < 20000; step++) {
        int slot = (int)(rng() % MAX_LIVE);
        if (live[slot]) {
            size_t unit = (size_t)((uint8_t *)live[slot] - region) / UNIT;
            CHECK(mem_carveout_free(&heap, live[slot]) == MEM_OK);
            ref_mark(unit, live_size[slot], 0);
            used -= (live_size[slot] + UNIT - 1) / UNIT * UNIT;
            live[slot] = NULL;
        } else {
            size_t bytes = 1 + rng() % 9000;
            size_t align = (size_t)64 << (rng() % 6); /* 64 .. 2048 */
            long expect = ref_first_fit(bytes, align);
            void *p = NULL;
            size_t used_before = heap.used_bytes;
            mem_status s = mem_carveout_alloc(&heap, bytes, align, &p);
            if (expect < 0) {
                CHECK(s == MEM_ERR_NO_SPACE || s == MEM_ERR_NO_DESCRIPTOR);
                CHECK(p == NULL);
                continue;
            }
            if (!CHECK(s == MEM_OK))
                break;
            if (!CHECK_EQ_U((uintptr_t)((uint8_t *)p - region), (uintptr_t)expect * UNIT))
                break;
            CHECK(((uintptr_t)p & (align - 1)) == 0);
            /* the block holds whole units, its alignment padding freed */
            CHECK(heap.used_bytes - used_before == (bytes + UNIT - 1) / UNIT * UNIT);
            ref_mark((size_t)expect, bytes, (uint16_t)(slot + 1));
            live[slot] = p;
            live_size[slot] = bytes;
            used += (bytes + UNIT - 1) / UNIT * UNIT;
        }
        mem_stats st;
        mem_carveout_stats(&heap, &st);
        if (!CHECK_EQ_U(st.used_bytes, used))
            break;
    }
    for (int i = 0; i < MAX_LIVE; i++)
        if (live[i])
            CHECK(mem_carveout_free(&heap, live[i]) == MEM_OK);
    mem_stats st;
    mem_carveout_stats(&heap, &st);
    CHECK_EQ_U(st.used_bytes, 0);
    CHECK_EQ_U(st.largest_free, REGION_BYTES); /* everything coalesced again */
    CHECK_EQ_U(st.allocations, 0);
}

static void test_exhaustion_leaves_state_intact(void)
{
    mem_stats before, after;
    void *a = NULL, *b = NULL, *p = (void *)1;

    CHECK(mem_carveout_init(&heap, region, sizeof region) == MEM_OK);
    CHECK(mem_carveout_alloc(&heap, 100000, 64, &a) == MEM_OK);
    mem_carveout_stats(&heap, &before);
    CHECK(mem_carveout_alloc(&heap, REGION_BYTES, 64, &p) == MEM_ERR_NO_SPACE);
    CHECK(p == (void *)1); /* output untouched on failure */
    CHECK(mem_carveout_alloc(&heap, (size_t)-1, 64, &p) == MEM_ERR_NO_SPACE);
    mem_carveout_stats(&heap, &after);
    CHECK_EQ_U(after.used_bytes, before.used_bytes);
    CHECK_EQ_U(after.largest_free, before.largest_free);
    CHECK_EQ_U(after.failed, before.failed + 2);
    /* The remaining space is still allocatable in full. */
    CHECK(mem_carveout_alloc(&heap, before.largest_free, 64, &b) == MEM_OK);
    CHECK(mem_carveout_free(&heap, a) == MEM_OK);
    CHECK(mem_carveout_free(&heap, b) == MEM_OK);
}

static void test_bad_pointers_detected(void)
{
    void *a = NULL, *b = NULL;
    static uint8_t elsewhere[64];

    CHECK(mem_carveout_init(&heap, region, sizeof region) == MEM_OK);
    CHECK(mem_carveout_alloc(&heap, 256, 64, &a) == MEM_OK);
    CHECK(mem_carveout_alloc(&heap, 256, 64, &b) == MEM_OK);
    CHECK(mem_carveout_free(&heap, elsewhere) == MEM_ERR_FOREIGN);
    CHECK(mem_carveout_free(&heap, (uint8_t *)a + 64) == MEM_ERR_FOREIGN);
    CHECK(mem_carveout_free(&heap, NULL) == MEM_ERR_FOREIGN);
    CHECK(mem_carveout_free(&heap, b) == MEM_OK);
    CHECK(mem_carveout_free(&heap, a) == MEM_OK);
    /* a and b coalesced: a's start is a free block start now, b's is gone. */
    CHECK(mem_carveout_free(&heap, a) == MEM_ERR_DOUBLE_FREE);
    CHECK(mem_carveout_free(&heap, b) == MEM_ERR_FOREIGN);
}

static void test_params(void)
{
    void *p = NULL;

    CHECK(mem_carveout_init(&heap, NULL, 4096) == MEM_ERR_PARAM);
    CHECK(mem_carveout_init(&heap, region + 1, 64) == MEM_ERR_PARAM); /* nothing left aligned */
    CHECK(mem_carveout_init(&heap, region + 1, 4096) == MEM_OK);
    CHECK(((uintptr_t)heap.base & 63) == 0 && heap.size == 4096 - 64);
    CHECK(mem_carveout_alloc(&heap, 0, 64, &p) == MEM_ERR_PARAM);
    CHECK(mem_carveout_alloc(&heap, 64, 48, &p) == MEM_ERR_PARAM); /* not a power of two */
    CHECK(mem_carveout_alloc(&heap, 1, 0, &p) == MEM_OK);          /* 0 = default alignment */
    CHECK(heap.used_bytes == 64);
    CHECK(mem_carveout_contains(&heap, p, 64) && !mem_carveout_contains(&heap, p, 4096));
}

static void test_descriptor_exhaustion(void)
{
    static void *ptrs[MEM_CARVEOUT_MAX_BLOCKS];
    unsigned n = 0;
    void *p = NULL;

    CHECK(mem_carveout_init(&heap, region, sizeof region) == MEM_OK);
    /* Fill with 64-byte blocks, then free every other one: each hole is a
     * descriptor, so the table fills before the memory does. */
    while (n < MEM_CARVEOUT_MAX_BLOCKS && mem_carveout_alloc(&heap, 64, 64, &ptrs[n]) == MEM_OK)
        n++;
    /* n used blocks + 1 trailing free block fill the table exactly. */
    CHECK_EQ_U(n, MEM_CARVEOUT_MAX_BLOCKS - 1);
    for (unsigned i = 0; i < n; i += 2)
        CHECK(mem_carveout_free(&heap, ptrs[i]) == MEM_OK);
    /* A split needs new descriptors: refused, nothing changes. */
    CHECK(mem_carveout_alloc(&heap, 4096, 4096, &p) == MEM_ERR_NO_DESCRIPTOR);
    CHECK(p == NULL);
    /* An exact fit into a hole needs none and still works. */
    CHECK(mem_carveout_alloc(&heap, 64, 64, &p) == MEM_OK);
    CHECK(p == ptrs[0]);
    CHECK(mem_carveout_free(&heap, p) == MEM_OK);
    p = NULL;
    for (unsigned i = 1; i < n; i += 2)
        CHECK(mem_carveout_free(&heap, ptrs[i]) == MEM_OK);
    if (p)
        CHECK(mem_carveout_free(&heap, p) == MEM_OK);
    mem_stats st;
    mem_carveout_stats(&heap, &st);
    CHECK_EQ_U(st.largest_free, REGION_BYTES);
}

#if HAL_LOG_STRINGS
/* Every status the allocator returns has a name of its own in the logs;
 * a value outside the enum reads "unknown". */
static void test_status_names(void)
{
    static const mem_status all[] = {MEM_OK,           MEM_ERR_PARAM,
                                     MEM_ERR_NO_SPACE, MEM_ERR_NO_DESCRIPTOR,
                                     MEM_ERR_FOREIGN,  MEM_ERR_DOUBLE_FREE};
    const size_t n = sizeof all / sizeof all[0];

    for (size_t i = 0; i < n; i++) {
        const char *name = mem_status_name(all[i]);
        CHECK(name && name[0] && strcmp(name, "unknown") != 0);
        for (size_t k = 0; k < i; k++)
            CHECK(strcmp(name, mem_status_name(all[k])) != 0);
    }
    CHECK(strcmp(mem_status_name((mem_status)1234), "unknown") == 0);
}
#endif

int main(void)
{
    test_params();
    test_random_sequence_matches_reference();
    test_exhaustion_leaves_state_intact();
    test_bad_pointers_detected();
    test_descriptor_exhaustion();
#if HAL_LOG_STRINGS
    test_status_names();
#endif
    return test_report("mem_carveout");
}
