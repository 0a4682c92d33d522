/*
 * selftest - the boot-time NPU self-test as firmware: bring the board and
 * its NPU up, run rknpu_selftest() on every core, and print exactly one
 * final line:
 *   rknpu selftest: PASS (<cores>: network and matmul, <time>)
 *   rknpu selftest: FAIL (<reason>, <time>)
 * after the platform report (on a Rockchip board: the NPU's supply, power
 * domains and clock, what a first boot on silicon must show: the checklist
 * is docs/boards.md §6). Exit status 0 on PASS. Copy the calls into your
 * own boot code.
 */
#include <stdio.h>

#include "board.h"
#include "rknn_api.h"
#include "rknpu_bm.h"

int main(void)
{
    rknpu_selftest_result r = {0};
    const rknpu_platform_config *p;
    int ret = board_init();

    board_print_report();
    if (ret != RKNN_SUCC) {
        printf("rknpu selftest: FAIL (board bring-up returned %d, 0 us)\n", ret);
        return 1;
    }
    p = rknpu_platform_get();
    printf("rknpu selftest: %s, %s, NPU windows at 0x%08lx...\n", board_name(),
           rknpu_soc_name(p->soc), (unsigned long)p->npu_base[0]);
    ret = rknpu_selftest(&r);
    board_print_npu_usage();
    if (ret == RKNN_SUCC)
        printf("rknpu selftest: PASS (%u core(s) bit-exact against the CPU reference: the test "
               "network and an int8 matmul, %llu us)\n",
               (unsigned)__builtin_popcount(r.cores_passed), (unsigned long long)r.time_us);
    else
        printf("rknpu selftest: FAIL (%s; %lu wrong output values, %llu us)\n", r.reason,
               (unsigned long)r.mismatches, (unsigned long long)r.time_us);
    return ret == RKNN_SUCC ? 0 : 1;
}
