/*
 * diff_shim.c - what the differential and benchmark clients ask a runtime
 * beyond the vendor API (diff_client.h): its DMA memory, record-only and
 * dry-run submissions, the virtual NPU's time.
 * Rockchip's runtime answers through the kernel-driver stand-in preloaded
 * into it (found with dlsym); rknpu-bm through its platform API.
 */
#define _GNU_SOURCE
#include "diff_client.h"

#ifdef DIFF_CLIENT_RKNPU_BM

#include "board_common.h"
#include "hal.h"
#include "rknpu_bm.h"

uint64_t shim_dma_bytes(void)
{
    rknpu_mem_stats s;

    return rknpu_mem_get_stats(&s) == RKNN_SUCC ? (uint64_t)s.used_bytes : 0;
}

void shim_record_only(int on)
{
    (void)on; /* rknpu-bm's runs always execute on its virtual NPU */
}

void shim_select_soc(const char *soc)
{
    rknpu_host_force_soc(soc && (soc[4] == '6') ? RKNPU_SOC_RK3566 : RKNPU_SOC_RK3588);
}

const char *shim_name(void)
{
    return "rknpu-bm";
}

uint64_t shim_vnpu_us(void)
{
    return hal_ticks_to_us(board_vnpu_busy_ticks(), hal_time_freq_hz());
}

void shim_dry_run(int on)
{
    board_vnpu_set_dry_run(on);
}

#else

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static void *standin(const char *symbol)
{
    void *f = dlsym(RTLD_DEFAULT, symbol);

    if (!f) {
        fprintf(stderr, "diff_client: %s not found: run under scripts/vendor-run.sh\n", symbol);
        exit(2);
    }
    return f;
}

uint64_t shim_dma_bytes(void)
{
    uint64_t live = 0, peak = 0;
    void (*f)(uint64_t *, uint64_t *) =
        (void (*)(uint64_t *, uint64_t *))standin("rknpu_standin_dma_bytes");

    f(&live, &peak);
    return live;
}

void shim_record_only(int on)
{
    void (*f)(int) = (void (*)(int))standin("rknpu_standin_set_record_only");

    f(on);
}

void shim_select_soc(const char *soc)
{
    (void)soc; /* vendor-run.sh --soc chose the stand-in's SoC */
}

const char *shim_name(void)
{
    return "vendor";
}

uint64_t shim_vnpu_us(void)
{
    uint64_t (*f)(void) = (uint64_t(*)(void))standin("rknpu_standin_vnpu_us");

    return f();
}

void shim_dry_run(int on)
{
    void (*f)(int) = (void (*)(int))standin("rknpu_standin_set_dry_run");

    f(on);
}

#endif
