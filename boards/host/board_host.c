/*
 * board_host.c - board_init() for host programs (examples, tests, tools).
 * The host library brings itself up (host_platform.c); this only exposes
 * the same board interface the firmware images use.
 */
#include <stdio.h>

#include "board.h"
#include "board_common.h"
#include "rknpu_platform_internal.h"

int board_init(void)
{
    return rknpu_board_autoinit();
}

const char *board_name(void)
{
    return "host";
}

void board_print_report(void)
{
    board_report_common();
    printf("  npu          virtual NPU, linked into the library\n");
}
