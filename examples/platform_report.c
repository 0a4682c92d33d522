/*
 * platform_report - boots the board, brings the runtime up and prints what
 * it found. The first thing to run on a new board or RTOS port.
 */
#include <stdio.h>

#include "board.h"
#include "rknn_api.h"

int main(void)
{
    int ret = board_init();

    board_print_report();
    if (ret != RKNN_SUCC) {
        printf("platform report: FAIL (board_init returned %d)\n", ret);
        return 1;
    }
    printf("platform report: OK\n");
    return 0;
}
