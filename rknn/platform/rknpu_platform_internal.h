/*
 * rknpu_platform_internal.h - the platform state shared inside the runtime:
 * the SoC profile and the carve-out allocator set up by rknpu_platform_init().
 */
#ifndef RKNPU_PLATFORM_INTERNAL_H
#define RKNPU_PLATFORM_INTERNAL_H

#include "hal.h"
#include "mem.h"
#include "npu_soc.h"
#include "rknpu_bm.h"
#include "rknpu_board.h" /* the board port: rknpu_board_autoinit, _select_soc, _map_file */

/* NULL before rknpu_platform_init() succeeded. */
mem_carveout *rknpu_platform_carveout(void);
const npu_soc_profile *rknpu_platform_profile(void);
/* The platform's NPU (npu_driver.h), NULL before rknpu_platform_init(). */
struct npu_device *rknpu_platform_npu(void);

/* The host board's SoC switch: the same carve-out, another SoC profile
 * (its NPU addresses and driver set-up). No context may be alive. Built
 * for the host board only. */
int rknpu_platform_switch_soc(rknpu_soc_id soc);

/* 1 if [p, p + size) lies inside the carve-out (memory the NPU can reach). */
int rknpu_platform_in_carveout(const void *p, size_t size);

/* One carve-out allocation; a refusal is logged with `what` and mapped to
 * the vendor code (RKNN_ERR_MALLOC_FAIL when out of space). */
int rknpu_carve_alloc(size_t size, size_t align, void **out, const char *what);
/* Give a rknpu_carve_alloc block back; NULL is ignored (the allocator
 * refuses it without effect), so callers need not test. */
void rknpu_carve_free(void *p);
#if !HAL_LOG_STRINGS
/* Without log strings `what` is never printed: its text stays out of the
 * image, as the HAL_LOG_* formats do (log_strings=false). */
#define rknpu_carve_alloc(size, align, out, what) rknpu_carve_alloc(size, align, out, NULL)
#endif

#endif
