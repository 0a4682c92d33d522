/*
 * rknpu_board.h - the board port: what a board or an RTOS provides to the
 * runtime, each function with its contract. docs/porting.md walks through
 * implementing it.
 *
 * The port has three parts:
 *   1. rknpu_platform_init() (rknpu_bm.h): the board calls it once with its
 *      SoC, NPU register windows, carve-out and job timeout, after powering
 *      and clocking the NPU. Every other part assumes it.
 *   2. The platform hooks (rknpu_hooks.h): time, cache maintenance, address
 *      translation, NPU reset, locking, logging, inference and submission
 *      hooks. Each has a weak default that is right for our own boards;
 *      a port defines the ones its system does differently.
 *   3. The board functions below, which the runtime calls when an rknn_*
 *      call needs something only a board can give. The library's defaults
 *      (rknn/platform/rknpu_board_default.c) are weak: a port defines any of them
 *      and the linker takes its definition. The host board (boards/host)
 *      defines all of them.
 *
 * The runtime calls them from inside rknn_* calls, under rknpu_hook_lock()
 * where the call takes it; none is called from an interrupt.
 */
#ifndef RKNPU_BOARD_H
#define RKNPU_BOARD_H

#include <stddef.h>

#include "rknpu_hooks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The platform is needed (every rknn_* call that touches the NPU or the
 * carve-out asks first). Return RKNN_SUCC when rknpu_platform_get() is
 * non-NULL on return: a port may bring the platform up here, on first use,
 * so that unmodified rknn_* applications need no set-up call (the host
 * board does). Otherwise return an RKNN_ERR_* code, logged; the rknn_* call
 * then fails with it. Called often: return at once when already up.
 * Default: RKNN_SUCC if rknpu_platform_init() was called, else
 * RKNN_ERR_DEVICE_UNAVAILABLE. */
int rknpu_board_autoinit(void);

/* rknn_init() parsed a model made for target_platform ("rk3588",
 * "rk3566", ...; the model's own string, may be empty). Bring the platform
 * up as rknpu_board_autoinit() does; a board that can serve several SoCs
 * may switch to this one when contexts_alive is 0 (the host's virtual NPU
 * does). Return RKNN_SUCC or an RKNN_ERR_* code. A board that does not
 * switch returns rknpu_board_autoinit()'s answer: rknn_init then compares
 * the model's SoC with the platform's and refuses a mismatch, naming both.
 * Default: rknpu_board_autoinit(). */
int rknpu_board_select_soc(const char *target_platform, int contexts_alive);

/* rknn_init() with size 0: `path` names a model file. Map or load it
 * read-only and set *data and *size; the bytes must stay valid and
 * unchanged until rknpu_board_unmap_file(*data, *size) (rknn_destroy of
 * a zero-copy context, or at once when rknn_init copies the model). Return
 * RKNN_SUCC, or RKNN_ERR_PARAM_INVALID / RKNN_ERR_MODEL_INVALID (logged,
 * naming the path) when the file cannot be read. A port with a file system
 * (FatFs, littlefs, an RTOS VFS) implements both; load into memory that
 * outlives the context, e.g. a static buffer, if the file system cannot
 * map. Default: RKNN_ERR_PARAM_INVALID ("no file system: pass the model
 * bytes and their size"). */
int rknpu_board_map_file(const char *path, const void **data, size_t *size);
void rknpu_board_unmap_file(const void *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* RKNPU_BOARD_H */
