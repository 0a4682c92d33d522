/*
 * rknpu_soc.h - the SoCs rknpu-bm knows and their most NPU cores.
 *
 * Part of rknpu-bm's public platform API (rknpu_bm.h includes it). It
 * lives with the NPU layer, which implements it, so that layer never
 * includes a header above it.
 */
#ifndef RKNPU_SOC_H
#define RKNPU_SOC_H

#ifdef __cplusplus
extern "C" {
#endif

/* Most NPU cores of any supported SoC (RK3588). */
#define RKNPU_MAX_CORES 3

typedef enum {
    RKNPU_SOC_RK3588 = 0, /* 3 cores; also RK3588S */
    RKNPU_SOC_RK3566 = 1, /* 1 core, "RKNPU lite" */
    RKNPU_SOC_RK3568 = 2, /* same NPU as RK3566 */
    RKNPU_SOC_RV1106 = 3, /* 1 core; also RV1103 */
    RKNPU_SOC_COUNT
} rknpu_soc_id;

#ifdef __cplusplus
}
#endif

#endif /* RKNPU_SOC_H */
