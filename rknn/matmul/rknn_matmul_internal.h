/*
 * rknn_matmul_internal.h - what the three files of the matmul API share: the
 * state of a matmul context and the functions one file offers the next.
 *
 *   rknn_matmul_shape.c   types, padding, tiles, attributes; handle lookup
 *   rknn_matmul_layout.c  binding A, B, C (layouts, int4, our native copies),
 *                         rknn_B_normal_layout_to_native_layout
 *   rknn_matmul.c         create/destroy, quantisation, run, dynamic shapes
 *
 * Each file calls only the files above it in this list.
 */
#ifndef RKNN_MATMUL_INTERNAL_H
#define RKNN_MATMUL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hal.h"
#include "npu_builder.h"
#include "rknn_ctx.h"
#include "rknn_matmul_api.h"

#define MM_ROWS_MIN    4u    /* rows a task must be able to hold (mm_fit) */
#define MM_ROWS_MAX    1024u /* rows per task: Rockchip's runtime runs M = 1024 in one */
#define MM_KERNELS_MAX 4096u /* kernels per task */
#define MM_SLICE       32u   /* K alignment: channels per weight slice (vnpu.md §6) */
#define MM_BATCH       64u   /* tasks chained per submission */
#define MM_MAX_SHAPES  64    /* dynamic shapes a context holds */
#define MM_MATRICES    3u    /* A, B, C */
#define MM_PARTIAL     3u    /* native[] slot of the K partial sums */

typedef struct rknn_matmul_state {
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    const npu_soc_profile *soc;
    const rknpu_job_owner *owner; /* its context's, for the inference hooks */
    unsigned core;
    uint32_t mp, kp, np;     /* M (of the selected shape), K and N padded */
    uint32_t nib_in, e_out;  /* A/B's element nibbles and C's bytes as the NPU reads, writes them */
    uint32_t a_bits, b_bits; /* element bits of the client's A and B */
    uint32_t c_kind, c_bytes;  /* C: written by the NPU (MM_C_NPU) or the CPU epilogue; its bytes */
    uint32_t c2_in, c2_out;    /* channels per atom of A and of C */
    uint32_t kgroup;           /* kernels per weight group (native B) */
    uint32_t kslice;           /* channels per weight slice the NPU reads */
    uint32_t out_prec;         /* DPU output precision */
    uint32_t mt, nt;           /* rows and kernels per task */
    uint32_t kt, ksegs;        /* K per task and K segments (K splitting) */
    uint32_t mt_cap, mp_max;   /* rows a task may hold; the largest M (dynamic shapes) */
    rknn_matmul_shape *shapes; /* dynamic shapes (carve-out), n_shapes of them */
    int32_t n_shapes;
    uint32_t data_banks, weight_banks;
    rknn_tensor_mem *bound[MM_MATRICES];
    /* our native copies of A, B, C (NULL: the client's memory is used), then
     * the fp32 K partial sums of an fp16 C (K splitting) */
    uint8_t *native[MM_MATRICES + 1];
    uint32_t native_bytes[MM_MATRICES + 1];
    uint8_t *stream, *records;
    size_t stream_bytes;
    npu_task_words *tasks; /* one batch being built (carve-out: no static RAM) */
    /* quantisation as set (copies: the client's arrays may go away) */
    float scale[MM_MATRICES]; /* A, B (its first), C */
    float *b_scale;           /* B: 1 or N values (carve-out) */
    int32_t zp[MM_MATRICES];
    int32_t b_scales;
    int16_t *multiplier; /* int8 -> int8: per output channel (carve-out) */
    uint32_t requant_shift;
} mm_state;

/* How C reaches the client: written by the NPU, or by the CPU from the
 * NPU's int32/fp32 sums (mm_epilogue), scaled and converted. */
enum { MM_C_NPU, MM_C_F32, MM_C_F16, MM_C_BF16, MM_C_I8 };

/* Inline: with log_strings=false the messages then vanish from the image. */
static inline int mm_fail(const char *fn, const char *why)
{
    HAL_LOG_ERR("%s: %s", fn, why);
    return RKNN_ERR_PARAM_INVALID;
}

/* The matmul state of a handle, or NULL (logged). */
static inline mm_state *mm_of(rknn_matmul_ctx handle, const char *fn)
{
    rknn_ctx *ctx = rknn_ctx_from_handle(handle);

    if (!ctx || !ctx->matmul) {
        HAL_LOG_ERR("%s: not a matmul context", fn);
        return NULL;
    }
    return ctx->matmul;
}

static inline int mm_matrix_index(const char *name)
{
    unsigned i = (unsigned char)name[0] - (unsigned char)'A';

    return name[1] == 0 && i < MM_MATRICES ? (int)i : -1; /* "A", "B", "C" */
}

/* rknn_matmul_shape.c */
/* A type this implementation runs (mm_types, one row per type). */
typedef struct {
    uint8_t type, a_bits, b_bits, out_prec, c_kind;
} mm_type_desc;
#define MM_TYPES 13u /* rows of mm_types: every type of the headers */
extern const mm_type_desc mm_types[MM_TYPES];
int mm_type_row(const npu_soc_profile *soc, rknn_matmul_type type);
uint32_t mm_b_group(const npu_soc_profile *soc, uint32_t b_bits);
uint32_t mm_b_slice(const npu_soc_profile *soc, uint32_t b_bits);
void mm_io_attrs(mm_state *s);

/* rknn_matmul_layout.c */
void mm_relayout(uint8_t *native, uint8_t *client, uint32_t rows, uint32_t cols, uint32_t c2,
                 uint32_t e, int to_native);

#endif
