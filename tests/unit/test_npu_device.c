/*
 * test_npu_device - the driver's device object seen from outside: before a
 * core's first job its PC_VERSION is checked against the SoC profile (hardware.md
 * hardware.md §1.2: RK3588 reads 0x46495245, "FIRE"; a core that reads 0 is unpowered),
 * the inference begin/end hooks frame every job with its cores and result,
 * and the device counts jobs. The jobs are the boot-time self-test's (its
 * own CPU reference decides whether a core passed).
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "board_common.h"
#include "npu_driver.h"
#include "rknn_api.h"
#include "rknpu_bm.h"
#include "rknpu_platform_internal.h"
#include "test_soc.h"
#include "test_util.h"
#include "vnpu.h"

#define RK3588_PC_VERSION 0x46495245u /* hardware.md §1.2 */

static unsigned begins, ends, begin_masks, end_masks;
static int last_result = 12345;
static char last_error[256];

void rknpu_hook_inference_begin(unsigned core_mask)
{
    begins++;
    begin_masks |= core_mask;
}

void rknpu_hook_inference_end(unsigned core_mask, int result)
{
    ends++;
    end_masks |= core_mask;
    last_result = result;
}

void rknpu_hook_log(rknpu_log_level level, const char *msg)
{
    if (level == RKNPU_LOG_ERROR && strstr(msg, "PC_VERSION")) /* the driver's own line */
        snprintf(last_error, sizeof last_error, "%s", msg);
}

/* A fresh device (versions unchecked) on soc, whose NPU reads `version`. */
static void fresh_npu(rknpu_soc_id soc, uint32_t version)
{
    test_switch_soc(soc);
    vnpu_set_pc_version(board_vnpu(), version);
}

static void test_hooks_and_stats(void)
{
    rknpu_selftest_result r;
    npu_device *dev;

    fresh_npu(RKNPU_SOC_RK3588, RK3588_PC_VERSION);
    dev = rknpu_platform_npu();
    begins = ends = begin_masks = end_masks = 0;
    CHECK(rknpu_selftest(&r) == RKNN_SUCC && r.cores_passed == 7u);
    CHECK(begins == ends && begins >= 3); /* at least one job per core */
    CHECK(begin_masks == 7u && end_masks == 7u && last_result == RKNN_SUCC);
    CHECK_EQ_U(dev->stats.jobs, begins);
    CHECK(dev->stats.slices >= dev->stats.jobs && dev->stats.timeouts == 0);
    CHECK(dev->version_checked == 7u);
}

static void test_version_check(void)
{
    rknpu_selftest_result r;

    /* an unpowered NPU reads 0: refused before anything is kicked */
    fresh_npu(RKNPU_SOC_RK3588, 0);
    begins = 0;
    CHECK(rknpu_selftest(&r) == RKNN_ERR_DEVICE_UNAVAILABLE);
    CHECK(strstr(last_error, "PC_VERSION reads 0") && strstr(last_error, "not powered"));
    CHECK(begins == 0 && rknpu_platform_npu()->version_checked == 0);

    /* another SoC's NPU behind an RK3588 profile */
    fresh_npu(RKNPU_SOC_RK3588, 0x12345678u);
    CHECK(rknpu_selftest(&r) == RKNN_ERR_DEVICE_UNAVAILABLE);
    CHECK(strstr(last_error, "0x12345678") && strstr(last_error, "RK3588") &&
          strstr(last_error, "0x46495245"));

    /* RK356x's value is not known (profile 0): only "unpowered" is refused */
    fresh_npu(RKNPU_SOC_RK3566, 0x12345678u);
    CHECK(rknpu_selftest(&r) == RKNN_SUCC && r.cores_passed == 1u);
    fresh_npu(RKNPU_SOC_RK3566, 0);
    CHECK(rknpu_selftest(&r) == RKNN_ERR_DEVICE_UNAVAILABLE);

    /* the right NPU again: runs */
    fresh_npu(RKNPU_SOC_RK3588, RK3588_PC_VERSION);
    CHECK(rknpu_selftest(&r) == RKNN_SUCC && r.cores_passed == 7u);
}

int main(void)
{
    if (!CHECK(board_init() == RKNN_SUCC))
        return test_report("npu_device");
    test_hooks_and_stats();
    test_version_check();
    return test_report("npu_device");
}
