/*
 * test_vnpu_dpu_out - where a convolution's DPU writes its output when the
 * streams program more than one surface per pixel line (vnpu.md §7): the
 * register forms of Rockchip's matmul API (librknnrt 1.6.0) on RK3566 and
 * RK3588, as 1x1 convolutions of M pixels, K channels and N kernels:
 *  - RK3566 32-bit C in 16-byte pixels: SIZE_E 1 (fp16 -> fp32) or 3
 *    (int8 -> int32), DST_SURF_STRIDE M x 16, C native (N/4, M, 4);
 *  - row-major C through the line notch: a cube of one pixel per line,
 *    DST_SURF_STRIDE 16 and NOTCH_ADDR_0/1 = the rest of an N-channel row in
 *    atoms (RK3566: 8-byte atoms after a 16-byte pixel; RK3588: 16-byte);
 *  - RK3566 one-row C with NONALIGN (SURF_LEN x 8 = the row's bytes);
 *  - the earlier RK3566 form (8-byte pixels, SIZE_E 3 / 7) still works.
 * Each result is compared with a plain C product (exact int64 sums; fp16
 * values on a 1/8 grid, so every fp32 sum is exact) at the byte offsets the
 * layout names, and the bytes around the output must stay untouched. Then
 * the programming the model still refuses.
 *
 * Register values come from the builder (vnpu_test_asm.h) and the regs.def
 * packers; operands are laid out here from vnpu.md §5.2 and §6.
 */
#include <stdio.h>
#include <string.h>

#include "npu_regs.h"
#include "npu_soc.h"
#include "test_util.h"
#include "vnpu.h"
#include "vnpu_test_asm.h"

#define ARENA_BYTES (1u << 20)
#define ARENA_BASE  0x20000000u
#define MAX_M       64u
#define MAX_K       256u
#define MAX_N       128u
#define GUARD       64u
#define SENTINEL    0xA5u

static _Alignas(64) uint8_t arena[ARENA_BYTES];
static vnpu_device dev;
static tasm_mem mem;
static tasm_task tasks[1];
static const npu_soc_profile *soc;

static int32_t a_val[MAX_M][MAX_K]; /* int8 values, or eighths for fp16 */
static int32_t b_val[MAX_N][MAX_K];

static void setup(rknpu_soc_id id)
{
    soc = tasm_setup(&dev, &mem, arena, ARENA_BASE, ARENA_BYTES, id);
    CHECK(soc != NULL);
}

static int rk356x(void)
{
    return soc->id == RKNPU_SOC_RK3566 || soc->id == RKNPU_SOC_RK3568;
}

/* fp16 bits of e/8 for |e| <= 16 (exact: a normal number) */
static uint16_t eighths_to_f16(int32_t e)
{
    uint32_t mag = (uint32_t)(e < 0 ? -e : e), top = 0;

    if (mag == 0)
        return 0;
    while ((mag >> (top + 1u)) != 0)
        top++;
    return (uint16_t)((e < 0 ? 0x8000u : 0u) | (top - 3u + 15u) << 10 |
                      ((mag << (10u - top)) & 0x3FFu));
}

static uint32_t ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The layouts a case's C is written in. */
enum c_form {
    C_NATIVE,     /* vendor RK3566: 16-byte pixels, (N/4, M, 4) */
    C_ROWS,       /* vendor: one pixel a line, the notch makes a row of N */
    C_ONE_ROW,    /* vendor RK3566, M = 1: NONALIGN, SURF_LEN the row's bytes */
    C_EIGHT_BYTE, /* the model's earlier RK3566 reading: (N/2, M, 2) */
};

typedef struct {
    const char *name;
    rknpu_soc_id soc;
    int fp16;
    uint32_t m, k, n;
    enum c_form form;
} mm_case;

typedef struct {
    tasm_conv c;
    uint32_t elem, out_bytes, out_area;
    uint32_t pix;  /* bytes of one output pixel in one surface */
    uint32_t surf; /* DST_SURF_STRIDE */
    uint32_t size_e, notch, fm;
} mm_prog;

/* A (M pixels, K channels) as NC1HWC2 and B (N kernels of K) in the native
 * 1x1 weight order [group][slice][kernel in group][channel in slice]. */
static void pack_operands(const mm_case *mc, mm_prog *p, uint32_t win, uint32_t hin)
{
    uint32_t atom = soc->feature_atom_bytes, e = p->elem, c2 = atom / e;
    uint32_t kgroup = mc->fp16 ? (rk356x() ? 8u : 16u) : (rk356x() ? 16u : 32u);
    uint32_t slice = rk356x() && mc->fp16 ? 16u : 32u;
    uint32_t nslice = mc->k / slice;
    uint8_t *a, *w;

    p->c.in_addr = tasm_alloc(&mem, mc->k / c2 * mc->m * atom, 64);
    p->c.w_addr = tasm_alloc(&mem, mc->n * mc->k * e, 64);
    a = tasm_host(&mem, p->c.in_addr);
    w = tasm_host(&mem, p->c.w_addr);
    for (uint32_t m = 0; m < mc->m; m++)
        for (uint32_t k = 0; k < mc->k; k++) {
            uint8_t *d = a + (k / c2) * win * hin * atom + m * atom + (k % c2) * e;
            if (mc->fp16) {
                uint16_t h = eighths_to_f16(a_val[m][k]);
                d[0] = (uint8_t)h;
                d[1] = (uint8_t)(h >> 8);
            } else {
                d[0] = (uint8_t)a_val[m][k];
            }
        }
    for (uint32_t n = 0; n < mc->n; n++)
        for (uint32_t k = 0; k < mc->k; k++) {
            uint32_t at =
                (((n / kgroup) * nslice + k / slice) * kgroup + n % kgroup) * slice + k % slice;
            if (mc->fp16) {
                uint16_t h = eighths_to_f16(b_val[n][k]);
                w[2 * at] = (uint8_t)h;
                w[2 * at + 1] = (uint8_t)(h >> 8);
            } else {
                w[at] = (uint8_t)b_val[n][k];
            }
        }
}

/* The task as the vendor writes it (mm_prog's registers over the builder's). */
static void build_task(const mm_prog *p)
{
    tasm_conv_task(&tasks[0], soc, &p->c);
    tasm_reg(&tasks[0], NPU_DPU_BS_OW_CFG,
             NPU_DPU_BS_OW_CFG_OD_BYPASS(1) | NPU_DPU_BS_OW_CFG_SIZE_E_0(p->size_e) |
                 NPU_DPU_BS_OW_CFG_SIZE_E_1(p->size_e) | NPU_DPU_BS_OW_CFG_SIZE_E_2(p->size_e));
    tasm_reg(&tasks[0], NPU_DPU_DST_SURF_STRIDE, p->surf);
    tasm_reg(&tasks[0], NPU_DPU_SURFACE_ADD, p->surf * (p->size_e + 1u));
    tasm_reg(&tasks[0], NPU_DPU_DATA_CUBE_NOTCH_ADDR,
             NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_0(p->notch) |
                 NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_1(p->notch));
    if (p->fm)
        tasm_reg(&tasks[0], NPU_DPU_FEATURE_MODE_CFG, p->fm);
}

/* Registers of a case in its form; the output area (with guards) filled
 * with SENTINEL. */
static void program(const mm_case *mc, mm_prog *p)
{
    uint32_t atom = soc->feature_atom_bytes;
    uint32_t kgroup = mc->fp16 ? (rk356x() ? 8u : 16u) : (rk356x() ? 16u : 32u);
    int rows = mc->form == C_ROWS;
    uint32_t win = rows ? 1u : mc->m, hin = rows ? mc->m : 1u;

    memset(p, 0, sizeof *p);
    tasm_conv_defaults(&p->c);
    p->elem = mc->fp16 ? 2u : 1u;
    p->c.fp16 = mc->fp16;
    p->c.win = p->c.wout = win;
    p->c.hin = p->c.hout = hin;
    p->c.cin = p->c.cin_real = mc->k;
    p->c.nker = p->c.kout = mc->n;
    p->c.kh = p->c.kw = 1;
    p->c.out_prec = mc->fp16 ? 5u : 4u;
    p->out_bytes = mc->m * mc->n * 4u;
    pack_operands(mc, p, win, hin);
    /* 16-byte pixels (4 channels), except the earlier 8-byte form */
    p->pix = mc->form == C_EIGHT_BYTE ? atom : 16u;
    p->size_e = kgroup * 4u / p->pix - 1u;
    switch (mc->form) {
    case C_NATIVE:
    case C_EIGHT_BYTE: p->surf = mc->m * p->pix; break;
    case C_ROWS:
        p->surf = p->pix;
        p->notch = (mc->n * 4u - p->pix) / atom;
        break;
    case C_ONE_ROW:
        p->surf = p->pix;
        p->fm = NPU_DPU_FEATURE_MODE_CFG_CONV_MODE(1) | NPU_DPU_FEATURE_MODE_CFG_BURST_LEN(8) |
                NPU_DPU_FEATURE_MODE_CFG_SURF_LEN(p->out_bytes / 8u) |
                NPU_DPU_FEATURE_MODE_CFG_NONALIGN(1);
        break;
    }
    p->out_area = tasm_alloc(&mem, p->out_bytes + 2u * GUARD, 64);
    p->c.out_addr = p->out_area + GUARD;
    p->c.out_surf = p->surf;
    memset(tasm_host(&mem, p->out_area), SENTINEL, p->out_bytes + 2u * GUARD);
}

/* Byte offset of C[m][n] in the case's form. */
static uint32_t c_offset(const mm_case *mc, const mm_prog *p, uint32_t m, uint32_t n)
{
    uint32_t c2 = p->pix / 4u;

    if (mc->form == C_ROWS || mc->form == C_ONE_ROW)
        return (m * mc->n + n) * 4u;
    return (n / c2) * p->surf + m * p->pix + (n % c2) * 4u;
}

static void run_case(const mm_case *mc)
{
    mm_prog p;
    uint32_t bad = 0, touched = 0;
    const uint8_t *out;

    setup(mc->soc);
    for (uint32_t m = 0; m < mc->m; m++)
        for (uint32_t k = 0; k < mc->k; k++)
            a_val[m][k] = mc->fp16 ? rnd_range(-16, 15) : rnd_range(-128, 127);
    for (uint32_t n = 0; n < mc->n; n++)
        for (uint32_t k = 0; k < mc->k; k++)
            b_val[n][k] = mc->fp16 ? rnd_range(-16, 15) : rnd_range(-128, 127);
    program(mc, &p);
    build_task(&p);
    if (!CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0)) {
        printf("  %s: %s\n", mc->name, vnpu_last_error(&dev, 0));
        return;
    }
    out = tasm_host(&mem, p.c.out_addr);
    for (uint32_t m = 0; m < mc->m; m++)
        for (uint32_t n = 0; n < mc->n; n++) {
            int64_t sum = 0;
            uint32_t got = ld32(out + c_offset(mc, &p, m, n));
            for (uint32_t k = 0; k < mc->k; k++)
                sum += (int64_t)a_val[m][k] * b_val[n][k];
            if (mc->fp16) {
                float want = (float)sum / 64.0f, f;
                memcpy(&f, &got, 4);
                bad += f != want;
            } else {
                bad += (int32_t)got != sum;
            }
        }
    /* every output byte is C; nothing around it changed */
    for (uint32_t i = 0; i < GUARD; i++)
        touched += (out[-1 - (int32_t)i] != SENTINEL) + (out[p.out_bytes + i] != SENTINEL);
    if (!CHECK_EQ_U(bad, 0) || !CHECK_EQ_U(touched, 0))
        printf("  case %s\n", mc->name);
}

static const mm_case cases[] = {
    {"rk3566 fp16 native 4x64x64", RKNPU_SOC_RK3566, 1, 4, 64, 64, C_NATIVE},
    {"rk3566 int8 native 17x96x128", RKNPU_SOC_RK3566, 0, 17, 96, 128, C_NATIVE},
    {"rk3566 fp16 native 64x256x64", RKNPU_SOC_RK3566, 1, 64, 256, 64, C_NATIVE},
    {"rk3566 fp16 rows 4x64x64", RKNPU_SOC_RK3566, 1, 4, 64, 64, C_ROWS},
    {"rk3566 int8 rows 17x96x128", RKNPU_SOC_RK3566, 0, 17, 96, 128, C_ROWS},
    {"rk3566 int8 rows 64x256x64", RKNPU_SOC_RK3566, 0, 64, 256, 64, C_ROWS},
    {"rk3588 fp16 rows 4x64x64", RKNPU_SOC_RK3588, 1, 4, 64, 64, C_ROWS},
    {"rk3588 int8 rows 17x96x128", RKNPU_SOC_RK3588, 0, 17, 96, 128, C_ROWS},
    {"rk3566 fp16 one row 1x32x32", RKNPU_SOC_RK3566, 1, 1, 32, 32, C_ONE_ROW},
    {"rk3566 int8 one row 1x32x32", RKNPU_SOC_RK3566, 0, 1, 32, 32, C_ONE_ROW},
    {"rk3566 fp16 8-byte pixels 4x64x64", RKNPU_SOC_RK3566, 1, 4, 64, 64, C_EIGHT_BYTE},
    {"rk3566 int8 8-byte pixels 17x96x128", RKNPU_SOC_RK3566, 0, 17, 96, 128, C_EIGHT_BYTE},
};

/* ---- what the model still refuses ------------------------------------------------ */

/* The case's program with `reg` (and `reg2`, if not 0) changed: refused,
 * naming `what`. */
static void expect_refused(const mm_case *mc, uint32_t reg, uint32_t value, uint32_t reg2,
                           uint32_t value2, const char *what)
{
    mm_prog p;

    setup(mc->soc);
    program(mc, &p);
    build_task(&p);
    tasm_reg(&tasks[0], reg, value);
    if (reg2)
        tasm_reg(&tasks[0], reg2, value2);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), -1);
    if (!CHECK(strstr(vnpu_last_error(&dev, 0), what) != NULL))
        printf("  %s: expected '%s' in: %s\n", mc->name, what, vnpu_last_error(&dev, 0));
}

static uint32_t size_e(uint32_t v)
{
    return NPU_DPU_BS_OW_CFG_OD_BYPASS(1) | NPU_DPU_BS_OW_CFG_SIZE_E_0(v) |
           NPU_DPU_BS_OW_CFG_SIZE_E_1(v) | NPU_DPU_BS_OW_CFG_SIZE_E_2(v);
}

static void test_refusals(void)
{
    static const mm_case native = {"native", RKNPU_SOC_RK3566, 0, 4, 64, 64, C_NATIVE};
    static const mm_case rows = {"rows", RKNPU_SOC_RK3566, 0, 4, 64, 64, C_ROWS};
    static const mm_case rows3588 = {"rows 3588", RKNPU_SOC_RK3588, 1, 4, 64, 64, C_ROWS};
    static const mm_case one = {"one row", RKNPU_SOC_RK3566, 1, 1, 32, 32, C_ONE_ROW};
    static const mm_case fp16_out = {"int8 -> fp16", RKNPU_SOC_RK3566, 0, 4, 64, 64, C_NATIVE};
    uint32_t one_fm = NPU_DPU_FEATURE_MODE_CFG_CONV_MODE(1) |
                      NPU_DPU_FEATURE_MODE_CFG_BURST_LEN(8) | NPU_DPU_FEATURE_MODE_CFG_NONALIGN(1);
    tasm_conv c;
    uint32_t src;

    /* SIZE_E: 32-byte pieces; fields that differ; RK3588 (atoms only); 16-byte
     * pieces of a 16-bit output (only 32-bit outputs were seen so) */
    expect_refused(&native, NPU_DPU_BS_OW_CFG, size_e(1), 0, 0, "SIZE_E");
    expect_refused(&native, NPU_DPU_BS_OW_CFG,
                   NPU_DPU_BS_OW_CFG_OD_BYPASS(1) | NPU_DPU_BS_OW_CFG_SIZE_E_0(3) |
                       NPU_DPU_BS_OW_CFG_SIZE_E_1(3) | NPU_DPU_BS_OW_CFG_SIZE_E_2(1),
                   0, 0, "SIZE_E");
    expect_refused(&rows3588, NPU_DPU_BS_OW_CFG, size_e(1), 0, 0, "SIZE_E");
    expect_refused(&fp16_out, NPU_DPU_DATA_FORMAT, NPU_DPU_DATA_FORMAT_OUT_PRECISION(2),
                   NPU_DPU_BS_OW_CFG, size_e(1), "SIZE_E");
    /* SURFACE_ADD must stay DST_SURF_STRIDE x (SIZE_E + 1) */
    expect_refused(&native, NPU_DPU_SURFACE_ADD, 4u * 16u * 2u, 0, 0, "SURFACE_ADD");
    /* the notch: fields that differ, 16-byte pixels in wider lines, surfaces
     * that do not fit side by side (16 of 16 bytes in a 176-byte line) */
    expect_refused(&rows, NPU_DPU_DATA_CUBE_NOTCH_ADDR,
                   NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_0(30) |
                       NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_1(29),
                   0, 0, "NOTCH_ADDR_1");
    expect_refused(&native, NPU_DPU_DATA_CUBE_NOTCH_ADDR,
                   NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_0(2) |
                       NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_1(2),
                   0, 0, "line notch");
    expect_refused(&rows, NPU_DPU_DATA_CUBE_NOTCH_ADDR,
                   NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_0(20) |
                       NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_1(20),
                   0, 0, "surface stride");
    /* NONALIGN after a convolution: more than one pixel, a surface stride
     * other than one pixel, a SURF_LEN other than the pixel's bytes */
    expect_refused(&native, NPU_DPU_FEATURE_MODE_CFG,
                   one_fm | NPU_DPU_FEATURE_MODE_CFG_SURF_LEN(4 * 64 * 4 / 8), 0, 0,
                   "more than one pixel");
    expect_refused(&one, NPU_DPU_DST_SURF_STRIDE, 128, NPU_DPU_SURFACE_ADD, 256, "NONALIGN");
    expect_refused(&one, NPU_DPU_FEATURE_MODE_CFG, one_fm | NPU_DPU_FEATURE_MODE_CFG_SURF_LEN(8), 0,
                   0, "NONALIGN");
    /* a notch in a flying task */
    setup(RKNPU_SOC_RK3566);
    src = tasm_alloc(&mem, 4 * 8, 64);
    tasm_conv_defaults(&c);
    c.out_prec = 2;
    c.oc_scale = 0x10001; /* FP32TOFP16 */
    c.out_surf = 4 * 8;
    c.out_addr = tasm_alloc(&mem, 4096, 64);
    tasm_flying_task(&tasks[0], soc, 2, 4, 1, 4, src, &c, 0);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), 0);
    tasm_reg(&tasks[0], NPU_DPU_DATA_CUBE_NOTCH_ADDR,
             NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_0(4) |
                 NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_1(4));
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), -1);
    CHECK(strstr(vnpu_last_error(&dev, 0), "flying") != NULL);
}

int main(void)
{
    tasm_seed(0x13579BDFu);
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    test_refusals();
    return test_report("vnpu_dpu_out");
}
