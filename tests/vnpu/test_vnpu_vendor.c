/*
 * test_vnpu_vendor - the vendor's own compiled register streams (the four v6
 * sample models) executed by the virtual NPU, without the driver: the
 * project's loader parses and relocates each model (rknn_init), then this
 * test programs each core the way the BSP does (hardware.md §3.2) for every task
 * group (RK3588: 1-, 2- and 3-core groups, also in reverse core order;
 * RK3566: its single group) and polls like a driver (hardware.md §3.3).
 *
 * Checks (references are independent of the model):
 *  - multiple_input_demo int8 output vs the float ONNX model (file written
 *    by tests/tools/onnx_ref.py), quantised with the output scale
 *    4.142374515533447 / zero point 20: max error 1 step, mean < 0.2 steps
 *    (the note measured 0.1778 for the model's own quantisation);
 *  - every RK3588 group configuration and RK3566 give bit-identical int8;
 *  - RK3566 also runs the OutputOperator on the NPU: its fp32 NCHW output
 *    must equal (q - 20) * 4.140625 (fp16-rounded scale) exactly;
 *  - dual_residual (fp16): both NPU convolutions are identity relayouts, so
 *    New_input_k channel c = fp16(input_k channel c), padded channels 0.
 * Inputs: RK3588 int8 buffers hold x - 128 (the runtime shifts; CVT_CON0
 * bypass); RK3566 buffers hold raw uint8 with the runtime's pixel program
 * selected, which must be the stream's own words (the model's default
 * reading (A) of vnpu.md §5.3: the converter subtracts 128). Packed-NHWC
 * row pitch: align(W * elem, 16) * C bytes on RK3588, align(W * elem, 8) * C
 * on RK3566 (vnpu.md §5.1).
 *
 * Usage: test_vnpu_vendor [REFERENCE_F32] MODELS_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu_regcmd.h"
#include "npu_regs.h"
#include "rknn_api.h"
#include "rknn_ctx.h"
#include "rknn_cvt.h"
#include "rknn_io.h"
#include "rknpu_bm.h"
#include "test_files.h"
#include "test_util.h"
#include "vnpu.h"

#define CARVE_BYTES    (4u << 20)
#define CARVE_NPU_ADDR 0x30000000u
#define OUT_SCALE      4.142374515533447 /* tensor "8" quantisation (vendor demo) */
#define OUT_ZP         20
#define OUT_SCALE_FP16 4.140625f /* fp16(4.142374515533447): 1060 / 256 */
#define MID_PIXELS     (128 * 128)

static uint8_t carve[CARVE_BYTES] __attribute__((aligned(4096)));
static uint8_t model_buf[64 * 1024];
static uint8_t in1[MID_PIXELS], in2[MID_PIXELS * 3];
static float ref[8 * MID_PIXELS];
static int have_ref;
static int8_t out_rk3588[8 * MID_PIXELS], out_now[8 * MID_PIXELS];
static uint8_t npy[4096];
static float dual_in[2][300];
static vnpu_device dev;
static const char *models_dir;

/* ---- helpers ------------------------------------------------------------------ */

/* clamp(round_half_even(y / scale) + zp) */
static int8_t quant(double y)
{
    double v = y / OUT_SCALE;
    long long t = (long long)v; /* toward zero */
    double frac = v - (double)t;
    long long q;

    if (frac > 0.5 || (frac == 0.5 && (t & 1)))
        t++;
    else if (frac < -0.5 || (frac == -0.5 && (t & 1)))
        t--;
    q = t + OUT_ZP;
    return (int8_t)(q < -128 ? -128 : (q > 127 ? 127 : q));
}

/* IEEE half from float, round to nearest even (test's own version). */
static uint16_t to_half(float f)
{
    union {
        float f;
        uint32_t u;
    } v = {f};
    uint32_t sign = (v.u >> 16) & 0x8000u, e = (v.u >> 23) & 0xFFu, m = v.u & 0x7FFFFFu;
    int exp = (int)e - 127;

    if (exp > 15)
        return (uint16_t)(sign | 0x7C00u);
    if (exp < -14) { /* subnormal or zero */
        if (exp < -25)
            return (uint16_t)sign;
        m |= 0x800000u;
        unsigned sh = (unsigned)(-1 - exp); /* 14..24 */
        uint32_t q = m >> sh, rem = m & ((1u << sh) - 1u), half = 1u << (sh - 1u);
        q += rem > half || (rem == half && (q & 1u));
        return (uint16_t)(sign | q);
    }
    uint32_t q = ((uint32_t)(exp + 15) << 10) | (m >> 13), rem = m & 0x1FFFu;
    q += rem > 0x1000u || (rem == 0x1000u && (q & 1u));
    return (uint16_t)(sign | q);
}

static uint32_t npu_addr(const void *p)
{
    return CARVE_NPU_ADDR + (uint32_t)((const uint8_t *)p - carve);
}

static void platform(rknpu_soc_id soc)
{
    rknpu_platform_config c;

    memset(&c, 0, sizeof c);
    c.soc = soc;
    c.carveout = carve;
    c.carveout_size = CARVE_BYTES;
    c.carveout_phys = CARVE_NPU_ADDR;
    CHECK(rknpu_platform_init(&c) == RKNN_SUCC);
}

static rknn_ctx *open_model(const char *name, rknpu_soc_id soc, rknn_context *h)
{
    char path[512];
    size_t n =
        test_read_file(test_path(path, sizeof path, models_dir, name), model_buf, sizeof model_buf);
    vnpu_dma_window w = {CARVE_NPU_ADDR, CARVE_BYTES, carve};

    platform(soc);
    if (!CHECK(n > 0) || !CHECK(rknn_init(h, model_buf, (uint32_t)n, 0, NULL) == RKNN_SUCC))
        return NULL;
    CHECK(vnpu_init(&dev, npu_soc_get(soc), &w) == 0);
    return rknn_ctx_from_handle(*h);
}

static uint8_t *tensor(rknn_ctx *ctx, const char *name, rknn_model_tensor_info *info)
{
    uint32_t idx;

    if (!CHECK(rknn_model_find_tensor(&ctx->model, name, (uint32_t)strlen(name), &idx) ==
               RKNN_SUCC) ||
        !CHECK(rknn_model_tensor(&ctx->model, idx, info) == RKNN_SUCC))
        return NULL;
    for (int in = 0; in < 2; in++) /* an input or output may have its own buffer */
        for (uint32_t i = 0; i < (in ? ctx->model.n_inputs : ctx->model.n_outputs); i++) {
            uint32_t t;
            if (rknn_model_io(&ctx->model, in, i, &t) == RKNN_SUCC && t == idx)
                return rknn_io_buffer(ctx, in, i, info->arena_offset);
        }
    return ctx->arena + info->arena_offset;
}

static uint32_t fuzz(uint32_t s)
{
    static const uint32_t g[6] = {0x003, 0x00C, 0x030, 0x0C0, 0x300, 0xC00};
    uint32_t r = 0;

    for (int i = 0; i < 6; i++)
        if (s & g[i])
            r |= g[i];
    return r;
}

/* Kick task group `core` of an n-core configuration on NPU core `hw_core`,
 * following the BSP sequence, then poll. */
static void run_group(rknn_ctx *ctx, uint32_t n_cores, uint32_t core, unsigned hw_core)
{
    const npu_soc_profile *soc = ctx->soc;
    rknn_model_task_range r;
    rknn_model_task_info first, last;
    uint32_t regcmd = npu_addr(ctx->regcmd);

    if (!CHECK(rknn_model_task_group(&ctx->model, n_cores, core, &r) == RKNN_SUCC) ||
        !CHECK(rknn_model_task(&ctx->model, r.first, &first) == RKNN_SUCC) ||
        !CHECK(rknn_model_task(&ctx->model, r.first + r.count - 1, &last) == RKNN_SUCC))
        return;
    vnpu_mmio_write(&dev, hw_core, NPU_PC_DATA_ADDR, 1);
    if (soc->multi_irq) {
        vnpu_mmio_write(&dev, hw_core, NPU_CNA_S_POINTER, 0xEu + 0x10000000u * hw_core);
        vnpu_mmio_write(&dev, hw_core, NPU_CORE_S_POINTER, 0xEu + 0x10000000u * hw_core);
    }
    vnpu_mmio_write(&dev, hw_core, NPU_PC_DATA_ADDR, regcmd + (uint32_t)first.regcmd_addr);
    vnpu_mmio_write(&dev, hw_core, NPU_PC_DATA_AMOUNT,
                    npu_pc_fetch_amount(first.regcfg_amount, soc->pc_data_amount_scale));
    vnpu_mmio_write(&dev, hw_core, NPU_PC_INTERRUPT_MASK, last.int_mask);
    vnpu_mmio_write(&dev, hw_core, NPU_PC_INTERRUPT_CLEAR, first.int_mask);
    vnpu_mmio_write(&dev, hw_core, NPU_PC_TASK_CON, npu_soc_task_con(soc, r.count, false));
    vnpu_mmio_write(&dev, hw_core, NPU_PC_TASK_DMA_BASE_ADDR, 0);
    vnpu_mmio_write(&dev, hw_core, NPU_PC_OPERATION_ENABLE, 1);
    vnpu_mmio_write(&dev, hw_core, NPU_PC_OPERATION_ENABLE, 0);

    uint32_t st = vnpu_mmio_read(&dev, hw_core, NPU_PC_INTERRUPT_STATUS);
    uint32_t raw = vnpu_mmio_read(&dev, hw_core, NPU_PC_INTERRUPT_RAW_STATUS);
    if (!CHECK(fuzz(st) == last.int_mask) || !CHECK((raw & 0x3000u) == 0))
        printf("  %lu-core group %lu on core %u: status 0x%lx raw 0x%lx: %s\n",
               (unsigned long)n_cores, (unsigned long)core, hw_core, (unsigned long)st,
               (unsigned long)raw, vnpu_last_error(&dev, hw_core));
    CHECK_EQ_U(vnpu_mmio_read(&dev, hw_core, NPU_PC_TASK_STATUS), r.count);
    vnpu_mmio_write(&dev, hw_core, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
}

/* Runs configuration n_cores (groups on cores 0..n-1, or n-1..0). */
static void run_config(rknn_ctx *ctx, uint32_t n_cores, int reverse)
{
    for (uint32_t i = 0; i < n_cores; i++) {
        uint32_t c = reverse ? n_cores - 1u - i : i;
        run_group(ctx, n_cores, c, c);
    }
}

/* ---- multiple_input_demo ------------------------------------------------------ */

/* Packed NHWC input: row pitch align(W * elem, a) * C bytes (a = 16 / 8). */
static void write_mid_inputs(rknn_ctx *ctx, int raw_uint8)
{
    rknn_model_tensor_info ti;
    uint8_t *p1 = tensor(ctx, "input.1", &ti);
    uint8_t *p2 = tensor(ctx, "input", &ti);

    if (!p1 || !p2)
        return;
    for (int i = 0; i < MID_PIXELS; i++)
        p1[i] = raw_uint8 ? in1[i] : (uint8_t)(int8_t)(in1[i] - 128);
    for (int i = 0; i < MID_PIXELS * 3; i++)
        p2[i] = raw_uint8 ? in2[i] : (uint8_t)(int8_t)(in2[i] - 128);
}

/* Channels 0..7 of output "8" (NC1HWC2, all in surface 0) as NCHW. */
static void read_mid_output(rknn_ctx *ctx, int8_t *out)
{
    rknn_model_tensor_info ti;
    const uint8_t *p = tensor(ctx, "8", &ti);
    uint32_t c2;

    if (!p)
        return;
    c2 = (uint32_t)ti.native_dims[4];
    CHECK(c2 >= 8);
    for (uint32_t c = 0; c < 8; c++)
        for (uint32_t i = 0; i < MID_PIXELS; i++)
            out[c * MID_PIXELS + i] = (int8_t)p[i * c2 + c];
}

static void clear_output(rknn_ctx *ctx, const char *name)
{
    rknn_model_tensor_info ti;
    uint8_t *p = tensor(ctx, name, &ti);

    if (p)
        memset(p, 0x55, ti.size);
}

static void compare_with_onnx(const int8_t *out, const char *what)
{
    uint32_t exact = 0, maxd = 0;
    uint64_t sumd = 0;

    if (!have_ref)
        return;
    for (uint32_t i = 0; i < 8 * MID_PIXELS; i++) {
        int d = abs(out[i] - quant(ref[i]));
        exact += d == 0;
        sumd += (uint64_t)d;
        if ((uint32_t)d > maxd)
            maxd = (uint32_t)d;
    }
    printf("  %-24s vs ONNX float: max %lu step, mean %.4f steps, %.2f%% exact\n", what,
           (unsigned long)maxd, (double)sumd / (8.0 * MID_PIXELS),
           100.0 * exact / (8.0 * MID_PIXELS));
    CHECK(maxd <= 1);
    CHECK((double)sumd / (8.0 * MID_PIXELS) < 0.2);
    CHECK(exact > 8u * MID_PIXELS * 8u / 10u);
}

static void test_mid_rk3588(void)
{
    rknn_context h = 0;
    rknn_ctx *ctx = open_model("rk3588_multiple_input_demo.v6.rknn", RKNPU_SOC_RK3588, &h);
    static const struct {
        uint32_t n;
        int rev;
        const char *name;
    } cfgs[] = {
        {1, 0, "RK3588 1-core"},          {2, 0, "RK3588 2-core"},          {3, 0, "RK3588 3-core"},
        {3, 1, "RK3588 3-core reversed"}, {2, 1, "RK3588 2-core reversed"},
    };

    if (!ctx)
        return;
    write_mid_inputs(ctx, 0);
    for (unsigned i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        clear_output(ctx, "8");
        clear_output(ctx, "7");
        run_config(ctx, cfgs[i].n, cfgs[i].rev);
        read_mid_output(ctx, i == 0 ? out_rk3588 : out_now);
        if (i == 0)
            compare_with_onnx(out_rk3588, cfgs[i].name);
        else
            CHECK(memcmp(out_now, out_rk3588, sizeof out_now) == 0);
    }
    vnpu_stats st;
    vnpu_get_stats(&dev, 0, &st);
    CHECK(st.macs > 0 && st.tasks > 0);
    CHECK(rknn_destroy(h) == RKNN_SUCC);
}

/* CNA CVT_CON0..4 words of the relocated stream that differ from the file's;
 * *seen counts them all. */
static uint32_t cvt_words_changed(const rknn_ctx *ctx, uint32_t *seen)
{
    uint32_t changed = 0;

    *seen = 0;
    for (uint32_t i = 0; i < ctx->model.n_regcmd_words; i++) {
        uint64_t a = rknn_model_le64(ctx->model.regcmd + 8u * i);
        uint64_t b = rknn_model_le64(ctx->regcmd + 8u * i);
        if (npu_regcmd_target(a) != NPU_TARGET_CNA || npu_regcmd_reg(a) < NPU_CNA_CVT_CON0 ||
            npu_regcmd_reg(a) > NPU_CNA_CVT_CON4)
            continue;
        ++*seen;
        changed += a != b;
    }
    return changed;
}

static void test_mid_rk3566(void)
{
    rknn_context h = 0;
    rknn_ctx *ctx = open_model("rk3566_multiple_input_demo.v6.rknn", RKNPU_SOC_RK3566, &h);
    rknn_model_tensor_info ti;
    const uint8_t *fp;
    uint32_t bad = 0, seen;

    if (!ctx)
        return;
    for (uint32_t i = 0; i < 2; i++)
        CHECK(rknn_cvt_select(ctx, i, RKNN_CVT_PIXELS) == RKNN_SUCC);
    CHECK_EQ_U(cvt_words_changed(ctx, &seen), 0);
    CHECK(seen >= 10); /* two tasks read the inputs */
    write_mid_inputs(ctx, 1);
    clear_output(ctx, "8");
    clear_output(ctx, "8_exSecondary");
    run_config(ctx, 1, 0);
    read_mid_output(ctx, out_now);
    compare_with_onnx(out_now, "RK3566");
    CHECK(memcmp(out_now, out_rk3588, sizeof out_now) == 0);
    /* the NPU's OutputOperator: fp32 NCHW (q - zp) * fp16(scale) */
    fp = tensor(ctx, "8_exSecondary", &ti);
    for (uint32_t i = 0; fp && i < 8 * MID_PIXELS; i++) {
        float y;
        memcpy(&y, fp + 4u * i, 4);
        bad += y != (float)(out_now[i] - OUT_ZP) * OUT_SCALE_FP16;
    }
    CHECK_EQ_U(bad, 0);
    CHECK(rknn_destroy(h) == RKNN_SUCC);

    /* reading (B) of CVT_CON0[0] with int8 buffers gives the same output
     * (the note: both consistent combinations are bit-identical) */
    ctx = open_model("rk3566_multiple_input_demo.v6.rknn", RKNPU_SOC_RK3566, &h);
    if (!ctx)
        return;
    vnpu_set_cvt_bit0(&dev, VNPU_CVT_BIT0_BYPASS);
    write_mid_inputs(ctx, 0);
    clear_output(ctx, "8");
    run_config(ctx, 1, 0);
    read_mid_output(ctx, out_now);
    CHECK(memcmp(out_now, out_rk3588, sizeof out_now) == 0);
    CHECK(rknn_destroy(h) == RKNN_SUCC);
}

/* ---- dual_residual_custom (fp16) ---------------------------------------------- */

/* float32 [1,10,10,3] from a version-1 .npy file. */
static int read_npy(const char *name, float *out)
{
    char path[512];
    size_t n = test_read_file(test_path(path, sizeof path, models_dir, name), npy, sizeof npy);
    size_t hdr;

    if (!CHECK(n > 10 && memcmp(npy, "\x93NUMPY", 6) == 0 && npy[6] == 1))
        return -1;
    hdr = 10u + (size_t)(npy[8] | npy[9] << 8);
    if (!CHECK(strstr((const char *)npy + 10, "<f4") != NULL && n == hdr + 300u * 4u))
        return -1;
    memcpy(out, npy + hdr, 300u * 4u);
    return 0;
}

static void write_dual_inputs(rknn_ctx *ctx, unsigned align)
{
    static const char *names[2] = {"0", "1"};
    uint32_t pitch_px = (10u * 2u + align - 1u) / align * align / 2u;

    for (int k = 0; k < 2; k++) {
        rknn_model_tensor_info ti;
        uint8_t *p = tensor(ctx, names[k], &ti);
        if (!p)
            return;
        CHECK_EQ_U(ti.size, 10u * pitch_px * 3u * 2u); /* 960 / 720 bytes */
        memset(p, 0, ti.size);
        for (uint32_t y = 0; y < 10; y++)
            for (uint32_t x = 0; x < 10; x++)
                for (uint32_t c = 0; c < 3; c++) {
                    uint16_t hv = to_half(dual_in[k][(y * 10 + x) * 3 + c]);
                    uint8_t *e = p + (y * pitch_px * 3u + x * 3u + c) * 2u;
                    e[0] = (uint8_t)hv;
                    e[1] = (uint8_t)(hv >> 8);
                }
    }
}

static void check_dual_outputs(rknn_ctx *ctx, const char *what)
{
    static const char *names[2] = {"New_input_0", "New_input_1"};
    uint32_t bad = 0, pad_bad = 0;

    for (int k = 0; k < 2; k++) {
        rknn_model_tensor_info ti;
        const uint8_t *p = tensor(ctx, names[k], &ti);
        if (!p)
            return;
        uint32_t c2 = (uint32_t)ti.native_dims[4];
        uint32_t surf = 100u * c2 * 2u;
        uint32_t nsurf = ti.size / surf;
        CHECK(nsurf >= 1);
        for (uint32_t c = 0; c < nsurf * c2; c++)
            for (uint32_t i = 0; i < 100; i++) {
                const uint8_t *e = p + (c / c2) * surf + (i * c2 + c % c2) * 2u;
                uint16_t got = (uint16_t)(e[0] | e[1] << 8);
                if (c < 3)
                    bad += got != to_half(dual_in[k][i * 3 + c]);
                else if (c < c2)         /* the padded lanes of the surface the DPU writes; */
                    pad_bad += got != 0; /* the next surface is not written */
            }
    }
    printf("  %-24s fp16 identity convs: %lu mismatches, %lu non-zero padded channels\n", what,
           (unsigned long)bad, (unsigned long)pad_bad);
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(pad_bad, 0);
}

static void test_dual(const char *file, rknpu_soc_id soc, unsigned align, uint32_t max_cores)
{
    rknn_context h = 0;
    rknn_ctx *ctx = open_model(file, soc, &h);

    if (!ctx)
        return;
    write_dual_inputs(ctx, align);
    for (uint32_t n = 1; n <= max_cores; n++) {
        clear_output(ctx, "New_input_0");
        clear_output(ctx, "New_input_1");
        run_config(ctx, n, 0);
        char what[48];
        snprintf(what, sizeof what, "%s %lu-core", soc == RKNPU_SOC_RK3588 ? "RK3588" : "RK3566",
                 (unsigned long)n);
        check_dual_outputs(ctx, what);
    }
    CHECK(rknn_destroy(h) == RKNN_SUCC);
}

int main(int argc, char **argv)
{
    char path[512];
    int skip;

    models_dir = test_models_dir(argc, argv);
    skip = test_require_models(models_dir, "rk3588_multiple_input_demo.v6.rknn");
    if (skip)
        return skip;
    if (!CHECK(test_read_file(
                   test_path(path, sizeof path, models_dir, "multiple_input_demo/input1.bin"), in1,
                   sizeof in1) == sizeof in1) ||
        !CHECK(test_read_file(
                   test_path(path, sizeof path, models_dir, "multiple_input_demo/input2.bin"), in2,
                   sizeof in2) == sizeof in2))
        return test_report("vnpu_vendor");
    if (argc >= 3) {
        /* the reference file is mandatory when given: a broken generator fails */
        have_ref = CHECK(test_read_file(argv[argc - 2], (uint8_t *)ref, sizeof ref) == sizeof ref);
    } else {
        printf("NOTE: no ONNX reference file given; float comparison skipped\n");
    }
    test_mid_rk3588();
    test_mid_rk3566();
    if (read_npy("dual_residual_custom/input_0_nhwc.npy", dual_in[0]) == 0 &&
        read_npy("dual_residual_custom/input_1_nhwc.npy", dual_in[1]) == 0) {
        test_dual("rk3588_dual_residual_custom.v6.rknn", RKNPU_SOC_RK3588, 16, 3);
        test_dual("rk3566_dual_residual_custom.v6.rknn", RKNPU_SOC_RK3566, 8, 1);
    }
    return test_report("vnpu_vendor");
}
