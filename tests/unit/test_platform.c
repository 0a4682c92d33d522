/*
 * test_platform - rknpu_platform_init() accepts good configurations and
 * rejects bad ones with RKNN_ERR_PARAM_INVALID, leaving the previous state.
 */
#include <string.h>

#include "rknn_api.h"
#include "rknpu_bm.h"
#include "rknpu_platform_internal.h"
#include "test_util.h"

static uint8_t carve[1u << 20] __attribute__((aligned(4096)));

/* Keep the expected error lines out of the test output. */
void rknpu_hook_log(rknpu_log_level level, const char *msg)
{
    (void)level;
    (void)msg;
}

int main(void)
{
    rknpu_platform_config c;
    rknpu_mem_stats st;

    void *p0 = NULL;

    CHECK(rknpu_mem_get_stats(&st) == RKNN_ERR_DEVICE_UNAVAILABLE);
    CHECK(rknpu_set_job_timeout(1000) == RKNN_ERR_DEVICE_UNAVAILABLE);
    /* no carve-out yet: the allocator refuses, as for a bad argument */
    CHECK(rknpu_carve_alloc(64, 64, &p0, "test") == RKNN_ERR_PARAM_INVALID && p0 == NULL);
    CHECK(rknpu_platform_get() == NULL);
    {
        /* the self-test before the platform: not run, and the result says why */
        rknpu_selftest_result r;
        memset(&r, 0xA5, sizeof r);
        CHECK(rknpu_selftest(&r) == RKNN_ERR_DEVICE_UNAVAILABLE &&
              r.first_error == RKNN_ERR_DEVICE_UNAVAILABLE && r.cores_tested == 0 &&
              strstr(r.reason, "rknpu_platform_init") != NULL);
    }
    CHECK(rknpu_platform_init(NULL) == RKNN_ERR_PARAM_INVALID);

    memset(&c, 0, sizeof c);
    c.soc = (rknpu_soc_id)99;
    c.carveout = carve;
    c.carveout_size = sizeof carve;
    CHECK(rknpu_platform_init(&c) == RKNN_ERR_PARAM_INVALID); /* unknown SoC */
    c.soc = RKNPU_SOC_RK3588;
    c.carveout = carve + 64;
    CHECK(rknpu_platform_init(&c) == RKNN_ERR_PARAM_INVALID); /* not 4 KiB aligned */
    c.carveout = carve;
    c.carveout_size = 100;
    CHECK(rknpu_platform_init(&c) == RKNN_ERR_PARAM_INVALID); /* too small */
    c.carveout_size = sizeof carve;
    c.carveout_phys = 0xFFF01000ull;                          /* last byte at 4 GiB + 4095 */
    CHECK(rknpu_platform_init(&c) == RKNN_ERR_PARAM_INVALID); /* crosses 4 GiB */
    CHECK(rknpu_platform_get() == NULL);

    c.carveout_phys = 0x20000000u;
    CHECK(rknpu_platform_init(&c) == RKNN_SUCC);
    const rknpu_platform_config *p = rknpu_platform_get();
    CHECK(p != NULL);
    /* Defaults filled from the SoC documentation (hardware.md §2.2). */
    CHECK_EQ_U(p->npu_base[0], 0xFDAB0000u);
    CHECK_EQ_U(p->npu_base[1], 0xFDAC0000u);
    CHECK_EQ_U(p->npu_base[2], 0xFDAD0000u);
    CHECK(p->job_timeout_us > 0);
    CHECK(rknpu_hook_virt_to_phys(carve + 100) == 0x20000000u + 100);
    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    CHECK_EQ_U(st.total_bytes, sizeof carve);
    CHECK_EQ_U(st.used_bytes, 0);
    CHECK(rknpu_mem_get_stats(NULL) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknpu_set_job_timeout(0) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknpu_set_job_timeout(5000) == RKNN_SUCC);
    CHECK_EQ_U(rknpu_platform_get()->job_timeout_us, 5000);
    /* bad sizes and alignments are the caller's error, a full carve-out is
     * RKNN_ERR_MALLOC_FAIL */
    CHECK(rknpu_carve_alloc(0, 64, &p0, "test") == RKNN_ERR_PARAM_INVALID);
    CHECK(rknpu_carve_alloc(64, 48, &p0, "test") == RKNN_ERR_PARAM_INVALID);
    CHECK(rknpu_carve_alloc(sizeof carve + 64, 64, &p0, "test") == RKNN_ERR_MALLOC_FAIL);
    CHECK(rknpu_carve_alloc(64, 64, &p0, "test") == RKNN_SUCC && p0 == carve);
    rknpu_carve_free(p0);
    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC && st.used_bytes == 0);
    CHECK(strcmp(rknpu_soc_name(RKNPU_SOC_RK3588), "RK3588") == 0);
    CHECK(strcmp(rknpu_soc_name((rknpu_soc_id)77), "unknown") == 0);

    c.soc = RKNPU_SOC_RK3566;
    CHECK(rknpu_platform_init(&c) == RKNN_SUCC);
    p = rknpu_platform_get();
    CHECK_EQ_U(p->npu_base[0], 0xFDE40000u);
    CHECK_EQ_U(p->npu_base[1], 0);
    return test_report("platform");
}
