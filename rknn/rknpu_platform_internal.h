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

/* rknn_init(size == 0): map the model file at path read-only. Only the host
 * board has files; bare metal returns RKNN_ERR_PARAM_INVALID. */
int rknpu_board_map_file(const char *path, const void **data, size_t *size);
void rknpu_board_unmap_file(const void *data, size_t size);

/* One carve-out allocation; a refusal is logged with `what` and mapped to
 * the vendor code (RKNN_ERR_MALLOC_FAIL when out of space). */
int rknpu_carve_alloc(size_t size, size_t align, void **out, const char *what);

#endif
