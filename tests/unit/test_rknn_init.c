/*
 * test_rknn_init - rknn_init / rknn_query / rknn_dup_context / rknn_destroy
 * on the real sample models, on every target.
 *
 * Expected values are typed from independent sources: docs/
 * format.md, the vendor demo's printed attributes, and
 * shared/tools/rknn_inspect.py (a separate Python parser): e.g. 4864 weight
 * bytes for the RK3588 multiple_input_demo = its constant blobs, each
 * rounded to 64 bytes, as summed by the inspector.
 *
 * Usage: test_rknn_init MODELS_DIR   (fails when the directory is missing)
 */
#include <string.h>

#include "npu_regcmd.h"
#include "npu_regs.h"
#include "rknn_api.h"
#include "rknn_ctx.h"
#include "rknpu_bm.h"
#include "test_carve.h"
#include "test_ctx.h"
#include "test_files.h"
#include "test_util.h"

#define CARVE_BYTES    (4u << 20)
#define CARVE_NPU_ADDR 0x30000000u

static uint8_t carve[CARVE_BYTES] __attribute__((aligned(4096)));
static uint8_t model[256 * 1024];
static uint8_t other[256 * 1024];
static const char *models_dir;

typedef struct {
    const char *file;
    rknpu_soc_id soc;
    uint32_t n_in, n_out;
    uint32_t weight_bytes, regcmd_bytes, arena_bytes, tasks;
    uint32_t out_c2; /* native output C2 */
    /* inputs whose arena bytes other tensors reuse get their own buffer:
     * dual_residual's inputs share theirs with output '2' (arena offsets
     * from rknn_inspect.py: inputs at 0 and 960 / 768, output 2 at 0 with
     * 1600 / 800 bytes), each rounded to 64 bytes */
    uint32_t home_bytes;
    /* the arena a context holds and its outputs' own buffers: the file's
     * arena, but an output past every other tensor's bytes in whole 64-byte
     * granules (rknn_inspect.py: the RK3588 demo's '8', 524288 bytes at
     * 589824; RK3588 dual_residual's '3', 1600 at 8320 of 9920; not RK3566
     * dual_residual's, 800 bytes) gets a buffer of its own and the arena
     * ends before it */
    uint32_t held_bytes;
} sample;

static const sample samples[] = {
    /* weights/stream/arena: rknn_inspect.py; arena 1114112 also format.md §4.4 */
    {"rk3588_multiple_input_demo.v6.rknn", RKNPU_SOC_RK3588, 2, 1, 4864, 13696, 1114112, 17, 16, 0,
     589824 + 524288},
    {"rk3566_multiple_input_demo.v6.rknn", RKNPU_SOC_RK3566, 2, 1, 6528, 7232, 1114112, 10, 8, 0,
     1114112},
    {"rk3588_dual_residual_custom.v6.rknn", RKNPU_SOC_RK3588, 2, 2, 2176, 12032, 9920, 17, 0,
     2 * 960, 8320 + 1600},
    {"rk3566_dual_residual_custom.v6.rknn", RKNPU_SOC_RK3566, 2, 2, 128, 1920, 5568, 2, 0, 2 * 768,
     5568},
};

/* Keep expected error lines out of the log; count them instead. */
static int errors_logged;
static char last_error[256];
void rknpu_hook_log(rknpu_log_level level, const char *msg)
{
    if (level == RKNPU_LOG_ERROR) {
        errors_logged++;
        snprintf(last_error, sizeof last_error, "%s", msg);
    }
}

static void platform(rknpu_soc_id soc, size_t carve_bytes)
{
    rknpu_platform_config c;

    memset(&c, 0, sizeof c);
    c.soc = soc;
    c.carveout = carve;
    c.carveout_size = carve_bytes;
    c.carveout_phys = CARVE_NPU_ADDR;
    CHECK(rknpu_platform_init(&c) == RKNN_SUCC);
#if RKNPU_BOARD_HOST
    /* as firmware: one SoC (the host otherwise follows each model) */
    CHECK(rknpu_host_force_soc(soc) == RKNN_SUCC);
#endif
}

static size_t used_bytes(void)
{
    rknpu_mem_stats st;

    rknpu_mem_get_stats(&st);
    return st.used_bytes;
}

static uint32_t test_allocations(void)
{
    rknpu_mem_stats st;

    rknpu_mem_get_stats(&st);
    return st.allocations;
}

/* The runtime's own tables in the carve-out: the per-input plans, and the
 * run-step table, one rknn_step_memo per graph node, in 64-byte blocks. */
/* The runtime's copy of a file: up to its JSON trailer, in 64-byte blocks. */
static size_t image_bytes(const uint8_t *file, size_t n)
{
    rknn_model_view v;

    return CHECK(rknn_model_parse(file, n, &v) == RKNN_SUCC) ? (v.json_offset + 63) / 64 * 64 : 0;
}

static size_t own_tables(rknn_context h)
{
    const rknn_ctx *ctx = rknn_ctx_from_handle(h);

    return ctx->plan.io_plan_bytes + (ctx->model.n_nodes * sizeof(rknn_step_memo) + 63) / 64 * 64;
}

static size_t load(const char *name, uint8_t *buf)
{
    char path[512];
    size_t n = test_read_file(test_path(path, sizeof path, models_dir, name), buf, sizeof model);

    CHECK(n > 0);
    return n;
}

static uint64_t word_at(const uint8_t *stream, uint32_t i)
{
    uint64_t w = 0;

    for (unsigned b = 0; b < 8; b++)
        w |= (uint64_t)stream[(size_t)i * 8 + b] << (8 * b);
    return w;
}

static int is_address_reg(uint16_t reg)
{
    return reg == 0x1070 || reg == 0x1110 || reg == 0x4020 || reg == 0x5018 || reg == 0x5020 ||
           reg == 0x502C || reg == 0x5038 || reg == 0x6070 || reg == 0x701C;
}

/* Every address in the relocated stream lies in this context's weights or
 * arena, and every chain link is the DMA address of a task start. */
static void check_relocated_stream(rknn_context h, const sample *s)
{
    rknn_ctx *ctx = rknn_ctx_from_handle(h);
    uint32_t w0 = CARVE_NPU_ADDR + (uint32_t)(ctx->store->dma - carve);
    /* constants in place in the runtime's copy of the file, or packed */
    uint32_t w_bytes = ctx->store->in_place ? ctx->store->image_size : s->weight_bytes;
    uint32_t a0 = CARVE_NPU_ADDR + (uint32_t)(ctx->arena - carve);
    uint32_t r0 = CARVE_NPU_ADDR + (uint32_t)(ctx->regcmd - carve);
    uint32_t addresses = 0, links = 0, bad = 0;

    for (uint32_t i = 0; i < s->regcmd_bytes / 8; i++) {
        uint64_t w = word_at(ctx->regcmd, i);
        uint32_t v = npu_regcmd_value(w);
        if (npu_regcmd_target(w) == 0x0101 && npu_regcmd_reg(w) == 0x0010 && v) {
            links++;
            int is_task = 0;
            for (uint32_t t = 0; t < ctx->model.n_tasks; t++) {
                rknn_model_task_info ti;
                rknn_model_task(&ctx->model, t, &ti);
                is_task |= v == r0 + ti.regcmd_addr;
            }
            bad += !is_task;
        } else if (npu_regcmd_target(w) != 0x0101 && is_address_reg(npu_regcmd_reg(w)) && v) {
            addresses++;
            bad += !((v >= w0 && v < w0 + w_bytes) ||
                     test_in_io_homes(ctx, v, carve, CARVE_NPU_ADDR) ||
                     (v >= a0 && v < a0 + rknn_plan_own_arena(&ctx->plan)));
        }
    }
    CHECK(addresses > 0 && links > 0);
    CHECK_EQ_U(bad, 0);
}

/* Every constant address of a's stream is the same word in b's stream
 * (two contexts sharing one store). */
static void check_same_constants(rknn_context a, rknn_context b)
{
    const rknn_ctx *ca = rknn_ctx_from_handle(a), *cb = rknn_ctx_from_handle(b);
    uint32_t w0 = CARVE_NPU_ADDR + (uint32_t)(ca->store->dma - carve), same = 0, bad = 0;

    for (uint32_t i = 0; i < ca->model.regcmd_size / 8; i++) {
        uint32_t v = npu_regcmd_value(word_at(ca->regcmd, i));
        if (is_address_reg(npu_regcmd_reg(word_at(ca->regcmd, i))) && v >= w0 &&
            v - w0 < ca->store->image_size) {
            same += word_at(ca->regcmd, i) == word_at(cb->regcmd, i);
            bad += word_at(ca->regcmd, i) != word_at(cb->regcmd, i);
        }
    }
    CHECK(same > 0);
    CHECK_EQ_U(bad, 0);
}

static void check_attr(rknn_context h, rknn_query_cmd cmd, uint32_t index, const char *name,
                       rknn_tensor_format fmt, uint32_t n_dims, const uint32_t *dims,
                       rknn_tensor_type type, int32_t zp, float scale, uint32_t size)
{
    rknn_tensor_attr a;

    memset(&a, 0, sizeof a);
    a.index = index;
    if (!CHECK(rknn_query(h, cmd, &a, sizeof a) == RKNN_SUCC))
        return;
    CHECK(strcmp(a.name, name) == 0);
    CHECK_EQ_U(a.fmt, fmt);
    CHECK_EQ_U(a.n_dims, n_dims);
    for (uint32_t i = 0; i < n_dims; i++)
        CHECK_EQ_U(a.dims[i], dims[i]);
    CHECK_EQ_U(a.type, type);
    CHECK_EQ_U(a.size, size);
    if (type == RKNN_TENSOR_INT8) {
        CHECK(a.qnt_type == RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC);
        CHECK(a.zp == zp);
        CHECK(a.scale > scale - 1e-5f && a.scale < scale + 1e-5f);
    } else { /* Rockchip's runtime 1.6.0: float tensors are AFFINE, scale 1, zp 0 */
        CHECK(a.qnt_type == RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC);
        CHECK(a.zp == 0 && a.scale == 1.0f);
    }
}

/* The attributes the vendor demo prints for multiple_input_demo. */
static void check_mid_attrs(rknn_context h, uint32_t c2)
{
    static const uint32_t in0[] = {1, 128, 128, 1}, in1[] = {1, 128, 128, 3};
    static const uint32_t out[] = {1, 8, 128, 128};
    /* rknn_inspect.py: native [1, 2, 128, 128, C2]; the compiler pads the 8
     * output channels to 2 surfaces on both SoCs. */
    uint32_t native_out[] = {1, 2, 128, 128, c2};

    check_attr(h, RKNN_QUERY_INPUT_ATTR, 0, "input.1", RKNN_TENSOR_NHWC, 4, in0, RKNN_TENSOR_INT8,
               -128, 1.0f, 16384);
    check_attr(h, RKNN_QUERY_INPUT_ATTR, 1, "input", RKNN_TENSOR_NHWC, 4, in1, RKNN_TENSOR_INT8,
               -128, 1.0f, 49152);
    check_attr(h, RKNN_QUERY_OUTPUT_ATTR, 0, "8", RKNN_TENSOR_NCHW, 4, out, RKNN_TENSOR_INT8, 20,
               4.142374515533447f, 131072);
    check_attr(h, RKNN_QUERY_NATIVE_INPUT_ATTR, 1, "input", RKNN_TENSOR_NHWC, 4, in1,
               RKNN_TENSOR_INT8, -128, 1.0f, 49152);
    check_attr(h, RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR, 0, "input.1", RKNN_TENSOR_NHWC, 4, in0,
               RKNN_TENSOR_INT8, -128, 1.0f, 16384);
    check_attr(h, RKNN_QUERY_NATIVE_OUTPUT_ATTR, 0, "8", RKNN_TENSOR_NC1HWC2, 5, native_out,
               RKNN_TENSOR_INT8, 20, 4.142374515533447f, 2 * 128 * 128 * c2);
}

static void check_queries(rknn_context h, const sample *s, uint32_t flags)
{
    rknn_input_output_num io;
    rknn_mem_size ms;
    rknn_sdk_version v;
    rknn_custom_string cs;
    rknn_perf_run pr;
    rknn_perf_detail pd;
    rknn_tensor_attr a;

    CHECK(rknn_query(h, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io) == RKNN_SUCC);
    CHECK_EQ_U(io.n_input, s->n_in);
    CHECK_EQ_U(io.n_output, s->n_out);
    CHECK(rknn_query(h, RKNN_QUERY_MEM_SIZE, &ms, sizeof ms) == RKNN_SUCC);
    CHECK_EQ_U(ms.total_weight_size, s->weight_bytes);
    CHECK_EQ_U(ms.total_internal_size, (s->arena_bytes + 63) / 64 * 64);
    CHECK_EQ_U(ms.total_sram_size, 0);
    CHECK(rknn_query(h, RKNN_QUERY_SDK_VERSION, &v, sizeof v) == RKNN_SUCC);
    /* the vendor's form: the rknn_api and driver versions followed (compat.md) first */
    CHECK(strncmp(v.api_version, "1.6.0 (rknpu-bm ", 16) == 0 &&
          strstr(v.api_version, RKNPU_BM_VERSION_STRING) &&
          strncmp(v.drv_version, "0.9.3 (", 7) == 0);
    CHECK(rknn_query(h, RKNN_QUERY_CUSTOM_STRING, &cs, sizeof cs) == RKNN_SUCC);
    CHECK(cs.string[sizeof cs.string - 1] == 0);
    CHECK(rknn_query(h, RKNN_QUERY_PERF_RUN, &pr, sizeof pr) == RKNN_SUCC && pr.run_duration == 0);
    /* answered with or without RKNN_FLAG_COLLECT_PERF_MASK (the vendor's
     * custom-op demo asks without it): without it an empty text, as the
     * vendor answers; with it, before a run there is nothing to say */
    CHECK(rknn_query(h, RKNN_QUERY_PERF_DETAIL, &pd, sizeof pd) == RKNN_SUCC);
    CHECK(pd.perf_data && pd.data_len == strlen(pd.perf_data) &&
          strcmp(pd.perf_data, (flags & RKNN_FLAG_COLLECT_PERF_MASK) ? "no run yet\n" : "") == 0);
    /* bad arguments: a vendor error code and a log line, never garbage */
    int before = errors_logged;
    memset(&a, 0, sizeof a);
    a.index = s->n_in;
    CHECK(rknn_query(h, RKNN_QUERY_INPUT_ATTR, &a, sizeof a) == RKNN_ERR_PARAM_INVALID);
    a.index = 0;
    CHECK(rknn_query(h, RKNN_QUERY_INPUT_ATTR, &a, sizeof a - 1) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_query(h, RKNN_QUERY_INPUT_ATTR, NULL, sizeof a) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_query(h, (rknn_query_cmd)99, &a, sizeof a) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_query(h, RKNN_QUERY_DEVICE_MEM_INFO, &a, sizeof a) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_query(h, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &a, sizeof a) == RKNN_ERR_PARAM_INVALID);
    CHECK(errors_logged == before + 6); /* the last: a buffer smaller than rknn_input_range */
}

static void test_sample(const sample *s)
{
    rknn_context h = 0;
    size_t n = load(s->file, model);
    rknpu_model_mem need;
    rknn_mem_size ms;

    platform(s->soc, CARVE_BYTES);
    CHECK(rknpu_model_mem_requirements(model, n, &need) == RKNN_SUCC);
    CHECK_EQ_U(need.weight_bytes, s->weight_bytes);
    CHECK_EQ_U(need.regcmd_bytes, s->regcmd_bytes);
    if (!CHECK(rknn_init(&h, model, (uint32_t)n, 0, NULL) == RKNN_SUCC))
        return;
    CHECK(h != 0);
    CHECK_EQ_U(rknn_ctx_from_handle(h)->model.n_tasks, s->tasks);
    check_queries(h, s, 0);
    if (s->out_c2)
        check_mid_attrs(h, s->out_c2);
    check_relocated_stream(h, s);
    /* the runtime's copy of the file (the stream relocated where it lies),
     * the constants packed in blob order as the vendor's runtime packs them
     * (format.md §4.4), arena, and its own tables (input plans, run steps):
     * what RKNN_QUERY_MEM_SIZE says */
    CHECK(rknn_ctx_from_handle(h)->regcmd_in_place);
    CHECK(!rknn_ctx_from_handle(h)->store->in_place);
    CHECK_EQ_U(used_bytes(), image_bytes(model, n) + s->weight_bytes + s->held_bytes +
                                 own_tables(h) + s->home_bytes);
    CHECK(rknn_query(h, RKNN_QUERY_MEM_SIZE, &ms, sizeof ms) == RKNN_SUCC);
    CHECK_EQ_U(ms.total_dma_allocated_size, used_bytes());
    CHECK_EQ_U(rknn_ctx_from_handle(h)->plan.input_home_bytes, s->home_bytes);
    CHECK(rknn_ctx_from_handle(h)->plan.io_plan_bytes <= 64u * 4u * s->n_in);
    CHECK(rknn_destroy(h) == RKNN_SUCC);
    CHECK_EQ_U(used_bytes(), 0); /* every byte back */
    CHECK(rknn_destroy(h) == RKNN_ERR_CTX_INVALID);
    CHECK(rknn_query(h, RKNN_QUERY_IN_OUT_NUM, model, 8) == RKNN_ERR_CTX_INVALID);

    /* The size reported before init is enough, exactly. */
    platform(s->soc, (size_t)(need.carveout_bytes + 4095) / 4096 * 4096);
    CHECK(rknn_init(&h, model, (uint32_t)n, 0, NULL) == RKNN_SUCC);
    CHECK(rknn_destroy(h) == RKNN_SUCC);
}

/* The constants where Rockchip's runtime puts them (format.md §4.4): in
 * rk3566_multiple_input_demo, librknnrt 1.6.0 under vendor-diff addressed
 * conv1.bias, conv1.weight, conv2.bias and conv2.weight at offsets 0, 128,
 * 704 and 832 of its weights, and held 8_weight_1 and 8_weight_0 at 1408
 * and 2432. The words that address them: rknn_inspect.py's relocations. */
static void test_vendor_constant_offsets(void)
{
    static const struct {
        uint32_t word, offset;
    } at[] = {{263, 0}, {180, 128}, {119, 704}, {36, 832}, {563, 1408}, {323, 2432}};
    const sample *s = &samples[1];
    rknn_context h = 0;
    size_t n = load(s->file, model);

    platform(s->soc, CARVE_BYTES);
    if (!CHECK(rknn_init(&h, model, (uint32_t)n, 0, NULL) == RKNN_SUCC))
        return;
    const rknn_ctx *ctx = rknn_ctx_from_handle(h);
    uint32_t w0 = CARVE_NPU_ADDR + (uint32_t)(ctx->store->dma - carve);
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
        CHECK_EQ_U(npu_regcmd_value(word_at(ctx->regcmd, at[i].word)) - w0, at[i].offset);
    CHECK(rknn_destroy(h) == RKNN_SUCC);
}

static void test_compatibility(void)
{
    rknn_context h = 1234;
    size_t n;

    n = load("rk3566_multiple_input_demo.v6.rknn", model);
    platform(RKNPU_SOC_RK3588, CARVE_BYTES);
    CHECK(rknn_init(&h, model, (uint32_t)n, 0, NULL) == RKNN_ERR_TARGET_PLATFORM_UNMATCH);
    CHECK(h == 0);
    n = load("rk3588_multiple_input_demo.v6.rknn", model);
    platform(RKNPU_SOC_RK3566, CARVE_BYTES);
    CHECK(rknn_init(&h, model, (uint32_t)n, 0, NULL) == RKNN_ERR_TARGET_PLATFORM_UNMATCH);
    platform(RKNPU_SOC_RK3568, CARVE_BYTES); /* RK3566 models run on RK3568 */
    n = load("rk3566_multiple_input_demo.v6.rknn", model);
    CHECK(rknn_init(&h, model, (uint32_t)n, 0, NULL) == RKNN_SUCC);
    CHECK(rknn_destroy(h) == RKNN_SUCC);

    platform(RKNPU_SOC_RK3588, CARVE_BYTES);
    n = load("rk3588_multiple_input_demo.v6.rknn", model);
    memcpy(other, model, n);
    other[8] = 3; /* container 3: no sample, refused at the version field */
    CHECK(rknn_init(&h, other, (uint32_t)n, 0, NULL) == RKNN_ERR_MODEL_INVALID);
    memcpy(other, "CYPTRKNN", 8); /* an encrypted model's magic */
    memcpy(other + 8, model + 8, n - 8);
    CHECK(rknn_init(&h, other, (uint32_t)n, 0, NULL) == RKNN_ERR_MODEL_INVALID);
    CHECK(rknn_init(&h, model, (uint32_t)n / 2, 0, NULL) == RKNN_ERR_MODEL_INVALID);
    CHECK_EQ_U(used_bytes(), 0);
}

static void test_flags(void)
{
    rknn_context h = 0;
    rknn_mem_size ms;
    size_t n = load("rk3588_multiple_input_demo.v6.rknn", model);

    platform(RKNPU_SOC_RK3588, CARVE_BYTES);
    /* preferences with nothing to act on are accepted (vendor code passes them) */
    CHECK(rknn_init(&h, model, (uint32_t)n,
                    RKNN_FLAG_ENABLE_SRAM | RKNN_FLAG_SHARE_SRAM |
                        RKNN_FLAG_EXECUTE_FALLBACK_PRIOR_DEVICE_GPU,
                    NULL) == RKNN_SUCC);
    CHECK(rknn_query(h, RKNN_QUERY_MEM_SIZE, &ms, sizeof ms) == RKNN_SUCC);
    CHECK(ms.total_sram_size == 0 && ms.free_sram_size == 0);
    CHECK(rknn_destroy(h) == RKNN_SUCC);
    /* fences need the Linux driver stack */
    CHECK(rknn_init(&h, model, (uint32_t)n, RKNN_FLAG_FENCE_IN_OUTSIDE, NULL) ==
          RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_init(&h, model, (uint32_t)n, RKNN_FLAG_FENCE_OUT_OUTSIDE, NULL) ==
          RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_init(&h, model, (uint32_t)n, 0x80000000u, NULL) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_init(&h, model, (uint32_t)n, RKNN_FLAG_SHARE_WEIGHT_MEM, NULL) ==
          RKNN_ERR_PARAM_INVALID); /* needs extend->ctx */

    CHECK(rknn_init(&h, model, (uint32_t)n, RKNN_FLAG_COLLECT_MODEL_INFO_ONLY, NULL) == RKNN_SUCC);
    CHECK_EQ_U(used_bytes(), image_bytes(model, n)); /* only the copy of the model */
    CHECK(rknn_query(h, RKNN_QUERY_MEM_SIZE, &ms, sizeof ms) == RKNN_SUCC);
    CHECK_EQ_U(ms.total_weight_size, 4864);
    CHECK_EQ_U(ms.total_dma_allocated_size, image_bytes(model, n));
    CHECK(rknn_destroy(h) == RKNN_SUCC);

    CHECK(rknn_init(&h, model, (uint32_t)n, RKNN_FLAG_MEM_ALLOC_OUTSIDE, NULL) == RKNN_SUCC);
    /* only the model copy, the stream (a copy: relocated again when the
     * memory comes), the runtime's tables and the output's own buffer (the
     * internal memory may be shared; its native size, 2 x 128 x 128 x 16):
     * weights and arena come from the user */
    CHECK_EQ_U(used_bytes(), image_bytes(model, n) + 13696 + own_tables(h) + 524288);
    CHECK(rknn_query(h, RKNN_QUERY_MEM_SIZE, &ms, sizeof ms) == RKNN_SUCC);
    CHECK_EQ_U(ms.total_dma_allocated_size, used_bytes());
    CHECK(rknn_destroy(h) == RKNN_SUCC);

    CHECK(rknn_init(&h, model, (uint32_t)n, RKNN_FLAG_COLLECT_PERF_MASK | RKNN_FLAG_PRIOR_LOW,
                    NULL) == RKNN_SUCC);
    check_queries(h, &samples[0], RKNN_FLAG_COLLECT_PERF_MASK);
    CHECK(rknn_destroy(h) == RKNN_SUCC);
    CHECK_EQ_U(used_bytes(), 0);
}

static void test_out_of_memory(void)
{
    rknn_context h = 0;
    size_t n = load("rk3588_multiple_input_demo.v6.rknn", model);

    /* Weights and stream fit, the 1 MiB arena does not. */
    platform(RKNPU_SOC_RK3588, 256 * 1024);
    CHECK(rknn_init(&h, model, (uint32_t)n, 0, NULL) == RKNN_ERR_MALLOC_FAIL);
    CHECK(h == 0);
    CHECK_EQ_U(used_bytes(), 0); /* nothing leaked */
}

/* rknn_init and rknn_dup_context with every smaller carve-out, in 64-byte
 * steps of free memory up to what they need: each fails with
 * RKNN_ERR_MALLOC_FAIL (api.md §1.1: "a carve-out too small") at whichever
 * allocation no longer fits, keeping nothing, until the first size that
 * fits, where the context works like one made with plenty of room. */
static void test_init_every_shortfall(const sample *s)
{
    size_t n = load(s->file, model);
    rknn_context h = 0, d = 0;
    uint32_t hogs, held, fails = 0;
    size_t leave;

    platform(s->soc, CARVE_BYTES);
    for (leave = 0; leave < CARVE_BYTES; leave += 64) {
        int ret;
        if (!CHECK(test_carve_fill(leave) == 0))
            break;
        hogs = test_n_hogs;
        h = 0;
        ret = rknn_init(&h, model, (uint32_t)n, 0, NULL);
        if (ret == RKNN_SUCC)
            break;
        fails++;
        if (!CHECK(ret == RKNN_ERR_MALLOC_FAIL) || !CHECK(h == 0) ||
            !CHECK_EQ_U(test_allocations(), hogs))
            break;
    }
    printf("  %s: rknn_init refused for %lu sizes, fits in %lu free bytes\n", s->file,
           (unsigned long)fails, (unsigned long)leave);
    CHECK(fails > 0);
    test_carve_release();
    if (!CHECK(h != 0))
        return;
    check_queries(h, s, 0);
    check_relocated_stream(h, s);

    held = test_allocations();
    fails = 0;
    for (leave = 0; leave < CARVE_BYTES; leave += 64) {
        int ret;
        if (!CHECK(test_carve_fill(leave) == 0))
            break;
        hogs = test_n_hogs;
        d = 0;
        ret = rknn_dup_context(&h, &d);
        if (ret == RKNN_SUCC)
            break;
        fails++;
        if (!CHECK(ret == RKNN_ERR_MALLOC_FAIL) || !CHECK(d == 0) ||
            !CHECK_EQ_U(test_allocations(), held + hogs))
            break;
    }
    CHECK(fails > 0);
    test_carve_release();
    if (CHECK(d != 0)) {
        check_relocated_stream(d, s);
        CHECK(rknn_destroy(d) == RKNN_SUCC);
    }
    CHECK(rknn_destroy(h) == RKNN_SUCC);
    CHECK_EQ_U(used_bytes(), 0);
}

/* rknpu_model_mem_requirements refuses NULL or empty arguments
 * (PARAM_INVALID) and a model for a SoC it has no profile for
 * (TARGET_PLATFORM_UNMATCH, as rknn_init: api.md §1.1); rknn_dup_context
 * with every context in use gives MALLOC_FAIL (api.md §1.1). A context
 * sharing the constants of a master that reads them in place in its
 * zero-copy buffer, from another file with the same constants, gets every
 * constant address of the master. */
static void test_more_refusals(void)
{
    const sample *s = &samples[0];
    rknn_context h[RKNN_MAX_CONTEXTS], d = 0, c = 0;
    rknn_init_extend ext;
    rknpu_model_mem need;
    rknn_tensor_mem *buf;
    rknn_model_view view;
    size_t n = load(s->file, model);

    platform(s->soc, CARVE_BYTES);
    CHECK(rknpu_model_mem_requirements(NULL, n, &need) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknpu_model_mem_requirements(model, 0, &need) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknpu_model_mem_requirements(model, n, NULL) == RKNN_ERR_PARAM_INVALID);
    memcpy(other, model, n);
    CHECK(rknn_model_parse(other, n, &view) == RKNN_SUCC && view.target_platform.len == 6);
    memcpy((uint8_t *)(uintptr_t)view.target_platform.ptr, "rk3576", 6);
    CHECK(rknpu_model_mem_requirements(other, n, &need) == RKNN_ERR_TARGET_PLATFORM_UNMATCH);

    CHECK(rknn_init(&h[0], model, (uint32_t)n, 0, NULL) == RKNN_SUCC);
    for (int i = 1; i < RKNN_MAX_CONTEXTS; i++)
        CHECK(rknn_init(&h[i], model, (uint32_t)n, RKNN_FLAG_COLLECT_MODEL_INFO_ONLY, NULL) ==
              RKNN_SUCC);
    CHECK(rknn_dup_context(&h[0], &d) == RKNN_ERR_MALLOC_FAIL);
    CHECK(d == 0);
    for (int i = 0; i < RKNN_MAX_CONTEXTS; i++)
        CHECK(rknn_destroy(h[i]) == RKNN_SUCC);
    CHECK_EQ_U(used_bytes(), 0);

    buf = rknn_create_mem2(0, n, RKNN_MEM_FLAG_ALLOC_NO_CONTEXT);
    if (!CHECK(buf != NULL))
        return;
    memcpy(buf->virt_addr, model, n);
    CHECK(rknn_init(&h[0], buf->virt_addr, (uint32_t)n, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, NULL) ==
          RKNN_SUCC);
    CHECK(rknn_ctx_from_handle(h[0])->store->in_place);
    memcpy(other, model, n);
    CHECK(rknn_model_parse(other, n, &view) == RKNN_SUCC && view.generator.len > 0);
    other[(const uint8_t *)view.generator.ptr - other] ^= 1;
    memset(&ext, 0, sizeof ext);
    ext.ctx = h[0];
    CHECK(rknn_init(&c, other, (uint32_t)n, RKNN_FLAG_SHARE_WEIGHT_MEM, &ext) == RKNN_SUCC);
    memset(other, 0xA5, n);
    CHECK(rknn_ctx_from_handle(c)->store == rknn_ctx_from_handle(h[0])->store);
    check_relocated_stream(c, s);
    check_same_constants(h[0], c);
    CHECK(rknn_destroy(c) == RKNN_SUCC);
    CHECK(rknn_destroy(h[0]) == RKNN_SUCC);
    CHECK(rknn_destroy_mem(0, buf) == RKNN_SUCC);
    CHECK_EQ_U(used_bytes(), 0);
}

static void test_dup_and_share(void)
{
    rknn_context a = 0, b = 0, c = 0;
    rknn_init_extend ext;
    rknn_model_view view;
    size_t n = load("rk3588_multiple_input_demo.v6.rknn", model);
    size_t one;

    platform(RKNPU_SOC_RK3588, CARVE_BYTES);
    CHECK(rknn_init(&a, model, (uint32_t)n, 0, NULL) == RKNN_SUCC);
    one = used_bytes();
    CHECK(rknn_dup_context(&a, &b) == RKNN_SUCC);
    CHECK(b != 0 && b != a);
    /* model copy and weights shared; the duplicate relocates a copy of the
     * stream the first relocated where it lies */
    CHECK_EQ_U(used_bytes(), 2 * one - image_bytes(model, n) - 4864 + 13696);
    CHECK(rknn_ctx_from_handle(a)->store == rknn_ctx_from_handle(b)->store);
    check_relocated_stream(b, &samples[0]);
    CHECK(rknn_destroy(a) == RKNN_SUCC);
    check_relocated_stream(b, &samples[0]); /* weights live on with the duplicate */
    check_mid_attrs(b, 16);
    memset(&ext, 0, sizeof ext);
    ext.ctx = b;
    CHECK(rknn_init(&c, model, (uint32_t)n, RKNN_FLAG_SHARE_WEIGHT_MEM, &ext) == RKNN_SUCC);
    CHECK(rknn_ctx_from_handle(c)->store == rknn_ctx_from_handle(b)->store);
    CHECK(rknn_ctx_from_handle(c)->own_image == NULL); /* the same file: one copy */
    CHECK(rknn_destroy(c) == RKNN_SUCC);

    /* Another file with the same constants (a byte of its generator string
     * differs; a JSON trailer of its own would not count, the runtime keeps
     * none): the constants are shared, the file gets its own copy, and every
     * constant address is the master's. */
    memcpy(other, model, n);
    CHECK(rknn_model_parse(other, n, &view) == RKNN_SUCC && view.generator.len > 0);
    other[(const uint8_t *)view.generator.ptr - other] ^= 1;
    CHECK(rknn_init(&c, other, (uint32_t)n, RKNN_FLAG_SHARE_WEIGHT_MEM, &ext) == RKNN_SUCC);
    memset(other, 0xA5, n);
    CHECK(rknn_ctx_from_handle(c)->store == rknn_ctx_from_handle(b)->store);
    CHECK(rknn_ctx_from_handle(c)->own_image != NULL);
    check_relocated_stream(c, &samples[0]);
    check_same_constants(b, c);
    CHECK(rknn_dup_context(&c, &a) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_destroy(c) == RKNN_SUCC);
    /* A model with other constants cannot share them. */
    n = load("rk3588_dual_residual_custom.v6.rknn", other);
    CHECK(rknn_init(&c, other, (uint32_t)n, RKNN_FLAG_SHARE_WEIGHT_MEM, &ext) ==
          RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_destroy(b) == RKNN_SUCC);
    CHECK_EQ_U(used_bytes(), 0);
    CHECK(rknn_dup_context(NULL, &b) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_dup_context(&c, &b) == RKNN_ERR_CTX_INVALID);
}

/* The model loaded again shares the first context's copy of the file and its
 * constants (held once, as rknn_dup_context shares them) and relocates a
 * copy of the stream; a file programming one register value otherwise does
 * not. */
static void test_model_again(void)
{
    const sample *s = &samples[2];
    rknn_context a = 0, b = 0;
    rknn_model_view view;
    size_t n = load(s->file, model), one;
    uint32_t w = 0;

    platform(s->soc, CARVE_BYTES);
    CHECK(rknn_init(&a, model, (uint32_t)n, 0, NULL) == RKNN_SUCC);
    one = used_bytes();
    CHECK(rknn_init(&b, model, (uint32_t)n, 0, NULL) == RKNN_SUCC);
    CHECK(rknn_ctx_from_handle(a)->store == rknn_ctx_from_handle(b)->store);
    CHECK(!rknn_ctx_from_handle(b)->regcmd_in_place);
    CHECK_EQ_U(used_bytes(), 2 * one - image_bytes(model, n) - s->weight_bytes + s->regcmd_bytes);
    check_relocated_stream(b, s);
    CHECK(rknn_destroy(a) == RKNN_SUCC);
    check_relocated_stream(b, s); /* the file and constants live on with it */
    CHECK(rknn_destroy(b) == RKNN_SUCC);

    memcpy(other, model, n);
    CHECK(rknn_model_parse(other, n, &view) == RKNN_SUCC);
    /* a CNA register before the converter's: neither address nor converter */
    while (w < view.n_regcmd_words &&
           (npu_regcmd_target(word_at(view.regcmd, w)) != NPU_TARGET_CNA ||
            npu_regcmd_reg(word_at(view.regcmd, w)) >= NPU_CNA_CVT_CON0))
        w++;
    CHECK(w < view.n_regcmd_words);
    other[(size_t)(view.regcmd - other) + (size_t)w * 8 + 2] ^= 1; /* its value's lowest bit */
    CHECK(rknn_init(&a, model, (uint32_t)n, 0, NULL) == RKNN_SUCC);
    CHECK(rknn_init(&b, other, (uint32_t)n, 0, NULL) == RKNN_SUCC);
    CHECK(rknn_ctx_from_handle(a)->store != rknn_ctx_from_handle(b)->store);
    CHECK_EQ_U(used_bytes(), 2 * one);
    CHECK(rknn_destroy(a) == RKNN_SUCC && rknn_destroy(b) == RKNN_SUCC);
    CHECK_EQ_U(used_bytes(), 0);
}

static void test_context_pool(void)
{
    rknn_context h[RKNN_MAX_CONTEXTS + 1];
    size_t n = load("rk3588_multiple_input_demo.v6.rknn", model);

    platform(RKNPU_SOC_RK3588, CARVE_BYTES);
    for (int i = 0; i < RKNN_MAX_CONTEXTS; i++)
        CHECK(rknn_init(&h[i], model, (uint32_t)n, RKNN_FLAG_COLLECT_MODEL_INFO_ONLY, NULL) ==
              RKNN_SUCC);
    CHECK(rknn_init(&h[RKNN_MAX_CONTEXTS], model, (uint32_t)n, 0, NULL) == RKNN_ERR_MALLOC_FAIL);
    for (int i = 0; i < RKNN_MAX_CONTEXTS; i++)
        CHECK(rknn_destroy(h[i]) == RKNN_SUCC);
    CHECK(rknn_destroy(0) == RKNN_ERR_CTX_INVALID);
    CHECK(rknn_destroy((rknn_context)(uintptr_t)carve) == RKNN_ERR_CTX_INVALID);
    CHECK(rknn_init(NULL, model, (uint32_t)n, 0, NULL) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_init(&h[0], NULL, (uint32_t)n, 0, NULL) == RKNN_ERR_PARAM_INVALID);
}

static void test_path_init(void)
{
    char path[512];
    rknn_context h = 0;
    int ret;

    platform(RKNPU_SOC_RK3588, CARVE_BYTES);
    test_path(path, sizeof path, models_dir, "rk3588_multiple_input_demo.v6.rknn");
    ret = rknn_init(&h, path, 0, 0, NULL);
#if defined(RKNPU_BOARD_HOST)
    rknn_context d = 0;
    CHECK(ret == RKNN_SUCC); /* the host board maps the file, the runtime copies it */
    check_queries(h, &samples[0], 0);
    CHECK(rknn_dup_context(&h, &d) == RKNN_SUCC);
    CHECK(rknn_destroy(h) == RKNN_SUCC);
    check_queries(d, &samples[0], 0);
    CHECK(rknn_destroy(d) == RKNN_SUCC);
    /* zero copy keeps the mapping, which is not NPU memory: not duplicable */
    CHECK(rknn_init(&h, path, 0, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, NULL) == RKNN_SUCC);
    CHECK(rknn_dup_context(&h, &d) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_destroy(h) == RKNN_SUCC);
    path[strlen(path) - 1] = 'X';
    CHECK(rknn_init(&h, path, 0, 0, NULL) == RKNN_ERR_PARAM_INVALID);
#else
    CHECK(ret == RKNN_ERR_PARAM_INVALID); /* no file system on bare metal */
#endif
    CHECK_EQ_U(used_bytes(), 0);
}

/* The vendor rule: the model buffer may be freed once rknn_init returns;
 * with RKNN_FLAG_MODEL_BUFFER_ZERO_COPY it is used in place instead. */
static void test_model_buffer(const sample *s)
{
    rknn_context h = 0;
    rknn_tensor_mem *buf;
    rknpu_model_mem need;
    size_t n = load(s->file, model), before;
    uint32_t arena = s->held_bytes;

    platform(s->soc, CARVE_BYTES);
    CHECK(rknpu_model_mem_requirements(model, n, &need) == RKNN_SUCC);
    CHECK_EQ_U(need.model_copy_bytes, image_bytes(model, n));
    /* the copy instead of the caller's buffer, the stream relocated there,
     * the constants packed (one allocator granule of 64 bytes more) */
    CHECK_EQ_U(need.carveout_bytes, need.carveout_zero_copy_bytes - s->regcmd_bytes +
                                        need.model_copy_bytes + s->weight_bytes + 64);
    CHECK(need.context_static_bytes >= sizeof(rknn_ctx));

    /* default: the runtime keeps a copy; the caller's bytes are garbage now */
    CHECK(rknn_init(&h, model, (uint32_t)n, 0, NULL) == RKNN_SUCC);
    memset(model, 0xA5, n);
    check_queries(h, s, 0);
    if (s->out_c2)
        check_mid_attrs(h, s->out_c2);
    check_relocated_stream(h, s);
    CHECK(used_bytes() <= need.carveout_bytes);
    CHECK(rknn_destroy(h) == RKNN_SUCC);

    /* zero copy, the buffer in the carve-out: no copy, constants read there */
    n = load(s->file, model);
    buf = rknn_create_mem2(0, n, RKNN_MEM_FLAG_ALLOC_NO_CONTEXT);
    if (!CHECK(buf != NULL))
        return;
    memcpy(buf->virt_addr, model, n);
    before = used_bytes();
    CHECK(rknn_init(&h, buf->virt_addr, (uint32_t)n, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, NULL) ==
          RKNN_SUCC);
    CHECK_EQ_U(used_bytes() - before, s->regcmd_bytes + arena + s->home_bytes + own_tables(h));
    CHECK(used_bytes() - before <= need.carveout_zero_copy_bytes);
    CHECK(rknn_ctx_from_handle(h)->store->dma == buf->virt_addr);
    check_queries(h, s, 0);
    check_relocated_stream(h, s);
    CHECK(rknn_destroy(h) == RKNN_SUCC);
    CHECK(rknn_destroy_mem(0, buf) == RKNN_SUCC);

    /* zero copy, the buffer outside NPU memory: only the constants copied */
    CHECK(rknn_init(&h, model, (uint32_t)n, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, NULL) == RKNN_SUCC);
    CHECK_EQ_U(used_bytes(),
               s->weight_bytes + s->regcmd_bytes + arena + s->home_bytes + own_tables(h));
    CHECK(!rknn_ctx_from_handle(h)->store->in_place);
    check_queries(h, s, 0);
    check_relocated_stream(h, s);
    CHECK(rknn_destroy(h) == RKNN_SUCC);
    CHECK_EQ_U(used_bytes(), 0);
}

#if RKNPU_BOARD_HOST
/* The host serves every SoC: each model gets the profile it names, while no
 * other context runs on another one. */
static void test_host_follows_model(void)
{
    rknn_context a = 0, b = 0;
    rknn_model_view view;
    size_t n, m;

    platform(RKNPU_SOC_RK3588, CARVE_BYTES);
    CHECK(rknpu_host_force_soc(RKNPU_SOC_COUNT) == RKNN_SUCC);
    n = load("rk3566_multiple_input_demo.v6.rknn", model);
    m = load("rk3588_multiple_input_demo.v6.rknn", other);
    CHECK(rknn_init(&a, model, (uint32_t)n, 0, NULL) == RKNN_SUCC);
    CHECK(rknpu_platform_get()->soc == RKNPU_SOC_RK3566);
    CHECK(rknn_init(&b, other, (uint32_t)m, 0, NULL) == RKNN_ERR_TARGET_PLATFORM_UNMATCH);
    CHECK(strstr(last_error, "rk3588") && strstr(last_error, "RK3566"));
    CHECK(rknn_destroy(a) == RKNN_SUCC);
    CHECK(rknn_init(&b, other, (uint32_t)m, 0, NULL) == RKNN_SUCC);
    CHECK(rknpu_platform_get()->soc == RKNPU_SOC_RK3588);
    CHECK(rknn_destroy(b) == RKNN_SUCC);

    /* A SoC rknpu-bm has no profile for: named in the error. */
    CHECK(rknn_model_parse(other, m, &view) == RKNN_SUCC);
    CHECK(view.target_platform.len == 6);
    memcpy((uint8_t *)(uintptr_t)view.target_platform.ptr, "rk3576", 6);
    CHECK(rknn_init(&b, other, (uint32_t)m, 0, NULL) == RKNN_ERR_TARGET_PLATFORM_UNMATCH);
    CHECK(strstr(last_error, "'rk3576'") && strstr(last_error, "no SoC profile"));
    CHECK(rknpu_host_force_soc((rknpu_soc_id)99) == RKNN_ERR_PARAM_INVALID);
    CHECK_EQ_U(used_bytes(), 0);
}
#endif

int main(int argc, char **argv)
{
    int skip;

    models_dir = test_models_dir(argc, argv);
    skip = test_require_models(models_dir, samples[0].file);
    if (skip)
        return skip;
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
        test_sample(&samples[i]);
    test_vendor_constant_offsets();
    test_compatibility();
    test_flags();
    test_out_of_memory();
    test_dup_and_share();
    test_init_every_shortfall(&samples[2]);
    test_more_refusals();
    test_init_every_shortfall(&samples[3]);
    test_model_again();
    test_context_pool();
    test_path_init();
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
        test_model_buffer(&samples[i]);
#if RKNPU_BOARD_HOST
    test_host_follows_model();
#endif
    return test_report("rknn_init");
}
