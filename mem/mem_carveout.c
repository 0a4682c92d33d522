/*
 * mem_carveout.c - first-fit allocator over the DMA carve-out with an
 * out-of-band descriptor table (see mem.h). A descriptor is only a start
 * offset and a used bit: the blocks tile the region in offset order, so
 * sizes follow from the neighbours and coalescing is removing a descriptor.
 */
#include <string.h>

#include "hal.h"
#include "mem.h"

static int is_power_of_two(size_t v)
{
    return v && !(v & (v - 1));
}

mem_status mem_carveout_init(mem_carveout *c, void *base, size_t size)
{
    uintptr_t b, aligned;

    if (!c || !base)
        return MEM_ERR_PARAM;
    memset(c, 0, sizeof *c);
    b = (uintptr_t)base;
    aligned = hal_align_up(b, MEM_MIN_ALIGN);
    if (size < aligned - b + MEM_MIN_ALIGN)
        return MEM_ERR_PARAM;
    size = (size - (aligned - b)) & ~(size_t)(MEM_MIN_ALIGN - 1);
    /* Offsets are 32-bit (so is the NPU's address space); 32-bit CPUs
     * cannot exceed this by construction. */
    if (size > (size_t)(UINT32_MAX - MEM_MIN_ALIGN + 1))
        return MEM_ERR_PARAM;
    c->base = (uint8_t *)aligned;
    c->size = size;
    c->block_count = 1;
    c->blocks[0] = 0; /* one free block from offset 0 */
    return MEM_OK;
}

static uint32_t block_start(const mem_carveout *c, uint32_t i)
{
    return c->blocks[i] & ~MEM_BLOCK_USED;
}

static int block_used(const mem_carveout *c, uint32_t i)
{
    return (c->blocks[i] & MEM_BLOCK_USED) != 0;
}

/* Up to the next block's start, or the end of the carve-out. */
static uint32_t block_size(const mem_carveout *c, uint32_t i)
{
    uint32_t end = i + 1 < c->block_count ? block_start(c, i + 1) : (uint32_t)c->size;

    return end - block_start(c, i);
}

/* Insert a descriptor at position i (caller checked there is room). */
static void insert_block(mem_carveout *c, uint32_t i, mem_block b)
{
    memmove(&c->blocks[i + 1], &c->blocks[i], (c->block_count - i) * sizeof(mem_block));
    c->blocks[i] = b;
    c->block_count++;
}

static void remove_block(mem_carveout *c, uint32_t i)
{
    memmove(&c->blocks[i], &c->blocks[i + 1], (c->block_count - i - 1) * sizeof(mem_block));
    c->block_count--;
}

/* Find the first free block that can hold size bytes at the alignment;
 * return its index and the aligned start offset, or -1. */
static int find_fit(const mem_carveout *c, size_t size, size_t align, uint32_t *start)
{
    uintptr_t base = (uintptr_t)c->base;

    for (uint32_t i = 0; i < c->block_count; i++) {
        size_t addr, end;
        if (block_used(c, i))
            continue;
        /* Align the address (not the offset): the base is only 64-aligned. */
        addr = hal_align_up(base + block_start(c, i), align);
        end = (size_t)base + block_start(c, i) + block_size(c, i);
        if (addr + size <= end) {
            *start = (uint32_t)(addr - base);
            return (int)i;
        }
    }
    return -1;
}

/* mem_carveout_alloc without its bookkeeping of refusals. */
static mem_status place(mem_carveout *c, size_t size, size_t align, void **out)
{
    uint32_t start, i, lead, tail, needed;
    int found;

    if (!out || size == 0 || !is_power_of_two(align ? align : 1))
        return MEM_ERR_PARAM;
    if (align < MEM_MIN_ALIGN)
        align = MEM_MIN_ALIGN;
    if (size > c->size)
        return MEM_ERR_NO_SPACE;
    size = hal_align_up(size, MEM_MIN_ALIGN);
    found = find_fit(c, size, align, &start);
    if (found < 0)
        return MEM_ERR_NO_SPACE;
    i = (uint32_t)found;
    lead = start - block_start(c, i);
    tail = block_size(c, i) - lead - (uint32_t)size;
    needed = (lead ? 1u : 0u) + (tail ? 1u : 0u);
    if (c->block_count + needed > MEM_CARVEOUT_MAX_BLOCKS)
        return MEM_ERR_NO_DESCRIPTOR;
    /* Split: [lead free][used][tail free] in place of the free block (the
     * lead keeps the free block's descriptor). */
    if (lead)
        insert_block(c, ++i, start | MEM_BLOCK_USED);
    else
        c->blocks[i] = start | MEM_BLOCK_USED;
    if (tail)
        insert_block(c, i + 1, start + (uint32_t)size);
    c->used_bytes += size;
    if (c->used_bytes > c->peak_used_bytes)
        c->peak_used_bytes = c->used_bytes;
    c->live_allocations++;
    *out = c->base + start;
    return MEM_OK;
}

mem_status mem_carveout_alloc(mem_carveout *c, size_t size, size_t align, void **out)
{
    mem_status s;

    if (!c)
        return MEM_ERR_PARAM;
    s = place(c, size, align, out);
    if (s != MEM_OK)
        c->failed_requests++;
    return s;
}

/* Index of the block starting exactly at offset, or -1 (binary search). */
static int block_at(const mem_carveout *c, uint32_t offset)
{
    uint32_t lo = 0, hi = c->block_count;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (block_start(c, mid) == offset)
            return (int)mid;
        if (block_start(c, mid) < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int offset_of(const mem_carveout *c, const void *ptr, uint32_t *offset)
{
    uintptr_t p = (uintptr_t)ptr, b = (uintptr_t)c->base;

    if (!ptr || p < b || p - b >= c->size)
        return -1;
    *offset = (uint32_t)(p - b);
    return 0;
}

mem_status mem_carveout_free(mem_carveout *c, void *ptr)
{
    uint32_t offset;
    int idx;

    if (!c)
        return MEM_ERR_PARAM;
    if (offset_of(c, ptr, &offset) != 0 || (idx = block_at(c, offset)) < 0)
        return MEM_ERR_FOREIGN;
    if (!block_used(c, (uint32_t)idx))
        return MEM_ERR_DOUBLE_FREE;
    c->used_bytes -= block_size(c, (uint32_t)idx);
    c->blocks[idx] &= ~MEM_BLOCK_USED;
    c->live_allocations--;
    /* Coalesce with the free neighbours: a free block absorbs the next one
     * by losing its descriptor (never needs a new one). */
    if ((uint32_t)idx + 1 < c->block_count && !block_used(c, (uint32_t)idx + 1))
        remove_block(c, (uint32_t)idx + 1);
    if (idx > 0 && !block_used(c, (uint32_t)idx - 1))
        remove_block(c, (uint32_t)idx);
    return MEM_OK;
}

int mem_carveout_contains(const mem_carveout *c, const void *ptr, size_t size)
{
    uintptr_t p = (uintptr_t)ptr, b;

    if (!c || !ptr)
        return 0;
    b = (uintptr_t)c->base;
    return p >= b && p - b <= c->size && size <= c->size - (p - b);
}

void mem_carveout_stats(const mem_carveout *c, mem_stats *stats)
{
    size_t largest = 0;

    for (uint32_t i = 0; i < c->block_count; i++)
        if (!block_used(c, i) && block_size(c, i) > largest)
            largest = block_size(c, i);
    stats->total_bytes = c->size;
    stats->used_bytes = c->used_bytes;
    stats->largest_free = largest;
    stats->peak_used_bytes = c->peak_used_bytes;
    stats->allocations = c->live_allocations;
    stats->failed = c->failed_requests;
}

#if HAL_LOG_STRINGS /* else only log arguments name it (never evaluated) */
const char *mem_status_name(mem_status s)
{
    switch (s) {
    case MEM_OK: return "ok";
    case MEM_ERR_PARAM: return "invalid parameter";
    case MEM_ERR_NO_SPACE: return "carve-out exhausted";
    case MEM_ERR_NO_DESCRIPTOR: return "too many fragments (descriptor table full)";
    case MEM_ERR_FOREIGN: return "not an allocation of this carve-out";
    case MEM_ERR_DOUBLE_FREE: return "block already free";
    }
    return "unknown";
}
#endif
