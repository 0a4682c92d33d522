/*
 * rknpu_bench_ppocr.c - rknpu-bench's figures on the real network, PP-OCRv4
 * text detection (RK3588, fp16, 1614 tasks, test1 480x480):
 *
 *   init_vs_memcpy_ppocr_det            rknn_init (default: the runtime copies the
 *                                       model) / one memcpy of the model's size
 *   init_zero_copy_vs_memcpy_ppocr_det  the same with RKNN_FLAG_MODEL_BUFFER_ZERO_COPY
 *                                       and the model in the carve-out (the NPU reads
 *                                       the constants where they are)
 *   carveout_vs_minimum_ppocr_det       carve-out bytes a context holds after
 *                                       init and a run (zero-copy, the model's
 *                                       buffer not counted) / (weights + regcmd +
 *                                       the activation arena with the I/O the
 *                                       model declares)
 *   inputs_set_vs_native_memcpy_ppocr_det   a memcpy of the native input buffer
 *                                       rknn_inputs_set writes / its time, for
 *                                       the 480x480x3 uint8 NHWC image
 *   outputs_get_vs_native_memcpy_ppocr_det  a memcpy of the larger of the native
 *                                       output and the user's float32 NCHW map /
 *                                       rknn_outputs_get's time (want_float)
 *   run_cpu_instr_per_task_group_ppocr_det  callgrind inside rknn_run, outside
 *                                       the virtual NPU, per task group
 *   run_cpu_instr_per_inference_ppocr_det   the same per inference
 *   vnpu_ppocr_det_s, onnxruntime_ppocr_det_s, vnpu_vs_onnxruntime_ppocr_det
 *                                       seconds per inference, core mask 1, one
 *                                       host thread, against the float ONNX
 *                                       source on onnxruntime (same run)
 * and a per-layer time profile from the virtual NPU, sorted by cost.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board_common.h"
#include "hal.h"
#include "rknn_model.h"
#include "rknpu_bench.h"
#include "vnpu.h"

#define PPOCR_HW        480u
#define PPOCR_IN_BYTES  (PPOCR_HW * PPOCR_HW * 3u)
#define PPOCR_OUT_ELEMS (PPOCR_HW * PPOCR_HW)
#define PROFILE_ROWS    15u

typedef struct {
    file_buf model, input;
    rknn_context ctx;
    rknn_input in;
} ppocr_bench;

static int ppocr_load(const char *dir, ppocr_bench *b)
{
    size_t hlen;

    memset(b, 0, sizeof *b);
    if (bench_load_file(dir, PPOCR_MODEL, &b->model) != 0 ||
        bench_load_file(dir, PPOCR_INPUT, &b->input) != 0)
        return -1;
    hlen = b->input.size > 10 ? (size_t)(b->input.data[8] | b->input.data[9] << 8) : 0;
    if (10 + hlen + PPOCR_IN_BYTES != b->input.size || use_soc(RKNPU_SOC_RK3588) != RKNN_SUCC) {
        fprintf(stderr, "rknpu-bench: %s/%s or %s unusable\n", dir, PPOCR_MODEL, PPOCR_INPUT);
        return -1;
    }
    b->in.buf = b->input.data + 10 + hlen;
    b->in.size = PPOCR_IN_BYTES;
    b->in.type = RKNN_TENSOR_UINT8;
    b->in.fmt = RKNN_TENSOR_NHWC;
    return 0;
}

/* A context on core 0 with the image set (flags: rknn_init's). */
static int ppocr_open(ppocr_bench *b, uint32_t flags)
{
    if (rknn_init(&b->ctx, b->model.data, (uint32_t)b->model.size, flags, NULL) != RKNN_SUCC ||
        rknn_set_core_mask(b->ctx, RKNN_NPU_CORE_0) != RKNN_SUCC ||
        rknn_inputs_set(b->ctx, 1, &b->in) != RKNN_SUCC) {
        fprintf(stderr, "rknpu-bench: %s does not initialise\n", PPOCR_MODEL);
        return -1;
    }
    return 0;
}

static void ppocr_close(ppocr_bench *b)
{
    if (b->ctx)
        rknn_destroy(b->ctx);
    b->ctx = 0;
}

static void ppocr_free(ppocr_bench *b)
{
    ppocr_close(b);
    free(b->model.data);
    free(b->input.data);
}

/* ---- init ------------------------------------------------------------------ */

/* Best rknn_init of `model` with `flags` against one memcpy of its size. */
static double init_ratio(const void *model, size_t size, uint32_t flags, unsigned reps,
                         uint64_t *best_ns, uint64_t *copy_ns)
{
    copy_baseline copy;
    uint64_t best = UINT64_MAX;

    baseline_init(&copy, size);
    for (unsigned r = 0; r < reps; r++) {
        rknn_context ctx = 0;
        uint64_t t0 = now_ns();
        if (rknn_init(&ctx, (void *)model, (uint32_t)size, flags, NULL) != RKNN_SUCC) {
            baseline_free(&copy);
            return -1;
        }
        keep_best(&best, t0);
        rknn_destroy(ctx);
        baseline_once(&copy);
    }
    *best_ns = best;
    *copy_ns = copy.best_ns;
    baseline_free(&copy);
    return (double)best / (double)*copy_ns;
}

/* The model copied once into the carve-out, 64-byte aligned, as a zero-copy
 * user does (rknn_create_mem2 without a context). */
static rknn_tensor_mem *model_in_carveout(const ppocr_bench *b)
{
    rknn_tensor_mem *m = rknn_create_mem2(0, b->model.size, RKNN_MEM_FLAG_ALLOC_NO_CONTEXT);

    if (m)
        memcpy(m->virt_addr, b->model.data, b->model.size);
    return m;
}

static void bench_ppocr_init(ppocr_bench *b, unsigned reps)
{
    uint64_t init, copy;
    rknn_tensor_mem *m;
    char how[200];
    double r;

    reps = reps < 20 ? reps : 20; /* a 4.7 MB model: each init parses and copies it */
    r = init_ratio(b->model.data, b->model.size, 0, reps, &init, &copy);
    if (r < 0)
        return;
    printf("PP-OCRv4 det rknn_init (%lu bytes): %.2f ms, memcpy of the model %.3f ms -> %.2f\n",
           (unsigned long)b->model.size, init / 1e6, copy / 1e6, r);
    snprintf(how, sizeof how, "default flags, %lu-byte model, best of %u",
             (unsigned long)b->model.size, reps);
    set_figure(FIG_PPOCR_INIT, r, how);
    m = model_in_carveout(b);
    if (!m)
        return;
    r = init_ratio(m->virt_addr, b->model.size, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, reps, &init,
                   &copy);
    if (r >= 0) {
        printf("  with RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, model in the carve-out: %.2f ms -> %.2f\n",
               init / 1e6, r);
        snprintf(how, sizeof how, "ZERO_COPY, model in the carve-out, best of %u", reps);
        set_figure(FIG_PPOCR_INIT_ZC, r, how);
    }
    rknn_destroy_mem(0, m);
}

/* ---- carve-out ------------------------------------------------------------- */

static size_t carveout_used(void)
{
    rknpu_mem_stats st;

    return rknpu_mem_get_stats(&st) == RKNN_SUCC ? st.used_bytes : 0;
}

/* Bytes one context holds after init and a run in mode `flags`. */
static size_t context_bytes(ppocr_bench *b, const void *model, uint32_t flags)
{
    size_t before = carveout_used(), after;
    rknn_context ctx = 0;

    if (rknn_init(&ctx, (void *)model, (uint32_t)b->model.size, flags, NULL) != RKNN_SUCC ||
        rknn_set_core_mask(ctx, RKNN_NPU_CORE_0) != RKNN_SUCC ||
        rknn_inputs_set(ctx, 1, &b->in) != RKNN_SUCC || rknn_run(ctx, NULL) != RKNN_SUCC) {
        if (ctx)
            rknn_destroy(ctx);
        return 0;
    }
    after = carveout_used();
    rknn_destroy(ctx);
    return after - before;
}

static void bench_ppocr_carveout(ppocr_bench *b)
{
    rknpu_model_mem need;
    rknn_tensor_mem *m;
    uint64_t minimum;
    size_t held, held_default;
    char how[200];

    if (rknpu_model_mem_requirements(b->model.data, b->model.size, &need) != RKNN_SUCC)
        return;
    minimum = (uint64_t)need.weight_bytes + need.regcmd_bytes + need.internal_bytes;
    held_default = context_bytes(b, b->model.data, 0);
    m = model_in_carveout(b);
    if (!m)
        return;
    held = context_bytes(b, m->virt_addr, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY);
    rknn_destroy_mem(0, m);
    if (!held || !held_default)
        return;
    /* zero copy in the carve-out: the constants are read in the user's
     * buffer, so count its weight bytes once as the context's own */
    held += need.weight_bytes;
    printf("PP-OCRv4 det carve-out: weights %lu + regcmd %lu + arena (with I/O) %lu = %llu bytes "
           "minimum;\n  a zero-copy context holds %lu + its weights in the model buffer = %lu "
           "-> %.4f; the default mode holds %lu (its model copy included)\n",
           (unsigned long)need.weight_bytes, (unsigned long)need.regcmd_bytes,
           (unsigned long)need.internal_bytes, (unsigned long long)minimum,
           (unsigned long)(held - need.weight_bytes), (unsigned long)held,
           (double)held / (double)minimum, (unsigned long)held_default);
    snprintf(how, sizeof how,
             "zero-copy context after init + run (+ the weights in the model buffer) / "
             "weights + regcmd + arena");
    set_figure(FIG_PPOCR_CARVEOUT, (double)held / (double)minimum, how);
}

/* ---- inputs and outputs ---------------------------------------------------- */

/* The bytes of input or output 0's native buffer (size_with_stride). */
static size_t native_bytes(rknn_context ctx, rknn_query_cmd cmd)
{
    rknn_tensor_attr a;

    memset(&a, 0, sizeof a);
    return rknn_query(ctx, cmd, &a, sizeof a) == RKNN_SUCC ? a.size_with_stride : 0;
}

static void bench_ppocr_io(ppocr_bench *b, unsigned reps)
{
    size_t in_native = native_bytes(b->ctx, RKNN_QUERY_NATIVE_INPUT_ATTR),
           out_native = native_bytes(b->ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR),
           out_user = PPOCR_OUT_ELEMS * sizeof(float);
    copy_baseline copy;
    uint64_t best = UINT64_MAX;
    rknn_output out;
    float *buf = xalloc(out_user);

    reps = reps < 200 ? reps : 200;
    if (!in_native || !out_native) {
        printf("rknpu-bench: the native attributes of PP-OCRv4 det did not answer\n");
        goto out;
    }
    /* the bytes that must move: what rknn_inputs_set writes */
    baseline_init(&copy, in_native);
    for (unsigned r = 0; r < reps; r++) {
        uint64_t t0 = now_ns();
        if (rknn_inputs_set(b->ctx, 1, &b->in) != RKNN_SUCC)
            goto done;
        keep_best(&best, t0);
        baseline_once(&copy);
    }
    report_bandwidth(FIG_INPUTS, "PP-OCRv4 det rknn_inputs_set, uint8 NHWC 480x480x3", PPOCR_MODEL,
                     "native input", &copy, best, reps);
    baseline_free(&copy);
    if (rknn_run(b->ctx, NULL) != RKNN_SUCC)
        goto out;
    best = UINT64_MAX;
    /* it reads the native output and writes the user's: the larger */
    baseline_init(&copy, out_native > out_user ? out_native : out_user);
    for (unsigned r = 0; r < reps; r++) {
        uint64_t t0;
        memset(&out, 0, sizeof out);
        out.want_float = 1;
        out.is_prealloc = 1;
        out.buf = buf;
        out.size = (uint32_t)out_user;
        t0 = now_ns();
        if (rknn_outputs_get(b->ctx, 1, &out, NULL) != RKNN_SUCC)
            goto done;
        keep_best(&best, t0);
        rknn_outputs_release(b->ctx, 1, &out);
        sink ^= ((volatile uint8_t *)buf)[r % out_user];
        baseline_once(&copy);
    }
    report_bandwidth(FIG_OUTPUTS, "PP-OCRv4 det rknn_outputs_get want_float, fp16 -> float32 NCHW",
                     PPOCR_MODEL, "native or user output, the larger", &copy, best, reps);
done:
    baseline_free(&copy);
out:
    free(buf);
}

/* ---- CPU instructions per task group (callgrind) ----------------------------- */

int ppocr_run_loop(const char *dir, unsigned long n)
{
    ppocr_bench b;
    int ret = ppocr_load(dir, &b) != 0 || ppocr_open(&b, 0) != 0;

    for (unsigned long i = 0; i < n && ret == 0; i++)
        ret = rknn_run(b.ctx, NULL) != RKNN_SUCC;
    ppocr_free(&b);
    return ret;
}

/* Task groups one run submits, as PERF_DETAIL lists them ("core N: task
 * group of ..."), and the register accesses it makes, measured natively. */
static unsigned ppocr_groups(ppocr_bench *b, unsigned *accesses)
{
    rknn_perf_detail detail;
    unsigned groups = 0;
    uint32_t before;

    if (ppocr_open(b, RKNN_FLAG_COLLECT_PERF_MASK) != 0)
        return 0;
    before = hal_mmio_trap_count;
    if (rknn_run(b->ctx, NULL) == RKNN_SUCC &&
        rknn_query(b->ctx, RKNN_QUERY_PERF_DETAIL, &detail, sizeof detail) == RKNN_SUCC) {
        *accesses = hal_mmio_trap_count - before;
        for (const char *p = detail.perf_data; (p = strstr(p, "task group")) != NULL; p++)
            groups++;
    }
    ppocr_close(b);
    return groups;
}

static void bench_ppocr_cpu(ppocr_bench *b, const char *self, const char *dir)
{
    const unsigned long few = 1, many = 2;
    unsigned accesses = 0, groups = ppocr_groups(b, &accesses);
    double a, c, per_run;
    char how[200];

    if (!groups)
        return;
    printf("PP-OCRv4 det rknn_run on the CPU: callgrind, %lu and %lu runs (a minute) ...\n", few,
           many);
    a = callgrind_count(self, dir, few, "--toggle-collect=rknn_run", "--ppocr-loop");
    c = callgrind_count(self, dir, many, "--toggle-collect=rknn_run", "--ppocr-loop");
    if (a < 0 || c < 0 || c < a) {
        printf("  valgrind --tool=callgrind did not run: figures not measured\n");
        return;
    }
    /* each register access is one load/store on silicon: count it as one */
    per_run = (c - a) / (double)(many - few) + accesses;
    printf("  %.0f instructions per inference outside the virtual NPU (%u register accesses "
           "included), %u task group(s) -> %.0f per group\n",
           per_run, accesses, groups, per_run / groups);
    snprintf(how, sizeof how,
             "callgrind inside rknn_run minus hal_mmio_*, (%lu-%lu runs), core mask 1, %u "
             "group(s)/run, +1 per register access",
             many, few, groups);
    set_figure(FIG_PPOCR_CPU, per_run / groups, how);
    set_figure(FIG_PPOCR_CPU_TOTAL, per_run, how);
}

/* ---- seconds per inference, and the per-layer profile ----------------------- */

typedef struct {
    uint64_t last_ns;
    uint32_t n_tasks;
    uint64_t *task_ns; /* [n_tasks]: the host time of each task, summed over runs */
} task_clock;

static void task_done(void *ctx, unsigned core, uint32_t task)
{
    task_clock *tc = ctx;
    uint64_t now = now_ns();

    (void)core;
    if (task < tc->n_tasks)
        tc->task_ns[task] += now - tc->last_ns;
    tc->last_ns = now;
}

/* Best seconds per inference, core mask 1; with a clock, each task's time. */
static double ppocr_seconds(ppocr_bench *b, unsigned runs, task_clock *tc)
{
    double best = -1;

    vnpu_set_task_hook(board_vnpu(), tc ? task_done : NULL, tc);
    for (unsigned r = 0; r < runs; r++) {
        uint64_t t0 = now_ns();
        if (tc)
            tc->last_ns = t0;
        if (rknn_run(b->ctx, NULL) != RKNN_SUCC) {
            best = -1;
            break;
        }
        double s = (double)(now_ns() - t0) / 1e9;
        best = best < 0 || s < best ? s : best;
    }
    vnpu_set_task_hook(board_vnpu(), NULL, NULL);
    return best;
}

typedef struct {
    uint32_t node;
    uint64_t ns;
    uint32_t tasks;
} layer_time;

static int by_time(const void *a, const void *b)
{
    const layer_time *x = a, *y = b;
    return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

/* The tasks' times summed per layer (the node each task record names). */
static void print_profile(const rknn_model_view *v, const task_clock *tc, unsigned runs)
{
    layer_time *rows = xalloc((size_t)v->n_nodes * sizeof *rows);
    uint64_t total = 0;
    uint32_t n = 0;

    for (uint32_t i = 0; i < v->n_nodes; i++)
        rows[i] = (layer_time){i, 0, 0};
    for (uint32_t t = 0; t < tc->n_tasks; t++) {
        rknn_model_task_info ti;
        if (rknn_model_task(v, t, &ti) == RKNN_SUCC && ti.op_idx < v->n_nodes) {
            rows[ti.op_idx].ns += tc->task_ns[t];
            rows[ti.op_idx].tasks++;
        }
        total += tc->task_ns[t];
    }
    qsort(rows, v->n_nodes, sizeof *rows, by_time);
    printf("PP-OCRv4 det per layer on the virtual NPU (core mask 1, mean of %u runs, the %u "
           "costliest of %u layers):\n  %8s %6s %6s  %-12s %s\n",
           runs, PROFILE_ROWS, (unsigned)v->n_nodes, "ms", "share", "tasks", "op", "layer");
    for (uint32_t i = 0; i < v->n_nodes && n < PROFILE_ROWS; i++) {
        rknn_model_node_info node;
        if (!rows[i].tasks || rknn_model_node(v, rows[i].node, &node) != RKNN_SUCC)
            continue;
        printf("  %8.2f %5.1f%% %6u  %-12.*s %.*s\n", rows[i].ns / 1e6 / runs,
               100.0 * (double)rows[i].ns / (double)(total ? total : 1), (unsigned)rows[i].tasks,
               (int)node.op_type.len, node.op_type.ptr, (int)node.name.len, node.name.ptr);
        n++;
    }
    free(rows);
}

/* onnxruntime's seconds per inference as SCRIPT (ppocr_ref.js) prints them. */
static double ppocr_onnxruntime_seconds(const char *dir, const char *script)
{
    char cmd[8192], line[256];
    double s = -1, v;
    FILE *p;

    snprintf(cmd, sizeof cmd,
             "node '%s' --threads 1 --loops 5 '%s/%s' /tmp/rknpu-bench-ppocr.%ld.npy 2>&1", script,
             dir, PPOCR_INPUT, (long)getpid());
    fflush(stdout);
    p = popen(cmd, "r");
    while (p && fgets(line, sizeof line, p)) {
        if (sscanf(line, "onnxruntime_s_per_inference %lf", &v) == 1)
            s = v;
        else
            printf("  | %s", line);
    }
    if (!p || pclose(p) != 0)
        s = -1;
    snprintf(cmd, sizeof cmd, "/tmp/rknpu-bench-ppocr.%ld.npy", (long)getpid());
    remove(cmd);
    return s;
}

static void bench_ppocr_speed(ppocr_bench *b, const char *dir, const char *script)
{
    task_clock tc = {0, 0, NULL};
    const unsigned profile_runs = 2;
    rknn_model_view *v = xalloc(sizeof *v);
    double npu = ppocr_seconds(b, 3, NULL), ort;
    char how[200];

    if (npu < 0) {
        printf("PP-OCRv4 det: not measured (see above)\n");
        free(v);
        return;
    }
    printf("PP-OCRv4 det on the virtual NPU, core mask 1: %.3f s per inference (best of 3)\n", npu);
    set_figure(FIG_PPOCR, npu, "test1 480x480, core mask 1, one host thread, best of 3");
    if (rknn_model_parse(b->model.data, b->model.size, v) == RKNN_SUCC) {
        tc.n_tasks = v->n_tasks;
        tc.task_ns = calloc(tc.n_tasks ? tc.n_tasks : 1, sizeof *tc.task_ns);
        if (tc.task_ns && ppocr_seconds(b, profile_runs, &tc) > 0)
            print_profile(v, &tc, profile_runs);
        free(tc.task_ns);
    }
    free(v);
    if (!script)
        return;
    ort = ppocr_onnxruntime_seconds(dir, script);
    if (ort <= 0) {
        printf("  onnxruntime did not run (node and scripts/install-ref-deps.sh): not measured\n");
        return;
    }
    printf("  onnxruntime (float ONNX source, 1 thread): %.4f s per inference\n", ort);
    snprintf(how, sizeof how,
             "ch_PP-OCRv4_det_infer.onnx, onnxruntime-node, 1 thread, median of 5");
    set_figure(FIG_PPOCR_ORT, ort, how);
    set_figure(FIG_PPOCR_RATIO, npu / ort, "the two figures above, same run");
}

void bench_ppocr(const char *dir, const char *ort_script, unsigned reps, const char *self)
{
    ppocr_bench b;

    if (ppocr_load(dir, &b) != 0) {
        ppocr_free(&b);
        return;
    }
    bench_ppocr_init(&b, reps);
    bench_ppocr_carveout(&b);
    if (ppocr_open(&b, 0) == 0) {
        bench_ppocr_io(&b, reps);
        bench_ppocr_speed(&b, dir, ort_script);
    }
    ppocr_close(&b);
    if (self)
        bench_ppocr_cpu(&b, self, dir);
    ppocr_free(&b);
}
