/*
 * test_vnpu_matmul - the virtual NPU on the programming of Rockchip's matmul
 * API (librknnrt 1.6.0), register by register as its RK3588 submissions
 * write it (vnpu.md §5.2, §6.3):
 *  - int4 x int4 -> int16: two elements a byte, the even one in the high
 *    nibble, 32-channel atoms, 64-kernel weight groups, SIZE_E 7;
 *  - native A and C (AC_layout 1): A as one row of M pixels whose surfaces
 *    are align(M, 4) pixels apart (M = 1: 1), so SURF_STRIDE = that pitch -
 *    LINE_STRIDE is negative (M = 17: -48), and C written at the same pitch;
 *  - int4 with normal A and C: one task per row, a one-pixel cube with
 *    SURF_STRIDE -3 (0x0FFFFFFD), the row's atoms one after the other;
 *  - normal (row-major) A read as a column of M one-pixel lines:
 *    GROUP_LINE_OFF with SURF_STRIDE 0 (RK3588), plain strides LINE = a row,
 *    SURF = one atom (RK3566): the surfaces lie inside the lines;
 *  - native A tiled along M (RK3588): a task a tile of W rows, one line with
 *    GROUP_LINE_OFF, LINE_STRIDE = M and SURF_STRIDE = pitch - W;
 *  - weights beyond the model's weight scratch (fp16 up to 1M elements in
 *    the vendor's tasks), which it takes in parts of kernels.
 * Each C is checked against A x B computed here, and the bytes between the
 * surfaces must stay untouched. Then the programming the model refuses.
 *
 * Shares no code with the model; register values come from the regs.def
 * packers, the RK3566 task from the builder (vnpu_test_asm.h).
 */
#include <stdio.h>
#include <string.h>

#include "npu_regs.h"
#include "npu_soc.h"
#include "test_util.h"
#include "vnpu.h"
#include "vnpu_test_asm.h"

#define ARENA_BYTES (2u << 20)
#define ARENA_BASE  0x20000000u
#define MAX_M       72u
#define MAX_K       1088u /* the weight-part tests: over 1 MiB of weights */
#define MAX_N       1024u
#define SENTINEL    0xA5u

static _Alignas(64) uint8_t arena[ARENA_BYTES];
static vnpu_device dev;
static tasm_mem mem;
static tasm_task tasks[16];
static const npu_soc_profile *soc;

static void setup(rknpu_soc_id id)
{
    soc = tasm_setup(&dev, &mem, arena, ARENA_BASE, ARENA_BYTES, id);
    CHECK(soc != NULL);
}

/* ---- operands ----------------------------------------------------------------- */

enum mm_type { MM_INT8, MM_FP16, MM_INT4 };

/* CNA/DPU precision codes (hardware.md §4.5), element bits, and the output. */
static const struct {
    const char *name;
    unsigned prec, bits, kgroup; /* kgroup: kernels per weight group */
    unsigned out_prec, out_bytes;
} types[] = {
    [MM_INT8] = {"int8", 0, 8, 32, 4, 4},
    [MM_FP16] = {"fp16", 2, 16, 16, 5, 4},
    [MM_INT4] = {"int4", 6, 4, 64, 1, 2},
};

static int8_t A[MAX_M * MAX_K]; /* [m][k]: integers, or q for the fp16 value q / 64 */
static int8_t B[MAX_K * MAX_N]; /* [k][n] */

/* fp16 bits of q / 64 (|q| <= 128: exact, normal). */
static uint16_t half_of(int32_t q)
{
    uint32_t mag = (uint32_t)(q < 0 ? -q : q), e = 0;

    if (mag == 0)
        return 0;
    while (mag >> (e + 1u))
        e++;
    return (uint16_t)((q < 0 ? 0x8000u : 0u) | (e - 6u + 15u) << 10 |
                      ((mag << (10u - e)) & 0x3FFu));
}

/* Store element `lane` of the 16-byte atom at p: int4 two a byte with the
 * even lane in the high nibble (vnpu.md §6.3). */
static void put_elem(uint8_t *p, enum mm_type ty, uint32_t lane, int32_t v)
{
    if (ty == MM_INT4) {
        uint8_t nib = (uint8_t)((uint32_t)v & 15u);
        p[lane / 2u] = lane % 2u ? (uint8_t)((p[lane / 2u] & 0xF0u) | nib)
                                 : (uint8_t)((p[lane / 2u] & 0x0Fu) | nib << 4);
    } else if (ty == MM_INT8) {
        p[lane] = (uint8_t)v;
    } else {
        uint16_t h = half_of(v);
        p[2u * lane] = (uint8_t)h;
        p[2u * lane + 1u] = (uint8_t)(h >> 8);
    }
}

static void fill_operands(enum mm_type ty, uint32_t m, uint32_t k, uint32_t n)
{
    int32_t lo = ty == MM_INT4 ? -8 : -128, hi = ty == MM_INT4 ? 7 : 127;

    /* fp16 sums stay exact in fp32 (multiples of 2^-12 below 2^12) for
     * K > 256 only with |q| <= 64 */
    if (ty == MM_FP16 && k > 256u) {
        lo = -64;
        hi = 64;
    }
    for (uint32_t i = 0; i < m * k; i++)
        A[i] = (int8_t)rnd_range(lo, hi);
    for (uint32_t i = 0; i < k * n; i++)
        B[i] = (int8_t)rnd_range(lo, hi);
}

/* B in the weight layout [N/g][K/32][g][32] (hardware.md §4.3). */
static uint32_t place_b(enum mm_type ty, uint32_t k, uint32_t n)
{
    uint32_t g = types[ty].kgroup, bytes = k * n * types[ty].bits / 8u;
    uint32_t addr = tasm_alloc(&mem, bytes, 64);
    uint8_t *h = tasm_host(&mem, addr);

    for (uint32_t kk = 0; kk < k; kk++)
        for (uint32_t nn = 0; nn < n; nn++) {
            uint32_t e = (((nn / g) * (k / 32u) + kk / 32u) * g + nn % g) * 32u + kk % 32u;
            /* 32 elements of a row are 128 bits for int4: a lane of 16 bytes */
            uint32_t per_atom = 128u / types[ty].bits;
            put_elem(h + (size_t)(e / per_atom) * 16u, ty, e % per_atom, B[kk * n + nn]);
        }
    return addr;
}

/* A: element (m, k) in atom ((k / c2) * surf + m * line) of a block of
 * `bytes` filled with the sentinel first (the gaps must not matter). */
static uint32_t place_a(enum mm_type ty, uint32_t m, uint32_t k, uint32_t surf, uint32_t line,
                        uint32_t bytes)
{
    uint32_t c2 = 128u / types[ty].bits, addr = tasm_alloc(&mem, bytes, 64);
    uint8_t *h = tasm_host(&mem, addr);

    memset(h, SENTINEL, bytes);
    for (uint32_t mm = 0; mm < m; mm++)
        for (uint32_t kk = 0; kk < k; kk += c2) {
            uint8_t *at = h + (size_t)((kk / c2) * surf + mm * line) * 16u;
            memset(at, 0, 16);
            for (uint32_t l = 0; l < c2; l++)
                put_elem(at, ty, l, A[mm * k + kk + l]);
        }
    return addr;
}

/* C element (m, n) read at `off` bytes; the reference sum. */
static double c_got(enum mm_type ty, const uint8_t *p)
{
    if (ty == MM_INT4)
        return (int16_t)(uint16_t)(p[0] | p[1] << 8);
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    if (ty == MM_INT8)
        return (int32_t)u;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static double c_ref(enum mm_type ty, uint32_t m, uint32_t k, uint32_t n, uint32_t mm, uint32_t nn)
{
    double s = 0; /* fp16 values are q / 64: every sum here is exact */

    for (uint32_t kk = 0; kk < k; kk++)
        s += (double)A[mm * k + kk] * B[kk * n + nn];
    (void)m;
    return ty == MM_FP16 ? s / 4096.0 : s;
}

/* Compare C, element (m, n) at byte ((n / c2o) * surf + m * line) * 16 +
 * (n % c2o) * out_bytes; every byte of `bytes` outside them must still be
 * the sentinel. Returns the elements off. */
static uint32_t check_c(enum mm_type ty, uint32_t m, uint32_t k, uint32_t n, uint32_t c_addr,
                        uint32_t surf, uint32_t line, uint32_t bytes, const char *what)
{
    static uint8_t touched[MAX_M * MAX_N * 4u + 4096u];
    uint32_t ob = types[ty].out_bytes, c2o = 16u / ob, bad = 0, stray = 0;
    const uint8_t *h = tasm_host(&mem, c_addr);

    memset(touched, 0, bytes);
    for (uint32_t mm = 0; mm < m; mm++)
        for (uint32_t nn = 0; nn < n; nn++) {
            size_t o = (size_t)((nn / c2o) * surf + mm * line) * 16u + (nn % c2o) * ob;
            double got = c_got(ty, h + o), want = c_ref(ty, m, k, n, mm, nn);
            memset(touched + o, 1, ob);
            if (got != want && bad++ < 3)
                printf("  %s: C[%lu][%lu] = %g, want %g\n", what, (unsigned long)mm,
                       (unsigned long)nn, got, want);
        }
    for (uint32_t i = 0; i < bytes; i++)
        stray += !touched[i] && h[i] != SENTINEL;
    if (stray)
        printf("  %s: %lu bytes written outside C's elements\n", what, (unsigned long)stray);
    return bad + stray;
}

/* ---- the vendor's task ---------------------------------------------------------- */

/* One 1x1 convolution as librknnrt 1.6.0 writes its matmul task on RK3588:
 * input w x h pixels of k channels (line, surf: DMA_CON1/2, glo:
 * GROUP_LINE_OFF), n kernels, output w x h at DST_SURF_STRIDE dst_atoms. */
typedef struct {
    enum mm_type ty;
    uint32_t w, h, k, n;
    uint32_t line;
    int32_t surf;
    int glo;
    uint32_t a, b, c, dst_atoms;
} mm_task;

static void vendor_task(tasm_task *t, const mm_task *p)
{
    unsigned prec = types[p->ty].prec, bits = types[p->ty].bits;
    unsigned surfaces = types[p->ty].kgroup * types[p->ty].out_bytes / 16u; /* SIZE_E + 1 */
    uint32_t row_bytes = p->k * bits / 8u, pix = p->w * p->h;
    /* a line's bytes, each pixel's rounded up to 32, in 64-byte entries;
     * the data banks hold every line, the weights get the rest */
    uint32_t entries = (p->w * ((row_bytes + 31u) / 32u) * 32u + 63u) / 64u;
    uint32_t data_banks = (p->h * entries * 64u + soc->cbuf_bank_bytes - 1u) / soc->cbuf_bank_bytes;

    tasm_task_init(t, soc, NPU_UNIT_CNA | NPU_UNIT_CORE | NPU_UNIT_DPU, 0x300);
    tasm_reg(t, NPU_DPU_S_POINTER, NPU_S_POINTER_PP_ARM);
    tasm_reg(t, NPU_CNA_CONV_CON1,
             NPU_CNA_CONV_CON1_IN_PRECISION(prec) | NPU_CNA_CONV_CON1_PROC_PRECISION(prec) |
                 NPU_CNA_CONV_CON1_GROUP_LINE_OFF(p->glo ? 1u : 0u));
    tasm_reg(t, NPU_CNA_CONV_CON2, NPU_CNA_CONV_CON2_FEATURE_GRAINS(p->h + 1u));
    tasm_reg(t, NPU_CNA_CONV_CON3,
             NPU_CNA_CONV_CON3_CONV_X_STRIDE(1) | NPU_CNA_CONV_CON3_CONV_Y_STRIDE(1));
    tasm_reg(t, NPU_CNA_DATA_SIZE0,
             NPU_CNA_DATA_SIZE0_DATAIN_WIDTH(p->w) | NPU_CNA_DATA_SIZE0_DATAIN_HEIGHT(p->h));
    tasm_reg(t, NPU_CNA_DATA_SIZE1,
             NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL_REAL(p->k - 1u) |
                 NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL(p->k));
    tasm_reg(t, NPU_CNA_DATA_SIZE2, NPU_CNA_DATA_SIZE2_DATAOUT_WIDTH(p->w));
    tasm_reg(t, NPU_CNA_DATA_SIZE3, NPU_CNA_DATA_SIZE3_DATAOUT_ATOMICS(pix));
    tasm_reg(t, NPU_CNA_WEIGHT_SIZE0, NPU_CNA_WEIGHT_SIZE0_WEIGHT_BYTES(row_bytes * p->n));
    tasm_reg(t, NPU_CNA_WEIGHT_SIZE1, NPU_CNA_WEIGHT_SIZE1_WEIGHT_BYTES_PER_KERNEL(row_bytes));
    tasm_reg(t, NPU_CNA_WEIGHT_SIZE2,
             NPU_CNA_WEIGHT_SIZE2_WEIGHT_WIDTH(1) | NPU_CNA_WEIGHT_SIZE2_WEIGHT_HEIGHT(1) |
                 NPU_CNA_WEIGHT_SIZE2_WEIGHT_KERNELS(p->n));
    tasm_reg(t, NPU_CNA_CBUF_CON0,
             NPU_CNA_CBUF_CON0_WEIGHT_BANK(soc->cbuf_banks - data_banks) |
                 NPU_CNA_CBUF_CON0_DATA_BANK(data_banks));
    tasm_reg(t, NPU_CNA_CBUF_CON1, NPU_CNA_CBUF_CON1_DATA_ENTRIES(entries));
    tasm_reg(t, NPU_CNA_CVT_CON0,
             NPU_CNA_CVT_CON0_DATA_SIGN(1) | NPU_CNA_CVT_CON0_CVT_TYPE(1) |
                 NPU_CNA_CVT_CON0_CVT_BYPASS(1));
    for (unsigned i = 0; i < 4; i++)
        tasm_reg(t, NPU_CNA_CVT_CON1 + 4u * i, NPU_CNA_CVT_CON1_CVT_SCALE0(1));
    tasm_reg(t, NPU_CNA_PAD_CON0, 0);
    tasm_reg(t, NPU_CNA_FEATURE_DATA_ADDR, p->a);
    tasm_reg(t, NPU_CNA_DMA_CON0,
             NPU_CNA_DMA_CON0_WEIGHT_BURST_LEN(15) | NPU_CNA_DMA_CON0_DATA_BURST_LEN(15));
    tasm_reg(t, NPU_CNA_DMA_CON1, NPU_CNA_DMA_CON1_LINE_STRIDE(p->line));
    tasm_reg(t, NPU_CNA_DMA_CON2, NPU_CNA_DMA_CON2_SURF_STRIDE((uint32_t)p->surf));
    tasm_reg(t, NPU_CNA_FC_DATA_SIZE0,
             NPU_CNA_FC_DATA_SIZE0_DMA_WIDTH(p->w) | NPU_CNA_FC_DATA_SIZE0_DMA_HEIGHT(p->h));
    tasm_reg(t, NPU_CNA_FC_DATA_SIZE1, NPU_CNA_FC_DATA_SIZE1_DMA_CHANNEL(p->k));
    tasm_reg(t, NPU_CNA_DCOMP_CTRL, 0);
    tasm_reg(t, NPU_CNA_DCOMP_ADDR0, p->b);
    tasm_reg(t, NPU_CORE_MISC_CFG,
             NPU_CORE_MISC_CFG_PROC_PRECISION(prec) | NPU_CORE_MISC_CFG_QD_EN(1));
    tasm_reg(t, NPU_CORE_DATAOUT_SIZE_0,
             NPU_CORE_DATAOUT_SIZE_0_DATAOUT_HEIGHT(p->h - 1u) |
                 NPU_CORE_DATAOUT_SIZE_0_DATAOUT_WIDTH(p->w - 1u));
    tasm_reg(t, NPU_CORE_DATAOUT_SIZE_1, NPU_CORE_DATAOUT_SIZE_1_DATAOUT_CHANNEL(p->n - 1u));
    tasm_reg(t, NPU_DPU_FEATURE_MODE_CFG,
             NPU_DPU_FEATURE_MODE_CFG_BURST_LEN(15) | NPU_DPU_FEATURE_MODE_CFG_OUTPUT_MODE(2));
    tasm_reg(t, NPU_DPU_DATA_FORMAT,
             NPU_DPU_DATA_FORMAT_OUT_PRECISION(types[p->ty].out_prec) |
                 NPU_DPU_DATA_FORMAT_IN_PRECISION(prec) | NPU_DPU_DATA_FORMAT_PROC_PRECISION(prec));
    tasm_reg(t, NPU_DPU_DST_BASE_ADDR, p->c);
    tasm_reg(t, NPU_DPU_DST_SURF_STRIDE, NPU_DPU_DST_SURF_STRIDE_DST_SURF_STRIDE(p->dst_atoms));
    tasm_reg(t, NPU_DPU_DATA_CUBE_WIDTH, NPU_DPU_DATA_CUBE_WIDTH_WIDTH(p->w - 1u));
    tasm_reg(t, NPU_DPU_DATA_CUBE_HEIGHT, NPU_DPU_DATA_CUBE_HEIGHT_HEIGHT(p->h - 1u));
    tasm_reg(t, NPU_DPU_DATA_CUBE_CHANNEL,
             NPU_DPU_DATA_CUBE_CHANNEL_ORIG_CHANNEL(p->n - 1u) |
                 NPU_DPU_DATA_CUBE_CHANNEL_CHANNEL(p->n - 1u));
    tasm_reg(t, NPU_DPU_BS_CFG,
             NPU_DPU_BS_CFG_BS_RELU_BYPASS(1) | NPU_DPU_BS_CFG_BS_MUL_BYPASS(1) |
                 NPU_DPU_BS_CFG_BS_ALU_BYPASS(1) | NPU_DPU_BS_CFG_BS_BYPASS(1));
    tasm_reg(t, NPU_DPU_BS_OW_CFG,
             NPU_DPU_BS_OW_CFG_SIZE_E_2(surfaces - 1u) | NPU_DPU_BS_OW_CFG_SIZE_E_1(surfaces - 1u) |
                 NPU_DPU_BS_OW_CFG_SIZE_E_0(surfaces - 1u) | NPU_DPU_BS_OW_CFG_OD_BYPASS(1));
    tasm_reg(t, NPU_DPU_WDMA_SIZE_0, NPU_DPU_WDMA_SIZE_0_CHANNEL_WDMA(p->n - 1u));
    tasm_reg(t, NPU_DPU_WDMA_SIZE_1,
             NPU_DPU_WDMA_SIZE_1_HEIGHT_WDMA(p->h - 1u) |
                 NPU_DPU_WDMA_SIZE_1_WIDTH_WDMA(p->w - 1u));
    tasm_reg(t, NPU_DPU_BN_CFG,
             NPU_DPU_BN_CFG_BN_RELU_BYPASS(1) | NPU_DPU_BN_CFG_BN_MUL_BYPASS(1) |
                 NPU_DPU_BN_CFG_BN_ALU_BYPASS(1) | NPU_DPU_BN_CFG_BN_BYPASS(1));
    tasm_reg(t, NPU_DPU_EW_CFG,
             NPU_DPU_EW_CFG_EW_RELU_BYPASS(1) | NPU_DPU_EW_CFG_EW_OP_CVT_BYPASS(1) |
                 NPU_DPU_EW_CFG_EW_LUT_BYPASS(1) | NPU_DPU_EW_CFG_EW_OP_BYPASS(1) |
                 NPU_DPU_EW_CFG_EW_BYPASS(1));
    tasm_reg(t, NPU_DPU_EW_CVT_SCALE_VALUE, NPU_DPU_EW_CVT_SCALE_VALUE_EW_OP_CVT_SCALE(1));
    tasm_reg(t, NPU_DPU_OUT_CVT_SCALE, NPU_DPU_OUT_CVT_SCALE_OUT_CVT_SCALE(1));
    tasm_reg(t, NPU_DPU_SURFACE_ADD, NPU_DPU_SURFACE_ADD_SURF_ADD(p->dst_atoms * surfaces));
}

static int run_tasks(unsigned n, const char *what)
{
    int r = tasm_run(&dev, 0, &mem, tasks, n);

    if (r != 0)
        printf("  %s: %s\n", what, vnpu_last_error(&dev, 0));
    return r;
}

/* ---- native A and C (AC_layout 1) ------------------------------------------------ */

/* The surface pitch the vendor programs for M rows: align(M, 4), M = 1: 1. */
static uint32_t native_pitch(uint32_t m)
{
    return m == 1u ? 1u : (m + 3u) / 4u * 4u;
}

static void test_native(enum mm_type ty, uint32_t m, uint32_t k, uint32_t n)
{
    uint32_t pitch = native_pitch(m), c2o = 16u / types[ty].out_bytes;
    uint32_t a_bytes = k / (128u / types[ty].bits) * pitch * 16u, c_bytes = n / c2o * pitch * 16u;
    char what[64];
    mm_task p;

    snprintf(what, sizeof what, "native %s %lux%lux%lu", types[ty].name, (unsigned long)m,
             (unsigned long)k, (unsigned long)n);
    setup(RKNPU_SOC_RK3588);
    fill_operands(ty, m, k, n);
    p = (mm_task){ty, m, 1, k, n, 4u * m, (int32_t)pitch - (int32_t)(4u * m), 0, 0, 0, 0, pitch};
    p.a = place_a(ty, m, k, pitch, 1, a_bytes);
    p.b = place_b(ty, k, n);
    p.c = tasm_alloc(&mem, c_bytes, 64);
    memset(tasm_host(&mem, p.c), SENTINEL, c_bytes);
    vendor_task(&tasks[0], &p);
    if (!CHECK_EQ_U(run_tasks(1, what), 0))
        return;
    if (!CHECK_EQ_U(check_c(ty, m, k, n, p.c, pitch, 1, c_bytes, what), 0))
        printf("  %s failed\n", what);
}

/* Native A and C as the vendor tiles M when a line of M pixels is too much
 * for one task (RK3588, vnpu.md §5.2): tiles of `tile` rows, the last one
 * first, each one line of W pixels at its first row with GROUP_LINE_OFF,
 * LINE_STRIDE = M and SURF_STRIDE = pitch - W (33x4096x256 int8: W 3 and
 * 30, SURF_STRIDE 33 and 6), C at the same pitch. */
static void test_native_tiled(enum mm_type ty, uint32_t m, uint32_t k, uint32_t n, uint32_t tile)
{
    uint32_t pitch = native_pitch(m), c2o = 16u / types[ty].out_bytes, ntask = 0;
    uint32_t a_bytes = k / (128u / types[ty].bits) * pitch * 16u, c_bytes = n / c2o * pitch * 16u;
    uint32_t a, b, c;
    char what[64];

    snprintf(what, sizeof what, "native tiled %s %lux%lux%lu", types[ty].name, (unsigned long)m,
             (unsigned long)k, (unsigned long)n);
    setup(RKNPU_SOC_RK3588);
    fill_operands(ty, m, k, n);
    a = place_a(ty, m, k, pitch, 1, a_bytes);
    b = place_b(ty, k, n);
    c = tasm_alloc(&mem, c_bytes, 64);
    memset(tasm_host(&mem, c), SENTINEL, c_bytes);
    for (uint32_t row = (m - 1u) / tile * tile;; row -= tile) {
        uint32_t w = m - row < tile ? m - row : tile;
        mm_task p = {ty,   w, 1, k, n, m, (int32_t)(pitch - w), 1, a + row * 16u, b, c + row * 16u,
                     pitch};
        vendor_task(&tasks[ntask++], &p);
        if (row == 0)
            break;
    }
    if (CHECK_EQ_U(run_tasks(ntask, what), 0))
        CHECK_EQ_U(check_c(ty, m, k, n, c, pitch, 1, c_bytes, what), 0);
}

/* ---- weights beyond the model's weight scratch ----------------------------------- */

/* Over 1 MiB of weights in one task (the model holds 1 MiB, fp16 as fp32),
 * with row-major A: the model takes the kernels in parts as many as fit,
 * the boundaries inside kernel groups (int8 1088 x 1024: 963 + 61 kernels,
 * groups of 32; fp16 1056 x 512: 248 + 248 + 16, groups of 16), and the
 * output channels leave room for fewer pixels than M in one accumulator
 * chunk (two chunks: every part again for the second). C must equal the
 * product, whatever the parts. */
/* One task over the whole of a row-major A (LINE_STRIDE = a row's atoms,
 * SURF_STRIDE 0: the next surface is the next atom), B in the vendor's
 * native form, C checked against the CPU product. */
static void run_rowmajor_task(enum mm_type ty, uint32_t m, uint32_t k, uint32_t n, const char *what)
{
    uint32_t atoms = k * types[ty].bits / 128u, c2o = 16u / types[ty].out_bytes;
    uint32_t c_bytes = n / c2o * m * 16u;
    mm_task p = {ty, 1, m, k, n, atoms, 0, 1, 0, 0, 0, m};

    p.a = place_a(ty, m, k, 1, atoms, m * atoms * 16u);
    p.b = place_b(ty, k, n);
    p.c = tasm_alloc(&mem, c_bytes, 64);
    memset(tasm_host(&mem, p.c), SENTINEL, c_bytes);
    vendor_task(&tasks[0], &p);
    if (CHECK_EQ_U(run_tasks(1, what), 0))
        CHECK_EQ_U(check_c(ty, m, k, n, p.c, m, 1, c_bytes, what), 0);
}

/* ---- int4 with normal A and C: a task per row ----------------------------------- */

static void test_int4_rows(uint32_t m, uint32_t k, uint32_t n)
{
    uint32_t row = k / 2u, c_row = n * 2u, c_bytes = m * c_row;
    uint32_t a_addr, b_addr, c_addr;

    setup(RKNPU_SOC_RK3588);
    fill_operands(MM_INT4, m, k, n);
    /* row-major A: row mm's atoms one after the other */
    a_addr = place_a(MM_INT4, m, k, 1, k / 32u, m * row);
    b_addr = place_b(MM_INT4, k, n);
    c_addr = tasm_alloc(&mem, c_bytes, 64);
    memset(tasm_host(&mem, c_addr), SENTINEL, c_bytes);
    for (uint32_t mm = 0; mm < m; mm++) {
        mm_task p = {MM_INT4, 1, 1, k, n, 4, -3, 0, a_addr + mm * row, b_addr, c_addr + mm * c_row,
                     1};
        vendor_task(&tasks[mm], &p);
    }
    if (CHECK_EQ_U(run_tasks(m, "int4 rows"), 0))
        CHECK_EQ_U(check_c(MM_INT4, m, k, n, c_addr, 1, n / 8u, c_bytes, "int4 rows"), 0);
}

/* ---- row-major A: one-pixel lines, surfaces inside them --------------------------- */

/* One RK3588 row-major case, named `label` in failure messages. */
static void test_rowmajor_rk3588(const char *label, enum mm_type ty, uint32_t m, uint32_t k,
                                 uint32_t n)
{
    char what[64];

    snprintf(what, sizeof what, "%s %s %lux%lux%lu", label, types[ty].name, (unsigned long)m,
             (unsigned long)k, (unsigned long)n);
    setup(RKNPU_SOC_RK3588);
    fill_operands(ty, m, k, n);
    run_rowmajor_task(ty, m, k, n, what);
}

/* Weights larger than the virtual NPU's 1 MiB scratch: repacked in parts. */
static void test_weight_parts(enum mm_type ty, uint32_t m, uint32_t k, uint32_t n)
{
    CHECK((uint64_t)k * n * (ty == MM_FP16 ? 4u : 1u) > (1u << 20)); /* more than the scratch */
    test_rowmajor_rk3588("weight parts", ty, m, k, n);
}

/* RK3566 (8-byte atoms, plain strides): the vendor's row-major A has
 * LINE_STRIDE = a row and SURF_STRIDE = 1 atom. The task is the builder's
 * 1x1 convolution with those two strides; int8 in, int16 out. */
static void test_rowmajor_rk3566(uint32_t m, uint32_t k, uint32_t n)
{
    uint32_t c_bytes = n / 4u * m * 8u, bad = 0;
    tasm_conv c;

    setup(RKNPU_SOC_RK3566);
    for (uint32_t i = 0; i < m * k; i++)
        A[i] = (int8_t)rnd_range(-7, 7);
    for (uint32_t i = 0; i < k * n; i++)
        B[i] = (int8_t)rnd_range(-7, 7);
    tasm_conv_defaults(&c);
    c.hin = c.hout = m;
    c.win = c.wout = 1;
    c.cin = c.cin_real = k;
    c.nker = c.kout = n;
    c.kh = c.kw = 1;
    c.out_prec = 1;
    c.out_surf = m * 8u;
    c.in_addr = tasm_alloc(&mem, m * k, 64);
    for (uint32_t i = 0; i < m * k; i++)
        tasm_host(&mem, c.in_addr)[i] = (uint8_t)A[i];
    /* RK356x weights: [N/16][K/32][16][32] */
    c.w_addr = tasm_alloc(&mem, k * n, 64);
    for (uint32_t kk = 0; kk < k; kk++)
        for (uint32_t nn = 0; nn < n; nn++)
            tasm_host(
                &mem,
                c.w_addr)[(((nn / 16u) * (k / 32u) + kk / 32u) * 16u + nn % 16u) * 32u + kk % 32u] =
                (uint8_t)B[kk * n + nn];
    c.out_addr = tasm_alloc(&mem, c_bytes, 64);
    tasm_conv_task(&tasks[0], soc, &c);
    tasm_reg(&tasks[0], NPU_CNA_DMA_CON1, NPU_CNA_DMA_CON1_LINE_STRIDE(k / 8u));
    tasm_reg(&tasks[0], NPU_CNA_DMA_CON2, NPU_CNA_DMA_CON2_SURF_STRIDE(1));
    if (!CHECK_EQ_U(run_tasks(1, "row-major RK3566"), 0))
        return;
    for (uint32_t mm = 0; mm < m; mm++)
        for (uint32_t nn = 0; nn < n; nn++) {
            const uint8_t *e =
                tasm_host(&mem, c.out_addr) + ((nn / 4u) * m + mm) * 8u + nn % 4u * 2u;
            int32_t got = (int16_t)(uint16_t)(e[0] | e[1] << 8);
            bad += got != (int32_t)c_ref(MM_INT8, m, k, n, mm, nn);
        }
    CHECK_EQ_U(bad, 0);
}

/* ---- what the model refuses ------------------------------------------------------ */

static mm_task base;

/* The base task with `reg = value` appended (none when reg is 0); the run
 * must fail with `what` in the message. */
static void expect_refused(uint32_t reg, uint32_t value, const char *what)
{
    vendor_task(&tasks[0], &base);
    if (reg)
        tasm_reg(&tasks[0], reg, value);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), -1);
    if (!CHECK(strstr(vnpu_last_error(&dev, 0), what) != NULL))
        printf("  expected \"%s\" in: %s\n", what, vnpu_last_error(&dev, 0));
}

static void int4_base(rknpu_soc_id id)
{
    setup(id);
    fill_operands(MM_INT4, 4, 64, 64);
    base = (mm_task){MM_INT4, 4, 1, 64, 64, 16, -12, 0, 0, 0, 0, 4};
    base.a = place_a(MM_INT4, 4, 64, 4, 1, 4096);
    base.b = place_b(MM_INT4, 64, 64);
    base.c = tasm_alloc(&mem, 4096, 64);
}

static void test_refusals(void)
{
    uint32_t prec4 = NPU_CNA_CONV_CON1_IN_PRECISION(6) | NPU_CNA_CONV_CON1_PROC_PRECISION(6);

    int4_base(RKNPU_SOC_RK3588);
    vendor_task(&tasks[0], &base);
    CHECK_EQ_U(run_tasks(1, "int4 base"), 0); /* the base program runs */
    /* int4 beyond the matmul streams: nibble padding, packed input,
     * deconvolution, the converter, compressed weights, partial atoms or
     * kernel groups */
    expect_refused(NPU_CNA_PAD_CON0, NPU_CNA_PAD_CON0_PAD_LEFT(1), "padding of int4");
    expect_refused(NPU_CNA_CONV_CON1, prec4 | NPU_CNA_CONV_CON1_ARGB_IN(8), "int4 input other");
    expect_refused(NPU_CNA_CONV_CON1, prec4 | NPU_CNA_CONV_CON1_DECONV(1), "int4 input other");
    expect_refused(NPU_CNA_CVT_CON0,
                   NPU_CNA_CVT_CON0_DATA_SIGN(1) | NPU_CNA_CVT_CON0_CVT_TRUNCATE_0(1),
                   "converter on int4");
    expect_refused(NPU_CNA_DCOMP_CTRL, NPU_CNA_DCOMP_CTRL_DECOMP_CONTROL(1), "int4 weights");
    expect_refused(NPU_CNA_DATA_SIZE1,
                   NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL_REAL(47) |
                       NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL(48),
                   "32-channel atoms");
    expect_refused(NPU_CNA_WEIGHT_SIZE2,
                   NPU_CNA_WEIGHT_SIZE2_WEIGHT_WIDTH(1) | NPU_CNA_WEIGHT_SIZE2_WEIGHT_HEIGHT(1) |
                       NPU_CNA_WEIGHT_SIZE2_WEIGHT_KERNELS(32),
                   "64-kernel groups");
    /* the DPU counts int4's 64-kernel groups: 8 int16 atoms a pixel */
    expect_refused(NPU_DPU_BS_OW_CFG,
                   NPU_DPU_BS_OW_CFG_SIZE_E_2(3) | NPU_DPU_BS_OW_CFG_SIZE_E_1(3) |
                       NPU_DPU_BS_OW_CFG_SIZE_E_0(3) | NPU_DPU_BS_OW_CFG_OD_BYPASS(1),
                   "SIZE_E");
    /* no int4 MAC outside RK3588 */
    int4_base(RKNPU_SOC_RK3566);
    expect_refused(0, 0, "int4 IN_PRECISION outside RK3588");

    /* GROUP_LINE_OFF: several lines of more than one pixel (unseen), and
     * surfaces that run into the next line or into each other */
    setup(RKNPU_SOC_RK3588);
    fill_operands(MM_INT8, 4, 96, 32);
    base = (mm_task){MM_INT8, 1, 4, 96, 32, 6, 0, 1, 0, 0, 0, 4};
    base.a = place_a(MM_INT8, 4, 96, 1, 6, 4096);
    base.b = place_b(MM_INT8, 96, 32);
    base.c = tasm_alloc(&mem, 4096, 64);
    vendor_task(&tasks[0], &base);
    CHECK_EQ_U(run_tasks(1, "row-major base"), 0);
    expect_refused(NPU_CNA_DMA_CON1, NPU_CNA_DMA_CON1_LINE_STRIDE(5), "surfaces overlap the lines");
    base.w = 2;
    base.h = 2;
    expect_refused(0, 0, "GROUP_LINE_OFF with several NC1HWC2 lines of more than one pixel");
    base.w = 4; /* one line (native A), then SURF_STRIDE + W below 0, below W */
    base.h = 1;
    base.line = 4;
    base.surf = 0;
    vendor_task(&tasks[0], &base);
    CHECK_EQ_U(run_tasks(1, "one-line base"), 0);
    expect_refused(NPU_CNA_DMA_CON2, NPU_CNA_DMA_CON2_SURF_STRIDE(0x0FFFFFFBu),
                   "SURF_STRIDE + DATAIN_WIDTH is negative");
    expect_refused(NPU_CNA_DMA_CON2, NPU_CNA_DMA_CON2_SURF_STRIDE(0x0FFFFFFEu),
                   "surfaces overlap the lines");
}

int main(void)
{
    tasm_seed(0x13579BDFu);
    static const uint32_t ms[] = {1, 2, 4, 5, 17, 33};

    for (unsigned t = MM_INT8; t <= MM_INT4; t++)
        for (unsigned i = 0; i < sizeof ms / sizeof ms[0]; i++)
            test_native((enum mm_type)t, ms[i], t == MM_INT4 ? 96u : 64u, 128);
    test_native(MM_INT4, 64, 128, 64);
    test_int4_rows(5, 64, 128);
    test_int4_rows(3, 96, 64);
    test_rowmajor_rk3588("row-major", MM_INT8, 17, 96, 64);
    test_rowmajor_rk3588("row-major", MM_FP16, 5, 64, 32);
    test_rowmajor_rk3566(9, 96, 32);
    test_native_tiled(MM_INT8, 33, 64, 128, 30);
    test_native_tiled(MM_FP16, 33, 64, 64, 16);
    test_native_tiled(MM_FP16, 64, 128, 32, 8);
    test_native_tiled(MM_INT8, 72, 96, 64, 16);
    test_weight_parts(MM_INT8, 40, 1088, 1024);
    test_weight_parts(MM_FP16, 72, 1056, 512);
    test_refusals();
    return test_report("vnpu_matmul");
}
