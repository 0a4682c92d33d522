/*
 * diff_shim.c - what the differential client asks a runtime beyond the
 * vendor API (diff_client.h): its DMA memory, and record-only submissions.
 * Rockchip's runtime answers through the kernel-driver stand-in preloaded
 * into it (found with dlsym); rknpu-bm through its platform API.
 */
#define _GNU_SOURCE
#include "diff_client.h"

#ifdef DIFF_CLIENT_RKNPU_BM

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

#endif
