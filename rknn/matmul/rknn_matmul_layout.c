/*
 * rknn_matmul_layout.c - A, B and C as the client gives them and as the NPU
 * reads them (api.md §4.6): rknn_matmul_set_io_mem binds a matrix, copying
 * it into our native form when the client's is not the NPU's (row-major,
 * int4, int8 B of an fp16 A, M not padded); the B layout conversions of the
 * headers.
 */
#include <string.h>

#include "hal.h"
#include "rknn_convert.h"
#include "rknn_matmul_internal.h"
#include "rknpu_platform_internal.h"

/* ---- layouts -------------------------------------------------------------- */

/* Moves a rows x cols matrix between our native copy [cols/C2][rows][C2]
 * and the client's row-major memory (native A and C are used in place). */
/* noinline: called for A and for C, one copy of the loops (footprint) */
void mm_relayout(uint8_t *native, uint8_t *client, uint32_t rows, uint32_t cols, uint32_t c2,
                 uint32_t e, int to_native)
{
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++) {
            size_t at = ((size_t)(c / c2) * rows + r) * c2 + c % c2;
            size_t cl = (size_t)r * cols + c;
            if (to_native)
                memcpy(native + at * e, client + cl * e, e);
            else
                memcpy(client + cl * e, native + at * e, e);
        }
}

/* Our own native copy of matrix i (allocated once). */
static int mm_native_buffer(mm_state *s, unsigned i, uint32_t bytes)
{
    void *p;
    int ret;

    if (s->native[i])
        return RKNN_SUCC;
    ret = rknpu_carve_alloc(bytes, 64, &p, "rknn_matmul_set_io_mem");
    if (ret != RKNN_SUCC)
        return ret;
    /* no dirty line of the block's earlier use may be evicted onto what
     * the NPU writes */
    rknpu_hook_cache_clean(p, bytes);
    s->native[i] = p;
    s->native_bytes[i] = bytes;
    return RKNN_SUCC;
}

/* Element i of packed int4 data: two a byte, the even element in the high
 * nibble, in every layout (what Rockchip's runtime 1.6.0 reads: the only
 * order that reproduces the native B it makes from a normal one;
 * api.md §4.6, vnpu.md §6.3). */
static int8_t mm_int4(const uint8_t *p, size_t i)
{
    unsigned v = (unsigned)(p[i / 2u] >> ((i & 1u) ? 0u : 4u)) & 15u;

    return (int8_t)((int)(v ^ 8u) - 8);
}

static int mm_bind_a(mm_state *s, rknn_tensor_mem *mem)
{
    const uint8_t *a = (const uint8_t *)mem->virt_addr + mem->offset;
    int native = s->info.AC_layout == RKNN_MM_LAYOUT_NATIVE;
    uint32_t M = (uint32_t)s->info.M, k_end = native ? s->kp : (uint32_t)s->info.K;
    int ret;

    /* the NPU reads the client's memory: native, or rows of whole slices */
    if (s->a_bits == s->nib_in * 4u && (native || (uint32_t)s->info.K == s->kp))
        return RKNN_SUCC;
    ret = mm_native_buffer(s, 0, s->kp * s->mp_max * s->nib_in / 2u);
    if (ret != RKNN_SUCC)
        return ret;
    /* the CPU reads what the CPU wrote: no cache maintenance here */
    memset(s->native[0], 0, s->native_bytes[0]);
    if (s->a_bits != 4u) {
        mm_relayout(s->native[0], (uint8_t *)(uintptr_t)a, M, k_end, s->c2_in, s->nib_in / 2u, 1);
        return RKNN_SUCC;
    }
    /* int4 run in int4: rows of K nibbles to rows of kp (a row a task), the
     * B conversion's [1][M][kp][1] */
    if (s->nib_in == 1u)
        return rknn_B_normal_layout_to_native_layout((void *)(uintptr_t)a, s->native[0], (int)M,
                                                     (int)k_end, (int)s->kp, 1, s->info.type);
    /* int4 run as int8 (K split): [M][K] or [K/32][M][32] nibbles to int8
     * [K/C2][mp][C2] */
    for (uint32_t r = 0; r < M; r++)
        for (uint32_t c = 0; c < k_end; c++)
            s->native[0][((c / s->c2_in) * s->mp + r) * s->c2_in + c % s->c2_in] =
                (uint8_t)mm_int4(a, native ? ((c / 32u) * M + r) * 32u + c % 32u : r * k_end + c);
    return RKNN_SUCC;
}

/* An int4 or int8 B, [K][N] or native [N/G][K/32][G][32] (G for its type),
 * to the native B the NPU reads: int8 [N/32][K/32][32][32], or fp16
 * [N/16][K/32][16][32] when A is fp16 (every int8 is an fp16). */
static void mm_unpack_b(mm_state *s, const uint8_t *b, int native)
{
    uint32_t g = s->kgroup, gb = mm_b_group(s->soc, s->b_bits), ks = s->kslice, kr = s->kp / ks;
    uint32_t kb = mm_b_slice(s->soc, s->b_bits), kbr = s->kp / kb;
    uint32_t k_end = native ? s->kp : (uint32_t)s->info.K;
    uint32_t n_end = s->np; /* N (create refuses an N of partial groups) */

    memset(s->native[1], 0, s->native_bytes[1]);
    for (uint32_t k = 0; k < k_end; k++)
        for (uint32_t n = 0; n < n_end; n++) {
            size_t d = (((n / g) * kr + k / ks) * g + n % g) * ks + k % ks;
            size_t i =
                native ? (((n / gb) * kbr + k / kb) * gb + n % gb) * kb + k % kb : k * n_end + n;
            int8_t v = s->b_bits == 4u ? mm_int4(b, i) : (int8_t)b[i];
            if (s->nib_in == 4u) {
                uint16_t h = rknn_f32_to_f16((float)v);
                memcpy(s->native[1] + 2u * d, &h, 2);
            } else {
                s->native[1][d] = (uint8_t)v;
            }
        }
}

static int mm_bind_b(mm_state *s, rknn_tensor_mem *mem)
{
    const uint8_t *b = (const uint8_t *)mem->virt_addr + mem->offset;
    int native = s->info.B_layout == RKNN_MM_LAYOUT_NATIVE;
    int unpack = s->b_bits != s->nib_in * 4u; /* B's type is not the NPU's */
    int ret;

    if (native && !unpack)
        return RKNN_SUCC;
    ret = mm_native_buffer(s, 1, s->np * s->kp * s->nib_in / 2u);
    if (ret != RKNN_SUCC)
        return ret;
    if (unpack) {
        mm_unpack_b(s, b, native);
        return RKNN_SUCC;
    }
    return rknn_B_normal_layout_to_native_layout((void *)(uintptr_t)b, s->native[1], s->info.K,
                                                 s->info.N, (int)s->kgroup, (int)s->kslice,
                                                 s->info.type);
}

static int mm_bind_c(mm_state *s)
{
    int ret;

    if (s->ksegs > 1u && s->e_out == 2u &&
        (ret = mm_native_buffer(s, MM_PARTIAL, s->np * s->mp_max * 4u)) != RKNN_SUCC)
        return ret;
    /* the NPU writes the client's memory: native, or whole rows of one K
     * segment (hardware.md §4.5: the line notch) */
    if (s->c_kind == MM_C_NPU && (s->info.AC_layout == RKNN_MM_LAYOUT_NATIVE || s->ksegs == 1u))
        return RKNN_SUCC; /* the NPU writes the client's memory */
    return mm_native_buffer(s, 2, s->np * s->mp_max * s->e_out);
}

int rknn_matmul_set_io_mem(rknn_matmul_ctx handle, rknn_tensor_mem *mem,
                           rknn_matmul_tensor_attr *attr)
{
    mm_state *s = mm_of(handle, "rknn_matmul_set_io_mem");
    const rknn_matmul_tensor_attr *want;
    int i, ret;

    if (!s)
        return RKNN_ERR_CTX_INVALID;
    if (!mem || !attr || (i = mm_matrix_index(attr->name)) < 0)
        return mm_fail("rknn_matmul_set_io_mem", "a memory and the attr of A, B or C are needed");
    want = i == 0 ? &s->io.A : i == 1 ? &s->io.B : &s->io.C;
    if (mem->size < want->size || !mem->virt_addr ||
        !rknpu_platform_in_carveout((uint8_t *)mem->virt_addr + mem->offset, want->size)) {
        HAL_LOG_ERR("rknn_matmul_set_io_mem: %s needs %lu bytes of rknn_create_mem memory (got "
                    "%lu)",
                    want->name, (unsigned long)want->size, (unsigned long)mem->size);
        return RKNN_ERR_PARAM_INVALID;
    }
    ret = i == 0 ? mm_bind_a(s, mem) : i == 1 ? mm_bind_b(s, mem) : mm_bind_c(s);
    if (ret == RKNN_SUCC)
        s->bound[i] = mem;
    return ret;
}

/* The v2.3 signature (rknn_matmul_api.h): subN and subK as create reports
 * them for the info's type on this SoC. */
int rknpu_bm_B_normal_layout_to_native_layout_info(void *B_input, void *B_output, int K, int N,
                                                   rknn_matmul_info *info)
{
    const npu_soc_profile *soc;
    int row;

    if (!info || rknpu_board_autoinit() != RKNN_SUCC ||
        (row = mm_type_row(soc = rknpu_platform_profile(), info->type)) < 0)
        return mm_fail("rknn_B_normal_layout_to_native_layout",
                       "an info of a type this SoC runs, and a platform");
    return rknn_B_normal_layout_to_native_layout(
        B_input, B_output, K, N, (int)mm_b_group(soc, mm_types[row].b_bits),
        (int)mm_b_slice(soc, mm_types[row].b_bits), info->type);
}

/* ---- B layout conversion (CPU) --------------------------------------------- */

/* Element bits of B for each matmul type of the headers (mm_types), or 0. */
static int b_elem_bits(rknn_matmul_type type)
{
    for (unsigned i = 0; i < MM_TYPES; i++)
        if (mm_types[i].type == type)
            return mm_types[i].b_bits;
    return 0;
}

/* Native B: [N/subN][K/subK][subN][subK], both divisions rounded up, padding
 * zero (api.md §4.6). int4 is packed the even element in the high nibble,
 * in and out (mm_int4). */
int rknn_B_normal_layout_to_native_layout(void *B_input, void *B_output, int K, int N, int subN,
                                          int subK, rknn_matmul_type type)
{
    int bits = b_elem_bits(type);
    size_t e = (size_t)bits / 8u;
    const uint8_t *src = B_input;
    uint8_t *dst = B_output;
    uint32_t k_n, n_n, sub_n, sub_k, nr, kr; /* K, N, subN, subK once checked positive */

    if (!src || !dst || K <= 0 || N <= 0 || subN <= 0 || subK <= 0 || !bits) {
        HAL_LOG_ERR("rknn_B_normal_layout_to_native_layout: invalid argument (K %d N %d subN %d "
                    "subK %d type %d)",
                    K, N, subN, subK, (int)type);
        return RKNN_ERR_PARAM_INVALID;
    }
    k_n = (uint32_t)K;
    n_n = (uint32_t)N;
    sub_n = (uint32_t)subN;
    sub_k = (uint32_t)subK;
    nr = (n_n + sub_n - 1u) / sub_n;
    kr = (k_n + sub_k - 1u) / sub_k;
    memset(dst, 0, ((size_t)nr * kr * sub_n * sub_k * (size_t)bits + 7u) / 8u);
    for (uint32_t k = 0; k < k_n; k++)
        for (uint32_t n = 0; n < n_n; n++) {
            size_t d =
                (((size_t)(n / sub_n) * kr + k / sub_k) * sub_n + n % sub_n) * sub_k + k % sub_k;
            size_t i = (size_t)k * n_n + n;
            if (bits == 4)
                dst[d / 2u] |= (uint8_t)(((unsigned)mm_int4(src, i) & 15u) << (d & 1u ? 0 : 4));
            else
                memcpy(dst + d * e, src + i * e, e);
        }
    return RKNN_SUCC;
}
