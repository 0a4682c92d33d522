/*
 * host_submit_log.c - RKNPU_SUBMIT_LOG on the host: when the environment
 * names a file, every slice the driver kicks is written to it as a JSON
 * line, and before each job what the CPU changed in the carve-out since
 * the NPU last ran (submit_log.h). The same form as the kernel-driver
 * stand-in under Rockchip's runtime writes, for scripts/vendor-diff.sh.
 * Off (one getenv) unless the variable is set.
 */
#include <stdlib.h>
#include <string.h>

#include "board_common.h"
#include "hal.h"
#include "mem.h"
#include "rknpu_platform_internal.h"
#include "submit_log.h"

static struct {
    int state; /* 0: not looked yet, 1: logging, -1: off */
    FILE *log;
    submit_log_watch watch;
    uint32_t driver_job; /* the driver's counter of the last slice seen */
    uint32_t job;        /* this log's job number */
    submit_log_range live[MEM_CARVEOUT_MAX_BLOCKS];
} L;

static const void *carveout_map(void *ctx, uint64_t dma, size_t size)
{
    const submit_log_watch *w = ctx;

    if (dma < w->dma || dma - w->dma > w->size || size > w->size - (dma - w->dma))
        return NULL;
    return w->mem + (dma - w->dma);
}

/* The carve-out's live allocations (its block list tiles the region, in
 * offset order), as ranges of the watched memory. */
static unsigned live_blocks(void)
{
    const mem_carveout *c = rknpu_platform_carveout();
    size_t skew = c->base - L.watch.mem; /* the allocator's base is aligned */
    unsigned n = 0;

    for (uint32_t i = 0; i < c->block_count && n < MEM_CARVEOUT_MAX_BLOCKS; i++) {
        size_t start = c->blocks[i] & ~(size_t)MEM_BLOCK_USED;
        size_t end =
            i + 1 < c->block_count ? (c->blocks[i + 1] & ~(size_t)MEM_BLOCK_USED) : c->size;
        if (c->blocks[i] & MEM_BLOCK_USED)
            L.live[n++] = (submit_log_range){skew + start, end - start};
    }
    return n;
}

static void npu_ran(void)
{
    submit_log_npu_ran(&L.watch, L.live, live_blocks());
}

static FILE *open_data_file(const char *log_path)
{
    size_t n = strlen(log_path);
    char *path = malloc(n + 5);
    FILE *f;

    if (!path)
        return NULL;
    memcpy(path, log_path, n);
    memcpy(path + n, ".bin", 5);
    f = fopen(path, "ab");
    free(path);
    if (f)
        fseek(f, 0, SEEK_END); /* ftell must give the end for the logged offsets */
    return f;
}

static int start_logging(void)
{
    const char *path = getenv("RKNPU_SUBMIT_LOG");
    const rknpu_platform_config *p = rknpu_platform_get();
    FILE *data;

    if (!path || !*path)
        return -1;
    if (!p)
        return 0; /* not yet: the platform comes up first */
    L.log = fopen(path, "a");
    data = L.log ? open_data_file(path) : NULL;
    if (!data || submit_log_watch_init(&L.watch, p->carveout, p->carveout_phys, p->carveout_size,
                                       data) != 0) {
        HAL_LOG_ERR("host: cannot write the submission log %s", path);
        return -1;
    }
    board_vnpu_after_kick = npu_ran;
    return 1;
}

void host_submit_log_start(void)
{
    if (L.state == 0)
        L.state = start_logging();
}

void rknpu_hook_submit(const rknpu_submit_slice *slice)
{
    rknpu_submit_slice s = *slice;

    host_submit_log_start();
    if (L.state <= 0)
        return;
    if (L.job == 0 || slice->job != L.driver_job) { /* the first slice of a job */
        unsigned n = live_blocks();
        L.driver_job = slice->job;
        L.job++;
        submit_log_buffers(L.log, "rknpu-bm", L.job, &L.watch, L.live, n);
        submit_log_cpu_writes(L.log, "rknpu-bm", L.job, &L.watch, L.live, n);
    }
    s.job = L.job;
    submit_log_slice(L.log, "rknpu-bm", &s, carveout_map, &L.watch);
}
