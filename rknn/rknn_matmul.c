/*
 * rknn_matmul.c - the matmul API (rknn_matmul_api.h).
 *
 * NOT DONE YET: the NPU matmul path (a 1x1-conv task per tile built with
 * npu_builder, hardware.md §4.6 recipe A) is planned; until it lands every call
 * that would need it returns RKNN_ERR_FAIL with a log line saying so, so
 * applications link and fail clearly instead of computing nothing.
 * rknn_B_normal_layout_to_native_layout is pure CPU work and is complete.
 */
#include <string.h>

#include "hal.h"
#include "rknn_matmul_api.h"

static int not_done(const char *fn)
{
    HAL_LOG_ERR("%s: the matmul API is not implemented in rknpu-bm yet", fn);
    return RKNN_ERR_FAIL;
}

int rknn_matmul_create(rknn_matmul_ctx *ctx, rknn_matmul_info *info, rknn_matmul_io_attr *io_attr)
{
    (void)info, (void)io_attr;
    if (ctx)
        *ctx = 0;
    return not_done("rknn_matmul_create");
}

int rknn_matmul_create_dyn_shape(rknn_matmul_ctx *ctx, rknn_matmul_info *info, int shape_num,
                                 rknn_matmul_shape dynamic_shapes[], rknn_matmul_io_attr io_attrs[])
{
    (void)info, (void)shape_num, (void)dynamic_shapes, (void)io_attrs;
    if (ctx)
        *ctx = 0;
    return not_done("rknn_matmul_create_dyn_shape");
}

int rknn_matmul_create_dynamic_shape(rknn_matmul_ctx *ctx, rknn_matmul_info *info, int shape_num,
                                     rknn_matmul_shape dynamic_shapes[],
                                     rknn_matmul_io_attr io_attrs[])
{
    return rknn_matmul_create_dyn_shape(ctx, info, shape_num, dynamic_shapes, io_attrs);
}

int rknn_matmul_set_dynamic_shape(rknn_matmul_ctx ctx, rknn_matmul_shape *shape)
{
    (void)ctx, (void)shape;
    return not_done("rknn_matmul_set_dynamic_shape");
}

int rknn_matmul_set_io_mem(rknn_matmul_ctx ctx, rknn_tensor_mem *mem, rknn_matmul_tensor_attr *attr)
{
    (void)ctx, (void)mem, (void)attr;
    return not_done("rknn_matmul_set_io_mem");
}

int rknn_matmul_set_core_mask(rknn_matmul_ctx context, rknn_core_mask core_mask)
{
    (void)context, (void)core_mask;
    return not_done("rknn_matmul_set_core_mask");
}

int rknn_matmul_set_quant_params(rknn_matmul_ctx context, rknn_quant_params *params)
{
    (void)context, (void)params;
    return not_done("rknn_matmul_set_quant_params");
}

int rknn_matmul_get_quant_params(rknn_matmul_ctx ctx, rknn_quant_params *params, float *scale)
{
    (void)ctx, (void)params, (void)scale;
    return not_done("rknn_matmul_get_quant_params");
}

int rknn_matmul_run(rknn_matmul_ctx ctx)
{
    (void)ctx;
    return not_done("rknn_matmul_run");
}

int rknn_matmul_destroy(rknn_matmul_ctx ctx)
{
    (void)ctx;
    return not_done("rknn_matmul_destroy");
}

/* Element size of B for each matmul type (int4 packs two per byte). */
static int b_elem_bits(rknn_matmul_type type)
{
    switch (type) {
    case RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32:
    case RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16: return 16;
    case RKNN_INT8_MM_INT8_TO_INT32:
    case RKNN_INT8_MM_INT8_TO_INT8:
    case RKNN_FLOAT16_MM_INT8_TO_FLOAT32:
    case RKNN_FLOAT16_MM_INT8_TO_FLOAT16: return 8;
    default: return 0; /* int4 layouts are not supported here */
    }
}

/* Native B: [N/subN][K/subK][subN][subK], both divisions rounded up, padding
 * zero (api.md §4.6). */
int rknn_B_normal_layout_to_native_layout(void *B_input, void *B_output, int K, int N, int subN,
                                          int subK, rknn_matmul_type type)
{
    int bits = b_elem_bits(type);
    size_t e = (size_t)bits / 8u;
    const uint8_t *src = B_input;
    uint8_t *dst = B_output;
    int nr, kr;

    if (!src || !dst || K <= 0 || N <= 0 || subN <= 0 || subK <= 0 || !bits) {
        HAL_LOG_ERR("rknn_B_normal_layout_to_native_layout: invalid argument (K %d N %d subN %d "
                    "subK %d type %d)",
                    K, N, subN, subK, (int)type);
        return RKNN_ERR_PARAM_INVALID;
    }
    nr = (N + subN - 1) / subN;
    kr = (K + subK - 1) / subK;
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < kr; j++)
            for (int n = 0; n < subN; n++)
                for (int k = 0; k < subK; k++) {
                    size_t d = ((((size_t)i * (size_t)kr + (size_t)j) * (size_t)subN + (size_t)n) *
                                    (size_t)subK +
                                (size_t)k) *
                               e;
                    int kk = j * subK + k, nn = i * subN + n;
                    if (kk < K && nn < N)
                        memcpy(dst + d, src + ((size_t)kk * (size_t)N + (size_t)nn) * e, e);
                    else
                        memset(dst + d, 0, e);
                }
    return RKNN_SUCC;
}
