/*
 * test_npu_device - the driver's device object seen from outside: before a
 * core's first job its PC_VERSION is checked against the SoC profile (hardware.md
 * hardware.md §1.2: RK3588 reads 0x46495245, "FIRE"; a core that reads 0 is unpowered),
 * the inference begin/end hooks frame every job with its cores, result and
 * owner (the context and the user argument set for it, so two contexts are
 * told apart), and the device counts jobs; the fuzz status against its
 * rule (hardware.md §3.3). The jobs are the boot-time self-test's (its
 * own CPU reference decides whether a core passed).
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "board_common.h"
#include "npu_builder.h"
#include "npu_driver.h"
#include "rknn_api.h"
#include "rknn_matmul_api.h"
#include "rknpu_bm.h"
#include "rknpu_platform_internal.h"
#include "test_soc.h"
#include "test_util.h"
#include "vnpu.h"

#define RK3588_PC_VERSION 0x46495245u /* hardware.md §1.2 */

static unsigned begins, ends, begin_masks, end_masks;
static int last_result = 12345;
static char last_error[256];

/* Per owner seen by the hooks: its jobs begun and ended (a begin must be
 * ended by the same owner before the next job begins: one core runs). */
#define OWNERS 4
static struct {
    uint64_t context;
    void *user;
    unsigned begun, ended;
} owners[OWNERS];
static unsigned n_owners, owner_mixups;
static rknpu_job_owner open_job;

static unsigned owner_slot(const rknpu_job_owner *o)
{
    unsigned i = 0;

    while (i < n_owners && (owners[i].context != o->context || owners[i].user != o->user))
        i++;
    if (i == n_owners && n_owners < OWNERS) {
        owners[i].context = o->context;
        owners[i].user = o->user;
        owners[i].begun = owners[i].ended = 0;
        n_owners++;
    }
    return i;
}

void rknpu_hook_inference_begin(const rknpu_job_owner *owner, unsigned core_mask)
{
    begins++;
    begin_masks |= core_mask;
    if (owner_slot(owner) < OWNERS)
        owners[owner_slot(owner)].begun++;
    open_job = *owner;
}

void rknpu_hook_inference_end(const rknpu_job_owner *owner, unsigned core_mask, int result)
{
    ends++;
    end_masks |= core_mask;
    last_result = result;
    if (owner_slot(owner) < OWNERS)
        owners[owner_slot(owner)].ended++;
    owner_mixups += owner->context != open_job.context || owner->user != open_job.user;
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

/* A small int8 matmul context with its memories bound (A and B zero). */
static rknn_matmul_ctx matmul_ready(rknn_tensor_mem **mem)
{
    rknn_matmul_info info = {0};
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx = 0;

    info.M = 4;
    info.K = 32;
    info.N = 32;
    info.type = RKNN_INT8_MM_INT8_TO_INT32;
    if (!CHECK(rknn_matmul_create(&ctx, &info, &io) == RKNN_SUCC))
        return 0;
    mem[0] = rknn_create_mem(ctx, io.A.size);
    mem[1] = rknn_create_mem(ctx, io.B.size);
    mem[2] = rknn_create_mem(ctx, io.C.size);
    CHECK(mem[0] && mem[1] && mem[2]);
    CHECK(rknn_matmul_set_io_mem(ctx, mem[0], &io.A) == RKNN_SUCC);
    CHECK(rknn_matmul_set_io_mem(ctx, mem[1], &io.B) == RKNN_SUCC);
    CHECK(rknn_matmul_set_io_mem(ctx, mem[2], &io.C) == RKNN_SUCC);
    return ctx;
}

static unsigned jobs_of(uint64_t context, void *user)
{
    for (unsigned i = 0; i < n_owners; i++)
        if (owners[i].context == context && owners[i].user == user)
            return owners[i].begun == owners[i].ended ? owners[i].begun : 1000u;
    return 0;
}

/* Two contexts, each tagged with its own user argument: the hooks tell
 * their jobs apart; the self-test's network runs as the library's own. */
static void test_hook_owners(void)
{
    static int tag_a, tag_b;
    rknn_tensor_mem *ma[3] = {0}, *mb[3] = {0};
    rknn_matmul_ctx a, b;
    rknpu_selftest_result r;

    fresh_npu(RKNPU_SOC_RK3588, RK3588_PC_VERSION);
    a = matmul_ready(ma);
    b = matmul_ready(mb);
    if (!CHECK(a && b && a != b))
        return;
    CHECK(rknpu_context_set_user(a, &tag_a) == RKNN_SUCC);
    CHECK(rknpu_context_set_user(b, &tag_b) == RKNN_SUCC);
    CHECK(rknpu_context_set_user(0, &tag_a) == RKNN_ERR_CTX_INVALID);
    n_owners = owner_mixups = 0;
    CHECK(rknn_matmul_run(a) == RKNN_SUCC);
    CHECK(rknn_matmul_run(b) == RKNN_SUCC);
    CHECK(rknn_matmul_run(a) == RKNN_SUCC);
    CHECK_EQ_U(jobs_of(a, &tag_a), 2); /* one job per run of this shape */
    CHECK_EQ_U(jobs_of(b, &tag_b), 1);
    CHECK_EQ_U(n_owners, 2);
    CHECK_EQ_U(owner_mixups, 0);
    /* untagged again: the context alone */
    CHECK(rknpu_context_set_user(b, NULL) == RKNN_SUCC);
    CHECK(rknn_matmul_run(b) == RKNN_SUCC);
    CHECK_EQ_U(jobs_of(b, NULL), 1);
    for (int i = 0; i < 3; i++) {
        rknn_destroy_mem(a, ma[i]);
        rknn_destroy_mem(b, mb[i]);
    }
    CHECK(rknn_matmul_destroy(a) == RKNN_SUCC && rknn_matmul_destroy(b) == RKNN_SUCC);
    CHECK(rknpu_context_set_user(a, &tag_a) == RKNN_ERR_CTX_INVALID); /* destroyed */
    /* the self-test's network jobs belong to no context */
    n_owners = 0;
    CHECK(rknpu_selftest(&r) == RKNN_SUCC);
    CHECK(jobs_of(0, NULL) >= 3u && jobs_of(0, NULL) < 1000u);
}

/* The fuzz status of hardware.md §3.3 over every 17-bit status: each pair
 * of ping-pong group bits (bits 0-11, two to a unit) becomes both bits
 * when either is set; bits 12-16 (the DMA errors and the rest) drop. */
static void test_fuzz_status(void)
{
    unsigned wrong = 0;

    for (uint32_t status = 0; status < 1u << 17; status++) {
        uint32_t want = 0;
        for (unsigned pair = 0; pair < 6; pair++)
            if (status >> (2 * pair) & 3u)
                want |= 3u << (2 * pair);
        wrong += npu_fuzz_status(status) != want;
    }
    CHECK_EQ_U(wrong, 0);
    CHECK(npu_fuzz_status(0x200u) == 0x300u); /* DPU group 1 done meets int_mask 0x300 */
}

/* npu_start refuses a job it cannot run, and a core another job still
 * holds (started, not waited for), before touching the NPU. */
static void test_start_refusals(void)
{
    npu_device *dev = rknpu_platform_npu();
    static const uint8_t record[NPU_TASK_RECORD_SIZE];
    npu_core_job job = {0, record, 0, 1, 0, 0};
    npu_pending p, holder;
    unsigned jobs = dev->stats.jobs;

    memset(&p, 0xA5, sizeof p);
    CHECK(npu_start(dev, NULL, 1, NULL, &p) == NPU_ERR_PARAM && p.active == 0);
    job.count = 0;
    CHECK(npu_start(dev, &job, 1, NULL, &p) == NPU_ERR_PARAM);
    job.count = 1;
    job.core = dev->soc->core_count; /* no such core */
    CHECK(npu_start(dev, &job, 1, NULL, &p) == NPU_ERR_PARAM);
    job.core = 0;
    memset(&holder, 0, sizeof holder);
    dev->owner[0] = &holder;
    CHECK(npu_start(dev, &job, 1, NULL, &p) == NPU_ERR_UNAVAILABLE);
    dev->owner[0] = NULL;
    CHECK_EQ_U(dev->stats.jobs, jobs); /* nothing ran */
}

/* A task body holds NPU_BUILDER_MAX_WORDS words: one more is not stored
 * and marks the task, which the stream writer then refuses. */
static void test_builder_overflow(void)
{
    static npu_task_words t;

    npu_task_begin(&t, npu_soc_get(RKNPU_SOC_RK3588), 0, 0);
    for (uint64_t w = 1; w <= NPU_BUILDER_MAX_WORDS; w++)
        npu_task_raw(&t, w);
    CHECK(t.n == NPU_BUILDER_MAX_WORDS && !t.overflow && t.words[NPU_BUILDER_MAX_WORDS - 1] == 256);
    npu_task_raw(&t, 999);
    CHECK(t.n == NPU_BUILDER_MAX_WORDS && t.overflow && t.words[NPU_BUILDER_MAX_WORDS - 1] == 256);
}

int main(void)
{
    test_fuzz_status();
    test_builder_overflow();
    if (!CHECK(board_init() == RKNN_SUCC))
        return test_report("npu_device");
    test_hooks_and_stats();
    test_version_check();
    test_hook_owners();
    test_start_refusals();
    return test_report("npu_device");
}
