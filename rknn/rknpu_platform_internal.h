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
/* The platform's NPU (npu_driver.h), NULL before rknpu_platform_init(). */
struct npu_device *rknpu_platform_npu(void);

/* Bring the platform up if nobody did: the host board does it from static
 * memory; bare-metal builds return RKNN_ERR_DEVICE_UNAVAILABLE (firmware
 * must call rknpu_platform_init() first). RKNN_SUCC if already up. */
int rknpu_board_autoinit(void);

/* rknn_init() after parsing a model: bring the platform up (as above) and,
 * on the host, make the virtual NPU the SoC the model names
 * (target_platform, e.g. "rk3566") unless contexts are alive. Firmware is
 * for one SoC: nothing changes there, the compatibility check then names
 * both. */
int rknpu_board_select_soc(const char *target_platform, int contexts_alive);

/* The host board's SoC switch: the same carve-out, another SoC profile
 * (its NPU addresses and driver set-up). No context may be alive. */
int rknpu_platform_switch_soc(rknpu_soc_id soc);

/* 1 if [p, p + size) lies inside the carve-out (memory the NPU can reach). */
int rknpu_platform_in_carveout(const void *p, size_t size);

/* rknn_init(size == 0): map the model file at path read-only. Only the host
 * board has files; bare metal returns RKNN_ERR_PARAM_INVALID. */
int rknpu_board_map_file(const char *path, const void **data, size_t *size);
void rknpu_board_unmap_file(const void *data, size_t size);

/* One carve-out allocation; a refusal is logged with `what` and mapped to
 * the vendor code (RKNN_ERR_MALLOC_FAIL when out of space). */
int rknpu_carve_alloc(size_t size, size_t align, void **out, const char *what);

#endif
