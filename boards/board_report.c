/*
 * board_report.c - the part of the platform report that every board shares.
 */
#include <stdio.h>

#include "board.h"
#include "board_common.h"
#include "hal.h"
#include "rknn_api.h"
#include "rknpu_bm.h"

void board_report_common(void)
{
    const rknpu_platform_config *p = rknpu_platform_get();
    rknpu_mem_stats st;

    printf("rknpu-bm %s platform report\n", RKNPU_BM_VERSION_STRING);
    printf("  board        %s (%s)\n", board_name(), hal_arch_name());
    printf("  timer        %llu Hz, now %llu us\n", (unsigned long long)hal_time_freq_hz(),
           (unsigned long long)hal_time_us());
    printf("  cache line   %u bytes\n", (unsigned)hal_cache_line_size());
    if (!p) {
        printf("  platform     not initialised\n");
        return;
    }
    printf("  soc          %s\n", rknpu_soc_name(p->soc));
    for (unsigned i = 0; i < RKNPU_MAX_CORES; i++)
        if (p->npu_base[i])
            printf("  npu core %u   registers at 0x%08lx\n", i, (unsigned long)p->npu_base[i]);
    printf("  carve-out    %p, %lu KiB, NPU address 0x%08llx\n", p->carveout,
           (unsigned long)(p->carveout_size / 1024), (unsigned long long)p->carveout_phys);
    if (rknpu_mem_get_stats(&st) == RKNN_SUCC)
        printf("  allocator    %lu KiB free of %lu KiB, %u allocations\n",
               (unsigned long)(st.free_bytes / 1024), (unsigned long)(st.total_bytes / 1024),
               (unsigned)st.allocations);
    printf("  job timeout  %lu us\n", (unsigned long)p->job_timeout_us);
}
