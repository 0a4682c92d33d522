/*
 * rknpu_board_default.c - the library's defaults for the board port
 * (rknpu_board.h), weak so that a port's own definitions replace them:
 * the platform is never brought up implicitly (firmware calls
 * rknpu_platform_init() first) and there is no file system. The host board
 * defines all of these itself, so the host library does not build this file.
 */
#include "hal.h"
#include "rknn_api.h"
#include "rknpu_board.h"
#include "rknpu_platform_internal.h"

#define BOARD_DEFAULT __attribute__((weak))

BOARD_DEFAULT int rknpu_board_autoinit(void)
{
    if (rknpu_platform_get())
        return RKNN_SUCC;
    HAL_LOG_ERR("rknpu_platform_init() must be called before any rknn_* function");
    return RKNN_ERR_DEVICE_UNAVAILABLE;
}

BOARD_DEFAULT int rknpu_board_map_file(const char *path, const void **data, size_t *size)
{
    (void)data;
    (void)size;
    HAL_LOG_ERR("rknn_init: size 0 means a file path ('%.64s'), but bare-metal firmware has "
                "no file system: pass the model bytes and their size",
                path);
    return RKNN_ERR_PARAM_INVALID;
}

BOARD_DEFAULT void rknpu_board_unmap_file(const void *data, size_t size)
{
    (void)data;
    (void)size;
}

BOARD_DEFAULT int rknpu_board_select_soc(const char *target_platform, int contexts_alive)
{
    (void)target_platform; /* a firmware image is for one SoC */
    (void)contexts_alive;
    return rknpu_board_autoinit();
}

int rknpu_host_force_soc(rknpu_soc_id soc)
{
    (void)soc;
    HAL_LOG_ERR("rknpu_host_force_soc: only the host build has a virtual NPU for every SoC; "
                "firmware sets its SoC in rknpu_platform_init()");
    return RKNN_ERR_DEVICE_UNAVAILABLE;
}
