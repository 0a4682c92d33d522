/*
 * rknpu_autoinit_none.c - bare-metal builds: the platform is never brought
 * up implicitly; firmware calls board_init() / rknpu_platform_init() first.
 */
#include "hal.h"
#include "rknn_api.h"
#include "rknpu_platform_internal.h"

int rknpu_board_autoinit(void)
{
    if (rknpu_platform_get())
        return RKNN_SUCC;
    HAL_LOG_ERR("rknpu_platform_init() must be called before any rknn_* function");
    return RKNN_ERR_DEVICE_UNAVAILABLE;
}
