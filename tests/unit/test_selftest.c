/*
 * test_selftest - rknpu_selftest() passes on a healthy NPU (every core,
 * RK3588 and RK3566 profiles) and fails, naming the core and the check
 * (network or matmul), when a core writes wrong data, never completes or
 * raises a DMA error; the next run after a failure passes again.
 */
#include <string.h>

#include "board.h"
#include "board_common.h"
#include "npu_soc.h"
#include "rknn_api.h"
#include "rknn_matmul_api.h"
#include "rknpu_bm.h"
#include "rknpu_platform_internal.h"
#include "test_soc.h"
#include "test_util.h"
#include "vnpu.h"

static void expect_pass(unsigned cores)
{
    rknpu_selftest_result r;

    CHECK(rknpu_selftest(&r) == RKNN_SUCC);
    CHECK_EQ_U(r.cores_tested, (1u << cores) - 1);
    CHECK_EQ_U(r.cores_passed, (1u << cores) - 1);
    CHECK_EQ_U(r.matmul_cores_passed, (1u << cores) - 1);
    CHECK_EQ_U(r.mismatches, 0);
    CHECK(r.reason[0] == 0 && r.first_error == RKNN_SUCC);
}

static void expect_fail(unsigned core, vnpu_fault fault, int err, const char *why)
{
    rknpu_selftest_result r;
    char who[16] = "core ";

    who[5] = (char)('0' + core);
    vnpu_inject_fault(board_vnpu(), core, fault, 1);
    CHECK(rknpu_selftest(&r) == err);
    CHECK(r.first_error == err);
    CHECK(strstr(r.reason, who) != NULL && strstr(r.reason, why) != NULL);
    CHECK(!(r.cores_passed & (1u << core)));
    CHECK(r.cores_tested == 7u); /* the other cores still ran */
    expect_pass(3);              /* and the NPU works again */
}

/* A fault in the matmul (the network's two tasks come first on each core):
 * the network passes there, the matmul and the core fail. */
static void expect_matmul_fail(unsigned core, vnpu_fault fault, int err, const char *why)
{
    rknpu_selftest_result r;

    CHECK(vnpu_inject_fault_at_task(board_vnpu(), core, fault, 2) == 0);
    CHECK(rknpu_selftest(&r) == err);
    CHECK(strstr(r.reason, "matmul") != NULL && strstr(r.reason, why) != NULL);
    CHECK(!(r.cores_passed & (1u << core)) && !(r.matmul_cores_passed & (1u << core)));
    CHECK(r.matmul_cores_passed == (7u & ~(1u << core))); /* the other cores passed */
    expect_pass(3);
}

/* No context left for the matmul: the network still runs, the test fails
 * saying the matmul could not start. */
static void expect_no_context(void)
{
    rknn_matmul_ctx held[64]; /* the build option max_contexts is at most 64 */
    rknpu_selftest_result r;
    unsigned n = 0;

    for (; n < 64; n++) {
        rknn_matmul_info info = {0};
        rknn_matmul_io_attr io;
        info.M = info.K = 32;
        info.N = 32;
        info.type = RKNN_INT8_MM_INT8_TO_INT32;
        if (rknn_matmul_create(&held[n], &info, &io) != RKNN_SUCC)
            break;
    }
    CHECK(rknpu_selftest(&r) != RKNN_SUCC && strstr(r.reason, "matmul: could not start"));
    CHECK(r.matmul_cores_passed == 0);
    while (n)
        rknn_matmul_destroy(held[--n]);
    expect_pass(3);
}

/* No carve-out left: refused with a reason, nothing run, nothing kept. */
static void expect_no_memory(void)
{
    rknpu_selftest_result r;
    rknpu_mem_stats st;
    void *hog = NULL;

    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    CHECK(mem_carveout_alloc(rknpu_platform_carveout(), st.largest_free, 64, &hog) == MEM_OK);
    CHECK(rknpu_selftest(&r) == RKNN_ERR_MALLOC_FAIL);
    CHECK(r.first_error == RKNN_ERR_MALLOC_FAIL && strstr(r.reason, "carve-out") != NULL);
    CHECK(r.cores_tested == 0);
    CHECK(mem_carveout_free(rknpu_platform_carveout(), hog) == MEM_OK);
}

int main(void)
{
    rknpu_mem_stats st;

    if (!CHECK(board_init() == RKNN_SUCC))
        return test_report("selftest");
    test_switch_soc(RKNPU_SOC_RK3588);
    CHECK(rknpu_set_job_timeout(20000) == RKNN_SUCC);
    expect_pass(3);
    expect_fail(1, VNPU_FAULT_CORRUPT_OUTPUT, RKNN_ERR_FAIL, "differs from the CPU reference");
    expect_fail(2, VNPU_FAULT_NEVER_COMPLETE, RKNN_ERR_TIMEOUT, "timeout");
    expect_fail(0, VNPU_FAULT_DROP_IRQ, RKNN_ERR_TIMEOUT, "timeout");
    expect_fail(1, VNPU_FAULT_DMA_ERROR, RKNN_ERR_FAIL, "error");
    expect_matmul_fail(2, VNPU_FAULT_DMA_ERROR, RKNN_ERR_FAIL, "the NPU reported an error");
    expect_matmul_fail(0, VNPU_FAULT_NEVER_COMPLETE, RKNN_ERR_TIMEOUT, "timeout");
    expect_no_context();
    test_switch_soc(RKNPU_SOC_RK3566);
    expect_pass(1);
    CHECK(rknpu_selftest(NULL) == RKNN_ERR_PARAM_INVALID);
    expect_no_memory();
    expect_pass(1);
    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC && st.allocations == 0); /* nothing kept */
    return test_report("selftest");
}
