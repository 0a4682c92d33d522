/*
 * rknn_matmul_shape.c - the matmul API's types: which types run on
 * which SoC, M, K and N padded to what the NPU reads, the tiles one task
 * holds (CBUF banks) and the tensor attributes create reports.
 */
#include <string.h>

#include "hal.h"
#include "rknn_ctx.h"
#include "rknn_matmul_internal.h"

/* The types this implementation runs: the client's element bits of A and
 * B, the DPU's output precision and how C is made. int4 A and B are
 * unpacked to int8 when they are bound and run on the int8 path (exact;
 * the NPU's own int4 mode is not used yet); an int8 or int4 B of an fp16 A
 * becomes fp16 (exact). The types with a CPU epilogue give the dequantised
 * product: the NPU's sums times sA (int8 A) times sB_n (api.md §1.3). */
const mm_type_desc mm_types[MM_TYPES] = {
    {RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, 16, 16, 5, MM_C_NPU},
    {RKNN_INT8_MM_INT8_TO_INT32, 8, 8, 4, MM_C_NPU},
    {RKNN_INT8_MM_INT8_TO_INT8, 8, 8, 0, MM_C_NPU},
    {RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16, 16, 16, 2, MM_C_NPU},
    {RKNN_INT4_MM_INT4_TO_INT16, 4, 4, 1, MM_C_NPU},
    {RKNN_INT8_MM_INT4_TO_INT32, 8, 4, 4, MM_C_NPU},
    {RKNN_FLOAT16_MM_INT8_TO_FLOAT32, 16, 8, 5, MM_C_F32},
    {RKNN_FLOAT16_MM_INT8_TO_FLOAT16, 16, 8, 5, MM_C_F16},
    {RKNN_FLOAT16_MM_INT4_TO_FLOAT32, 16, 4, 5, MM_C_F32},
    {RKNN_FLOAT16_MM_INT4_TO_FLOAT16, 16, 4, 5, MM_C_F16},
    {RKNN_INT8_MM_INT8_TO_FLOAT32, 8, 8, 4, MM_C_F32},
    {RKNN_FLOAT16_MM_INT4_TO_BFLOAT16, 16, 4, 5, MM_C_BF16},
    {RKNN_INT8_MM_INT4_TO_FLOAT16, 8, 4, 4, MM_C_F16},
};

/* The type's row of mm_types on this SoC (RK356x: int8 and fp16 A and B,
 * what the vendor runs there), or -1. */
int mm_type_row(const npu_soc_profile *soc, rknn_matmul_type type)
{
    for (unsigned i = 0; i < MM_TYPES; i++)
        if (mm_types[i].type == type)
            return !npu_soc_is_rk356x(soc) || (mm_types[i].a_bits == mm_types[i].b_bits &&
                                               mm_types[i].a_bits >= 8 && !mm_types[i].c_kind)
                       ? (int)i
                       : -1;
    return -1;
}

/* Kernels per weight group of B as the client lays it out natively:
 * RK3588 32 int8 / 16 fp16 / 64 int4, RK356x half (vnpu.md §6). */
uint32_t mm_b_group(const npu_soc_profile *soc, uint32_t b_bits)
{
    return (b_bits == 4 ? 64u : 256u / b_bits) / (npu_soc_is_rk356x(soc) ? 2u : 1u);
}

/* Channels per weight slice: 32, but 16 for fp16 on RK356x (its native B
 * [N/8][K/16][8][16], vnpu.md §6). */
uint32_t mm_b_slice(const npu_soc_profile *soc, uint32_t b_bits)
{
    return npu_soc_is_rk356x(soc) && b_bits == 16u ? MM_SLICE / 2u : MM_SLICE;
}

static rknn_tensor_type mm_in_type(uint32_t bits)
{
    return bits == 16u ? RKNN_TENSOR_FLOAT16 : bits == 8u ? RKNN_TENSOR_INT8 : RKNN_TENSOR_INT4;
}

static rknn_tensor_type mm_out_type(const mm_state *s)
{
    static const uint8_t by_kind[] = {0, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_FLOAT16,
                                      RKNN_TENSOR_BFLOAT16, RKNN_TENSOR_INT8};
    /* C written by the NPU: by its DPU output precision (0..5; 3 unused) */
    static const uint8_t by_prec[] = {RKNN_TENSOR_INT8,  RKNN_TENSOR_INT16, RKNN_TENSOR_FLOAT16,
                                      RKNN_TENSOR_INT32, RKNN_TENSOR_INT32, RKNN_TENSOR_FLOAT32};

    if (s->c_kind != MM_C_NPU)
        return (rknn_tensor_type)by_kind[s->c_kind];
    return (rknn_tensor_type)by_prec[s->out_prec]; /* 0..5: mm_types, mm_tiles */
}

/* One io attribute: its name, type and n dims (those beyond n zero); the
 * size is their product times the element bits, in bytes (int4: two a
 * byte), normal and native shapes alike. */
static void mm_attr(rknn_matmul_tensor_attr *a, char name, rknn_tensor_type type, uint32_t bits,
                    uint32_t n, uint32_t d0, uint32_t d1, uint32_t d2, uint32_t d3)
{
    uint32_t d[4] = {d0, d1, d2, d3};

    memset(a, 0, sizeof *a);
    a->name[0] = name;
    a->n_dims = n;
    a->size = bits;
    for (uint32_t i = 0; i < n; i++) {
        a->dims[i] = d[i];
        a->size *= d[i];
    }
    a->size = (a->size + 7u) / 8u;
    a->type = type;
}

/* The io attributes a client allocates from (normal or native shapes). */
void mm_io_attrs(mm_state *s)
{
    uint32_t M = (uint32_t)s->info.M, K = (uint32_t)s->info.K, N = (uint32_t)s->info.N;
    int ac = s->info.AC_layout == RKNN_MM_LAYOUT_NATIVE;
    int b = s->info.B_layout == RKNN_MM_LAYOUT_NATIVE;

    uint32_t atom = s->soc->feature_atom_bytes, gb = mm_b_group(s->soc, s->b_bits);
    uint32_t slice = mm_b_slice(s->soc, s->b_bits);
    uint32_t c2a = atom * 8u / s->a_bits, c2c = atom / s->c_bytes < 4u ? 4u : atom / s->c_bytes;

    /* native A and C: [K/C2][M][C2] and [N/C2'][M][C2'] (C2 elements fill an
     * atom; a 32-bit C 4 on every SoC, rknn_matmul_api.h); normal: [M][K],
     * [M][N] */
    mm_attr(&s->io.A, 'A', mm_in_type(s->a_bits), s->a_bits, ac ? 3u : 2u, ac ? s->kp / c2a : M,
            ac ? M : K, c2a, 0);
    mm_attr(&s->io.C, 'C', mm_out_type(s), s->c_bytes * 8u, ac ? 3u : 2u, ac ? s->np / c2c : M,
            ac ? M : N, c2c, 0);
    /* native B: [N/group][K/32][group][32]; normal: [K][N] */
    mm_attr(&s->io.B, 'B', mm_in_type(s->b_bits), s->b_bits, b ? 4u : 2u, b ? s->np / gb : K,
            b ? s->kp / slice : N, gb, slice);
}
