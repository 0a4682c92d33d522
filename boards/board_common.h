/* board_common.h - helpers shared by the board implementations. */
#ifndef BOARD_COMMON_H
#define BOARD_COMMON_H

#include "rknpu_bm.h"

#include "npu_soc.h"

struct vnpu_device;
/* Boards with a virtual NPU: attach it behind the platform's NPU windows
 * (vnpu_attach.c). RKNN_SUCC or RKNN_ERR_DEVICE_UNAVAILABLE. */
int board_vnpu_attach(const rknpu_platform_config *p, const npu_soc_profile *soc);
/* The attached virtual NPU (fault injection and traces in tests), or NULL. */
struct vnpu_device *board_vnpu(void);

/* Prints the board-independent lines of the platform report. */
void board_report_common(void);

/* The SoC chosen at build time (-Dsoc=...), for boards with a virtual NPU. */
#ifndef BOARD_SOC
#define BOARD_SOC RKNPU_SOC_RK3588
#endif

#endif
