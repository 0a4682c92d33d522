/*
 * test_rknn_query - every rknn_query command of api.md (§1.1, §3.1,
 * api.md §7.1) on the four small sample models, without and with the init flags
 * that change an answer, before and after a run, on the virtual NPU.
 *
 * Expected values are typed from sources independent of the runtime:
 *  - names, shapes, types, quantisation, native shapes and byte sizes,
 *    weight and activation bytes, tasks per core slot: what
 *    shared/tools/rknn_inspect.py prints for each file;
 *  - the dual_residual_custom formula (shared/models/README.md):
 *    out0 = x*0.5 - y, out1 = y*0.5 - x;
 *  - what the vendor guides say a query returns (api.md §1.1, §2);
 *  - MEM_SIZE's DMA total against the carve-out allocator's own statistics,
 *    PERF_RUN against the wall time measured around rknn_run here.
 *
 * Usage: test_rknn_query MODELS_DIR   (fails, naming the file, when absent)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "rknn_api.h"
#include "rknn_custom_op.h"
#include "rknpu_bm.h"
#include "test_files.h"
#include "test_soc.h"
#include "test_util.h"

#define MAX_IO     2
#define OP_SPIN_US 3000u /* the custom op's CPU time: PERF_RUN must include it */

typedef struct {
    const char *name;
    uint32_t nhwc[4];   /* user attr of an input (NHWC), or NCHW dims of an output */
    uint32_t native[5]; /* native dims as the inspector prints them */
    uint32_t n_native;
    uint32_t native_size; /* the inspector's size (with row padding) */
} io_fact;

typedef struct {
    const char *file;
    rknpu_soc_id soc;
    int custom; /* float16 dual_residual_custom, else int8 multiple_input_demo */
    uint32_t n_in, n_out;
    io_fact in[MAX_IO], out[MAX_IO];
    uint32_t weight_bytes;     /* sum of const blobs, each 64-byte aligned (test_rknn_init) */
    uint32_t arena_bytes;      /* inspector's activation arena, 64-byte aligned */
    uint32_t one_core_tasks;   /* tasks per slot [0] */
    uint32_t three_core_tasks; /* slots 3..5 summed (RK3588) */
} sample;

/* One row per case reads as a table. */
/* clang-format off */
static const sample samples[] = {
    {"rk3588_multiple_input_demo.v6.rknn", RKNPU_SOC_RK3588, 0, 2, 1,
     {{"input.1", {1, 128, 128, 1}, {1, 1, 128, 128, 1}, 5, 16384},
      {"input", {1, 128, 128, 3}, {1, 1, 128, 128, 3}, 5, 49152}},
     {{"8", {1, 8, 128, 128}, {1, 2, 128, 128, 16}, 5, 524288}},
     4864, 1114112, 2, 9},
    {"rk3566_multiple_input_demo.v6.rknn", RKNPU_SOC_RK3566, 0, 2, 1,
     {{"input.1", {1, 128, 128, 1}, {1, 1, 128, 128, 1}, 5, 16384},
      {"input", {1, 128, 128, 3}, {1, 1, 128, 128, 3}, 5, 49152}},
     {{"8", {1, 8, 128, 128}, {1, 2, 128, 128, 8}, 5, 262144}},
     6528, 1114112, 10, 0},
    {"rk3588_dual_residual_custom.v6.rknn", RKNPU_SOC_RK3588, 1, 2, 2,
     {{"0", {1, 10, 10, 3}, {1, 1, 10, 10, 3}, 5, 960}, {"1", {1, 10, 10, 3}, {1, 1, 10, 10, 3}, 5, 960}},
     {{"2", {1, 3, 10, 10}, {1, 3, 10, 10}, 4, 1600}, {"3", {1, 3, 10, 10}, {1, 3, 10, 10}, 4, 1600}},
     2176, 9920, 2, 9},
    {"rk3566_dual_residual_custom.v6.rknn", RKNPU_SOC_RK3566, 1, 2, 2,
     {{"0", {1, 10, 10, 3}, {1, 1, 10, 10, 3}, 5, 720}, {"1", {1, 10, 10, 3}, {1, 1, 10, 10, 3}, 5, 720}},
     {{"2", {1, 3, 10, 10}, {1, 3, 10, 10}, 4, 800}, {"3", {1, 3, 10, 10}, {1, 3, 10, 10}, 4, 800}},
     128, 5568, 2, 0},
};
/* clang-format on */

static uint8_t model[64 * 1024];
static const char *dir;
/* inputs: mid uint8 NHWC (128x128x1, x3); dual float32 NHWC 10x10x3 */
static uint8_t mid_in[2][128 * 128 * 3];
static float dual_in[2][300];

/* Keep expected error lines out of the log; count them. */
static int errors_logged;
void rknpu_hook_log(rknpu_log_level level, const char *msg)
{
    if (level == RKNPU_LOG_ERROR)
        errors_logged++;
    else if (level <= RKNPU_LOG_WARN)
        printf("%s\n", msg);
}

static size_t carve_used(void)
{
    rknpu_mem_stats st;

    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    return st.used_bytes;
}

static uint32_t elems(const uint32_t *d, uint32_t n)
{
    uint32_t e = 1;

    for (uint32_t i = 0; i < n; i++)
        e *= d[i];
    return e;
}

/* ---- the application's cstDualResidual op (README formula) -------------- */

static int op_compute(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *in, uint32_t n_in,
                      rknn_custom_op_tensor *out, uint32_t n_out)
{
    const float *x, *y;
    float *o0, *o1;
    uint64_t t0 = rknpu_hook_time_us();

    (void)op_ctx;
    if (n_in != 2 || n_out != 2 || in[0].attr.type != RKNN_TENSOR_FLOAT32)
        return -1;
    x = (const float *)((uint8_t *)in[0].mem.virt_addr + in[0].mem.offset);
    y = (const float *)((uint8_t *)in[1].mem.virt_addr + in[1].mem.offset);
    o0 = (float *)((uint8_t *)out[0].mem.virt_addr + out[0].mem.offset);
    o1 = (float *)((uint8_t *)out[1].mem.virt_addr + out[1].mem.offset);
    for (uint32_t i = 0; i < in[0].attr.n_elems; i++) {
        o0[i] = x[i] * 0.5f - y[i];
        o1[i] = y[i] * 0.5f - x[i];
    }
    while (rknpu_hook_time_us() - t0 < OP_SPIN_US)
        ;
    return 0;
}

static int op_nop(rknn_custom_op_context *c, rknn_custom_op_tensor *i, uint32_t ni,
                  rknn_custom_op_tensor *o, uint32_t no)
{
    (void)c, (void)i, (void)ni, (void)o, (void)no;
    return 0;
}

static void register_op(rknn_context ctx)
{
    rknn_custom_op op;

    memset(&op, 0, sizeof op);
    op.version = 1;
    op.target = RKNN_TARGET_TYPE_CPU;
    strncpy(op.op_type, "cstDualResidual", RKNN_MAX_NAME_LEN - 1);
    op.init = op_nop;
    op.prepare = op_nop;
    op.compute = op_compute;
    CHECK(rknn_register_custom_ops(ctx, &op, 1) == RKNN_SUCC);
}

static int set_inputs(rknn_context ctx, const sample *s)
{
    rknn_input in[2];

    memset(in, 0, sizeof in);
    for (uint32_t i = 0; i < 2; i++) {
        in[i].index = i;
        in[i].fmt = RKNN_TENSOR_NHWC;
        in[i].type = s->custom ? RKNN_TENSOR_FLOAT32 : RKNN_TENSOR_UINT8;
        in[i].buf = s->custom ? (void *)dual_in[i] : (void *)mid_in[i];
        in[i].size = elems(s->in[i].nhwc, 4) * (s->custom ? 4u : 1u);
    }
    return rknn_inputs_set(ctx, 2, in);
}

/* ---- queries that do not depend on a run --------------------------------- */

static int query_attr(rknn_context ctx, rknn_query_cmd cmd, uint32_t index, rknn_tensor_attr *a)
{
    memset(a, 0, sizeof *a);
    a->index = index;
    return CHECK(rknn_query(ctx, cmd, a, sizeof *a) == RKNN_SUCC);
}

/* 1 once rknn_inputs_set has given the int8 samples uint8 pixels: Rockchip's
 * runtime then answers their native inputs' type as uint8 (vendor-diff). */
static int pixels_given;

/* A native input attribute: the int8 samples' type is uint8 once pixels
 * were given; then the checks of every attribute apply. */
static void check_native_input(rknn_tensor_attr *a, const sample *s)
{
    if (!s->custom && pixels_given && CHECK(a->type == RKNN_TENSOR_UINT8))
        a->type = RKNN_TENSOR_INT8;
}

static void check_common(const rknn_tensor_attr *a, const sample *s, const io_fact *f)
{
    CHECK(strcmp(a->name, f->name) == 0);
    if (s->custom) {
        /* Rockchip's runtime 1.6.0 answers AFFINE, scale 1, zp 0 for fp16 */
        CHECK(a->type == RKNN_TENSOR_FLOAT16 && a->qnt_type == RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC &&
              a->scale == 1.0f && a->zp == 0);
    } else {
        CHECK(a->type == RKNN_TENSOR_INT8 && a->qnt_type == RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC);
        /* inspector: inputs scale 1.0 zp -128; output scale 4.1423745 zp 20 */
        CHECK(a->zp == (strcmp(f->name, "8") == 0 ? 20 : -128));
    }
}

/* An output's size_with_stride as Rockchip's runtime 1.6.0 answers it on
 * every shared model (vendor-diff): channels and width both padded to the
 * SoC's C2 (RK3588 16 int8 / 8 fp16, RK3566 8 / 4), times the element size. */
static uint32_t vendor_padded_bytes(const sample *s, const io_fact *f, uint32_t esize)
{
    uint32_t c2 = (s->soc == RKNPU_SOC_RK3588 ? 16u : 8u) / esize;
    uint32_t c = (f->nhwc[1] + c2 - 1) / c2 * c2, w = (f->nhwc[3] + c2 - 1) / c2 * c2;

    return f->nhwc[0] * c * f->nhwc[2] * w * esize;
}

static void check_attrs(rknn_context ctx, const sample *s)
{
    uint32_t esize = s->custom ? 2u : 1u;
    rknn_tensor_attr a, b;
    rknn_input_range r;

    for (uint32_t i = 0; i < s->n_in; i++) {
        const io_fact *f = &s->in[i];
        /* general API: NHWC, the model's shape (api.md §2.3) */
        if (query_attr(ctx, RKNN_QUERY_INPUT_ATTR, i, &a)) {
            check_common(&a, s, f);
            CHECK(a.fmt == RKNN_TENSOR_NHWC && a.n_dims == 4 &&
                  memcmp(a.dims, f->nhwc, sizeof f->nhwc) == 0);
            CHECK_EQ_U(a.n_elems, elems(f->nhwc, 4));
            CHECK_EQ_U(a.size, a.n_elems * esize);
        }
        /* a static model: Rockchip's runtime 1.6.0 refuses CURRENT_* and
         * the dynamic range (-6; the native ones -7), so do we */
        b.index = i;
        CHECK(rknn_query(ctx, RKNN_QUERY_CURRENT_INPUT_ATTR, &b, sizeof b) ==
              RKNN_ERR_MODEL_INVALID);
        /* native: packed NHWC [N,H,W,C]; size_with_stride is the
         * inspector's padded size; w_stride its padded row (elements) */
        if (query_attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, i, &a)) {
            check_native_input(&a, s);
            check_common(&a, s, f);
            CHECK(a.fmt == RKNN_TENSOR_NHWC && a.n_dims == 4);
            CHECK(a.dims[1] == f->native[2] && a.dims[2] == f->native[3] &&
                  a.dims[3] == f->native[4]);
            CHECK_EQ_U(a.size_with_stride, f->native_size);
            CHECK_EQ_U(a.w_stride, f->native_size / (f->native[2] * f->native[4] * esize));
        }
        b.index = i;
        CHECK(rknn_query(ctx, RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR, &b, sizeof b) ==
              RKNN_ERR_CTX_INVALID);
        query_attr(ctx, RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR, i, &b);
        check_native_input(&b, s);
        CHECK(memcmp(&a, &b, sizeof a) == 0); /* the NPU reads these NHWC already */
        memset(&r, 0, sizeof r);
        r.index = i;
        CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &r, sizeof r) ==
              RKNN_ERR_MODEL_INVALID);
    }
    for (uint32_t o = 0; o < s->n_out; o++) {
        const io_fact *f = &s->out[o];
        if (query_attr(ctx, RKNN_QUERY_OUTPUT_ATTR, o, &a)) {
            check_common(&a, s, f);
            CHECK(a.fmt == RKNN_TENSOR_NCHW && a.n_dims == 4 &&
                  memcmp(a.dims, f->nhwc, sizeof f->nhwc) == 0);
            CHECK_EQ_U(a.size, elems(f->nhwc, 4) * esize);
            CHECK_EQ_U(a.size_with_stride, vendor_padded_bytes(s, f, esize));
        }
        b.index = o;
        CHECK(rknn_query(ctx, RKNN_QUERY_CURRENT_OUTPUT_ATTR, &b, sizeof b) ==
              RKNN_ERR_MODEL_INVALID);
        if (query_attr(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, o, &a)) {
            check_common(&a, s, f);
            CHECK_EQ_U(a.n_dims, f->n_native);
            CHECK(a.fmt == (f->n_native == 5 ? RKNN_TENSOR_NC1HWC2 : RKNN_TENSOR_NCHW));
            CHECK(memcmp(a.dims, f->native, f->n_native * 4) == 0);
            /* as the vendor answers: NC1HWC2 counts its padded elements and
             * says w_stride 0; a 4-D native is answered in its NCHW form */
            CHECK_EQ_U(a.size, f->n_native == 5 ? f->native_size : elems(f->nhwc, 4) * esize);
            CHECK_EQ_U(a.n_elems, f->n_native == 5 ? elems(f->native, 5) : elems(f->nhwc, 4));
            CHECK_EQ_U(a.w_stride, 0);
        }
        b.index = o;
        CHECK(rknn_query(ctx, RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR, &b, sizeof b) ==
              RKNN_ERR_CTX_INVALID);
        /* api.md §4.2: 4-D outputs as NHWC [N, H, W, C], no padding */
        if (query_attr(ctx, RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR, o, &b)) {
            check_common(&b, s, f);
            CHECK(b.fmt == RKNN_TENSOR_NHWC && b.n_dims == 4 && b.dims[0] == f->nhwc[0] &&
                  b.dims[1] == f->nhwc[2] && b.dims[2] == f->nhwc[3] && b.dims[3] == f->nhwc[1]);
            CHECK_EQ_U(b.size, elems(f->nhwc, 4) * esize);
            CHECK_EQ_U(b.w_stride, 0); /* the vendor's answer for outputs */
        }
    }
}

/* Every fixed-size result: a buffer one byte short is refused and left
 * untouched (never a partial or out-of-bounds write); bad indices, unknown
 * commands and DEVICE_MEM_INFO (no result struct exists) are refused. */
static void check_refusals(rknn_context ctx, const sample *s)
{
    static const struct {
        rknn_query_cmd cmd;
        uint32_t size;
    } cmds[] = {
        {RKNN_QUERY_IN_OUT_NUM, sizeof(rknn_input_output_num)},
        {RKNN_QUERY_INPUT_ATTR, sizeof(rknn_tensor_attr)},
        {RKNN_QUERY_OUTPUT_ATTR, sizeof(rknn_tensor_attr)},
        {RKNN_QUERY_PERF_DETAIL, sizeof(rknn_perf_detail)},
        {RKNN_QUERY_PERF_RUN, sizeof(rknn_perf_run)},
        {RKNN_QUERY_SDK_VERSION, sizeof(rknn_sdk_version)},
        {RKNN_QUERY_MEM_SIZE, sizeof(rknn_mem_size)},
        {RKNN_QUERY_CUSTOM_STRING, sizeof(rknn_custom_string)},
        {RKNN_QUERY_NATIVE_INPUT_ATTR, sizeof(rknn_tensor_attr)},
        {RKNN_QUERY_NATIVE_OUTPUT_ATTR, sizeof(rknn_tensor_attr)},
        {RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR, sizeof(rknn_tensor_attr)},
        {RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR, sizeof(rknn_tensor_attr)},
        {RKNN_QUERY_INPUT_DYNAMIC_RANGE, sizeof(rknn_input_range)},
        {RKNN_QUERY_CURRENT_INPUT_ATTR, sizeof(rknn_tensor_attr)},
        {RKNN_QUERY_CURRENT_OUTPUT_ATTR, sizeof(rknn_tensor_attr)},
        {RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR, sizeof(rknn_tensor_attr)},
        {RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR, sizeof(rknn_tensor_attr)},
    };
    static uint8_t buf[sizeof(rknn_input_range) + 16];
    int before = errors_logged;
    rknn_tensor_attr a;

    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        int untouched = 1;
        memset(buf, 0x5A, sizeof buf);
        memset(buf, 0, 4); /* index 0 */
        CHECK(rknn_query(ctx, cmds[i].cmd, buf, cmds[i].size - 1) == RKNN_ERR_PARAM_INVALID);
        for (size_t b = 4; b < sizeof buf; b++)
            untouched &= buf[b] == 0x5A;
        CHECK(untouched);
    }
    CHECK(rknn_query(ctx, RKNN_QUERY_DEVICE_MEM_INFO, buf, sizeof buf) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_query(ctx, RKNN_QUERY_CMD_MAX, buf, sizeof buf) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, NULL, 8) == RKNN_ERR_PARAM_INVALID);
    memset(&a, 0, sizeof a);
    a.index = s->n_in;
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof a) == RKNN_ERR_PARAM_INVALID);
    a.index = s->n_out;
    CHECK(rknn_query(ctx, RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR, &a, sizeof a) ==
          RKNN_ERR_PARAM_INVALID);
    /* every refusal logged why */
    CHECK_EQ_U(errors_logged - before, sizeof cmds / sizeof cmds[0] + 5);
}

static void check_model_queries(rknn_context ctx, const sample *s, size_t dma_bytes)
{
    rknn_input_output_num io;
    rknn_sdk_version v;
    rknn_custom_string cs;
    rknn_mem_size ms;
    unsigned maj, min, pat;

    CHECK(rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io) == RKNN_SUCC);
    CHECK(io.n_input == s->n_in && io.n_output == s->n_out);
    /* api.md §2.7: "1.5.2 (71720f3fc@...)" and "0.7.2": a version number first */
    CHECK(rknn_query(ctx, RKNN_QUERY_SDK_VERSION, &v, sizeof v) == RKNN_SUCC);
    CHECK(sscanf(v.api_version, "%u.%u.%u", &maj, &min, &pat) == 3);
    CHECK(sscanf(v.drv_version, "%u.%u.%u", &maj, &min, &pat) == 3);
    CHECK(memchr(v.api_version, 0, sizeof v.api_version) &&
          memchr(v.drv_version, 0, sizeof v.drv_version));
    CHECK(rknn_query(ctx, RKNN_QUERY_CUSTOM_STRING, &cs, sizeof cs) == RKNN_SUCC);
    CHECK(cs.string[0] == 0); /* the samples were converted without custom_string */
    /* api.md §3.1: answered after any init; no SRAM here (0, as the guide says) */
    memset(&ms, 0xFF, sizeof ms);
    CHECK(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &ms, sizeof ms) == RKNN_SUCC);
    CHECK_EQ_U(ms.total_weight_size, s->weight_bytes);
    CHECK_EQ_U(ms.total_internal_size, s->arena_bytes);
    CHECK_EQ_U(ms.total_dma_allocated_size, dma_bytes);
    CHECK(ms.total_sram_size == 0 && ms.free_sram_size == 0);
    check_attrs(ctx, s);
    check_refusals(ctx, s);
}

/* ---- queries about runs --------------------------------------------------- */

static void check_before_run(rknn_context ctx, uint32_t flags)
{
    rknn_perf_run pr;
    rknn_perf_detail pd;

    pr.run_duration = -1;
    CHECK(rknn_query(ctx, RKNN_QUERY_PERF_RUN, &pr, sizeof pr) == RKNN_SUCC);
    CHECK(pr.run_duration == 0);
    CHECK(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof pd) == RKNN_SUCC);
    CHECK(pd.perf_data && pd.data_len == strlen(pd.perf_data) &&
          strcmp(pd.perf_data, (flags & RKNN_FLAG_COLLECT_PERF_MASK) ? "no run yet\n" : "") == 0);
}

/* Sum of the "task group of N task(s)" lines; -1 if there are none. */
static long task_groups(const char *text, unsigned *lines)
{
    const char *p = text;
    long sum = 0;

    *lines = 0;
    while ((p = strstr(p, "task group of ")) != NULL) {
        p += strlen("task group of ");
        sum += strtol(p, NULL, 10);
        (*lines)++;
    }
    return *lines ? sum : -1;
}

static void run_and_check(rknn_context ctx, const sample *s, uint32_t flags, uint32_t run_no,
                          rknn_core_mask mask)
{
    rknn_perf_run pr;
    rknn_perf_detail pd;
    char head[32];
    uint64_t t0, t1;
    unsigned lines;
    long tasks;

    /* one core: every mask is refused, as the vendor does (compat.md) */
    CHECK(rknn_set_core_mask(ctx, mask) ==
          (s->soc == RKNPU_SOC_RK3588 ? RKNN_SUCC : RKNN_ERR_TARGET_PLATFORM_UNMATCH));
    CHECK(set_inputs(ctx, s) == RKNN_SUCC);
    t0 = rknpu_hook_time_us();
    if (!CHECK(rknn_run(ctx, NULL) == RKNN_SUCC))
        return;
    t1 = rknpu_hook_time_us();
    /* api.md §2.6: the whole inference, µs, not the I/O setting */
    CHECK(rknn_query(ctx, RKNN_QUERY_PERF_RUN, &pr, sizeof pr) == RKNN_SUCC);
    CHECK(pr.run_duration > 0 && (uint64_t)pr.run_duration <= t1 - t0);
    if (s->custom) /* the CPU operator's time is part of the inference */
        CHECK((uint64_t)pr.run_duration >= OP_SPIN_US);
    CHECK(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof pd) == RKNN_SUCC);
    if (!CHECK(pd.perf_data != NULL))
        return;
    if (!(flags & RKNN_FLAG_COLLECT_PERF_MASK)) {
        /* an empty text without the flag, as the vendor answers (compat.md) */
        CHECK(pd.data_len == 0 && pd.perf_data[0] == '\0');
        return;
    }
    CHECK(pd.data_len == strlen(pd.perf_data) && pd.data_len > 0);
    snprintf(head, sizeof head, "run %lu: ", (unsigned long)run_no);
    CHECK(strncmp(pd.perf_data, head, strlen(head)) == 0);
    CHECK(!strstr(pd.perf_data, "in CPU operators") == !s->custom);
    tasks = task_groups(pd.perf_data, &lines);
    {
        /* one group per core used; together the tasks of that core
         * configuration (inspector's tasks per slot) */
        unsigned cores = mask == RKNN_NPU_CORE_0_1_2 ? 3u : 1u;
        CHECK_EQ_U(lines, cores);
        CHECK_EQ_U(tasks, cores == 3 ? s->three_core_tasks : s->one_core_tasks);
    }
    if (run_no == 1)
        printf("  %s flags 0x%lx: PERF_RUN %lld us (wall %llu); PERF_DETAIL:\n%s", s->file,
               (unsigned long)flags, (long long)pr.run_duration, (unsigned long long)(t1 - t0),
               pd.perf_data);
}

/* fp16 bits -> float (normal numbers and zero; the outputs here are small) */
static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 0x1f;
    float m = (float)(h & 0x3ff) / 1024.0f, v;

    if (e == 0)
        v = m / 16384.0f;
    else {
        v = 1.0f + m;
        for (; e > 15; e--)
            v *= 2.0f;
        for (; e < 15; e++)
            v *= 0.5f;
    }
    return (h & 0x8000) ? -v : v;
}

/* api.md §4.2: a buffer bound with the NATIVE_NHWC_OUTPUT_ATTR answer
 * receives the output in NHWC order; here output 0 of dual_residual (made
 * by the CPU operator) checked against the README formula. */
static void check_nhwc_binding(rknn_context ctx, const sample *s)
{
    rknn_tensor_attr a;
    rknn_tensor_mem *mem;
    float max = 0;

    if (!query_attr(ctx, RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR, 0, &a))
        return;
    mem = rknn_create_mem(ctx, a.size);
    if (!CHECK(mem != NULL))
        return;
    CHECK(rknn_set_io_mem(ctx, mem, &a) == RKNN_SUCC);
    CHECK(set_inputs(ctx, s) == RKNN_SUCC);
    if (CHECK(rknn_run(ctx, NULL) == RKNN_SUCC)) {
        const uint16_t *o = mem->virt_addr;
        for (uint32_t p = 0; p < 100; p++)
            for (uint32_t c = 0; c < 3; c++) {
                float x = dual_in[0][p * 3 + c], y = dual_in[1][p * 3 + c];
                float d = half_to_float(o[p * 3 + c]) - (x * 0.5f - y);
                d = d < 0 ? -d : d;
                max = d > max ? d : max;
            }
        printf("  %s: output 0 bound NHWC: max |error| %.5f against the formula\n", s->file,
               (double)max);
        CHECK(max <= 4e-3f);
    }
    CHECK(rknn_destroy_mem(ctx, mem) == RKNN_SUCC);
}

static rknn_context init(const sample *s, uint32_t flags, size_t *dma_bytes)
{
    size_t before = carve_used();
    rknn_context ctx = test_load_model(dir, s->file, model, sizeof model, flags);

    *dma_bytes = carve_used() - before;
    if (ctx && s->custom)
        register_op(ctx);
    return ctx;
}

static void test_sample(const sample *s)
{
    /* flags that change no answer here but must keep every query working */
    static const uint32_t flag_sets[] = {
        0,
        RKNN_FLAG_COLLECT_PERF_MASK,
        RKNN_FLAG_PRIOR_LOW | RKNN_FLAG_DISABLE_PROC_HIGH_PRIORITY,
        RKNN_FLAG_PRIOR_MEDIUM | RKNN_FLAG_COLLECT_PERF_MASK |
            RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE | RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE,
        RKNN_FLAG_ENABLE_SRAM | RKNN_FLAG_COLLECT_PERF_MASK,
    };
    rknn_context ctx;
    size_t dma;
    rknn_mem_size ms;

    printf("%s\n", s->file);
    test_switch_soc(s->soc);
    for (size_t f = 0; f < sizeof flag_sets / sizeof flag_sets[0]; f++) {
        if (!(ctx = init(s, flag_sets[f], &dma)))
            return;
        check_model_queries(ctx, s, dma);
        check_before_run(ctx, flag_sets[f]);
        run_and_check(ctx, s, flag_sets[f], 1, RKNN_NPU_CORE_0);
        run_and_check(ctx, s, flag_sets[f], 2,
                      s->soc == RKNPU_SOC_RK3588 ? RKNN_NPU_CORE_0_1_2 : RKNN_NPU_CORE_0);
        pixels_given = 1;
        check_model_queries(ctx, s, dma); /* a run changes none of the others */
        pixels_given = 0;
        if (f == 0 && s->custom)
            check_nhwc_binding(ctx, s);
        CHECK(rknn_destroy(ctx) == RKNN_SUCC);
        CHECK(rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &ms, sizeof ms) == RKNN_ERR_CTX_INVALID);
    }

    /* Info only (header: "only weight/internal sizes queryable"): every
     * model query answers the same; the DMA total is the model copy alone. */
    if ((ctx = init(s, RKNN_FLAG_COLLECT_MODEL_INFO_ONLY | RKNN_FLAG_COLLECT_PERF_MASK, &dma))) {
        check_model_queries(ctx, s, dma);
        check_before_run(ctx, RKNN_FLAG_COLLECT_PERF_MASK);
        CHECK(set_inputs(ctx, s) != RKNN_SUCC || rknn_run(ctx, NULL) != RKNN_SUCC);
        check_before_run(ctx, RKNN_FLAG_COLLECT_PERF_MASK); /* nothing ran */
        CHECK(rknn_destroy(ctx) == RKNN_SUCC);
    }

    /* MEM_ALLOC_OUTSIDE: MEM_SIZE sizes the user's weight and internal
     * memory (api.md §1.2); with it bound the model runs. */
    if ((ctx = init(s, RKNN_FLAG_MEM_ALLOC_OUTSIDE | RKNN_FLAG_COLLECT_PERF_MASK, &dma))) {
        rknn_tensor_mem *w, *in;
        check_model_queries(ctx, s, dma);
        check_before_run(ctx, RKNN_FLAG_COLLECT_PERF_MASK);
        CHECK(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &ms, sizeof ms) == RKNN_SUCC);
        w = rknn_create_mem(ctx, ms.total_weight_size);
        in = rknn_create_mem(ctx, ms.total_internal_size);
        CHECK(w && in && rknn_set_weight_mem(ctx, w) == RKNN_SUCC &&
              rknn_set_internal_mem(ctx, in) == RKNN_SUCC);
        run_and_check(ctx, s, RKNN_FLAG_COLLECT_PERF_MASK, 1, RKNN_NPU_CORE_0);
        CHECK(rknn_destroy(ctx) == RKNN_SUCC);
        CHECK(rknn_destroy_mem(0, w) == RKNN_SUCC && rknn_destroy_mem(0, in) == RKNN_SUCC);
    }
}

int main(int argc, char **argv)
{
    int missing;

    dir = test_models_dir(argc, argv);
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
        if ((missing = test_require_models(dir, samples[i].file)) != 0)
            return missing;
    for (size_t i = 0; i < sizeof mid_in[0]; i++) {
        mid_in[0][i] = (uint8_t)(i * 7);
        mid_in[1][i] = (uint8_t)(i * 13 + 5);
    }
    for (size_t i = 0; i < 300; i++) {
        dual_in[0][i] = (float)(i % 9) * 0.25f - 1.0f;
        dual_in[1][i] = (float)(i % 5) * 0.5f - 0.75f;
    }
    if (!CHECK(board_init() == RKNN_SUCC))
        return test_report("rknn_query");
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
        test_sample(&samples[i]);
    CHECK_EQ_U(carve_used(), 0);
    return test_report("rknn_query");
}
