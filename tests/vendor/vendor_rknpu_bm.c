/*
 * vendor_rknpu_bm.c - answers for shim/rknpu_bm.h when tools/rknpu_run.c is
 * built against Rockchip's runtime (tests/vendor/build-vendor-clients.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "rknpu_bm.h"

const rknpu_platform_config *rknpu_platform_get(void)
{
    static rknpu_platform_config cfg;
    const char *soc = getenv("RKNPU_STANDIN_SOC");

    cfg.soc = soc && strcmp(soc, "rk3566") == 0   ? RKNPU_SOC_RK3566
              : soc && strcmp(soc, "rk3568") == 0 ? RKNPU_SOC_RK3568
                                                  : RKNPU_SOC_RK3588;
    return &cfg;
}

const char *rknpu_soc_name(rknpu_soc_id soc)
{
    static const char *const names[] = {"RK3588", "RK3566", "RK3568", "RV1106"};

    return soc < RKNPU_SOC_COUNT ? names[soc] : "unknown";
}

int rknpu_host_force_soc(rknpu_soc_id soc)
{
    (void)soc;
    fprintf(stderr,
            "rknpu-run (Rockchip's runtime): --soc is chosen by scripts/vendor-run.sh --soc\n");
    return RKNN_ERR_PARAM_INVALID;
}
