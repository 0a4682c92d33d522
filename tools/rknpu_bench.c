/*
 * rknpu-bench - the speed and size figures of rknpu-bm, each against its goal.
 *
 *   rknpu-bench --models DIR [--reps N] [--footprint SCRIPT] [--no-callgrind]
 *               [--vnpu-seconds S] [--ppocr-ref SCRIPT] [--vendor SCRIPT]
 *   rknpu-bench --vendor SCRIPT
 *
 * Prints a human-readable table (figure, value, goal, PASS/MISS, how it was
 * measured) and, for machines, one line per figure:
 *   BENCH <name> <value> <unit>
 *
 * These machines are noisy, so every ratio is taken in the same run as its
 * baseline: each repetition times the operation and then a memcpy of the
 * same number of bytes between two warm buffers, and the ratio uses the best
 * time of each over all repetitions.
 *
 *   init_vs_memcpy            rknn_init of each v6 sample on its SoC / memcpy
 *                             of the model's weight + regcmd bytes (the worst
 *                             model is the figure)
 *   run_overhead_instructions rknn_run's CPU instructions per task group
 *                             without the NPU: callgrind collects only inside
 *                             rknn_run and not inside hal_mmio_read32/write32
 *                             (the register access, i.e. the virtual NPU);
 *                             two run counts, the difference per run
 *   vnpu_int8_macs_per_s      the virtual NPU on a 3x3 conv 64x56x56 -> 64
 *                             submitted through the driver (as bench_vnpu)
 *   footprint_*               from SCRIPT (scripts/footprint.sh) when given
 *   vnpu_ppocr_det_s          PP-OCRv4 det (test1) on the host virtual NPU,
 *                             core mask 1: seconds per inference (best run)
 *   onnxruntime_ppocr_det_s   its float ONNX source on onnxruntime, one CPU
 *                             thread, same input, same run (--ppocr-ref
 *                             SCRIPT: tests/tools/ppocr_ref.js, run by node)
 *   vnpu_vs_onnxruntime_ppocr_det  their ratio
 *   vnpu_matmul_{int8,fp16}_macs_per_s  rknn_matmul_run of 256x1024x512
 *                             (native layouts) on the host virtual NPU
 *   cpu_triple_loop_int8_macs_per_s  a plain C triple loop of the same
 *                             int8 product, same run (the baseline)
 *
 * --vendor SCRIPT (scripts/bench-vendor.sh): Rockchip's runtime side by
 * side, both as armhf programs under qemu-arm (the script says how); its
 * table and its lines, one per figure and shared model:
 *   BENCH vendor_ratio_<call>_<model> R   our CPU time / the vendor's
 * then how many exceed 1.0 (the goal: none) and the worst. Alone (without
 * --models) it runs only that comparison.
 *
 * Internal modes for callgrind: --run-loop N runs rknn_run N times,
 * --matmul-loop N rknn_matmul_run.
 *   matmul_cpu_instr_per_task rknn_matmul_run's CPU instructions per task
 *                             outside the virtual NPU (callgrind, as above)
 *
 * A host tool: it uses the heap, stdio and processes; the runtime does not.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "board_common.h"
#include "hal.h"
#include "npu_builder.h"
#include "npu_driver.h"
#include "npu_soc.h"
#include "rknn_api.h"
#include "rknn_matmul_api.h"
#include "rknpu_bm.h"
#include "rknpu_platform_internal.h"
#include "tool_files.h"
#include "vnpu.h"

#include "rknpu_bench.h"

#define CARVEOUT_BYTES       (32u << 20)
#define CARVEOUT_NPU_ADDRESS 0x10000000u
#define MID_MODEL            "rk3588_multiple_input_demo.v6.rknn"
#define MAX_MODEL_BYTES      (16u << 20)

static uint8_t carveout[CARVEOUT_BYTES] __attribute__((aligned(4096)));
volatile uint8_t sink; /* keeps every timed copy observable */

/* ---- figures ---------------------------------------------------------------- */

static figure figures[FIG_COUNT] = {
    /* PP-OCRv4 det, the real network (rknpu_bench_ppocr.c) */
    [FIG_PPOCR_INIT] = {"init_vs_memcpy_ppocr_det", "ratio", GOAL_AT_MOST, 3, 0, 0, ""},
    [FIG_PPOCR_INIT_ZC] = {"init_zero_copy_vs_memcpy_ppocr_det", "ratio", GOAL_AT_MOST, 1.5, 0, 0,
                           ""},
    [FIG_PPOCR_CARVEOUT] = {"carveout_vs_minimum_ppocr_det", "ratio", GOAL_AT_MOST, 1.05, 0, 0, ""},
    [FIG_INPUTS] = {"inputs_set_vs_native_memcpy_ppocr_det", "ratio", GOAL_AT_LEAST, 0.5, 0, 0, ""},
    [FIG_OUTPUTS] = {"outputs_get_vs_native_memcpy_ppocr_det", "ratio", GOAL_AT_LEAST, 0.5, 0, 0,
                     ""},
    [FIG_PPOCR_CPU] = {"run_cpu_instr_per_task_group_ppocr_det", "instructions", GOAL_AT_MOST, 1000,
                       0, 0, ""},
    [FIG_PPOCR_CPU_TOTAL] = {"run_cpu_instr_per_inference_ppocr_det", "instructions", GOAL_REPORT,
                             0, 0, 0, ""},
    [FIG_PPOCR] = {"vnpu_ppocr_det_s", "s", GOAL_AT_MOST, 3, 0, 0, ""},
    [FIG_PPOCR_ORT] = {"onnxruntime_ppocr_det_s", "s", GOAL_REPORT, 0, 0, 0, ""},
    [FIG_PPOCR_RATIO] = {"vnpu_vs_onnxruntime_ppocr_det", "ratio", GOAL_AT_MOST, 10, 0, 0, ""},
    /* footprint */
    [FIG_TEXT] = {"footprint_aarch64_text_bytes", "bytes", GOAL_AT_MOST, 65536, 0, 0, ""},
    [FIG_TEXT_NO_V4] = {"footprint_aarch64_text_bytes_without_container_v4", "bytes", GOAL_AT_MOST,
                        65536, 0, 0, ""},
    [FIG_RAM] = {"footprint_aarch64_static_ram_bytes", "bytes", GOAL_AT_MOST, 8192, 0, 0, ""},
    /* the toy models, for comparison with earlier releases */
    [FIG_INIT] = {"init_vs_memcpy", "ratio", GOAL_REPORT, 0, 0, 0, ""},
    [FIG_TOY_INIT_US] = {"toy_init_us", "us", GOAL_REPORT, 0, 0, 0, ""},
    [FIG_TOY_RUN_US] = {"toy_run_us", "us", GOAL_REPORT, 0, 0, 0, ""},
    [FIG_RUN] = {"run_overhead_instructions", "instructions", GOAL_REPORT, 0, 0, 0, ""},
    /* the virtual NPU and matmul */
    [FIG_VNPU] = {"vnpu_int8_macs_per_s", "macs/s", GOAL_AT_LEAST, 2e8, 0, 0, ""},
    [FIG_MM_INT8] = {"vnpu_matmul_int8_macs_per_s", "macs/s", GOAL_REPORT, 0, 0, 0, ""},
    [FIG_MM_FP16] = {"vnpu_matmul_fp16_macs_per_s", "macs/s", GOAL_REPORT, 0, 0, 0, ""},
    [FIG_MM_CPU] = {"cpu_triple_loop_int8_macs_per_s", "macs/s", GOAL_REPORT, 0, 0, 0, ""},
    [FIG_MM_OVERHEAD] = {"matmul_cpu_instr_per_task", "instructions", GOAL_REPORT, 0, 0, 0, ""},
};

void set_figure(int id, double value, const char *how)
{
    figures[id].measured = 1;
    figures[id].value = value;
    snprintf(figures[id].how, sizeof figures[id].how, "%s", how);
}

static const char *verdict(const figure *f)
{
    if (!f->measured)
        return "n/a";
    if (f->kind == GOAL_REPORT)
        return "-";
    if (f->kind == GOAL_AT_MOST)
        return f->value <= f->goal ? "PASS" : "MISS";
    return f->value >= f->goal ? "PASS" : "MISS";
}

static void print_figures(void)
{
    printf("\n%-36s %14s  %-12s %-6s %s\n", "figure", "value", "goal", "status", "measured as");
    for (int i = 0; i < FIG_COUNT; i++) {
        const figure *f = &figures[i];
        char value[32] = "-", goal[32] = "report";
        if (f->measured)
            snprintf(value, sizeof value, "%.4g", f->value);
        if (f->kind != GOAL_REPORT)
            snprintf(goal, sizeof goal, "%s %.4g", f->kind == GOAL_AT_MOST ? "<=" : ">=", f->goal);
        printf("%-36s %14s  %-12s %-6s %s\n", f->name, value, goal, verdict(f),
               f->measured ? f->how : "not measured");
    }
    printf("\n");
    for (int i = 0; i < FIG_COUNT; i++)
        if (figures[i].measured)
            printf("BENCH %s %.6g %s\n", figures[i].name, figures[i].value, figures[i].unit);
}

/* ---- time and the memcpy baseline --------------------------------------------- */

uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void *xalloc(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);

    if (!p) {
        fprintf(stderr, "rknpu-bench: out of memory\n");
        exit(1);
    }
    memset(p, 0x5A, bytes);
    return p;
}

void baseline_init(copy_baseline *b, size_t bytes)
{
    b->bytes = bytes;
    b->src = xalloc(bytes);
    b->dst = xalloc(bytes);
    b->best_ns = UINT64_MAX;
}

/* One timed copy; keeps the best. */
void baseline_once(copy_baseline *b)
{
    uint64_t t0 = now_ns(), t;

    memcpy(b->dst, b->src, b->bytes);
    t = now_ns() - t0;
    sink ^= b->dst[b->bytes - 1];
    if (t < b->best_ns)
        b->best_ns = t ? t : 1;
}

void baseline_free(copy_baseline *b)
{
    free(b->src);
    free(b->dst);
}

void keep_best(uint64_t *best, uint64_t t0)
{
    uint64_t t = now_ns() - t0;

    if (t < *best)
        *best = t ? t : 1;
}

/* ---- platform and models --------------------------------------------------------- */

int use_soc(rknpu_soc_id soc)
{
    rknpu_platform_config cfg;
    int ret;

    memset(&cfg, 0, sizeof cfg);
    cfg.soc = soc;
    cfg.carveout = carveout;
    cfg.carveout_size = sizeof carveout;
    cfg.carveout_phys = CARVEOUT_NPU_ADDRESS;
    ret = rknpu_platform_init(&cfg);
    if (ret == RKNN_SUCC)
        ret = board_vnpu_attach(rknpu_platform_get(), npu_soc_get(soc));
    if (ret != RKNN_SUCC)
        fprintf(stderr, "rknpu-bench: platform for %s failed: %d\n", rknpu_soc_name(soc), ret);
    return ret;
}

int read_file(const char *dir, const char *name, file_buf *f)
{
    char path[4096];

    snprintf(path, sizeof path, "%s/%s", dir, name);
    f->size = 0;
    f->data = tool_read_file(path, MAX_MODEL_BYTES, &f->size);
    if (f->data && f->size == 0) { /* an empty file is no model and no input */
        free(f->data);
        f->data = NULL;
    }
    return f->data ? 0 : -1;
}

int bench_load_file(const char *dir, const char *name, file_buf *f)
{
    if (read_file(dir, name, f) != 0) {
        fprintf(stderr, "rknpu-bench: cannot read %s/%s: %s\n", dir, name, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- init_vs_memcpy -------------------------------------------------------------- */

static const struct {
    const char *file;
    rknpu_soc_id soc;
} v6_samples[] = {
    {"rk3588_multiple_input_demo.v6.rknn", RKNPU_SOC_RK3588},
    {"rk3566_multiple_input_demo.v6.rknn", RKNPU_SOC_RK3566},
    {"rk3588_dual_residual_custom.v6.rknn", RKNPU_SOC_RK3588},
    {"rk3566_dual_residual_custom.v6.rknn", RKNPU_SOC_RK3566},
};

/* Best rknn_init time and best memcpy time of the weight+regcmd bytes. */
static int bench_init_one(const char *dir, unsigned i, unsigned reps, double *ratio)
{
    rknpu_model_mem need;
    copy_baseline copy;
    file_buf model;
    uint64_t best = UINT64_MAX;
    int ret = -1;

    if (bench_load_file(dir, v6_samples[i].file, &model) != 0)
        return -1;
    if (use_soc(v6_samples[i].soc) != RKNN_SUCC ||
        rknpu_model_mem_requirements(model.data, model.size, &need) != RKNN_SUCC) {
        free(model.data);
        return -1;
    }
    baseline_init(&copy, (size_t)need.weight_bytes + need.regcmd_bytes);
    for (unsigned r = 0; r < reps; r++) {
        rknn_context ctx = 0;
        uint64_t t0 = now_ns();
        ret = rknn_init(&ctx, model.data, (uint32_t)model.size, 0, NULL);
        keep_best(&best, t0);
        if (ret != RKNN_SUCC) {
            fprintf(stderr, "rknpu-bench: rknn_init(%s) failed: %d\n", v6_samples[i].file, ret);
            break;
        }
        rknn_destroy(ctx);
        baseline_once(&copy);
    }
    if (ret == RKNN_SUCC) {
        *ratio = (double)best / (double)copy.best_ns;
        printf("  %-38s rknn_init %8.2f us, memcpy of %6lu weight+regcmd bytes %6.2f us -> %.2f\n",
               v6_samples[i].file, best / 1e3, (unsigned long)copy.bytes, copy.best_ns / 1e3,
               *ratio);
    }
    baseline_free(&copy);
    free(model.data);
    return ret == RKNN_SUCC ? 0 : -1;
}

static void bench_init(const char *dir, unsigned reps)
{
    double worst = 0;
    char how[200];
    const char *worst_name = "";

    printf("rknn_init (best of %u) against memcpy of the model's weight + regcmd bytes:\n", reps);
    for (unsigned i = 0; i < sizeof v6_samples / sizeof v6_samples[0]; i++) {
        double r;
        if (bench_init_one(dir, i, reps, &r) != 0)
            return;
        if (r > worst) {
            worst = r;
            worst_name = v6_samples[i].file;
        }
    }
    snprintf(how, sizeof how, "worst of the 4 v6 samples (%s), best of %u", worst_name, reps);
    set_figure(FIG_INIT, worst, how);
}

/* ---- the multiple_input_demo context (inputs, outputs, run) ----------------------- */

typedef struct {
    file_buf model;
    rknn_context ctx;
    rknn_input in[2];
    uint8_t *image[2];
    size_t image_bytes[2];
} mid_bench;

/* The demo's inputs when present (pseudo-random bytes otherwise: the
 * conversion's speed does not depend on the values). */
static void mid_images(const char *dir, mid_bench *m, const rknn_tensor_attr *a)
{
    static const char *const names[2] = {"multiple_input_demo/input1.bin",
                                         "multiple_input_demo/input2.bin"};
    uint32_t seed = 12345;

    for (int i = 0; i < 2; i++) {
        file_buf f;
        m->image_bytes[i] = a[i].n_elems;
        if (read_file(dir, names[i], &f) == 0 && f.size == a[i].n_elems) {
            m->image[i] = f.data;
            continue;
        }
        if (f.data)
            free(f.data);
        m->image[i] = xalloc(m->image_bytes[i]);
        for (size_t k = 0; k < m->image_bytes[i]; k++)
            m->image[i][k] = (uint8_t)((seed = seed * 1103515245u + 12345u) >> 16);
    }
}

static int mid_open(const char *dir, mid_bench *m, uint32_t flags)
{
    rknn_tensor_attr a[2];

    memset(m, 0, sizeof *m);
    if (bench_load_file(dir, MID_MODEL, &m->model) != 0 || use_soc(RKNPU_SOC_RK3588) != RKNN_SUCC)
        return -1;
    if (rknn_init(&m->ctx, m->model.data, (uint32_t)m->model.size, flags, NULL) != RKNN_SUCC) {
        fprintf(stderr, "rknpu-bench: rknn_init(%s) failed\n", MID_MODEL);
        return -1;
    }
    for (uint32_t i = 0; i < 2; i++) {
        memset(&a[i], 0, sizeof a[i]);
        a[i].index = i;
        if (rknn_query(m->ctx, RKNN_QUERY_INPUT_ATTR, &a[i], sizeof a[i]) != RKNN_SUCC)
            return -1;
    }
    mid_images(dir, m, a);
    for (uint32_t i = 0; i < 2; i++) {
        m->in[i].index = i;
        m->in[i].buf = m->image[i];
        m->in[i].size = (uint32_t)m->image_bytes[i];
        m->in[i].type = RKNN_TENSOR_UINT8;
        m->in[i].fmt = RKNN_TENSOR_NHWC;
    }
    return rknn_inputs_set(m->ctx, 2, m->in) == RKNN_SUCC && rknn_run(m->ctx, NULL) == RKNN_SUCC
               ? 0
               : -1;
}

static void mid_close(mid_bench *m)
{
    if (m->ctx)
        rknn_destroy(m->ctx);
    for (int i = 0; i < 2; i++)
        free(m->image[i]);
    free(m->model.data);
}

void report_bandwidth(int fig, const char *what, const char *model, const char *bytes_of,
                      const copy_baseline *copy, uint64_t best, unsigned reps)
{
    double ratio = (double)copy->best_ns / (double)best;
    char how[200];

    printf("%s (%lu bytes): %.2f us = %.2f GB/s; memcpy %.2f us = %.2f GB/s -> %.3f\n", what,
           (unsigned long)copy->bytes, best / 1e3, copy->bytes / (double)best, copy->best_ns / 1e3,
           copy->bytes / (double)copy->best_ns, ratio);
    snprintf(how, sizeof how, "%s %s, %lu bytes, best of %u", model, bytes_of,
             (unsigned long)copy->bytes, reps);
    set_figure(fig, ratio, how);
}

/* The toy model's absolute times, for comparison with earlier releases. */
static void bench_toy_times(mid_bench *m, unsigned reps)
{
    uint64_t init = UINT64_MAX, run = UINT64_MAX;
    char how[200];

    reps = reps < 50 ? reps : 50; /* a run is milliseconds on the virtual NPU */
    for (unsigned r = 0; r < reps; r++) {
        rknn_context ctx = 0;
        uint64_t t0 = now_ns();
        if (rknn_init(&ctx, m->model.data, (uint32_t)m->model.size, 0, NULL) != RKNN_SUCC)
            return;
        keep_best(&init, t0);
        rknn_destroy(ctx);
        t0 = now_ns();
        if (rknn_run(m->ctx, NULL) != RKNN_SUCC)
            return;
        keep_best(&run, t0);
    }
    printf("%s: rknn_init %.2f us, rknn_run %.2f us (best of %u)\n", MID_MODEL, init / 1e3,
           run / 1e3, reps);
    snprintf(how, sizeof how, "rknn_init of %s, best of %u", MID_MODEL, reps);
    set_figure(FIG_TOY_INIT_US, init / 1e3, how);
    snprintf(how, sizeof how, "rknn_run of %s on the host virtual NPU, best of %u", MID_MODEL,
             reps);
    set_figure(FIG_TOY_RUN_US, run / 1e3, how);
}

/* ---- run_overhead_instructions (callgrind) ------------------------------------------ */

/* The loop callgrind watches: N runs of an already prepared context. */
static int run_loop(const char *dir, unsigned long n)
{
    mid_bench m;
    int ret = 0;

    if (mid_open(dir, &m, 0) != 0)
        ret = 1;
    for (unsigned long i = 0; i < n && ret == 0; i++)
        ret = rknn_run(m.ctx, NULL) != RKNN_SUCC;
    mid_close(&m);
    return ret;
}

/* Instructions callgrind counted (its "totals:" line), or -1. */
double callgrind_count(const char *self, const char *dir, unsigned long runs, const char *toggle,
                       const char *loop_flag)
{
    char out_arg[128], runs_arg[32], line[256];
    const char *out_file;
    double total = -1;
    pid_t pid;
    int status;
    FILE *f;

    snprintf(out_arg, sizeof out_arg, "--callgrind-out-file=/tmp/rknpu-bench.%ld.%lu.callgrind",
             (long)getpid(), runs);
    out_file = out_arg + strlen("--callgrind-out-file=");
    snprintf(runs_arg, sizeof runs_arg, "%lu", runs);
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        char *argv[] = {"valgrind",
                        "--tool=callgrind",
                        "--quiet",
                        out_arg,
                        "--collect-atstart=no",
                        (char *)toggle,
                        "--toggle-collect=hal_mmio_read32",
                        "--toggle-collect=hal_mmio_write32",
                        (char *)self,
                        "--models",
                        (char *)dir,
                        (char *)loop_flag,
                        runs_arg,
                        NULL};
        execvp("valgrind", argv);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return -1;
    f = fopen(out_file, "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "totals:", 7) == 0 || (total < 0 && strncmp(line, "summary:", 8) == 0))
            total = strtod(line + (line[0] == 't' ? 7 : 8), NULL);
    if (f)
        fclose(f);
    remove(out_file);
    return total;
}

/* Register accesses and task groups of one run, measured natively. */
static int run_shape(const char *dir, unsigned *accesses, unsigned *groups)
{
    mid_bench m;
    rknn_perf_detail detail;
    uint32_t before;
    int ret = -1;

    /* The groups are counted in the perf text ("core N: task group of ..."). */
    if (mid_open(dir, &m, RKNN_FLAG_COLLECT_PERF_MASK) == 0) {
        before = hal_mmio_trap_count;
        if (rknn_run(m.ctx, NULL) == RKNN_SUCC &&
            rknn_query(m.ctx, RKNN_QUERY_PERF_DETAIL, &detail, sizeof detail) == RKNN_SUCC) {
            *accesses = hal_mmio_trap_count - before;
            *groups = 0;
            for (const char *p = detail.perf_data; (p = strstr(p, "task group")) != NULL; p++)
                (*groups)++;
            ret = *groups ? 0 : -1;
        }
    }
    mid_close(&m);
    return ret;
}

static void bench_run_overhead(const char *self, const char *dir)
{
    const unsigned long few = 2, many = 12;
    unsigned accesses = 0, groups = 0;
    double a, b, per_group;
    char how[200];

    if (run_shape(dir, &accesses, &groups) != 0) {
        fprintf(stderr, "rknpu-bench: could not run %s for the overhead figure\n", MID_MODEL);
        return;
    }
    printf("rknn_run overhead: callgrind, %lu and %lu runs ...\n", few, many);
    a = callgrind_count(self, dir, few, "--toggle-collect=rknn_run", "--run-loop");
    b = callgrind_count(self, dir, many, "--toggle-collect=rknn_run", "--run-loop");
    if (a < 0 || b < 0 || b < a) {
        printf("  valgrind --tool=callgrind did not run: figure not measured\n");
        return;
    }
    /* Each register access is one load/store on silicon: count it as one. */
    per_group = ((b - a) / (double)(many - few) + accesses) / groups;
    printf("  %.0f instructions per run outside the virtual NPU (+%u register accesses), "
           "%u task group(s) per run -> %.0f per task group\n",
           (b - a) / (double)(many - few), accesses, groups, per_group);
    snprintf(how, sizeof how,
             "callgrind inside rknn_run minus hal_mmio_*, (%lu-%lu runs) of %s, "
             "%u group(s)/run, +1 per register access",
             many, few, MID_MODEL, groups);
    set_figure(FIG_RUN, per_group, how);
}

/* ---- vnpu_int8_macs_per_s ---------------------------------------------------------- */

#define CONV_C  64u
#define CONV_HW 56u
#define CONV_K  64u

typedef struct {
    uint8_t *in, *w, *bs, *out, *stream;
    size_t stream_bytes;
} conv_buffers;

static uint32_t dma_of(const void *p)
{
    return (uint32_t)rknpu_hook_virt_to_phys(p);
}

static void *carve(size_t bytes)
{
    void *p = NULL;

    return mem_carveout_alloc(rknpu_platform_carveout(), bytes, 64, &p) == MEM_OK ? p : NULL;
}

/* The same workload as tests/vnpu/bench_vnpu.c, built by the library's
 * own register-command builder and submitted through the driver. */
static int conv_build(const npu_soc_profile *soc, conv_buffers *b, npu_task_words *task,
                      uint8_t *records)
{
    npu_conv_desc c;
    uint32_t seed = 1;

    b->in = carve(CONV_C * CONV_HW * CONV_HW);
    b->w = carve(CONV_K * CONV_C * 9);
    b->bs = carve(CONV_K * 8);
    b->out = carve((CONV_K / 16) * CONV_HW * CONV_HW * 16);
    b->stream_bytes = 4096;
    b->stream = carve(b->stream_bytes);
    if (!b->in || !b->w || !b->bs || !b->out || !b->stream)
        return -1;
    for (uint32_t i = 0; i < CONV_C * CONV_HW * CONV_HW; i++)
        b->in[i] = (uint8_t)((seed = seed * 1103515245u + 12345u) >> 3);
    for (uint32_t i = 0; i < CONV_K * CONV_C * 9; i++)
        b->w[i] = (uint8_t)((seed = seed * 1103515245u + 12345u) >> 9);
    for (uint32_t i = 0; i < CONV_K * 8; i++)
        b->bs[i] = (uint8_t)(i * 29u);
    npu_conv_defaults(&c);
    c.hin = c.win = c.hout = c.wout = CONV_HW;
    c.cin_real = c.cin = CONV_C;
    c.nker = c.kout = CONV_K;
    c.kh = c.kw = 3;
    c.pt = c.pl = 1;
    c.pad_value = 0xFFFFFF80u;
    c.in_addr = dma_of(b->in);
    c.w_addr = dma_of(b->w);
    c.bs_addr = dma_of(b->bs);
    c.out_surf = CONV_HW * CONV_HW * 16;
    c.out_addr = dma_of(b->out);
    c.bs_cfg = 0x20140;
    c.bs_mul_cfg = 0xE01;
    c.bs_neg_shift = 14;
    c.brdma_use = 7;
    c.bs_ow_cfg = 0x125;
    c.oc_scale = 20000;
    c.oc_shift = 30;
    npu_build_conv(task, soc, &c);
    return npu_chain_write(task, 1, b->stream, dma_of(b->stream), b->stream_bytes, records);
}

static void bench_vnpu(double seconds)
{
    static npu_task_words task;
    uint8_t records[NPU_TASK_RECORD_SIZE];
    conv_buffers b;
    vnpu_stats before, after;
    npu_job_result res;
    uint64_t t0, t1;
    unsigned runs = 0;
    char how[200];

    if (use_soc(RKNPU_SOC_RK3588) != RKNN_SUCC ||
        conv_build(npu_soc_get(RKNPU_SOC_RK3588), &b, &task, records) != 0) {
        fprintf(stderr, "rknpu-bench: could not build the conv workload\n");
        return;
    }
    vnpu_get_stats(board_vnpu(), 0, &before);
    t0 = now_ns();
    do {
        npu_core_job job = {0, records, 0, 1, dma_of(b.stream), 1};
        if (npu_run(rknpu_platform_npu(), &job, 1, NULL, &res) != RKNN_SUCC) {
            fprintf(stderr, "rknpu-bench: conv job failed: %s\n", vnpu_last_error(board_vnpu(), 0));
            return;
        }
        runs++;
        t1 = now_ns();
    } while ((t1 - t0 < (uint64_t)(seconds * 1e9) || runs < 3) && runs < 1000);
    vnpu_get_stats(board_vnpu(), 0, &after);
    printf("virtual NPU: %u conv jobs of %llu MACs in %.3f s\n", runs,
           (unsigned long long)((after.macs - before.macs) / runs), (t1 - t0) / 1e9);
    snprintf(how, sizeof how, "3x3 conv 64x56x56->64 int8 on one RK3588 core, %u jobs via npu_run",
             runs);
    set_figure(FIG_VNPU, (double)(after.macs - before.macs) * 1e9 / (double)(t1 - t0), how);
}

/* ---- matmul ---------------------------------------------------------------------- */

#define MM_M 256
#define MM_K 1024
#define MM_N 512

/* Seconds per rknn_matmul_run of MM_M x MM_K x MM_N (best of 3), or -1. */
static double matmul_seconds(rknn_matmul_type type)
{
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx;
    rknn_tensor_mem *m[3];
    double best = -1;

    memset(&info, 0, sizeof info);
    info.M = MM_M;
    info.K = MM_K;
    info.N = MM_N;
    info.type = type;
    info.AC_layout = info.B_layout = 1; /* native: the NPU's own rate, no CPU re-layout */
    if (use_soc(RKNPU_SOC_RK3588) != RKNN_SUCC || rknn_matmul_create(&ctx, &info, &io) != RKNN_SUCC)
        return -1;
    m[0] = rknn_create_mem(ctx, io.A.size);
    m[1] = rknn_create_mem(ctx, io.B.size);
    m[2] = rknn_create_mem(ctx, io.C.size);
    if (m[0] && m[1] && m[2]) {
        for (int i = 0; i < 2; i++)
            memset(m[i]->virt_addr, 0x11, i ? io.B.size : io.A.size);
        if (rknn_matmul_set_io_mem(ctx, m[0], &io.A) == RKNN_SUCC &&
            rknn_matmul_set_io_mem(ctx, m[1], &io.B) == RKNN_SUCC &&
            rknn_matmul_set_io_mem(ctx, m[2], &io.C) == RKNN_SUCC)
            for (int r = 0; r < 3; r++) {
                uint64_t t0 = now_ns();
                if (rknn_matmul_run(ctx) != RKNN_SUCC)
                    break;
                double sec = (double)(now_ns() - t0) / 1e9;
                best = best < 0 || sec < best ? sec : best;
            }
    }
    for (int i = 0; i < 3; i++)
        if (m[i])
            rknn_destroy_mem(ctx, m[i]);
    rknn_matmul_destroy(ctx);
    return best;
}

/* The same int8 product as a plain C triple loop (int32 sums), seconds. */
static double matmul_cpu_seconds(void)
{
    int8_t *a = xalloc((size_t)MM_M * MM_K), *b = xalloc((size_t)MM_K * MM_N);
    int32_t *c = xalloc(sizeof *c * (size_t)MM_M * MM_N);
    uint64_t t0;
    double sec;

    for (size_t i = 0; i < (size_t)MM_M * MM_K; i++)
        a[i] = (int8_t)(i * 7u);
    for (size_t i = 0; i < (size_t)MM_K * MM_N; i++)
        b[i] = (int8_t)(i * 13u);
    t0 = now_ns();
    for (int i = 0; i < MM_M; i++)
        for (int j = 0; j < MM_N; j++) {
            int32_t sum = 0;
            for (int k = 0; k < MM_K; k++)
                sum += a[i * MM_K + k] * b[k * MM_N + j];
            c[i * MM_N + j] = sum;
        }
    sec = (double)(now_ns() - t0) / 1e9;
    sink = (uint8_t)c[MM_M * MM_N - 1];
    free(a);
    free(b);
    free(c);
    return sec;
}

/* The loop callgrind watches for the matmul figure: n runs of one context;
 * *tasks (if given) gets the tasks the runs submitted. */
static int matmul_loop(unsigned long n, uint64_t *tasks)
{
    vnpu_stats before, after;
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx;
    rknn_tensor_mem *m[3];
    int ret = 1;

    memset(&info, 0, sizeof info);
    info.M = MM_M;
    info.K = MM_K;
    info.N = MM_N;
    info.type = RKNN_INT8_MM_INT8_TO_INT32;
    info.AC_layout = info.B_layout = 1;
    if (use_soc(RKNPU_SOC_RK3588) != RKNN_SUCC || rknn_matmul_create(&ctx, &info, &io) != RKNN_SUCC)
        return 1;
    m[0] = rknn_create_mem(ctx, io.A.size);
    m[1] = rknn_create_mem(ctx, io.B.size);
    m[2] = rknn_create_mem(ctx, io.C.size);
    if (m[0] && m[1] && m[2] && rknn_matmul_set_io_mem(ctx, m[0], &io.A) == RKNN_SUCC &&
        rknn_matmul_set_io_mem(ctx, m[1], &io.B) == RKNN_SUCC &&
        rknn_matmul_set_io_mem(ctx, m[2], &io.C) == RKNN_SUCC) {
        ret = 0;
        vnpu_get_stats(board_vnpu(), 0, &before);
        for (unsigned long i = 0; i < n && ret == 0; i++)
            ret = rknn_matmul_run(ctx) != RKNN_SUCC;
        vnpu_get_stats(board_vnpu(), 0, &after);
        if (tasks)
            *tasks = after.tasks - before.tasks;
    }
    for (int i = 0; i < 3; i++)
        if (m[i])
            rknn_destroy_mem(ctx, m[i]);
    rknn_matmul_destroy(ctx);
    return ret;
}

/* CPU instructions rknn_matmul_run spends per task outside the virtual NPU. */
static void bench_matmul_overhead(const char *self, const char *dir)
{
    const unsigned long few = 2, many = 6;
    uint64_t n_tasks = 0;
    uint32_t accesses;
    double a, b, tasks, per_task;
    char how[200];

    accesses = hal_mmio_trap_count; /* the create's accesses count too: an overestimate */
    if (matmul_loop(1, &n_tasks) != 0) {
        printf("matmul overhead: the matmul did not run: figure not measured\n");
        return;
    }
    accesses = hal_mmio_trap_count - accesses;
    tasks = (double)n_tasks;
    a = callgrind_count(self, dir, few, "--toggle-collect=rknn_matmul_run", "--matmul-loop");
    b = callgrind_count(self, dir, many, "--toggle-collect=rknn_matmul_run", "--matmul-loop");
    if (a < 0 || b < 0 || b < a || tasks <= 0) {
        printf("  valgrind --tool=callgrind did not run: matmul overhead not measured\n");
        return;
    }
    per_task = ((b - a) / (double)(many - few) + accesses) / tasks;
    printf("matmul overhead: %.0f instructions per rknn_matmul_run outside the virtual NPU "
           "(+%u register accesses), %.0f tasks -> %.0f per task\n",
           (b - a) / (double)(many - few), (unsigned)accesses, tasks, per_task);
    snprintf(how, sizeof how,
             "callgrind inside rknn_matmul_run minus hal_mmio_*, int8 %dx%dx%d native, "
             "%.0f tasks/run, +1 per register access",
             MM_M, MM_K, MM_N, tasks);
    set_figure(FIG_MM_OVERHEAD, per_task, how);
}

static void bench_matmul(void)
{
    double macs = (double)MM_M * MM_K * MM_N, i8, f16, cpu;
    char how[200];

    i8 = matmul_seconds(RKNN_INT8_MM_INT8_TO_INT32);
    f16 = matmul_seconds(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32);
    cpu = matmul_cpu_seconds();
    snprintf(how, sizeof how, "rknn_matmul_run %dx%dx%d, native layouts, best of 3", MM_M, MM_K,
             MM_N);
    printf("matmul %dx%dx%d: virtual NPU int8 %.3f s, fp16 %.3f s; C triple loop int8 %.3f s\n",
           MM_M, MM_K, MM_N, i8, f16, cpu);
    if (i8 > 0)
        set_figure(FIG_MM_INT8, macs / i8, how);
    if (f16 > 0)
        set_figure(FIG_MM_FP16, macs / f16, how);
    set_figure(FIG_MM_CPU, macs / cpu, "the same int8 product, plain C i-j-k loops, same run");
}

/* ---- footprint (scripts/footprint.sh) --------------------------------------------- */

static void bench_footprint(const char *script)
{
    char cmd[4200], line[512];
    FILE *p;
    int status;

    printf("footprint: sh %s\n", script);
    fflush(stdout);
    snprintf(cmd, sizeof cmd, "sh '%s' 2>&1", script);
    p = popen(cmd, "r");
    if (!p)
        return;
    while (fgets(line, sizeof line, p)) {
        char name[64];
        double v;
        printf("  | %s", line);
        if (sscanf(line, "BENCH %63s %lf", name, &v) != 2)
            continue;
        for (int i = FIG_TEXT; i <= FIG_RAM; i++)
            if (strcmp(name, figures[i].name) == 0)
                set_figure(i, v,
                           i == FIG_TEXT         ? "size(1) text (code, rodata, eh_frame) of "
                                                   "librknpu_bm.a, aarch64 -Os, log_strings=false"
                           : i == FIG_TEXT_NO_V4 ? "the same with -Dcontainer_v4=false"
                                                 : "size(1) data + bss of librknpu_bm.a, "
                                                   "default pool sizes");
    }
    status = pclose(p);
    if (status != 0) {
        printf("  footprint script failed (status %d): figures not measured\n", status);
        figures[FIG_TEXT].measured = figures[FIG_TEXT_NO_V4].measured = 0;
        figures[FIG_RAM].measured = 0;
    }
}

/* ---- Rockchip's runtime side by side (scripts/bench-vendor.sh) ---------------------- */

static void bench_vendor(const char *script)
{
    char cmd[4200], line[512], worst[256] = "";
    double worst_ratio = 0;
    unsigned ratios = 0, above = 0, excused = 0;
    FILE *p;
    int status;

    snprintf(cmd, sizeof cmd, "sh '%s'", script);
    printf("Rockchip's runtime side by side: sh %s\n", script);
    fflush(stdout);
    if (!(p = popen(cmd, "r"))) {
        printf("  could not start the script: vendor ratios not measured\n");
        return;
    }
    while (fgets(line, sizeof line, p)) {
        char name[256], why[128];
        double r;
        fputs(line, stdout);
        if (sscanf(line, "BENCH %255s %lf", name, &r) != 2)
            continue;
        ratios++;
        /* a fourth word: the vendor skips this work (its defect, compat.md) */
        if (sscanf(line, "BENCH %255s %lf %127s", name, &r, why) == 3) {
            excused += r > 1.0;
            continue;
        }
        above += r > 1.0;
        if (r > worst_ratio) {
            worst_ratio = r;
            snprintf(worst, sizeof worst, "%s", name);
        }
    }
    status = pclose(p);
    if (status != 0)
        printf("  the script failed (status %d): see its output above\n", status);
    printf("vendor ratios: %u figures, %u above 1.0 (goal: none; %u more where the vendor skips "
           "the work)",
           ratios, above, excused);
    if (ratios)
        printf(", the worst %s %.2f", worst, worst_ratio);
    printf("\n\n");
}

/* ---- main --------------------------------------------------------------------------- */

typedef struct {
    const char *models, *footprint, *vendor;
    unsigned reps;
    unsigned long run_loop, matmul_loop, ppocr_loop;
    int callgrind;
    double vnpu_seconds;
    const char *ppocr_ref;
} options;

static void usage(void)
{
    fprintf(stderr, "usage: rknpu-bench --models DIR [--reps N] [--footprint SCRIPT] "
                    "[--no-callgrind] [--vnpu-seconds S] [--ppocr-ref SCRIPT] [--vendor SCRIPT]\n"
                    "       rknpu-bench --vendor SCRIPT\n");
}

static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->reps = 1000;
    o->callgrind = 1;
    o->vnpu_seconds = 1.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (strcmp(a, "--no-callgrind") == 0) {
            o->callgrind = 0;
            continue;
        }
        if (!v)
            return -1;
        i++;
        if (strcmp(a, "--models") == 0)
            o->models = v;
        else if (strcmp(a, "--footprint") == 0)
            o->footprint = v;
        else if (strcmp(a, "--reps") == 0)
            o->reps = (unsigned)strtoul(v, &end, 10);
        else if (strcmp(a, "--run-loop") == 0)
            o->run_loop = strtoul(v, &end, 10);
        else if (strcmp(a, "--matmul-loop") == 0)
            o->matmul_loop = strtoul(v, &end, 10);
        else if (strcmp(a, "--ppocr-loop") == 0)
            o->ppocr_loop = strtoul(v, &end, 10);
        else if (strcmp(a, "--vnpu-seconds") == 0)
            o->vnpu_seconds = strtod(v, &end);
        else if (strcmp(a, "--ppocr-ref") == 0)
            o->ppocr_ref = v;
        else if (strcmp(a, "--vendor") == 0)
            o->vendor = v;
        else
            return -1;
        if (end && (*end || end == v))
            return -1;
    }
    return (o->models || o->vendor) && o->reps ? 0 : -1;
}

static void print_machine(void)
{
    char line[256], model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    time_t t = time(NULL);
    char date[32];

    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
            snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
            model[strcspn(model, "\n")] = 0;
            break;
        }
    if (f)
        fclose(f);
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&t));
    printf("rknpu-bench %s: %s, %ld CPU(s), %s\n\n", RKNPU_BM_VERSION_STRING, model,
           sysconf(_SC_NPROCESSORS_ONLN), date);
}

int main(int argc, char **argv)
{
    options o;
    mid_bench m;
    char self[4096];
    ssize_t n;

    if (parse_args(argc, argv, &o) != 0) {
        usage();
        return 2;
    }
    if (o.run_loop)
        return run_loop(o.models, o.run_loop);
    if (o.ppocr_loop)
        return ppocr_run_loop(o.models, o.ppocr_loop);
    if (o.matmul_loop)
        return matmul_loop(o.matmul_loop, NULL);
    print_machine();
    if (!o.models) { /* --vendor alone */
        bench_vendor(o.vendor);
        return 0;
    }
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0)
        self[n] = 0;
    bench_ppocr(o.models, o.ppocr_ref, o.reps, o.callgrind && n > 0 ? self : NULL);
    bench_init(o.models, o.reps);
    if (mid_open(o.models, &m, 0) == 0)
        bench_toy_times(&m, o.reps);
    mid_close(&m);
    if (o.callgrind && n > 0)
        bench_run_overhead(self, o.models);
    bench_vnpu(o.vnpu_seconds);
    bench_matmul();
    if (o.callgrind && n > 0)
        bench_matmul_overhead(self, o.models);
    if (o.footprint)
        bench_footprint(o.footprint);
    if (o.vendor)
        bench_vendor(o.vendor);
    print_figures();
    return 0;
}
