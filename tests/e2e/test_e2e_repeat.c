/*
 * test_e2e_repeat - a camera loop: the same context runs many times on the
 * same input, set once, and must give bit-identical outputs every time
 * (runs are pure functions of the context and its inputs). Every sample
 * model (multiple_input_demo and dual_residual_custom, RK3588 and RK3566
 * builds), core masks 1, 2 and 3 cores where the SoC has them, the general
 * API (rknn_inputs_set once, rknn_outputs_get each run) and the zero-copy
 * API (rknn_set_io_mem buffers written once).
 *
 * References, independent of the runtime: the first run of each
 * configuration against the float ONNX model (multiple_input_demo, within
 * 1.5 quantisation steps; tests/tools/onnx_ref.py), and every run of
 * dual_residual_custom against its custom op's formula (out0 = x*0.5 - y,
 * out1 = y*0.5 - x, in float32 on the original inputs, fp16 tolerance).
 *
 * Usage: test_e2e_repeat MODELS_DIR REFERENCE_FILE (the ONNX reference of
 * multiple_input_demo). A missing file fails the test, naming it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "rknn_api.h"
#include "rknn_custom_op.h"
#include "rknpu_bm.h"
#include "test_files.h"
#include "test_mid.h"
#include "test_soc.h"
#include "test_util.h"

/* Runs per configuration: 100 on the host; QEMU emulates every instruction
 * of the virtual NPU, so the 2 MB multiple_input_demo gets 10 there. Under
 * ASan+UBSan (RKNPU_TEST_REDUCED, scripts/run-host-sanitize.sh) a fifth:
 * a memory error shows on the first runs, the unsanitised build runs all. */
#if RKNPU_BOARD_HOST
#define MID_RUNS 100
#else
#define MID_RUNS 10
#endif
#define DUAL_RUNS 100

#define MID_OUT       MID_OUT_ELEMS
#define MID_SCALE     MID_OUT_SCALE
#define DUAL_ELEMS    300   /* [1, 3, 10, 10] */
#define DUAL_TOL      4e-3f /* fp16 carries ~3 significant digits; values < 8 */
#define MAX_OUT_BYTES (MID_OUT * 4)

static uint8_t model[64 * 1024];
static uint8_t image1[128 * 128], image2[128 * 128 * 3];
static float mid_ref[MID_OUT];
static float dual_x[DUAL_ELEMS], dual_y[DUAL_ELEMS]; /* NHWC, as the .npy files */
static float first[2][MAX_OUT_BYTES / 4], got[2][MAX_OUT_BYTES / 4];
static const char *dir;

typedef struct {
    const char *file;
    rknpu_soc_id soc;
    int dual; /* dual_residual_custom (custom op), else multiple_input_demo */
} model_case;

/* ---- the custom op, as an application writes it ----------------------------- */

static int op_noop(rknn_custom_op_context *c, rknn_custom_op_tensor *in, uint32_t n_in,
                   rknn_custom_op_tensor *out, uint32_t n_out)
{
    (void)c, (void)in, (void)n_in, (void)out, (void)n_out;
    return 0;
}

static int op_compute(rknn_custom_op_context *c, rknn_custom_op_tensor *in, uint32_t n_in,
                      rknn_custom_op_tensor *out, uint32_t n_out)
{
    const float *x = (const float *)((uint8_t *)in[0].mem.virt_addr + in[0].mem.offset);
    const float *y = (const float *)((uint8_t *)in[1].mem.virt_addr + in[1].mem.offset);
    float *o0 = (float *)((uint8_t *)out[0].mem.virt_addr + out[0].mem.offset);
    float *o1 = (float *)((uint8_t *)out[1].mem.virt_addr + out[1].mem.offset);

    (void)c;
    if (n_in != 2 || n_out != 2)
        return -1;
    for (uint32_t i = 0; i < in[0].attr.n_elems; i++) {
        o0[i] = x[i] * 0.5f - y[i];
        o1[i] = y[i] * 0.5f - x[i];
    }
    return 0;
}

/* The description is a local, overwritten after the call: the runtime must
 * have copied it (the vendor demos register from a local array too). */
static int register_op(rknn_context ctx)
{
    rknn_custom_op op;
    volatile uint8_t *scribble = (volatile uint8_t *)&op; /* stores the compiler keeps */
    int ret;

    memset(&op, 0, sizeof op);
    op.version = 1;
    op.target = RKNN_TARGET_TYPE_CPU;
    strncpy(op.op_type, "cstDualResidual", RKNN_MAX_NAME_LEN - 1);
    op.init = op_noop;
    op.prepare = op_noop;
    op.compute = op_compute;
    ret = rknn_register_custom_ops(ctx, &op, 1);
    for (size_t i = 0; i < sizeof op; i++)
        scribble[i] = 0xA5;
    return ret;
}

/* ---- references ---------------------------------------------------------------- */

static float absf(float v)
{
    return v < 0 ? -v : v;
}

/* Max |error| of float32 NCHW outputs against the formula on the inputs. */
static float dual_error(const float *o0, const float *o1)
{
    float max = 0;

    for (uint32_t c = 0; c < 3; c++)
        for (uint32_t p = 0; p < 100; p++) {
            float x = dual_x[p * 3 + c], y = dual_y[p * 3 + c];
            float e0 = absf(o0[c * 100 + p] - (x * 0.5f - y));
            float e1 = absf(o1[c * 100 + p] - (y * 0.5f - x));
            max = e0 > max ? e0 : max;
            max = e1 > max ? e1 : max;
        }
    return max;
}

/* Max |error| of the float32 NCHW output against the ONNX model, in steps. */
static float mid_error_steps(const float *o)
{
    float max = 0;

    for (int i = 0; i < MID_OUT; i++)
        max = absf(o[i] - mid_ref[i]) > max ? absf(o[i] - mid_ref[i]) : max;
    return max / MID_SCALE;
}

/* ---- inputs and outputs, general API ------------------------------------------- */

static void input_desc(const model_case *m, rknn_input in[2])
{
    memset(in, 0, 2 * sizeof in[0]);
    for (uint32_t i = 0; i < 2; i++) {
        in[i].index = i;
        in[i].fmt = RKNN_TENSOR_NHWC;
        in[i].type = m->dual ? RKNN_TENSOR_FLOAT32 : RKNN_TENSOR_UINT8;
    }
    in[0].buf = m->dual ? (void *)dual_x : image1;
    in[0].size = m->dual ? sizeof dual_x : sizeof image1;
    in[1].buf = m->dual ? (void *)dual_y : image2;
    in[1].size = m->dual ? sizeof dual_y : sizeof image2;
}

static uint32_t n_outputs(const model_case *m)
{
    return m->dual ? 2u : 1u;
}

static uint32_t out_bytes(const model_case *m)
{
    return (m->dual ? DUAL_ELEMS : MID_OUT) * 4u;
}

/* One run's float32 outputs into got[] through rknn_outputs_get. */
static int run_general(rknn_context ctx, const model_case *m)
{
    rknn_output out[2];

    memset(out, 0, sizeof out);
    for (uint32_t i = 0; i < n_outputs(m); i++) {
        out[i].index = i;
        out[i].want_float = 1;
        out[i].is_prealloc = 1;
        out[i].buf = got[i];
        out[i].size = out_bytes(m);
    }
    if (rknn_run(ctx, NULL) != RKNN_SUCC ||
        rknn_outputs_get(ctx, n_outputs(m), out, NULL) != RKNN_SUCC)
        return -1;
    return rknn_outputs_release(ctx, n_outputs(m), out) == RKNN_SUCC ? 0 : -1;
}

/* ---- zero-copy API: buffers bound once, in the application's types -------------- */

typedef struct {
    rknn_tensor_mem *in[2], *out[2];
} bound;

static int bind(rknn_context ctx, rknn_tensor_mem **mem, rknn_query_cmd cmd, uint32_t index,
                rknn_tensor_type type, rknn_tensor_format fmt, const void *data, uint32_t size)
{
    rknn_tensor_attr a;

    memset(&a, 0, sizeof a);
    a.index = index;
    if (rknn_query(ctx, cmd, &a, sizeof a) != RKNN_SUCC)
        return -1;
    a.type = type;
    a.fmt = fmt;
    *mem = rknn_create_mem(ctx, size);
    if (!*mem)
        return -1;
    if (data) /* written once, before the first run */
        memcpy((*mem)->virt_addr, data, size);
    return rknn_set_io_mem(ctx, *mem, &a) == RKNN_SUCC ? 0 : -1;
}

static int bind_all(rknn_context ctx, const model_case *m, bound *b)
{
    rknn_input in[2];
    int ret = 0;

    memset(b, 0, sizeof *b);
    input_desc(m, in);
    for (uint32_t i = 0; i < 2; i++)
        ret |= bind(ctx, &b->in[i], RKNN_QUERY_INPUT_ATTR, i, in[i].type, RKNN_TENSOR_NHWC,
                    in[i].buf, in[i].size);
    for (uint32_t i = 0; i < n_outputs(m); i++)
        ret |= bind(ctx, &b->out[i], RKNN_QUERY_OUTPUT_ATTR, i, RKNN_TENSOR_FLOAT32,
                    RKNN_TENSOR_NCHW, NULL, out_bytes(m));
    return ret;
}

static int run_zero_copy(rknn_context ctx, const model_case *m, const bound *b)
{
    if (rknn_run(ctx, NULL) != RKNN_SUCC)
        return -1;
    for (uint32_t i = 0; i < n_outputs(m); i++) {
        rknn_mem_sync(ctx, b->out[i], RKNN_MEMORY_SYNC_FROM_DEVICE);
        memcpy(got[i], b->out[i]->virt_addr, out_bytes(m));
    }
    return 0;
}

static void unbind_all(rknn_context ctx, bound *b)
{
    for (uint32_t i = 0; i < 2; i++) {
        if (b->in[i])
            CHECK(rknn_destroy_mem(ctx, b->in[i]) == RKNN_SUCC);
        if (b->out[i])
            CHECK(rknn_destroy_mem(ctx, b->out[i]) == RKNN_SUCC);
    }
}

/* ---- the loop --------------------------------------------------------------------- */

/* The first run against the independent reference; every later run equal
 * to the first, bit for bit; the custom op's formula on every run. */
static void check_run(const model_case *m, uint32_t run, unsigned *mismatched_runs, float *worst)
{
    float err;

    if (m->dual) {
        err = dual_error(got[0], got[1]);
        *worst = err > *worst ? err : *worst;
        CHECK(err <= DUAL_TOL);
    } else if (run == 0) {
        err = mid_error_steps(got[0]);
        *worst = err;
        CHECK(err <= 1.5f);
    }
    if (run == 0) {
        memcpy(first, got, sizeof first);
        return;
    }
    for (uint32_t i = 0; i < n_outputs(m); i++)
        if (memcmp(first[i], got[i], out_bytes(m)) != 0) {
            (*mismatched_runs)++;
            break;
        }
}

static void repeat(const model_case *m, rknn_core_mask mask, int zero_copy)
{
    uint32_t runs = (m->dual ? DUAL_RUNS : MID_RUNS) / (getenv("RKNPU_TEST_REDUCED") ? 5u : 1u);
    unsigned mismatched = 0;
    float worst = 0;
    rknn_input in[2];
    rknn_context ctx = test_load_model(dir, m->file, model, sizeof model, 0);
    bound b;

    if (!ctx)
        return;
    if (m->dual)
        CHECK(register_op(ctx) == RKNN_SUCC);
    /* one core: every mask is refused, as the vendor does (compat.md) */
    CHECK(rknn_set_core_mask(ctx, mask) ==
          (m->soc == RKNPU_SOC_RK3588 ? RKNN_SUCC : RKNN_ERR_TARGET_PLATFORM_UNMATCH));
    if (zero_copy) {
        CHECK(bind_all(ctx, m, &b) == 0);
    } else {
        input_desc(m, in);
        CHECK(rknn_inputs_set(ctx, 2, in) == RKNN_SUCC); /* once, like a fixed frame */
    }
    memset(got, 0, sizeof got);
    for (uint32_t r = 0; r < runs; r++) {
        if (!CHECK((zero_copy ? run_zero_copy(ctx, m, &b) : run_general(ctx, m)) == 0))
            break;
        check_run(m, r, &mismatched, &worst);
        memset(got, 0xA5, sizeof got); /* a stale buffer cannot pass for a result */
    }
    printf("  %-36s mask 0x%x %-9s %3lu runs: %u differ from the first; %s %.5f\n", m->file,
           (unsigned)mask, zero_copy ? "zero-copy" : "general", (unsigned long)runs, mismatched,
           m->dual ? "max |error| vs formula" : "first run vs ONNX, steps", (double)worst);
    CHECK_EQ_U(mismatched, 0);
    if (zero_copy)
        unbind_all(ctx, &b);
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
}

static void test_model(const model_case *m)
{
    static const rknn_core_mask rk3588_masks[] = {RKNN_NPU_CORE_0, RKNN_NPU_CORE_0_1,
                                                  RKNN_NPU_CORE_0_1_2};
    static const rknn_core_mask one_core[] = {RKNN_NPU_CORE_0};
    const rknn_core_mask *masks = m->soc == RKNPU_SOC_RK3588 ? rk3588_masks : one_core;
    size_t n = m->soc == RKNPU_SOC_RK3588 ? 3 : 1;

    test_switch_soc(m->soc);
    for (size_t i = 0; i < n; i++)
        for (int zc = 0; zc < 2; zc++)
            repeat(m, masks[i], zc);
}

/* ---- inputs from ../shared ------------------------------------------------------- */

/* A float32 (1, 10, 10, 3) .npy: its header parsed here, no numpy. */
static int load_npy(const char *name, float *out)
{
    static uint8_t buf[4096];
    char path[512];
    size_t n = test_read_file(test_path(path, sizeof path, dir, name), buf, sizeof buf), hdr;

    if (n < 12 || memcmp(buf, "\x93NUMPY", 6) != 0) {
        printf("FAIL: %s is missing or not a .npy file\n", path);
        return -1;
    }
    hdr = 10 + (size_t)(buf[8] | buf[9] << 8);
    if (!strstr((const char *)buf + 10, "'<f4'") || n != hdr + sizeof dual_x) {
        printf("FAIL: %s is not float32 (1, 10, 10, 3)\n", path);
        return -1;
    }
    memcpy(out, buf + hdr, sizeof dual_x);
    return 0;
}

int main(int argc, char **argv)
{
    static const model_case models[] = {
        {"rk3588_multiple_input_demo.v6.rknn", RKNPU_SOC_RK3588, 0},
        {"rk3566_multiple_input_demo.v6.rknn", RKNPU_SOC_RK3566, 0},
        {"rk3588_dual_residual_custom.v6.rknn", RKNPU_SOC_RK3588, 1},
        {"rk3566_dual_residual_custom.v6.rknn", RKNPU_SOC_RK3566, 1},
    };
    rknpu_mem_stats st;
    char path[512];

    if (argc < 3) {
        printf("FAIL: usage: test_e2e_repeat MODELS_DIR REFERENCE_FILE\n");
        return 1;
    }
    dir = argv[argc - 2];
    if (test_mid_load(dir, argv[argc - 1], mid_ref, image1, image2))
        return 1;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (test_read_file(test_path(path, sizeof path, dir, models[i].file), model,
                           sizeof model) == 0) {
            printf("FAIL: missing model %s\n", path);
            return 1;
        }
    if (load_npy("dual_residual_custom/input_0_nhwc.npy", dual_x) ||
        load_npy("dual_residual_custom/input_1_nhwc.npy", dual_y))
        return 1;
    if (!CHECK(board_init() == RKNN_SUCC))
        return test_report("e2e_repeat");
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        test_model(&models[i]);
    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    CHECK_EQ_U(st.allocations, 0); /* everything returned */
    return test_report("e2e_repeat");
}
