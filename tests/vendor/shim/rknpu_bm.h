/*
 * rknpu_bm.h (stand-in) - the few rknpu-bm platform calls tools/rknpu_run.c
 * makes, for building that tool against Rockchip's runtime instead
 * (tests/vendor/build-vendor-clients.sh): the same command line then drives
 * librknnrt on the virtual NPU (tests/vendor/vendor_rknpu_bm.c answers them).
 */
#ifndef RKNPU_BM_H
#define RKNPU_BM_H

typedef enum {
    RKNPU_SOC_RK3588 = 0,
    RKNPU_SOC_RK3566 = 1,
    RKNPU_SOC_RK3568 = 2,
    RKNPU_SOC_RV1106 = 3,
    RKNPU_SOC_COUNT
} rknpu_soc_id;

typedef struct {
    rknpu_soc_id soc;
} rknpu_platform_config;

/* The SoC scripts/vendor-run.sh --soc gave the kernel-driver stand-in. */
const rknpu_platform_config *rknpu_platform_get(void);
const char *rknpu_soc_name(rknpu_soc_id soc);
/* Refused: the stand-in's SoC is chosen when the program starts. */
int rknpu_host_force_soc(rknpu_soc_id soc);

#endif
