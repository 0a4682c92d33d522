/*
 * rknn_matmul_api.h - the RKNPU2 matrix-multiply API as implemented by
 * rknpu-bm: C = A * B on the NPU without a model (A is M x K, B is K x N).
 *
 * Source compatible with Rockchip's rknn_matmul_api.h of SDK v2.0.0b0 (struct
 * layouts of that version, incl. rknn_matmul_info with reserved[36]); the
 * v2.3.x matmul types, rknn_matmul_layout / rknn_matmul_quant_type and the
 * name rknn_matmul_create_dynamic_shape are declared as well because they are
 * additive. Written from docs/api.md, not from the vendor file.
 *
 * Flow: fill rknn_matmul_info -> rknn_matmul_create (gets the A/B/C attrs) ->
 * rknn_create_mem per matrix -> write A and B -> rknn_matmul_set_io_mem for
 * A, B and C (this converts layouts, so call it again after changing A or B)
 * -> rknn_matmul_run -> read C -> rknn_destroy_mem, rknn_matmul_destroy.
 */
#ifndef RKNN_MATMUL_API_H
#define RKNN_MATMUL_API_H

#include <stdint.h>

#include "rknn_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef rknn_context rknn_matmul_ctx;

/* Element types of A, B and C: <A>_MM_<B>_TO_<C>. Value 9 and 12/15 came
 * with v2.3.x. int4 types are RK3588/RK3576 only. */
typedef enum _rknn_matmul_type {
    RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 = 1,
    RKNN_INT8_MM_INT8_TO_INT32 = 2,
    RKNN_INT8_MM_INT8_TO_INT8 = 3,
    RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16 = 4,
    RKNN_FLOAT16_MM_INT8_TO_FLOAT32 = 5,
    RKNN_FLOAT16_MM_INT8_TO_FLOAT16 = 6,
    RKNN_FLOAT16_MM_INT4_TO_FLOAT32 = 7,
    RKNN_FLOAT16_MM_INT4_TO_FLOAT16 = 8,
    RKNN_INT8_MM_INT8_TO_FLOAT32 = 9, /* v2.3.x */
    RKNN_INT4_MM_INT4_TO_INT16 = 10,
    RKNN_INT8_MM_INT4_TO_INT32 = 11,
    RKNN_FLOAT16_MM_INT4_TO_BFLOAT16 = 12,         /* v2.3.x */
    RKNN_INT8_MM_INT4_TO_FLOAT16 = 15,             /* v2.3.x */
    RKNPU_BM_MATMUL_TYPE_ENUM_4_BYTES = 0x7fffffff /* see rknn_api.h */
} rknn_matmul_type;

/* Printable name of a matmul type (the enumerator's name), "UNKNOW" else. */
static inline const char *get_matmul_type_string(rknn_matmul_type type)
{
    switch (type) {
    case RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32: return "RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32";
    case RKNN_INT8_MM_INT8_TO_INT32: return "RKNN_INT8_MM_INT8_TO_INT32";
    case RKNN_INT8_MM_INT8_TO_INT8: return "RKNN_INT8_MM_INT8_TO_INT8";
    case RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16: return "RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16";
    case RKNN_FLOAT16_MM_INT8_TO_FLOAT32: return "RKNN_FLOAT16_MM_INT8_TO_FLOAT32";
    case RKNN_FLOAT16_MM_INT8_TO_FLOAT16: return "RKNN_FLOAT16_MM_INT8_TO_FLOAT16";
    case RKNN_FLOAT16_MM_INT4_TO_FLOAT32: return "RKNN_FLOAT16_MM_INT4_TO_FLOAT32";
    case RKNN_FLOAT16_MM_INT4_TO_FLOAT16: return "RKNN_FLOAT16_MM_INT4_TO_FLOAT16";
    case RKNN_INT8_MM_INT8_TO_FLOAT32: return "RKNN_INT8_MM_INT8_TO_FLOAT32";
    case RKNN_INT4_MM_INT4_TO_INT16: return "RKNN_INT4_MM_INT4_TO_INT16";
    case RKNN_INT8_MM_INT4_TO_INT32: return "RKNN_INT8_MM_INT4_TO_INT32";
    case RKNN_FLOAT16_MM_INT4_TO_BFLOAT16: return "RKNN_FLOAT16_MM_INT4_TO_BFLOAT16";
    case RKNN_INT8_MM_INT4_TO_FLOAT16: return "RKNN_INT8_MM_INT4_TO_FLOAT16";
    case RKNPU_BM_MATMUL_TYPE_ENUM_4_BYTES: break;
    }
    return "UNKNOW";
}

/* (v2.3.x names) values of rknn_matmul_info.B_layout / AC_layout. */
typedef enum _rknn_matmul_layout {
    RKNN_MM_LAYOUT_NORM = 0,   /* row-major as in C */
    RKNN_MM_LAYOUT_NATIVE = 1, /* the NPU's blocked layout, no conversion */
    RKNN_MM_LAYOUT_TP_NORM = 2 /* transposed row-major (v2.3.x) */
} rknn_matmul_layout;

/* (v2.3.x names) values of rknn_matmul_info.B_quant_type / AC_quant_type.
 * v2.0.0b0 uses 0 = per layer, 1 = per channel. */
typedef enum _rknn_matmul_quant_type {
    RKNN_QUANT_TYPE_PER_LAYER_SYM = 0,
    RKNN_QUANT_TYPE_PER_LAYER_ASYM = 1,
    RKNN_QUANT_TYPE_PER_CHANNEL_SYM = 2,
    RKNN_QUANT_TYPE_PER_CHANNEL_ASYM = 3,
    RKNN_QUANT_TYPE_PER_GROUP_SYM = 4,
    RKNN_QUANT_TYPE_PER_GROUP_ASYM = 5
} rknn_matmul_quant_type;

/* One matrix as the runtime stores it (returned by rknn_matmul_create). */
typedef struct _rknn_matmul_tensor_attr {
    char name[RKNN_MAX_NAME_LEN]; /* "A", "B" or "C" */
    uint32_t n_dims;
    uint32_t dims[RKNN_MAX_DIMS]; /* normal (M,K) or native blocked shape */
    uint32_t size;                /* bytes to allocate */
    rknn_tensor_type type;
} rknn_matmul_tensor_attr;

typedef struct _rknn_matmul_io_attr {
    rknn_matmul_tensor_attr A;
    rknn_matmul_tensor_attr B; /* native B: dims[2] = subN, dims[3] = subK */
    rknn_matmul_tensor_attr C;
} rknn_matmul_io_attr;

/* Quantisation of one matrix for rknn_matmul_set/get_quant_params(). */
typedef struct _rknn_quant_params {
    char name[RKNN_MAX_NAME_LEN]; /* which matrix: "A", "B" or "C" */
    float *scale;                 /* 1 (per layer) or N (per channel) */
    int32_t scale_len;
    int32_t *zp;
    int32_t zp_len;
} rknn_quant_params;

/* One supported shape of a dynamic-shape matmul. */
typedef struct _rknn_matmul_shape {
    int32_t M;
    int32_t K;
    int32_t N;
} rknn_matmul_shape;

/* What to multiply. Alignment of K / N in elements (vendor header):
 *   RK3566/8: K int8 32, fp16 16; N int8 16, fp16 8
 *   RK3562:   K int8 32, fp16 32; N int8 16, fp16 8
 *   RK3588/76: K int8/fp16/int4 32; N int8 32, fp16 16, int4 64
 * K <= 10240. */
typedef struct rknn_matmul_info_t {
    int32_t M;
    int32_t K;
    int32_t N;
    rknn_matmul_type type;
    int16_t B_layout;        /* 0 normal, 1 native */
    int16_t B_quant_type;    /* 0 per layer, 1 per channel */
    int16_t AC_layout;       /* 0 normal, 1 native (A and C) */
    int16_t AC_quant_type;   /* 0 per layer (the only choice) */
    int32_t iommu_domain_id; /* no IOMMU on bare metal: must be 0 */
    int8_t reserved[36];
} rknn_matmul_info;

/* Create a matmul context for info and return the A/B/C attributes. Buffers
 * come from the DMA carve-out. */
int rknn_matmul_create(rknn_matmul_ctx *ctx, rknn_matmul_info *info, rknn_matmul_io_attr *io_attr);

/* Create a context for shape_num shapes (info's M/K/N ignored); io_attrs[i]
 * describes dynamic_shapes[i]. Allocate buffers for the largest sizes. */
int rknn_matmul_create_dyn_shape(rknn_matmul_ctx *ctx, rknn_matmul_info *info, int shape_num,
                                 rknn_matmul_shape dynamic_shapes[],
                                 rknn_matmul_io_attr io_attrs[]);

/* The v2.3.x name of rknn_matmul_create_dyn_shape(); same behaviour. */
int rknn_matmul_create_dynamic_shape(rknn_matmul_ctx *ctx, rknn_matmul_info *info, int shape_num,
                                     rknn_matmul_shape dynamic_shapes[],
                                     rknn_matmul_io_attr io_attrs[]);

/* Pick the current shape (one given at creation; only M may vary). Call
 * rknn_matmul_set_io_mem() again afterwards. */
int rknn_matmul_set_dynamic_shape(rknn_matmul_ctx ctx, rknn_matmul_shape *shape);

/* Bind mem to the matrix attr describes (A, B or C) and convert its contents
 * to the NPU layout where needed: call it after every change of A or B. */
int rknn_matmul_set_io_mem(rknn_matmul_ctx ctx, rknn_tensor_mem *mem,
                           rknn_matmul_tensor_attr *attr);

/* NPU cores for later runs; multi-core masks on RK3588 only. */
int rknn_matmul_set_core_mask(rknn_matmul_ctx context, rknn_core_mask core_mask);

/* Scale / zero point of the matrix params->name (default 1.0 / 0). Only for
 * RKNN_INT8_MM_INT8_TO_INT8 and RKNN_INT8_MM_INT8_TO_INT32. */
int rknn_matmul_set_quant_params(rknn_matmul_ctx context, rknn_quant_params *params);

/* Read back B's per-channel quantisation (RKNN_INT8_MM_INT8_TO_INT32 only)
 * into params; *scale receives the extra output scale for the caller. */
int rknn_matmul_get_quant_params(rknn_matmul_ctx ctx, rknn_quant_params *params, float *scale);

/* C = A * B; blocks until the NPU is done or the job times out. */
int rknn_matmul_run(rknn_matmul_ctx ctx);

/* Free the context and its carve-out buffers (not the rknn_create_mem ones). */
int rknn_matmul_destroy(rknn_matmul_ctx ctx);

/* Convert B (K x N, normal layout) in B_input to the native layout in
 * B_output. The vendor has shipped two signatures, and both compile here:
 * v2.0 (..., K, N, subN, subK, type) with subN / subK from
 * rknn_matmul_io_attr.B.dims[2] / dims[3], and v2.3 (..., K, N, info),
 * which takes them from the info. The macro below picks by the number of
 * arguments. Pure CPU work, no context. */
int rknn_B_normal_layout_to_native_layout(void *B_input, void *B_output, int K, int N, int subN,
                                          int subK, rknn_matmul_type type);
int rknpu_bm_B_normal_layout_to_native_layout_info(void *B_input, void *B_output, int K, int N,
                                                   rknn_matmul_info *info);
#define RKNPU_BM_PICK_8TH(a1, a2, a3, a4, a5, a6, a7, name, ...) name
#define rknn_B_normal_layout_to_native_layout(...)                                                 \
    RKNPU_BM_PICK_8TH(__VA_ARGS__, (rknn_B_normal_layout_to_native_layout), _6,                    \
                      rknpu_bm_B_normal_layout_to_native_layout_info, _4, _3, _2, _1)              \
    (__VA_ARGS__)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RKNN_MATMUL_API_H */
