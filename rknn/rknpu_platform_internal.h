/*
 * rknpu_platform_internal.h - the platform state shared inside the runtime:
 * the SoC profile and the carve-out allocator set up by rknpu_platform_init().
 */
#ifndef RKNPU_PLATFORM_INTERNAL_H
#define RKNPU_PLATFORM_INTERNAL_H

#include "mem.h"
#include "npu_soc.h"
#include "rknpu_bm.h"

/* NULL before rknpu_platform_init() succeeded. */
mem_carveout *rknpu_platform_carveout(void);
const npu_soc_profile *rknpu_platform_profile(void);

/* Bring the platform up if nobody did: the host board does it from static
 * memory; bare-metal builds return RKNN_ERR_DEVICE_UNAVAILABLE (firmware
 * must call rknpu_platform_init() first). RKNN_SUCC if already up. */
int rknpu_board_autoinit(void);

/* Map an allocator status to the vendor error code (and log it). */
int rknpu_mem_status_to_rknn(mem_status s, const char *what);

#endif
