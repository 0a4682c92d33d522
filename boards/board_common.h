/* board_common.h - helpers shared by the board implementations. */
#ifndef BOARD_COMMON_H
#define BOARD_COMMON_H

#include "rknpu_bm.h"

/* Prints the board-independent lines of the platform report. */
void board_report_common(void);

/* The SoC chosen at build time (-Dsoc=...), for boards with a virtual NPU. */
#ifndef BOARD_SOC
#define BOARD_SOC RKNPU_SOC_RK3588
#endif

#endif
