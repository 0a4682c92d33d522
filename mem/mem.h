/*
 * mem.h - the DMA carve-out allocator and static object pools.
 *
 * Carve-out allocator. The carve-out is one physically contiguous region the
 * NPU may read and write. Allocations are first-fit with splitting and
 * coalescing. Bookkeeping lives in a fixed table of block descriptors inside
 * struct mem_carveout (not in the DMA memory), so a misbehaving DMA cannot
 * corrupt the allocator. Every allocation starts and ends on a
 * MEM_MIN_ALIGN boundary (one cache line), so cache maintenance of one
 * buffer never touches another. Failures leave the state unchanged.
 *
 * Static pools. Fixed-size objects in a static array with an occupancy
 * bitmap: contexts, tensor-memory handles, output buffers.
 */
#ifndef MEM_H
#define MEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef MEM_CARVEOUT_MAX_BLOCKS
#define MEM_CARVEOUT_MAX_BLOCKS 160 /* used + free blocks tracked at once (4 bytes each) */
#endif
#define MEM_MIN_ALIGN 64u /* cache line: allocations never share one */

typedef enum {
    MEM_OK = 0,
    MEM_ERR_PARAM = -1,         /* zero size, bad alignment, NULL */
    MEM_ERR_NO_SPACE = -2,      /* no free block large enough */
    MEM_ERR_NO_DESCRIPTOR = -3, /* descriptor table full (too many fragments) */
    MEM_ERR_FOREIGN = -4,       /* pointer is not the start of an allocation */
    MEM_ERR_DOUBLE_FREE = -5,   /* block is already free */
} mem_status;

/* One block: its start offset from the aligned base, a multiple of
 * MEM_MIN_ALIGN, with MEM_BLOCK_USED in the low bit. Blocks tile the
 * carve-out, so a block ends where the next one starts (4 bytes each). */
typedef uint32_t mem_block;
#define MEM_BLOCK_USED 1u

typedef struct mem_carveout {
    uint8_t *base; /* aligned to MEM_MIN_ALIGN */
    size_t size;   /* usable bytes, a multiple of MEM_MIN_ALIGN */
    uint32_t block_count;
    mem_block blocks[MEM_CARVEOUT_MAX_BLOCKS]; /* sorted by offset, tile the region */
    size_t used_bytes;
    size_t peak_used_bytes;
    uint32_t live_allocations;
    uint32_t failed_requests;
} mem_carveout;

/* Take over [base, base+size). Returns MEM_OK or MEM_ERR_PARAM (NULL, too
 * small, or larger than 4 GiB: the NPU's addresses are 32-bit). */
mem_status mem_carveout_init(mem_carveout *c, void *base, size_t size);

/* Allocate size bytes aligned to align (a power of two; values below
 * MEM_MIN_ALIGN are raised to it). *out is set only on success. */
mem_status mem_carveout_alloc(mem_carveout *c, size_t size, size_t align, void **out);

/* Return an allocation. Detects pointers that are not allocation starts
 * (MEM_ERR_FOREIGN) and blocks freed twice (MEM_ERR_DOUBLE_FREE). */
mem_status mem_carveout_free(mem_carveout *c, void *ptr);

/* Whether [ptr, ptr+size) lies inside the carve-out. */
int mem_carveout_contains(const mem_carveout *c, const void *ptr, size_t size);

/* Usage of a carve-out (rknpu_mem_get_stats() reports it to applications). */
typedef struct {
    size_t total_bytes;     /* usable size */
    size_t used_bytes;      /* bytes in live allocations (alignment included) */
    size_t largest_free;    /* biggest single allocation that would succeed */
    size_t peak_used_bytes; /* high-water mark since init */
    uint32_t allocations;   /* live allocations */
    uint32_t failed;        /* requests refused since init */
} mem_stats;

void mem_carveout_stats(const mem_carveout *c, mem_stats *stats);

/* Human-readable name of a status, for log lines (not built with
 * log_strings=false: log arguments are never evaluated there). */
const char *mem_status_name(mem_status s);

/* ---- Static object pools ------------------------------------------------- */

typedef struct mem_pool {
    uint8_t *storage;
    size_t object_size;
    uint32_t capacity;
    uint32_t *used_bits;
    uint32_t in_use;
} mem_pool;

/* Defines `static mem_pool NAME` with room for COUNT objects of TYPE. */
#define MEM_POOL_DEFINE(NAME, TYPE, COUNT)                                                         \
    static TYPE NAME##_storage[COUNT];                                                             \
    static uint32_t NAME##_bits[((COUNT) + 31) / 32];                                              \
    static mem_pool NAME = {(uint8_t *)NAME##_storage, sizeof(TYPE), (COUNT), NAME##_bits, 0}

/* A zero-filled object, or NULL when the pool is exhausted. */
void *mem_pool_take(mem_pool *p);
/* Return an object: MEM_OK, MEM_ERR_FOREIGN (not from this pool or not an
 * object start) or MEM_ERR_DOUBLE_FREE. */
mem_status mem_pool_give(mem_pool *p, void *obj);
/* Whether obj is a live object of this pool (validates handles). */
int mem_pool_owns(const mem_pool *p, const void *obj);

#ifdef __cplusplus
}
#endif

#endif /* MEM_H */
