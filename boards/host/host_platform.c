/*
 * host_platform.c - the host "board", built into the host library itself so
 * that unmodified rknn_* applications run on a PC without any set-up call:
 * the first rknn_init() brings up a carve-out in static memory (given a fake
 * NPU address below 4 GiB, as on silicon) and the virtual NPU.
 *
 * Environment: RKNPU_SOC=rk3588|rk3566|rk3568|rv1106 picks the NPU profile
 * (default: the build's -Dsoc); RKNPU_LOG_LEVEL=0..3 sets the log threshold.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hal.h"
#include "rknn_api.h"
#include "rknpu_platform_internal.h"

#ifndef BOARD_SOC /* set from -Dsoc by the build */
#define BOARD_SOC RKNPU_SOC_RK3588
#endif

#define HOST_CARVEOUT_BYTES (64u << 20)
#define HOST_CARVEOUT_NPU_ADDRESS 0x10000000u

static uint8_t host_carveout[HOST_CARVEOUT_BYTES] __attribute__((aligned(4096)));

static rknpu_soc_id soc_from_env(void)
{
    static const struct { const char *name; rknpu_soc_id id; } socs[] = {
        {"rk3588", RKNPU_SOC_RK3588}, {"rk3566", RKNPU_SOC_RK3566},
        {"rk3568", RKNPU_SOC_RK3568}, {"rv1106", RKNPU_SOC_RV1106},
    };
    const char *s = getenv("RKNPU_SOC");

    for (size_t i = 0; s && i < sizeof socs / sizeof socs[0]; i++)
        if (strcasecmp(s, socs[i].name) == 0)
            return socs[i].id;
    return BOARD_SOC;
}

int rknpu_board_autoinit(void)
{
    rknpu_platform_config cfg = {0};
    const char *level = getenv("RKNPU_LOG_LEVEL");

    if (rknpu_platform_get())
        return RKNN_SUCC;
    if (level && level[0] >= '0' && level[0] <= '3')
        rknpu_log_threshold = level[0] - '0';
    cfg.soc = soc_from_env();
    cfg.carveout = host_carveout;
    cfg.carveout_size = sizeof host_carveout;
    cfg.carveout_phys = HOST_CARVEOUT_NPU_ADDRESS;
    return rknpu_platform_init(&cfg);
}
