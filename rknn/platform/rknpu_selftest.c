/*
 * rknpu_selftest.c - the boot-time self-test: a small int8 network built by
 * rknpu-bm's own register-command builder runs on every NPU core, and every
 * output byte is compared with a plain C evaluation of the same network on
 * the CPU. An NPU that "completes" but writes nothing, zeros or garbage
 * fails; so does one that never completes (timeout) or raises DMA errors.
 *
 * The network: input 16 x 8 x 8 int8 (pseudo-random), conv 3x3 pad 1 to 16
 * channels + bias + requantisation to int8, then conv 1x1 to 32 channels +
 * bias + requantisation: two chained tasks, the second reading what the
 * first wrote. No floating point; about 11 KiB of carve-out.
 *
 * Then the matmul line: C = A x B (int8 -> int32, M 5, K 64, N 32, normal
 * layouts) through the public matmul API on each core, every element of C
 * against an exact sum on the CPU; it takes a context of the pool.
 */
#include <stdio.h>
#include <string.h>

#include "hal.h"
#include "npu_builder.h"
#include "npu_driver.h"
#include "npu_regs.h"
#include "rknn_api.h"
#include "rknn_matmul_api.h"
#include "rknn_run.h"
#include "rknpu_platform_internal.h"

#define ST_H         8
#define ST_W         8
#define ST_CIN       16
#define ST_MID       16 /* layer 1 kernels */
#define ST_OUT       32 /* layer 2 kernels */
#define ST_PAD_VALUE (-3)
#define ST_SEED      0x52534b4eu
#define ALU_ADD      2u /* BS ALU algorithm: add the operand */
#define ST_MM_M      5  /* matmul rows: one beyond the NPU's 4-row group */
#define ST_MM_K      64
#define ST_MM_N      32

typedef struct {               /* the narrowest types that hold the two layers (footprint) */
    uint8_t kout, cin, k, pad; /* kernels, input channels, kernel size, padding */
    uint16_t scale;            /* OUT_CVT: y = rne(t * scale / 2^shift) + offset */
    uint8_t shift;
    int8_t offset;
} st_layer;

static const st_layer layers[2] = {
    {ST_MID, ST_CIN, 3, 1, 21000u, 21u, 3},
    {ST_OUT, ST_MID, 1, 0, 18000u, 19u, -5},
};

/* Everything the test generates on the CPU, and the two task bodies. It
 * lives in the test's carve-out block while the test runs, so the
 * self-test costs no static RAM. */
typedef struct {
    int8_t x[ST_CIN * ST_H * ST_W]; /* input, CHW */
    int8_t w1[ST_MID * ST_CIN * 9], w2[ST_OUT * ST_MID];
    int32_t bias[ST_MID + ST_OUT];                               /* layer 1's, then layer 2's */
    int8_t mid[ST_MID * ST_H * ST_W], out[ST_OUT * ST_H * ST_W]; /* reference, CHW */
    npu_task_words tasks[2];
} st_data;

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* n pseudo-random values in -(span/2) .. span/2 (span odd) or
 * -span/2 .. span/2 - 1 (even), int8 (elem 1) or int32 (elem 4). */
static void fill(void *dst, size_t n, size_t elem, uint32_t span, uint32_t *s)
{
    for (size_t i = 0; i < n; i++) {
        int32_t v = (int32_t)(lcg(s) % span) - (int32_t)(span / 2u);
        if (elem == 1)
            ((int8_t *)dst)[i] = (int8_t)v;
        else
            ((int32_t *)dst)[i] = v;
    }
}

static void make_data(st_data *st)
{
    uint32_t s = ST_SEED;

    fill(st->x, sizeof st->x, 1, 129u, &s);
    fill(st->w1, sizeof st->w1, 1, 17u, &s);
    fill(st->w2, sizeof st->w2, 1, 17u, &s);
    fill(st->bias, ST_MID + ST_OUT, 4, 4001u, &s);
}

/* ---- the CPU reference -------------------------------------------------------- */

/* round(n / 2^s), ties to even (OUT_CVT with CVT_ROUND = 0), s >= 1;
 * floor division written without shifting negative values. */
static int64_t rne_shift(int64_t n, uint32_t s)
{
    int64_t d = (int64_t)1 << s, q = n / d, r = n % d;

    if (r < 0) { /* make q = floor(n / d), 0 <= r < d */
        q--;
        r += d;
    }
    if (r > d / 2 || (r == d / 2 && (q & 1)))
        q++;
    return q;
}

static void reference_layer(const st_layer *l, const int8_t *in, const int8_t *w, const int32_t *b,
                            int8_t *out)
{
    for (uint32_t k = 0; k < l->kout; k++)
        for (int y = 0; y < ST_H; y++)
            for (int x = 0; x < ST_W; x++) {
                int64_t acc = b[k], v;
                for (uint32_t c = 0; c < l->cin; c++)
                    for (uint32_t ky = 0; ky < l->k; ky++)
                        for (uint32_t kx = 0; kx < l->k; kx++) {
                            int iy = y + (int)ky - (int)l->pad, ix = x + (int)kx - (int)l->pad;
                            int px = (iy < 0 || iy >= ST_H || ix < 0 || ix >= ST_W)
                                         ? ST_PAD_VALUE
                                         : in[(c * ST_H + (uint32_t)iy) * ST_W + (uint32_t)ix];
                            acc += (int64_t)px * w[((k * l->cin + c) * l->k + ky) * l->k + kx];
                        }
                v = rne_shift(acc * (int64_t)l->scale, l->shift) + l->offset;
                out[(k * ST_H + (uint32_t)y) * ST_W + (uint32_t)x] = (int8_t)(v < -128  ? -128
                                                                              : v > 127 ? 127
                                                                                        : v);
            }
}

/* ---- native layouts ------------------------------------------------------------- */

/* NC1HWC2 int8: C2 channels per atom of the SoC's feature atom. */
static void to_native(const int8_t *chw, uint32_t c, uint32_t atom, uint8_t *dst)
{
    for (uint32_t ch = 0; ch < c; ch++)
        for (uint32_t p = 0; p < ST_H * ST_W; p++)
            dst[(ch / atom) * ST_H * ST_W * atom + p * atom + ch % atom] =
                (uint8_t)chw[ch * ST_H * ST_W + p];
}

/* Bytes of an NC1HWC2 int8 output that differ from the CHW reference. */
static uint32_t count_wrong(const uint8_t *src, const int8_t *ref, uint32_t c, uint32_t atom)
{
    uint32_t wrong = 0;

    for (uint32_t ch = 0; ch < c; ch++)
        for (uint32_t p = 0; p < ST_H * ST_W; p++)
            wrong += (int8_t)src[(ch / atom) * ST_H * ST_W * atom + p * atom + ch % atom] !=
                     ref[ch * ST_H * ST_W + p];
    return wrong;
}

/* Weights [kernel group][input slice of 32][ky][kx][kernel][channel]. */
static void pack_weights(const st_layer *l, const int8_t *w, uint32_t group, uint8_t *dst)
{
    size_t n = 0;

    for (uint32_t k0 = 0; k0 < l->kout; k0 += group)
        for (uint32_t s0 = 0; s0 < l->cin; s0 += 32)
            for (uint32_t tap = 0; tap < l->k * l->k; tap++)
                for (uint32_t k = k0; k < k0 + group && k < l->kout; k++)
                    for (uint32_t c = s0; c < s0 + 32 && c < l->cin; c++)
                        dst[n++] = (uint8_t)w[(k * l->cin + c) * l->k * l->k + tap];
}

/* ---- NPU side ------------------------------------------------------------------ */

#define ST_FEATURE_BYTES(c) ((size_t)(c)*ST_H * ST_W)
#define ST_DATA_BYTES       ((sizeof(st_data) + 63u) & ~(size_t)63u)
#define ST_NPU_BYTES        (12u * 1024u)
#define ST_BLOCK_BYTES      (ST_DATA_BYTES + ST_NPU_BYTES)

/* What the NPU reads and writes: the ST_NPU_BYTES after st_data in the
 * test's carve-out block, in this order (mid and out adjacent: one cache
 * invalidate), the command stream taking what is left. */
typedef struct {
    uint8_t in[ST_FEATURE_BYTES(ST_CIN)];
    uint8_t mid[ST_FEATURE_BYTES(ST_MID)], out[ST_FEATURE_BYTES(ST_OUT)];
    uint8_t w1[ST_MID * ST_CIN * 9], w2[ST_OUT * ST_MID];
    uint8_t bias[4 * (ST_MID + ST_OUT)]; /* st_data's, int32 little endian */
    uint8_t stream[ST_NPU_BYTES - ST_FEATURE_BYTES(ST_CIN + ST_MID + ST_OUT) - ST_MID * ST_CIN * 9 -
                   ST_OUT * ST_MID - 4 * (ST_MID + ST_OUT)];
} st_npu;
_Static_assert(sizeof(st_npu) == ST_NPU_BYTES, "st_npu is the block's NPU part, unpadded");

static uint32_t dma(const void *p)
{
    return (uint32_t)rknpu_hook_virt_to_phys(p);
}

/* One layer's convolution task, reading `in` and writing `out`. noinline:
 * built for both layers, one copy of the descriptor code (footprint). */
__attribute__((noinline)) static void build_layer(npu_task_words *t, const npu_soc_profile *soc,
                                                  const st_layer *l, const uint8_t *in,
                                                  const uint8_t *w, const uint8_t *b,
                                                  const uint8_t *out)
{
    int rk356x = npu_soc_is_rk356x(soc);
    npu_conv_desc c;

    npu_conv_defaults(&c);
    c.hin = c.hout = ST_H;
    c.win = c.wout = ST_W;
    c.cin = c.cin_real = l->cin;
    c.nker = c.kout = l->kout;
    c.kh = c.kw = l->k;
    c.pt = c.pl = l->pad;
    c.in_addr = dma(in);
    c.w_addr = dma(w);
    c.out_addr = dma(out);
    c.out_surf = ST_H * ST_W * soc->feature_atom_bytes;
    c.pad_value = (uint32_t)ST_PAD_VALUE;
    c.out_prec = 0; /* int8 */
    /* bias: ALU add from a stream of int32 per channel; MUL and ReLU bypassed */
    c.bs_cfg = (rk356x ? NPU_DPU_BS_CFG_RK356X_BS_ALU_ALGO(ALU_ADD)
                       : NPU_DPU_BS_CFG_BS_ALU_ALGO(ALU_ADD)) |
               NPU_DPU_BS_CFG_BS_ALU_SRC(1) | NPU_DPU_BS_CFG_BS_MUL_BYPASS(1) |
               NPU_DPU_BS_CFG_BS_RELU_BYPASS(1);
    c.brdma_use = 1;
    c.bs_addr = dma(b);
    c.oc_scale = l->scale;
    c.oc_shift = l->shift; /* CVT_ROUND 0: round half to even */
    c.oc_offset = (uint32_t)l->offset;
    npu_build_conv(t, soc, &c);
}

static int build(const npu_soc_profile *soc, st_npu *b, st_data *st, uint8_t *records)
{
    npu_task_words *tasks = st->tasks;
    uint32_t group = soc->feature_atom_bytes == 8 ? 16u : 32u; /* int8 kernel group */

    to_native(st->x, ST_CIN, soc->feature_atom_bytes, b->in);
    pack_weights(&layers[0], st->w1, group, b->w1);
    pack_weights(&layers[1], st->w2, group, b->w2);
    for (uint32_t k = 0; k < ST_MID + ST_OUT; k++)
        npu_put_le32(b->bias + 4 * k, (uint32_t)st->bias[k]);
    build_layer(&tasks[0], soc, &layers[0], b->in, b->w1, b->bias, b->mid);
    build_layer(&tasks[1], soc, &layers[1], b->mid, b->w2, b->bias + 4 * ST_MID, b->out);
    return npu_chain_write(tasks, 2, b->stream, dma(b->stream), sizeof b->stream, records);
}

/* The test's carve-out block: st_data, then st_npu (NULL: no room). */
static st_data *carve(void)
{
    void *block = NULL;

    return mem_carveout_alloc(rknpu_platform_carveout(), ST_BLOCK_BYTES, 64, &block) == MEM_OK
               ? block
               : NULL;
}

static st_npu *npu_part(st_data *st)
{
    return (st_npu *)(void *)((uint8_t *)st + ST_DATA_BYTES);
}

/* Run the chain on one core and count wrong output bytes. */
static int run_core(unsigned core, st_npu *b, const st_data *st, const uint8_t *records,
                    uint32_t atom, uint32_t *wrong)
{
    npu_core_job job = {core, records, 0, 2, dma(b->stream), 1};
    npu_job_result res;
    int ret;

    memset(b->mid, 0x5A, sizeof b->mid); /* poison: nothing may survive */
    memset(b->out, 0x5A, sizeof b->out);
    rknpu_hook_cache_clean(b, sizeof *b);
    rknn_run_free_cores(NULL, &job.core, 1);
    ret = npu_run(rknpu_platform_npu(), &job, 1, NULL, &res);
    if (ret != RKNN_SUCC)
        return ret;
    rknpu_hook_cache_invalidate(b->mid, sizeof b->mid + sizeof b->out);
    *wrong =
        count_wrong(b->out, st->out, ST_OUT, atom) + count_wrong(b->mid, st->mid, ST_MID, atom);
    return RKNN_SUCC;
}

/* ---- the matmul line ------------------------------------------------------------ */

/* C = A x B on one core through the matmul API; *wrong counts the elements
 * of C that differ from the exact sum. */
static int matmul_core(unsigned core, uint32_t *wrong)
{
    rknn_matmul_info info = {0};
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx;
    rknn_tensor_mem *m[3] = {NULL, NULL, NULL};
    rknn_matmul_tensor_attr *attr[3] = {&io.A, &io.B, &io.C};
    uint32_t seed = ST_SEED + core;
    int ret;

    info.M = ST_MM_M;
    info.K = ST_MM_K;
    info.N = ST_MM_N;
    info.type = RKNN_INT8_MM_INT8_TO_INT32;
    if ((ret = rknn_matmul_create(&ctx, &info, &io)) != RKNN_SUCC)
        return ret;
    ret = rknn_matmul_set_core_mask(ctx, (rknn_core_mask)(1u << core));
    for (unsigned i = 0; i < 3 && ret == RKNN_SUCC; i++) {
        m[i] = rknn_create_mem(ctx, attr[i]->size);
        ret = m[i] ? RKNN_SUCC : RKNN_ERR_MALLOC_FAIL;
        if (ret == RKNN_SUCC) {
            fill(m[i]->virt_addr, attr[i]->size, 1, 256u, &seed); /* C: poison */
            ret = rknn_matmul_set_io_mem(ctx, m[i], attr[i]);
        }
    }
    if (ret == RKNN_SUCC && (ret = rknn_matmul_run(ctx)) == RKNN_SUCC) {
        const int8_t *a = m[0]->virt_addr, *b = m[1]->virt_addr;
        const int32_t *c = m[2]->virt_addr;
        *wrong = 0;
        for (int32_t i = 0; i < ST_MM_M * ST_MM_N; i++) {
            int32_t sum = 0;
            for (int32_t k = 0; k < ST_MM_K; k++)
                sum += a[i / ST_MM_N * ST_MM_K + k] * b[k * ST_MM_N + i % ST_MM_N];
            *wrong += c[i] != sum;
        }
    }
    for (unsigned i = 0; i < 3; i++)
        if (m[i])
            rknn_destroy_mem(ctx, m[i]);
    rknn_matmul_destroy(ctx);
    return ret;
}

/* Record one check ("network" or "matmul") of one core: its bit in
 * *passed when it ran and matched, else the first failure's reason. */
static void judge(rknpu_selftest_result *r, unsigned core, const char *check, int ret,
                  uint32_t wrong, uint32_t *passed)
{
    const char *why = ret == RKNN_ERR_TIMEOUT ? "no completion (timeout)"
                      : ret == RKNN_ERR_FAIL  ? "the NPU reported an error"
                      : ret                   ? "could not start"
                                              : "output differs from the CPU reference";

    r->mismatches += wrong;
    if (ret == RKNN_SUCC && !wrong)
        *passed |= 1u << core;
    else if (!r->first_error) {
        r->first_error = ret ? ret : RKNN_ERR_FAIL;
        snprintf(r->reason, sizeof r->reason, "core %u: %s: %s", core, check, why);
    }
}

/* The test could not start: says why, in the result and the log. */
static int not_run(rknpu_selftest_result *r, int err, const char *why)
{
    snprintf(r->reason, sizeof r->reason, "%s", why);
    HAL_LOG_ERR("rknpu_selftest: %s", r->reason);
    return r->first_error = err;
}

int rknpu_selftest(rknpu_selftest_result *r)
{
    const npu_soc_profile *soc = rknpu_platform_profile();
    uint8_t records[2 * NPU_TASK_RECORD_SIZE];
    st_data *st;
    uint64_t t0;

    if (!r) {
        HAL_LOG_ERR("rknpu_selftest: result is NULL");
        return RKNN_ERR_PARAM_INVALID;
    }
    memset(r, 0, sizeof *r);
    if (!soc)
        return not_run(r, RKNN_ERR_DEVICE_UNAVAILABLE, "rknpu_platform_init() was not called");
    t0 = rknpu_hook_time_us();
    rknpu_hook_lock();
    st = carve();
    if (!st) {
        char why[64];
        rknpu_hook_unlock();
        snprintf(why, sizeof why, "no %lu bytes of carve-out for the test network",
                 (unsigned long)ST_BLOCK_BYTES);
        return not_run(r, RKNN_ERR_MALLOC_FAIL, why);
    }
    make_data(st);
    reference_layer(&layers[0], st->x, st->w1, st->bias, st->mid);
    reference_layer(&layers[1], st->mid, st->w2, st->bias + ST_MID, st->out);
    if (build(soc, npu_part(st), st, records) != 0) {
        /* unreachable: the network is fixed and its stream sized for it;
         * test_selftest's runs on every profile would fail first */
        rknpu_carve_free(st);
        rknpu_hook_unlock();
        return not_run(r, RKNN_ERR_FAIL, "the test network does not fit its command stream");
    }
    for (unsigned core = 0; core < soc->core_count; core++) {
        uint32_t wrong = 0;
        int ret = run_core(core, npu_part(st), st, records, soc->feature_atom_bytes, &wrong);
        r->cores_tested |= 1u << core;
        judge(r, core, "network", ret, wrong, &r->cores_passed);
    }
    rknpu_carve_free(st);
    rknpu_hook_unlock();
    for (unsigned core = 0; core < soc->core_count; core++) {
        uint32_t wrong = 0;
        int ret = matmul_core(core, &wrong);
        judge(r, core, "matmul", ret, wrong, &r->matmul_cores_passed);
    }
    r->cores_passed &= r->matmul_cores_passed;
    r->time_us = rknpu_hook_time_us() - t0;
    if (r->first_error)
        HAL_LOG_ERR("rknpu_selftest: %s", r->reason);
    return r->first_error;
}
