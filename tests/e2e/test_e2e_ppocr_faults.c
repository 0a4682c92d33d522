/*
 * test_e2e_ppocr_faults - faults in the middle of a real network: PP-OCRv4
 * text detection (rk3588_ppocrv4_det.v6.rknn) through the rknn_* API on the
 * host's virtual NPU, with a hang or a DMA error injected at one task of
 * one core (vnpu_inject_fault_at_task).
 *
 * The model is loaded the way an application loads it (file read into a
 * malloc'd buffer, rknn_init, buffer freed), the input set once
 * (rknn_inputs_set, uint8 NHWC), and one clean run per core mask gives the
 * golden output (rknn_outputs_get, want_float). Then, for the first,
 * middle and last task of every core's task group, on one core (mask
 * RKNN_NPU_CORE_0: a single 383-task job) and on three (RKNN_NPU_CORE_0_1_2:
 * about a hundred small jobs per run), each fault must
 *   - make rknn_run return RKNN_ERR_TIMEOUT (hang) or RKNN_ERR_FAIL (DMA
 *     error), the driver's codes for those statuses;
 *   - log the driver's line for it and the board's line naming the task;
 *   - stop the core at exactly that task (its task counter advanced by N);
 * and the next rknn_run, inputs not set again, must succeed with an output
 * bit-identical to the golden one and every core back at its full group.
 *
 * Usage: test_e2e_ppocr_faults MODELS_DIR
 *   MODELS_DIR holds rk3588_ppocrv4_det.v6.rknn and
 *   ppocrv4_det/test1_nhwc_u8.npy; a missing file fails the test, naming it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "board_common.h"
#include "rknn_api.h"
#include "rknpu_bm.h"
#include "test_files.h"
#include "test_ppocr.h"
#include "test_util.h"
#include "vnpu.h"

#define MODEL_FILE "rk3588_ppocrv4_det.v6.rknn"
#define IMAGE_FILE "ppocrv4_det/test1_nhwc_u8.npy"

/* A hang costs one job timeout. The virtual NPU runs a job inside the kick,
 * and the driver polls once before it looks at the deadline, so a job that
 * completes is never cut short by a timeout this small. */
#define FAULT_JOB_TIMEOUT_US 50000u

/* Task records each core runs in one run of the model, by number of cores
 * (the model's task groups, `rknn-inspect --tasks MODEL`); the k-th core of
 * the mask runs group k. */
static const uint32_t group_tasks[N_CORES + 1][N_CORES] = {
    {0, 0, 0}, {383, 0, 0}, {394, 161, 0}, {382, 147, 147}};

static float golden[OUT_ELEMS], previous[OUT_ELEMS];
static int have_previous;

/* ---- the log, as the application's hook sees it ---------------------------- */

#define LOG_LINES    16
#define LOG_LINE_MAX 256

static char log_lines[LOG_LINES][LOG_LINE_MAX];
static unsigned n_log_lines;

void rknpu_hook_log(rknpu_log_level level, const char *msg)
{
    printf("    log %s: %s\n",
           level == RKNPU_LOG_ERROR  ? "E"
           : level == RKNPU_LOG_WARN ? "W"
                                     : "I",
           msg);
    if (level == RKNPU_LOG_ERROR && n_log_lines < LOG_LINES)
        snprintf(log_lines[n_log_lines++], LOG_LINE_MAX, "%s", msg);
}

/* The first error line since the last clear that contains `text`, or NULL. */
static const char *logged(const char *text)
{
    for (unsigned i = 0; i < n_log_lines; i++)
        if (strstr(log_lines[i], text))
            return log_lines[i];
    return NULL;
}

/* ---- files ------------------------------------------------------------------ */

/* ---- runs ------------------------------------------------------------------- */

static void core_tasks(uint64_t tasks[N_CORES])
{
    vnpu_stats st;

    for (unsigned c = 0; c < N_CORES; c++) {
        vnpu_get_stats(board_vnpu(), c, &st);
        tasks[c] = st.tasks;
    }
}

static unsigned cores_in(unsigned mask)
{
    unsigned n = 0;

    for (unsigned c = 0; c < N_CORES; c++)
        n += (mask >> c) & 1u;
    return n;
}

/* The task group physical core `core` runs under `mask` (0 if none). */
static uint32_t group_of(unsigned mask, unsigned core)
{
    unsigned k = 0;

    for (unsigned c = 0; c < core; c++)
        k += (mask >> c) & 1u;
    return ((mask >> core) & 1u) ? group_tasks[cores_in(mask)][k] : 0;
}

/* One clean run; its output (float32 NCHW) into out. The run must give every
 * core of the mask exactly its task group. Returns 0 or -1. */
static int clean_run(rknn_context ctx, unsigned mask, float *out_f32, const char *what)
{
    uint64_t before[N_CORES], after[N_CORES];
    rknn_output out;
    int ret, ok = 1;

    core_tasks(before);
    if (!CHECK((ret = rknn_run(ctx, NULL)) == RKNN_SUCC)) {
        printf("FAIL: %s: rknn_run returned %d\n", what, ret);
        return -1;
    }
    core_tasks(after);
    for (unsigned c = 0; c < N_CORES; c++)
        ok &= after[c] - before[c] == group_of(mask, c);
    if (!CHECK(ok))
        printf("FAIL: %s: tasks per core %llu %llu %llu, want %u %u %u\n", what,
               (unsigned long long)(after[0] - before[0]),
               (unsigned long long)(after[1] - before[1]),
               (unsigned long long)(after[2] - before[2]), group_of(mask, 0), group_of(mask, 1),
               group_of(mask, 2));
    memset(&out, 0, sizeof out);
    out.index = 0;
    out.want_float = 1;
    if (!CHECK((ret = rknn_outputs_get(ctx, 1, &out, NULL)) == RKNN_SUCC)) {
        printf("FAIL: %s: rknn_outputs_get returned %d\n", what, ret);
        return -1;
    }
    if (CHECK(out.buf != NULL && out.size == OUT_ELEMS * sizeof(float)))
        memcpy(out_f32, out.buf, OUT_ELEMS * sizeof(float));
    else
        ok = 0;
    CHECK(rknn_outputs_release(ctx, 1, &out) == RKNN_SUCC);
    return ok ? 0 : -1;
}

typedef struct {
    vnpu_fault fault;
    int expect; /* what rknn_run returns */
    const char *name;
    const char *driver_line; /* the driver's error line, with %u for the core */
} fault_kind;

static const fault_kind kinds[] = {
    {VNPU_FAULT_NEVER_COMPLETE, RKNN_ERR_TIMEOUT, "hang", "npu: core %u: no completion within"},
    {VNPU_FAULT_DMA_ERROR, RKNN_ERR_FAIL, "DMA error", "npu: core %u raised a DMA "},
};

/* Arm `kind` at task `task` of `core`, run, check the failure, then a clean
 * run against the golden output. */
static void fault_case(rknn_context ctx, unsigned mask, unsigned core, uint32_t task,
                       const fault_kind *kind)
{
    static float out_f32[OUT_ELEMS];
    uint64_t before[N_CORES], after[N_CORES], t0 = rknpu_hook_time_us();
    char text[96], what[96];
    const char *board_line, *driver_line;
    unsigned long job_task = 0, driver_tasks = 0;
    const char *p;
    int ret;

    snprintf(what, sizeof what, "mask 0x%x core %u task %lu %s", mask, core, (unsigned long)task,
             kind->name);
    printf("  %s:\n", what);
    n_log_lines = 0;
    core_tasks(before);
    if (!CHECK(vnpu_inject_fault_at_task(board_vnpu(), core, kind->fault, task) == 0))
        return;
    ret = rknn_run(ctx, NULL);
    core_tasks(after);
    if (!CHECK(ret == kind->expect))
        printf("FAIL: %s: rknn_run returned %d, want %d\n", what, ret, kind->expect);

    /* the core stopped at the task: exactly `task` tasks ran on it */
    if (!CHECK_EQ_U(after[core] - before[core], task))
        printf("FAIL: %s: core %u ran %llu task(s) before it stopped\n", what, core,
               (unsigned long long)(after[core] - before[core]));

    snprintf(text, sizeof text, kind->driver_line, core);
    driver_line = logged(text);
    if (!CHECK(driver_line != NULL))
        printf("FAIL: %s: no log line '%s...'\n", what, text);
    snprintf(text, sizeof text, "board: virtual NPU core %u: injected fault at task %lu (task ",
             core, (unsigned long)task);
    board_line = logged(text);
    if (!CHECK(board_line != NULL))
        printf("FAIL: %s: no log line '%s...'\n", what, text);
    else
        job_task = strtoul(board_line + strlen(text), NULL, 10);
    /* the driver's count of the job's tasks (TASK_STATUS) agrees with the model */
    if (driver_line && board_line && kind->fault == VNPU_FAULT_DMA_ERROR &&
        CHECK((p = strstr(driver_line, " after ")) != NULL)) {
        driver_tasks = strtoul(p + 7, NULL, 10);
        CHECK_EQ_U(driver_tasks, job_task);
    }
    printf("    -> rknn_run %d, stopped after %llu task(s) of the core (%lu of the job), %.2f s\n",
           ret, (unsigned long long)(after[core] - before[core]), job_task,
           (double)(rknpu_hook_time_us() - t0) / 1e6);

    t0 = rknpu_hook_time_us();
    n_log_lines = 0;
    if (clean_run(ctx, mask, out_f32, what) == 0 &&
        !CHECK(memcmp(out_f32, golden, sizeof golden) == 0))
        printf("FAIL: %s: the run after the fault differs from the golden output\n", what);
    CHECK(n_log_lines == 0);
    for (unsigned c = 0; c < N_CORES; c++)
        CHECK(vnpu_last_error(board_vnpu(), c)[0] == '\0');
    printf("    -> next run: output bit-identical to the golden one, %.2f s\n",
           (double)(rknpu_hook_time_us() - t0) / 1e6);
}

/* The golden output of `mask`, then every fault at the first, middle and
 * last task of each core's group. */
/* RKNPU_TEST_REDUCED (scripts/run-host-sanitize.sh): under ASan+UBSan the
 * virtual NPU is ~3x slower; the three-core run with a fault in the middle
 * of each core's group keeps every fault path under the sanitizers at a
 * fifth of the runs (the full set runs unsanitised). */
static int reduced;

static void test_mask(rknn_context ctx, unsigned mask)
{
    int ret;

    printf("core mask 0x%x (%u core(s)):\n", mask, cores_in(mask));
    if (!CHECK((ret = rknn_set_core_mask(ctx, (rknn_core_mask)mask)) == RKNN_SUCC)) {
        printf("FAIL: rknn_set_core_mask(0x%x) returned %d\n", mask, ret);
        return;
    }
    if (clean_run(ctx, mask, golden, "golden run") != 0)
        return;
    /* for the report only: the core split need not keep every float16 bit */
    if (have_previous)
        printf("  golden output %s the previous mask's\n",
               memcmp(golden, previous, sizeof golden) ? "differs from" : "is bit-identical to");
    memcpy(previous, golden, sizeof golden);
    have_previous = 1;
    for (unsigned core = 0; core < N_CORES; core++) {
        uint32_t n = group_of(mask, core);
        uint32_t tasks[3] = {n / 2, 0, n - 1};
        if (!n)
            continue;
        for (unsigned i = 0; i < (reduced ? 1u : 3u); i++)
            for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
                fault_case(ctx, mask, core, tasks[i], &kinds[k]);
    }
}

int main(int argc, char **argv)
{
    static uint8_t img[IN_BYTES];
    const char *dir = test_models_dir(argc, argv);
    char path[512];
    uint32_t timeout_us;
    rknpu_mem_stats st;
    rknn_context ctx = 0;
    rknn_input in;
    uint64_t t0 = rknpu_hook_time_us();
    int ret;

    reduced = getenv("RKNPU_TEST_REDUCED") != NULL;
    if (reduced)
        printf("RKNPU_TEST_REDUCED: three cores, the middle task of each group only\n");
    if ((ret = test_require_models(dir, MODEL_FILE)) != 0 ||
        load_image(test_path(path, sizeof path, dir, IMAGE_FILE), img) != 0)
        return TEST_MISSING_INPUT;
    if (!CHECK((ret = board_init()) == RKNN_SUCC) || !CHECK(board_vnpu() != NULL)) {
        printf("FAIL: board_init returned %d or there is no virtual NPU\n", ret);
        return test_report("e2e_ppocr_faults");
    }
    timeout_us = rknpu_platform_get()->job_timeout_us;
    CHECK(rknpu_set_job_timeout(FAULT_JOB_TIMEOUT_US) == RKNN_SUCC);
    if (!CHECK(init_model(test_path(path, sizeof path, dir, MODEL_FILE), &ctx) == 0))
        return test_report("e2e_ppocr_faults");

    memset(&in, 0, sizeof in);
    in.index = 0;
    in.buf = img;
    in.size = IN_BYTES;
    in.type = RKNN_TENSOR_UINT8;
    in.fmt = RKNN_TENSOR_NHWC;
    if (CHECK((ret = rknn_inputs_set(ctx, 1, &in)) == RKNN_SUCC)) {
        if (!reduced)
            test_mask(ctx, RKNN_NPU_CORE_0);
        test_mask(ctx, RKNN_NPU_CORE_0_1_2);
    } else {
        printf("FAIL: rknn_inputs_set returned %d\n", ret);
    }

    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
    CHECK(rknpu_set_job_timeout(timeout_us) == RKNN_SUCC);
    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    CHECK_EQ_U(st.allocations, 0); /* everything returned */
    printf("total %.1f s\n", (double)(rknpu_hook_time_us() - t0) / 1e6);
    return test_report("e2e_ppocr_faults");
}
