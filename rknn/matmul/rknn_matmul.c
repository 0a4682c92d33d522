/*
 * rknn_matmul.c - the matmul API (rknn_matmul_api.h): C = A · B on the NPU as
 * 1x1 convolutions (hardware.md §4.6 recipe A) built with npu_builder.
 *
 * A matmul context is a context of the pool (so the memory functions accept
 * it) whose state lives in the carve-out. A is the convolution's input cube
 * (H = M rows, W = 1, C = K channels), B its N kernels, C its output. The
 * NPU works on the native layouts (api.md §4.6): A [K/C2][M][C2], B
 * [N/G][K/32][G][32] (G = kernels per weight group), C [N/C2'][M][C2'].
 * A normal B is rearranged by rknn_matmul_set_io_mem, as the vendor's
 * runtime does, so a client updates it and binds again; a normal A whose K
 * is a multiple of 32 and a normal C of whole rows are read and written in
 * place as the vendor does (one-pixel lines, the DPU's line notch), other
 * normal A and C through our native copies. K is padded to 32; N must be a
 * multiple of G (the vendor's rule); M is not padded (M < 4 as the vendor runs it, hardware.md §4.2). Tiles: N and M split so
 * that one task's weights and rows fit the CBUF next to a spare bank; tasks
 * are chained in batches and run on the one core the core mask names.
 *
 * K beyond what one weight group fits is split into segments whose sums the
 * DPU adds (api.md §1.3). Every type of the headers runs on RK3588 (int4
 * unpacked to int8 when bound; the dequantising types through a CPU
 * epilogue), the int8 and fp16 ones on RK356x (mm_types); anything else
 * returns RKNN_ERR_PARAM_INVALID and logs why.
 *
 * This file: create/destroy, tiles, quantisation, run, dynamic shapes. The
 * types and attributes are in rknn_matmul_shape.c, binding and layouts in
 * rknn_matmul_layout.c (rknn_matmul_internal.h).
 */
#include <string.h>

#include "hal.h"
#include "npu_driver.h"
#include "rknn_convert.h"
#include "rknn_ctx.h"
#include "rknn_matmul_internal.h"
#include "rknn_run.h"
#include "rknpu_platform_internal.h"

/* ---- shapes ------------------------------------------------------------- */

/* The NPU's element type of A and B (bits): its atoms and weight groups. */
static void mm_npu_elem(mm_state *s, uint32_t bits)
{
    s->nib_in = bits / 4u;
    s->c2_in = s->soc->feature_atom_bytes * 2u / s->nib_in;
    s->kgroup = mm_b_group(s->soc, bits);
    s->kslice = mm_b_slice(s->soc, bits);
}

static void mm_geometry(mm_state *s, int row)
{
    uint32_t atom = s->soc->feature_atom_bytes;

    s->a_bits = mm_types[row].a_bits;
    s->b_bits = mm_types[row].b_bits;
    s->out_prec = mm_types[row].out_prec;
    s->e_out = s->out_prec >= 4u ? 4u : s->out_prec ? 2u : 1u;
    s->c_kind = mm_types[row].c_kind;
    s->c_bytes = s->c_kind == MM_C_NPU ? s->e_out : s->c_kind == MM_C_F32 ? 4u : 2u;
    /* at least 4: a 32-bit C is (N/4, M, 4) on RK356x too, 16-byte pixels
     * of two 8-byte atoms (hardware.md §4.5) */
    s->c2_out = atom / s->e_out < 4u ? 4u : atom / s->e_out;
    /* A's type: int4 x int4 runs in int4, another int4 B as A's type */
    mm_npu_elem(s, s->a_bits);
    s->mp = (uint32_t)s->info.M; /* not padded: the vendor's M rows (hardware.md §4.2) */
    s->kp = hal_align_up((uint32_t)s->info.K, MM_SLICE);
    /* B's kernel group: a multiple of the NPU's (kgroup) and of C2' */
    s->np = hal_align_up((uint32_t)s->info.N, mm_b_group(s->soc, s->b_bits));
}

/* Kernels and rows per task for K channels per task, so that both fit the
 * CBUF with a bank spare; 0 if not even one kernel group and four rows do. */
static int mm_fit(mm_state *s, uint32_t kt)
{
    uint32_t bank = s->soc->cbuf_bank_bytes, banks = s->soc->cbuf_banks;
    uint32_t row = kt * s->nib_in / 2u;
    uint32_t nt = (banks - 2u) * bank / row / s->kgroup * s->kgroup;

    if (nt < s->kgroup)
        return 0;
    /* a K segment of B is contiguous for one kernel group only (native B) */
    nt = kt < s->kp ? s->kgroup : nt;
    s->nt = nt < s->np ? nt : s->np;
    s->nt = s->nt < MM_KERNELS_MAX ? s->nt : MM_KERNELS_MAX;
    s->weight_banks = (s->nt * row + bank - 1u) / bank;
    s->data_banks = banks - 1u - s->weight_banks;
    s->mt_cap = s->data_banks * bank / row;
    s->mt_cap = s->mt_cap < MM_ROWS_MAX ? s->mt_cap : MM_ROWS_MAX;
    /* RK356x: a native A's line of rows in at most 2048 32-byte CBUF
     * entries, where Rockchip's runtime splits it (hardware.md §4.4) */
    if (npu_soc_is_rk356x(s->soc) && s->info.AC_layout == RKNN_MM_LAYOUT_NATIVE &&
        s->mt_cap > 65536u / row)
        s->mt_cap = 65536u / row;
    s->mt = s->mt_cap < s->mp ? s->mt_cap : s->mp;
    s->mp_max = s->mp;
    s->kt = kt;
    return s->mt_cap >= MM_ROWS_MIN;
}

/* The tiles: N and M split to fit the CBUF; K split into segments whose
 * sums the DPU adds up (each task adds the previous partial sums from
 * ERDMA) when one kernel group of the whole K does not fit. */
static int mm_tiles(mm_state *s)
{
    if (!s->soc->cbuf_bank_bytes || s->soc->cbuf_banks < 3)
        return mm_fail("rknn_matmul_create", "the SoC's CBUF size is not known");
    /* Rockchip's runtime refuses the rest too ("N must be align with 32") */
    if (s->np != (uint32_t)s->info.N)
        return mm_fail("rknn_matmul_create", "N must be a multiple of B's native kernel group "
                                             "(RK3588: 16 fp16, 32 int8, 64 int4; RK356x half)");
    for (s->ksegs = 1; s->ksegs * MM_SLICE <= s->kp; s->ksegs++)
        if (mm_fit(s, hal_align_up((s->kp + s->ksegs - 1u) / s->ksegs, MM_SLICE)))
            break;
    if (s->ksegs * MM_SLICE > s->kp) /* unreachable: a 32-deep slice of one kernel group and
                                      * 4 rows is under 8 KiB, a CBUF bank 32 KiB (npu_soc.c) */
        return mm_fail("rknn_matmul_create", "not even 32 of K fit the CBUF with four rows");
    s->ksegs = (s->kp + s->kt - 1u) / s->kt;
    /* int4 in K segments: the int32 partial sums of a 64-kernel group are
     * more atoms than the DPU writes a pixel (SIZE_E); run it as int8 */
    if (s->ksegs > 1u && s->nib_in == 1u) {
        mm_npu_elem(s, 8u);
        return mm_tiles(s);
    }
    /* int4 normal A and C: a row a task, as Rockchip's runtime runs them
     * (vnpu.md §6.3) */
    if (s->nib_in == 1u && s->info.AC_layout != RKNN_MM_LAYOUT_NATIVE && s->ksegs == 1u)
        s->mt_cap = s->mt = 1u;
    if (s->ksegs == 1)
        return RKNN_SUCC;
    /* RK356x has no 32-bit EW operand known for the partial sums */
    if (npu_soc_is_rk356x(s->soc))
        return mm_fail("rknn_matmul_create", "K too large for one task: K splitting is "
                                             "implemented for RK3588");
    if (s->out_prec == 0u) {
        /* int8 C: its requantisation multiplies before the EW stage could
         * add the partial sums, so the NPU sums to int32 and the CPU
         * requantises (mm_epilogue, the same rule) */
        s->out_prec = 4u;
        s->e_out = 4u;
        s->c2_out = 4u;
        s->c_kind = MM_C_I8;
        s->c_bytes = 1u;
    }
    return RKNN_SUCC;
}

/* ---- context -------------------------------------------------------------- */

static void mm_free(void *p)
{
    if (p)
        mem_carveout_free(rknpu_platform_carveout(), p);
}

static void mm_release(rknn_ctx *ctx)
{
    mm_state *s = ctx->matmul;

    if (s) {
        for (unsigned i = 0; i <= MM_PARTIAL; i++)
            mm_free(s->native[i]);
        mm_free(s);
    }
    ctx->matmul = NULL;
    rknn_ctx_give_back(ctx);
}

static int mm_check_info(const rknn_matmul_info *info)
{
    if (info->M <= 0 || info->K <= 0 || info->N <= 0 ||
        (uint16_t)(info->B_layout | info->AC_layout) > 1u || info->iommu_domain_id != 0)
        return mm_fail("rknn_matmul_create", "M, K and N must be positive, the layouts 0 (normal) "
                                             "or 1 (native), iommu_domain_id 0 (no IOMMU)");
    return RKNN_SUCC;
}

/* A stream slot per task: the longest body, its 4-word tail and the word
 * the PC may over-fetch, 64-byte aligned (npu_chain_bytes). */
#define MM_TASK_STREAM_BYTES (((NPU_BUILDER_MAX_WORDS + 5u) * 8u + 63u) / 64u * 64u)

/* One carve-out block per context: the state, a batch's stream, records and
 * task words, B's scales and the requantisation multipliers. */
static size_t mm_block_bytes(uint32_t np, int32_t n_shapes)
{
    return (sizeof(mm_state) + 63u) / 64u * 64u + MM_BATCH * (MM_TASK_STREAM_BYTES + 40u) +
           MM_BATCH * sizeof(npu_task_words) + np * (sizeof(float) + sizeof(int16_t)) + 4u +
           (size_t)n_shapes * sizeof(rknn_matmul_shape);
}

static void mm_carve_block(mm_state *s)
{
    uint8_t *p = (uint8_t *)s + (sizeof *s + 63u) / 64u * 64u;

    s->stream = p;
    s->stream_bytes = MM_BATCH * MM_TASK_STREAM_BYTES;
    s->records = p + s->stream_bytes;
    s->tasks = (npu_task_words *)(void *)(s->records + 40u * MM_BATCH);
    s->b_scale = (float *)(void *)(s->tasks + MM_BATCH);
    s->multiplier = (int16_t *)(void *)(s->b_scale + s->np);
    s->shapes =
        (rknn_matmul_shape *)(void *)((uintptr_t)(s->multiplier + s->np + 2u) & ~(uintptr_t)3u);
    s->scale[0] = s->scale[2] = s->b_scale[0] = 1.0f; /* the vendor's defaults */
    s->b_scales = 1;
}

/* Dynamic shapes: M may change, K and N may not (as in the vendor's
 * runtime); the largest M sizes the tiles and our buffers. */
static int mm_shape_info(rknn_matmul_info *info, const rknn_matmul_shape *shapes, int n)
{
    info->M = 0;
    info->K = shapes[0].K;
    info->N = shapes[0].N;
    for (int i = 0; i < n; i++) {
        if (shapes[i].K != info->K || shapes[i].N != info->N || shapes[i].M <= 0)
            return mm_fail("rknn_matmul_create_dyn_shape",
                           "the shapes must share K and N and have M > 0 (only M is dynamic)");
        info->M = shapes[i].M > info->M ? shapes[i].M : info->M;
    }
    return RKNN_SUCC;
}

/* noinline: its two callers would each get a copy of its first checks
 * (GCC's partial inlining), 84 bytes of aarch64 code. */
__attribute__((noinline)) static int mm_create(rknn_matmul_ctx *handle,
                                               const rknn_matmul_info *info,
                                               const rknn_matmul_shape *shapes, int n_shapes)
{
    mm_state tmp, *s;
    rknn_ctx *ctx;
    void *p;
    int ret, row;

    *handle = 0;
    if ((ret = mm_check_info(info)) != RKNN_SUCC || (ret = rknpu_board_autoinit()) != RKNN_SUCC)
        return ret;
    if ((row = mm_type_row(rknpu_platform_profile(), info->type)) < 0) {
        HAL_LOG_ERR("rknn_matmul_create: %s is not supported on %s by rknpu-bm yet (README: "
                    "matmul types)",
                    get_matmul_type_string(info->type), rknpu_platform_profile()->name);
        return RKNN_ERR_PARAM_INVALID;
    }
    ctx = rknn_ctx_take(0);
    if (!ctx) {
        HAL_LOG_ERR("rknn_matmul_create: all contexts are in use (-Dmax_contexts)");
        return RKNN_ERR_MALLOC_FAIL;
    }
    memset(&tmp, 0, sizeof tmp);
    tmp.owner = &ctx->owner;
    tmp.info = *info;
    tmp.soc = rknpu_platform_profile();
    mm_geometry(&tmp, row);
    if ((ret = mm_tiles(&tmp)) != RKNN_SUCC ||
        (ret = rknpu_carve_alloc(mm_block_bytes(tmp.np, n_shapes), 64, &p, "rknn_matmul_create")) !=
            RKNN_SUCC) {
        rknn_ctx_give_back(ctx);
        return ret;
    }
    s = p;
    *s = tmp;
    mm_carve_block(s);
    s->n_shapes = n_shapes;
    if (n_shapes)
        memcpy(s->shapes, shapes, (size_t)n_shapes * sizeof *shapes);
    ctx->matmul = s;
    ctx->soc = s->soc;
    mm_io_attrs(s);
    *handle = rknn_ctx_to_handle(ctx);
    return RKNN_SUCC;
}

int rknn_matmul_create(rknn_matmul_ctx *handle, rknn_matmul_info *info, rknn_matmul_io_attr *io)
{
    int ret;

    if (!handle || !info || !io)
        return mm_fail("rknn_matmul_create", "NULL argument");
    ret = mm_create(handle, info, NULL, 0);
    if (ret == RKNN_SUCC)
        *io = rknn_ctx_from_handle(*handle)->matmul->io;
    return ret;
}

int rknn_matmul_destroy(rknn_matmul_ctx handle)
{
    if (!mm_of(handle, "rknn_matmul_destroy"))
        return RKNN_ERR_CTX_INVALID;
    mm_release(rknn_ctx_from_handle(handle));
    return RKNN_SUCC;
}

int rknn_matmul_set_core_mask(rknn_matmul_ctx handle, rknn_core_mask mask)
{
    mm_state *s = mm_of(handle, "rknn_matmul_set_core_mask");
    /* the vendor runs one matmul on one core; AUTO and ALL take core 0 */
    unsigned core = mask == RKNN_NPU_CORE_1 ? 1u : mask == RKNN_NPU_CORE_2 ? 2u : 0u;

    if (!s)
        return RKNN_ERR_CTX_INVALID;
    if ((core == 0 && mask != RKNN_NPU_CORE_AUTO && mask != RKNN_NPU_CORE_ALL &&
         mask != RKNN_NPU_CORE_0) ||
        core >= s->soc->core_count) {
        HAL_LOG_ERR("rknn_matmul_set_core_mask: mask %d: one matmul runs on one core of the %u "
                    "of %s",
                    (int)mask, (unsigned)s->soc->core_count, s->soc->name);
        return RKNN_ERR_PARAM_INVALID;
    }
    s->core = core;
    return RKNN_SUCC;
}

/* ---- quantisation parameters (int8 -> int8 uses them) ---------------------- */

/* Copy a matrix's parameters: one scale and zero point (B: N scales when
 * per channel). */
static int mm_copy_quant(mm_state *s, int i, const rknn_quant_params *q)
{
    int32_t want = i == 1 && s->info.B_quant_type == 1 ? s->info.N : 1;

    if (!q->scale || q->scale_len != want || (q->zp_len > 0 && !q->zp))
        return mm_fail("rknn_matmul_set_quant_params",
                       "scale_len must be 1 (per layer) or N (B per channel) and zp given");
    for (int32_t n = 0; n < want; n++)
        if (!(q->scale[n] > 0.0f))
            return mm_fail("rknn_matmul_set_quant_params", "scales must be positive");
    if (q->zp_len > 0 && q->zp[0] != 0 && i != 2)
        return mm_fail("rknn_matmul_set_quant_params",
                       "zero points of A and B must be 0 (symmetric; asymmetric A/B is not "
                       "implemented yet)");
    s->scale[i] = q->scale[0];
    s->zp[i] = q->zp_len > 0 ? q->zp[0] : 0;
    if (i == 1) {
        memcpy(s->b_scale, q->scale, (size_t)want * sizeof *s->b_scale);
        s->b_scales = want;
    }
    return RKNN_SUCC;
}

int rknn_matmul_set_quant_params(rknn_matmul_ctx handle, rknn_quant_params *params)
{
    mm_state *s = mm_of(handle, "rknn_matmul_set_quant_params");
    int i;

    if (!s)
        return RKNN_ERR_CTX_INVALID;
    if (!params || (i = mm_matrix_index(params->name)) < 0)
        return mm_fail("rknn_matmul_set_quant_params", "params must name matrix A, B or C");
    return mm_copy_quant(s, i, params);
}

/* The parameters as set, pointing at the context's own copies. */
int rknn_matmul_get_quant_params(rknn_matmul_ctx handle, rknn_quant_params *params, float *scale)
{
    mm_state *s = mm_of(handle, "rknn_matmul_get_quant_params");
    int i;

    if (!s)
        return RKNN_ERR_CTX_INVALID;
    if (!params || (i = mm_matrix_index(params->name)) < 0)
        return mm_fail("rknn_matmul_get_quant_params", "params must name matrix A, B or C");
    params->scale = i == 1 ? s->b_scale : &s->scale[i];
    params->scale_len = i == 1 ? s->b_scales : 1;
    params->zp = &s->zp[i];
    params->zp_len = 1;
    if (scale)
        *scale = params->scale[0];
    return RKNN_SUCC;
}

/* int8 -> int8 (api.md §1.3): C = sat(round_half_away(acc * m_n / 2^S) + zp_C)
 * with m_n = round(sA * sB_n / sC * 2^S) and S the largest shift (<= 30)
 * that keeps every m_n within 15 bits; the BS stage multiplies by m_n from
 * its stream (exact), OUT_CVT shifts, rounds and adds zp_C. noinline: both
 * loops of mm_requant call it (footprint). */
__attribute__((noinline)) static double mm_ratio(const mm_state *s, uint32_t n)
{
    return (double)s->scale[0] * s->b_scale[s->b_scales > 1 ? n : 0] / s->scale[2];
}

static int mm_requant(mm_state *s)
{
    double max = 0;
    uint32_t shift = 30;

    for (uint32_t n = 0; n < (uint32_t)s->info.N; n++) {
        double r = mm_ratio(s, n);
        max = r > max ? r : max;
    }
    while (shift > 0 && max * (double)(1u << shift) + 0.5 >= 32768.0)
        shift--;
    if (max * (double)(1u << shift) + 0.5 >= 32768.0)
        return mm_fail("rknn_matmul_run", "sA * sB / sC of 32768 or more cannot be requantised");
    for (uint32_t n = 0; n < s->np; n++) /* np is N (mm_tiles) */
        s->multiplier[n] = (int16_t)(mm_ratio(s, n) * (double)(1u << shift) + 0.5);
    s->requant_shift = shift;
    rknpu_hook_cache_clean(s->multiplier, s->np * sizeof *s->multiplier);
    return RKNN_SUCC;
}

/* ---- run ------------------------------------------------------------------ */

static uint32_t mm_dma(const void *p)
{
    return (uint32_t)rknpu_hook_virt_to_phys(p);
}

/* Where the NPU reads or writes matrix i. */
static uint8_t *mm_npu_buffer(const mm_state *s, unsigned i)
{
    const rknn_tensor_mem *m = s->bound[i];

    return s->native[i] ? s->native[i] : (uint8_t *)m->virt_addr + m->offset;
}

/* Whether the NPU reads (A) or writes (C) matrix i in the client's
 * row-major memory (rknn_matmul_layout.c: mm_bind_a, mm_bind_c) as rows:
 * one row is its native layout too, which the vendor programs then. */
static int mm_row_major(const mm_state *s, unsigned i)
{
    return s->info.AC_layout != RKNN_MM_LAYOUT_NATIVE && !s->native[i] && s->mt > 1u;
}

/* Where a task of output channel n0, row m0 writes (or, for EW, reads) in
 * a C-shaped cube [N/C2][mp][C2] of `elem`-byte elements at `base`: an
 * atom a pixel, 16 bytes for 32-bit elements (mm_geometry). */
static uint32_t mm_out_at(const mm_state *s, const void *base, uint32_t elem, uint32_t m0,
                          uint32_t n0)
{
    uint32_t pix = elem == 4u ? 16u : s->soc->feature_atom_bytes;

    return mm_dma(base) + (n0 * elem / pix) * s->mp * pix + m0 * pix;
}

/* The partial sums of K segment `seg`: the last segment writes C; the
 * others write C too when it is 32-bit, else the fp32 partial buffer.
 * Segments after the first add what the previous one wrote (ERDMA). */
static void mm_k_segment(const mm_state *s, uint32_t m0, uint32_t n0, uint32_t seg,
                         npu_conv_desc *c)
{
    int last = seg + 1u == s->ksegs;
    int in_c = s->e_out == 4u;

    if (!last) {
        c->out_prec = s->nib_in == 4u ? 5u : 4u; /* fp32 or int32 sums */
        c->oc_scale = 1;                         /* no fp16 narrowing yet */
        if (!in_c)
            c->out_addr = mm_out_at(s, s->native[MM_PARTIAL], 4u, m0, n0);
    }
    if (seg == 0)
        return;
    c->ew_cfg = NPU_DPU_EW_CFG_EW_OP_SRC(1) | NPU_DPU_EW_CFG_EW_LUT_BYPASS(1) |
                NPU_DPU_EW_CFG_EW_OP_CVT_BYPASS(1) | NPU_DPU_EW_CFG_EW_RELU_BYPASS(1) |
                NPU_DPU_EW_CFG_EW_ALU_ALGO(2) | NPU_DPU_EW_CFG_EDATA_SIZE(3) |
                NPU_DPU_EW_CFG_EW_DATA_MODE(1);
    c->erdma_size = 3u;
    c->ew_addr = in_c ? mm_out_at(s, mm_npu_buffer(s, 2), 4u, m0, n0)
                      : mm_out_at(s, s->native[MM_PARTIAL], 4u, m0, n0);
    c->ew_surf = s->mp * s->soc->feature_atom_bytes;
}

/* FEATURE_GRAINS, the rows of A the CNA buffers before it starts, as
 * Rockchip's runtime 1.6.0 writes them (measured over M 1..1024 and K
 * 32..8192, hardware.md §4.4): RK356x at most 18 rows; RK3588 rows + 1 up
 * to the rows of 1 + ceil(ent / 28) banks, each bank ceil(512 / ent) rows
 * of ent 64-byte entries, and never beyond the 10-bit field. */
static uint32_t mm_grains(const mm_state *s, uint32_t rows, uint32_t ent)
{
    int rk356x = npu_soc_is_rk356x(s->soc);
    uint32_t cap = rk356x ? 18u : (ent + 511u) / ent * (1u + (ent + 27u) / 28u);

    rows += (uint32_t)!rk356x;
    cap = cap < 1023u ? cap : 1023u;
    return rows < cap ? rows : cap;
}

/* The task of tile (m0, n0) and K segment seg. */
static void mm_build_tile(const mm_state *s, uint32_t m0, uint32_t n0, uint32_t seg,
                          npu_task_words *t)
{
    uint32_t atom = s->soc->feature_atom_bytes;
    uint32_t rows = s->mp - m0 < s->mt ? s->mp - m0 : s->mt;
    uint32_t kernels = s->np - n0 < s->nt ? s->np - n0 : s->nt;
    uint32_t k0 = seg * s->kt;
    uint32_t cin = s->kp - k0 < s->kt ? s->kp - k0 : s->kt;
    uint32_t ent = (cin * s->nib_in / 2u + 63u) / 64u;            /* a row's 64-byte CBUF entries */
    uint32_t pix = s->c2_out * s->e_out, row = atom, c_row = pix; /* bytes */
    npu_conv_desc c;

    npu_conv_defaults(&c);
    c.fp16 = s->nib_in == 4u;
    c.int4 = s->nib_in == 1u;
    /* the rows as the vendor lays them out: a native A's one line of M
     * pixels, a normal A's M lines of one pixel (hardware.md §4.2) */
    c.hin = c.hout = c.win = c.wout = c.kh = c.kw = 1;
    if (s->info.AC_layout == RKNN_MM_LAYOUT_NATIVE) {
        c.win = c.wout = rows;
        /* RK356x: the stride of the whole line of M rows, as its vendor's
         * streams write it when they split the line (hardware.md §4.4) */
        c.in_line = npu_soc_is_rk356x(s->soc) ? s->mp : 0u;
    } else
        c.hin = c.hout = rows;
    c.cin = c.cin_real = cin;
    /* RK356x, one row (M = 1): as its vendor's streams run it, A read as
     * K/C2 pixels of C2 channels and C written packed (NONALIGN) */
    if (npu_soc_is_rk356x(s->soc) && s->mp == 1u) {
        c.dma_w = c.cin / s->c2_in;
        c.dma_c = s->c2_in;
        c.fm_extra = NPU_DPU_FEATURE_MODE_CFG_NONALIGN(1) |
                     NPU_DPU_FEATURE_MODE_CFG_SURF_LEN(kernels * s->e_out / 8u);
    }
    c.nker = c.kout = kernels;
    /* native A and C: rows a pixel apart in surfaces of mp pixels */
    c.in_surf = s->mp * atom;
    c.out_surf = s->mp * pix;
    if (mm_row_major(s, 0)) { /* the client's [M][K]: surfaces an atom apart */
        row = s->kp * s->nib_in / 2u;
        c.in_line = row / atom;
        c.in_surf = atom;
    }
    if (mm_row_major(s, 2)) { /* the client's [M][N]: surfaces side by side in a row */
        c_row = s->np * s->e_out;
        c.out_surf = pix;
        c.out_notch = (c_row - pix) / atom;
    }
    if (s->mt == 1u && s->info.AC_layout != RKNN_MM_LAYOUT_NATIVE) {
        /* a row a task (int4, or M = 1): one-pixel cubes of A's and C's rows */
        row = s->kp * s->nib_in / 2u;
        c_row = s->np * s->e_out;
        c.in_surf = atom;
        c.out_surf = pix;
    }
    c.in_addr = mm_dma(mm_npu_buffer(s, 0)) + (k0 / s->c2_in) * c.in_surf + m0 * row;
    c.out_addr = mm_dma(mm_npu_buffer(s, 2)) + (n0 / s->c2_out) * c.out_surf + m0 * c_row;
    /* native B: kernel group after kernel group, each [K/32][group][32] */
    c.w_addr = mm_dma(mm_npu_buffer(s, 1)) + (n0 * s->kp + k0 * s->kgroup) * s->nib_in / 2u;
    c.out_prec = s->out_prec;
    if (s->out_prec == 2u) /* fp32 sums narrowed to fp16 */
        c.oc_scale =
            NPU_DPU_OUT_CVT_SCALE_FP32TOFP16_EN(1) | NPU_DPU_OUT_CVT_SCALE_OUT_CVT_SCALE(1);
    if (s->out_prec == 0u) { /* requantisation (mm_requant) */
        c.bs_cfg = NPU_DPU_BS_CFG_BS_ALU_BYPASS(1) | NPU_DPU_BS_CFG_BS_RELU_BYPASS(1);
        c.bs_mul_cfg = NPU_DPU_BS_MUL_CFG_BS_MUL_SRC(1);
        c.bs_addr = mm_dma(s->multiplier) + n0 * (uint32_t)sizeof *s->multiplier;
        c.brdma_use = 4u; /* MUL operands only (vnpu.md §7.1) */
        c.oc_shift = NPU_DPU_OUT_CVT_SHIFT_OUT_CVT_SHIFT(s->requant_shift) |
                     NPU_DPU_OUT_CVT_SHIFT_CVT_ROUND(1);
        c.oc_offset = (uint32_t)s->zp[2];
    }
    if (s->ksegs > 1u)
        mm_k_segment(s, m0, n0, seg, &c);
    /* the vendor's CBUF split: the banks the rows' 64-byte entries need (no
     * more than mm_fit's data banks), all the others for weights */
    c.data_banks = (rows * ent * 64u + s->soc->cbuf_bank_bytes - 1u) / s->soc->cbuf_bank_bytes;
    c.weight_banks = s->soc->cbuf_banks - c.data_banks;
    c.grains = mm_grains(s, c.hin, ent);
    /* int8 A: the OW stage left on with no operand, as the vendor writes it */
    if (s->nib_in == 2u)
        c.bs_ow_cfg = 0;
    npu_build_conv(t, s->soc, &c);
}

/* Chain and run tiles [first, first + n) of the M-major tile order. */
static int mm_run_batch(mm_state *s, uint32_t first, uint32_t n)
{
    npu_task_words *tasks = s->tasks;
    uint32_t m_tiles = (s->mp + s->mt - 1u) / s->mt;
    npu_core_job job = {s->core, s->records, 0, n, mm_dma(s->stream), 1};
    npu_job_result res;

    /* RK356x runs a native A's row tiles last first, as its vendor's
     * streams do (hardware.md §4.4) */
    uint32_t m_last =
        npu_soc_is_rk356x(s->soc) && s->info.AC_layout == RKNN_MM_LAYOUT_NATIVE ? m_tiles - 1u : 0u;

    /* K segments of one tile run back to back, in order (each adds to the
     * sums the previous one wrote) */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t tile = (first + i) / s->ksegs, m = tile % m_tiles;
        mm_build_tile(s, (m_last ? m_last - m : m) * s->mt, (tile / m_tiles) * s->nt,
                      (first + i) % s->ksegs, &tasks[i]);
    }
    if (npu_chain_write(tasks, n, s->stream, mm_dma(s->stream), s->stream_bytes, s->records) != 0) {
        /* unreachable: the stream holds MM_BATCH tasks of a full builder each
         * (MM_TASK_STREAM_BYTES), and no tile overflows the builder */
        HAL_LOG_ERR("rknn_matmul_run: a task did not fit its stream buffer");
        return RKNN_ERR_FAIL;
    }
    rknpu_hook_cache_clean(s->stream, s->stream_bytes + 40u * MM_BATCH);
    rknn_run_free_cores(NULL, &job.core, 1);
    return npu_run(rknpu_platform_npu(), &job, 1, s->owner, &res);
}

/* int8 -> int8 on the CPU (K split): the rule the DPU applies (mm_requant),
 * sat(round_half_away(acc * m_n / 2^S) + zp_C). */
static int8_t mm_requant_one(const mm_state *s, int32_t acc, uint32_t n)
{
    int64_t p = (int64_t)acc * s->multiplier[n];
    int64_t half = s->requant_shift ? (int64_t)1 << (s->requant_shift - 1u) : 0;
    int64_t y =
        (p >= 0 ? (p + half) >> s->requant_shift : -((-p + half) >> s->requant_shift)) + s->zp[2];

    return (int8_t)(y < -128 ? -128 : y > 127 ? 127 : y);
}

/* The CPU epilogue: C from the NPU's int32/fp32 sums in our native copy,
 * dequantised (x sA for an int8 A, x sB_n) and converted, or requantised
 * for an int8 C, into the client's layout. */
static void mm_epilogue(const mm_state *s, uint8_t *c)
{
    uint32_t M = (uint32_t)s->info.M, N = (uint32_t)s->info.N, atom = s->soc->feature_atom_bytes;
    uint32_t c2c = atom / s->c_bytes;
    int native = s->info.AC_layout == RKNN_MM_LAYOUT_NATIVE;

    for (uint32_t m = 0; m < M; m++)
        for (uint32_t n = 0; n < N; n++) {
            const uint8_t *src =
                s->native[2] + atom * ((n / s->c2_out) * s->mp + m) + 4u * (n % s->c2_out);
            size_t d = native ? ((n / c2c) * M + m) * c2c + n % c2c : (size_t)m * N + n;
            int32_t acc;
            float v;
            uint16_t h;
            memcpy(&acc, src, 4);
            if (s->c_kind == MM_C_I8) {
                c[d] = (uint8_t)mm_requant_one(s, acc, n);
                continue;
            }
            if (s->out_prec == 5u)
                memcpy(&v, src, 4);
            else
                v = (float)acc * s->scale[0];
            v *= s->b_scale[s->b_scales > 1 ? n : 0];
            if (s->c_kind == MM_C_F32) {
                memcpy(c + 4u * d, &v, 4);
                continue;
            }
            if (s->c_kind == MM_C_F16) {
                h = rknn_f32_to_f16(v);
            } else { /* bfloat16: the high half, rounded to nearest even */
                uint32_t u;
                memcpy(&u, &v, 4);
                h = (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
            }
            memcpy(c + 2u * d, &h, 2);
        }
}

static void mm_clean_inputs(const mm_state *s)
{
    for (unsigned i = 0; i < 2; i++) {
        uint32_t bytes = s->native[i] ? s->native_bytes[i] : (i ? s->io.B.size : s->io.A.size);
        rknpu_hook_cache_clean(mm_npu_buffer(s, i), bytes);
    }
}

int rknn_matmul_run(rknn_matmul_ctx handle)
{
    mm_state *s = mm_of(handle, "rknn_matmul_run");
    uint32_t tiles, done;
    uint8_t *c;
    int ret = RKNN_SUCC;

    if (!s)
        return RKNN_ERR_CTX_INVALID;
    if (!s->bound[0] || !s->bound[1] || !s->bound[2])
        return mm_fail("rknn_matmul_run", "A, B and C need rknn_matmul_set_io_mem first");
    if ((s->out_prec == 0u || s->c_kind == MM_C_I8) && (ret = mm_requant(s)) != RKNN_SUCC)
        return ret;
    tiles = ((s->mp + s->mt - 1u) / s->mt) * ((s->np + s->nt - 1u) / s->nt) * s->ksegs;
    /* the client never has to call rknn_mem_sync (the vendor's rule) */
    mm_clean_inputs(s);
    rknpu_hook_lock();
    for (done = 0; done < tiles && ret == RKNN_SUCC; done += MM_BATCH)
        ret = mm_run_batch(s, done, tiles - done < MM_BATCH ? tiles - done : MM_BATCH);
    rknpu_hook_unlock();
    if (ret != RKNN_SUCC)
        return ret;
    c = (uint8_t *)s->bound[2]->virt_addr + s->bound[2]->offset;
    /* what the NPU wrote: our native copy (always one for a CPU-made C) or C */
    rknpu_hook_cache_invalidate(mm_npu_buffer(s, 2),
                                s->native[2] ? s->native_bytes[2] : s->io.C.size);
    if (s->c_kind != MM_C_NPU)
        mm_epilogue(s, c);
    else if (s->native[2])
        mm_relayout(s->native[2], c, (uint32_t)s->info.M, (uint32_t)s->info.N, s->c2_out, s->e_out,
                    0);
    return RKNN_SUCC;
}

/* ---- dynamic shapes -------------------------------------------------------- */

/* Select the shape of the next runs: one of those given at creation. */
static int mm_select_shape(mm_state *s, const rknn_matmul_shape *shape)
{
    for (int32_t i = 0; i < s->n_shapes; i++)
        if (s->shapes[i].M == shape->M && s->shapes[i].K == shape->K &&
            s->shapes[i].N == shape->N) {
            s->info.M = shape->M;
            s->mp = (uint32_t)shape->M;
            s->mt = s->mt_cap < s->mp ? s->mt_cap : s->mp;
            mm_io_attrs(s);
            return RKNN_SUCC;
        }
    return mm_fail("rknn_matmul_set_dynamic_shape", "a shape not given at creation");
}

int rknn_matmul_create_dyn_shape(rknn_matmul_ctx *handle, rknn_matmul_info *info, int shape_num,
                                 rknn_matmul_shape dynamic_shapes[], rknn_matmul_io_attr io_attrs[])
{
    rknn_matmul_info mine;
    mm_state *s;
    int ret;

    if (!handle || !info || !dynamic_shapes || !io_attrs || shape_num <= 0 ||
        shape_num > MM_MAX_SHAPES) {
        if (handle)
            *handle = 0;
        return mm_fail("rknn_matmul_create_dyn_shape", "NULL argument, or shape_num not in 1..64");
    }
    mine = *info;
    *handle = 0;
    if ((ret = mm_shape_info(&mine, dynamic_shapes, shape_num)) != RKNN_SUCC ||
        (ret = mm_create(handle, &mine, dynamic_shapes, shape_num)) != RKNN_SUCC)
        return ret;
    s = rknn_ctx_from_handle(*handle)->matmul;
    for (int i = shape_num - 1; i >= 0; i--) { /* ends on the first shape, selected */
        mm_select_shape(s, &dynamic_shapes[i]);
        io_attrs[i] = s->io;
    }
    return RKNN_SUCC;
}

int rknn_matmul_create_dynamic_shape(rknn_matmul_ctx *ctx, rknn_matmul_info *info, int shape_num,
                                     rknn_matmul_shape dynamic_shapes[],
                                     rknn_matmul_io_attr io_attrs[])
{
    return rknn_matmul_create_dyn_shape(ctx, info, shape_num, dynamic_shapes, io_attrs);
}

int rknn_matmul_set_dynamic_shape(rknn_matmul_ctx handle, rknn_matmul_shape *shape)
{
    mm_state *s = mm_of(handle, "rknn_matmul_set_dynamic_shape");

    if (!s)
        return RKNN_ERR_CTX_INVALID;
    if (!shape || !s->n_shapes)
        return mm_fail("rknn_matmul_set_dynamic_shape",
                       "a shape, on a context made by rknn_matmul_create_dyn_shape");
    return mm_select_shape(s, shape);
}
