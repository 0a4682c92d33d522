/*
 * test_e2e_query - every rknn_query command of the vendor API (api.md
 * api.md §1.1, §3.1) on the sample models, before and after a run, without and with
 * the init flags that change an answer (COLLECT_PERF_MASK,
 * COLLECT_MODEL_INFO_ONLY, MEM_ALLOC_OUTSIDE), checked against what the
 * vendor guides say and against facts independent of the runtime:
 *  - counts, shapes and sizes from the Python inspector
 *    (shared/tools/rknn_inspect.py) as tests/unit/test_rknn_init.c lists them;
 *  - PERF_RUN against the wall time around rknn_run measured here;
 *  - MEM_SIZE's DMA total against the carve-out statistics;
 *  - an output bound with the NATIVE_NHWC_OUTPUT_ATTR answer against the ONNX
 *    model (tests/tools/onnx_ref.py), transposed to NHWC here.
 *
 * Usage: test_e2e_query MODELS_DIR REFERENCE_FILE. A missing file fails.
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "rknn_api.h"
#include "rknpu_bm.h"
#include "test_files.h"
#include "test_mid.h"
#include "test_soc.h"
#include "test_util.h"

#define H         MID_H
#define W         MID_W
#define OUT_C     MID_OUT_C
#define OUT_ELEMS MID_OUT_ELEMS
#define OUT_SCALE MID_OUT_SCALE
#define OUT_ZP    MID_OUT_ZP

static uint8_t model[64 * 1024];
static uint8_t image1[H * W], image2[H * W * 3];
static float reference[OUT_ELEMS]; /* NCHW */
static const char *dir;

typedef struct {
    const char *file;
    rknpu_soc_id soc;
    uint32_t n_in, n_out;
    uint32_t weight_bytes, arena_bytes; /* rknn_inspect.py */
} sample;

static const sample mid[] = {
    {"rk3588_multiple_input_demo.v6.rknn", RKNPU_SOC_RK3588, 2, 1, 4864, 1114112},
    {"rk3566_multiple_input_demo.v6.rknn", RKNPU_SOC_RK3566, 2, 1, 6528, 1114112},
};

static size_t carve_used(void)
{
    rknpu_mem_stats st;

    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    return st.used_bytes;
}

static int set_inputs(rknn_context ctx)
{
    return test_mid_set_inputs(ctx, RKNN_TENSOR_UINT8, image1, image2, 0);
}

static void query_attr(rknn_context ctx, rknn_query_cmd cmd, uint32_t index, rknn_tensor_attr *a)
{
    memset(a, 0, sizeof *a);
    a->index = index;
    CHECK(rknn_query(ctx, cmd, a, sizeof *a) == RKNN_SUCC);
}

/* A static model: Rockchip's runtime 1.6.0 refuses the dynamic-shape
 * queries (CURRENT_* and INPUT_DYNAMIC_RANGE -6, CURRENT_NATIVE_* -7). */
static void check_refused(rknn_context ctx, rknn_query_cmd cmd, uint32_t index, int want)
{
    union {
        rknn_tensor_attr attr;
        rknn_input_range range;
    } u;

    memset(&u, 0, sizeof u);
    u.attr.index = index;
    CHECK_EQ_U((uint32_t)rknn_query(ctx, cmd, &u, sizeof u), (uint32_t)want);
}

/* Every command answers a buffer one byte too small with PARAM_INVALID. */
static void check_small_buffers(rknn_context ctx)
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
    static rknn_input_range big; /* the largest result struct */

    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        memset(&big, 0, sizeof big);
        CHECK(rknn_query(ctx, cmds[i].cmd, &big, cmds[i].size - 1) == RKNN_ERR_PARAM_INVALID);
    }
    /* no result struct exists in the vendor header for this one */
    CHECK(rknn_query(ctx, RKNN_QUERY_DEVICE_MEM_INFO, &big, sizeof big) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_query(ctx, RKNN_QUERY_CMD_MAX, &big, sizeof big) == RKNN_ERR_PARAM_INVALID);
}

/* Answers that do not depend on a run: counts, attrs, static shapes. */
static void check_model_queries(rknn_context ctx, const sample *s)
{
    rknn_input_output_num io;
    rknn_sdk_version v;
    rknn_custom_string cs;
    rknn_tensor_attr a, b;

    CHECK(rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io) == RKNN_SUCC);
    CHECK(io.n_input == s->n_in && io.n_output == s->n_out);
    CHECK(rknn_query(ctx, RKNN_QUERY_SDK_VERSION, &v, sizeof v) == RKNN_SUCC);
    CHECK(v.api_version[0] && memchr(v.api_version, 0, sizeof v.api_version));
    CHECK(v.drv_version[0] && memchr(v.drv_version, 0, sizeof v.drv_version));
    CHECK(rknn_query(ctx, RKNN_QUERY_CUSTOM_STRING, &cs, sizeof cs) == RKNN_SUCC);
    CHECK(cs.string[0] == 0); /* the samples were built without custom_string */
    for (uint32_t i = 0; i < s->n_in; i++) {
        query_attr(ctx, RKNN_QUERY_INPUT_ATTR, i, &a);
        check_refused(ctx, RKNN_QUERY_CURRENT_INPUT_ATTR, i, RKNN_ERR_MODEL_INVALID);
        CHECK(a.fmt == RKNN_TENSOR_NHWC && a.n_dims == 4 && a.dims[1] == H && a.dims[2] == W &&
              a.dims[3] == (i == 0 ? 1u : 3u));
        query_attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, i, &a);
        check_refused(ctx, RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR, i, RKNN_ERR_CTX_INVALID);
        /* the NPU reads these first-layer inputs as packed NHWC already */
        query_attr(ctx, RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR, i, &b);
        CHECK(memcmp(&a, &b, sizeof a) == 0 && b.fmt == RKNN_TENSOR_NHWC);
        check_refused(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, i, RKNN_ERR_MODEL_INVALID);
    }
    query_attr(ctx, RKNN_QUERY_OUTPUT_ATTR, 0, &a);
    check_refused(ctx, RKNN_QUERY_CURRENT_OUTPUT_ATTR, 0, RKNN_ERR_MODEL_INVALID);
    CHECK(a.fmt == RKNN_TENSOR_NCHW && a.dims[1] == OUT_C && a.dims[2] == H && a.dims[3] == W);
    query_attr(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, 0, &a);
    CHECK(a.fmt == RKNN_TENSOR_NC1HWC2 && a.type == RKNN_TENSOR_INT8);
    /* NHWC of the native type: [N, H, W, C], C elements per pixel */
    query_attr(ctx, RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR, 0, &b);
    CHECK(b.fmt == RKNN_TENSOR_NHWC && b.type == RKNN_TENSOR_INT8 && b.n_dims == 4 &&
          b.dims[0] == 1 && b.dims[1] == H && b.dims[2] == W && b.dims[3] == OUT_C &&
          b.n_elems == OUT_ELEMS && b.size == OUT_ELEMS && b.zp == a.zp && b.scale == a.scale);
    /* refused whatever the index, as the vendor's runtime does */
    check_refused(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, s->n_in, RKNN_ERR_MODEL_INVALID);
    check_small_buffers(ctx);
}

/* PERF_RUN / PERF_DETAIL before and after a run, MEM_SIZE after init. */
static void check_run_queries(rknn_context ctx, const sample *s, uint32_t flags, size_t dma_used)
{
    rknn_perf_run pr;
    rknn_perf_detail pd;
    rknn_mem_size ms;
    uint64_t t0, t1;

    CHECK(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &ms, sizeof ms) == RKNN_SUCC);
    CHECK_EQ_U(ms.total_weight_size, s->weight_bytes);
    CHECK_EQ_U(ms.total_internal_size, s->arena_bytes);
    CHECK_EQ_U(ms.total_dma_allocated_size, dma_used);
    CHECK(ms.total_sram_size == 0 && ms.free_sram_size == 0);
    /* before any run: nothing measured, and no error (vendor code asks early too) */
    CHECK(rknn_query(ctx, RKNN_QUERY_PERF_RUN, &pr, sizeof pr) == RKNN_SUCC &&
          pr.run_duration == 0);
    CHECK(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof pd) == RKNN_SUCC);
    CHECK(pd.perf_data &&
          strcmp(pd.perf_data, (flags & RKNN_FLAG_COLLECT_PERF_MASK) ? "no run yet\n" : "") == 0);
    CHECK(set_inputs(ctx) == RKNN_SUCC);
    t0 = rknpu_hook_time_us();
    CHECK(rknn_run(ctx, NULL) == RKNN_SUCC);
    t1 = rknpu_hook_time_us();
    CHECK(rknn_query(ctx, RKNN_QUERY_PERF_RUN, &pr, sizeof pr) == RKNN_SUCC);
    CHECK(pr.run_duration > 0 && (uint64_t)pr.run_duration <= t1 - t0);
    /* PERF_DETAIL answers without the flag (the vendor's custom-op demo
     * asks) with an empty text, as the vendor does (compat.md) */
    CHECK(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof pd) == RKNN_SUCC);
    if (flags & RKNN_FLAG_COLLECT_PERF_MASK)
        CHECK(pd.perf_data && pd.data_len == strlen(pd.perf_data) &&
              strstr(pd.perf_data, "run 1:") && strstr(pd.perf_data, "us on the NPU") &&
              strstr(pd.perf_data, "task group of"));
    else
        CHECK(pd.perf_data && pd.data_len == 0 && pd.perf_data[0] == '\0');
    printf("  %s flags 0x%lx: PERF_RUN %lld us (wall %llu us); PERF_DETAIL: %.60s...\n", s->file,
           (unsigned long)flags, (long long)pr.run_duration, (unsigned long long)(t1 - t0),
           pd.perf_data);
}

/* An output buffer bound with the NATIVE_NHWC_OUTPUT_ATTR answer holds the
 * output in NHWC order: compared with the ONNX model, transposed here. */
static void check_nhwc_output(rknn_context ctx)
{
    rknn_tensor_attr a;
    rknn_tensor_mem *mem;
    unsigned max = 0;

    query_attr(ctx, RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR, 0, &a);
    mem = rknn_create_mem(ctx, a.size);
    if (!CHECK(mem != NULL))
        return;
    CHECK(rknn_set_io_mem(ctx, mem, &a) == RKNN_SUCC);
    CHECK(set_inputs(ctx) == RKNN_SUCC);
    CHECK(rknn_run(ctx, NULL) == RKNN_SUCC);
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++)
            for (uint32_t c = 0; c < OUT_C; c++) {
                int q = ((const int8_t *)mem->virt_addr)[(y * W + x) * OUT_C + c];
                float want = reference[(c * H + y) * W + x] / OUT_SCALE + OUT_ZP;
                float d = (float)q - want;
                unsigned steps = (unsigned)(d < 0 ? -d + 0.5f : d + 0.5f);
                max = steps > max ? steps : max;
            }
    printf("  NHWC int8 output bound from NATIVE_NHWC_OUTPUT_ATTR: max %u step(s) from ONNX\n",
           max);
    CHECK(max <= 1);
    CHECK(rknn_destroy_mem(ctx, mem) == RKNN_SUCC);
}

static void test_sample(const sample *s)
{
    static const uint32_t flag_sets[] = {0, RKNN_FLAG_COLLECT_PERF_MASK};
    rknn_context ctx;
    size_t before;

    test_switch_soc(s->soc);
    for (size_t f = 0; f < sizeof flag_sets / sizeof flag_sets[0]; f++) {
        before = carve_used();
        ctx = test_load_model(dir, s->file, model, sizeof model, flag_sets[f]);
        if (!ctx)
            return;
        check_model_queries(ctx, s);
        check_run_queries(ctx, s, flag_sets[f], carve_used() - before);
        if (f == 0)
            check_nhwc_output(ctx);
        CHECK(rknn_destroy(ctx) == RKNN_SUCC);
    }
    /* Info only: every model query answers; nothing runs. */
    ctx = test_load_model(dir, s->file, model, sizeof model, RKNN_FLAG_COLLECT_MODEL_INFO_ONLY);
    if (ctx) {
        rknn_perf_detail pd;
        rknn_mem_size ms;
        check_model_queries(ctx, s);
        CHECK(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &ms, sizeof ms) == RKNN_SUCC);
        CHECK_EQ_U(ms.total_weight_size, s->weight_bytes);
        CHECK_EQ_U(ms.total_internal_size, s->arena_bytes);
        CHECK(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof pd) == RKNN_SUCC);
        CHECK(rknn_run(ctx, NULL) != RKNN_SUCC);
        CHECK(rknn_destroy(ctx) == RKNN_SUCC);
    }
    /* Memory from outside: MEM_SIZE is how the application sizes it (no
     * weights or arena of the runtime's own yet). */
    before = carve_used();
    ctx = test_load_model(dir, s->file, model, sizeof model, RKNN_FLAG_MEM_ALLOC_OUTSIDE);
    if (ctx) {
        rknn_mem_size ms;
        rknn_tensor_mem *w, *in;
        CHECK(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &ms, sizeof ms) == RKNN_SUCC);
        CHECK_EQ_U(ms.total_weight_size, s->weight_bytes);
        CHECK_EQ_U(ms.total_dma_allocated_size, carve_used() - before);
        w = rknn_create_mem(ctx, ms.total_weight_size);
        in = rknn_create_mem(ctx, ms.total_internal_size);
        CHECK(w && in && rknn_set_weight_mem(ctx, w) == RKNN_SUCC &&
              rknn_set_internal_mem(ctx, in) == RKNN_SUCC);
        check_run_queries(ctx, s, RKNN_FLAG_MEM_ALLOC_OUTSIDE, (size_t)ms.total_dma_allocated_size);
        CHECK(rknn_destroy(ctx) == RKNN_SUCC);
        CHECK(rknn_destroy_mem(0, w) == RKNN_SUCC && rknn_destroy_mem(0, in) == RKNN_SUCC);
    }
}

int main(int argc, char **argv)
{
    rknpu_mem_stats st;

    if (argc < 3) {
        printf("FAIL: usage: test_e2e_query MODELS_DIR REFERENCE_FILE\n");
        return 1;
    }
    dir = argv[argc - 2];
    if (test_mid_load(dir, argv[argc - 1], reference, image1, image2))
        return 1;
    if (!CHECK(board_init() == RKNN_SUCC))
        return test_report("e2e_query");
    for (size_t i = 0; i < sizeof mid / sizeof mid[0]; i++)
        test_sample(&mid[i]);
    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    CHECK_EQ_U(st.allocations, 0);
    return test_report("e2e_query");
}
