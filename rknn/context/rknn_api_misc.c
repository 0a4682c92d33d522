/*
 * rknn_api_misc.c - the rknn_* calls for features a static-shape, bare-metal
 * runtime does not have (dynamic shapes, multi-batch core sharing). Each
 * answers with a vendor error code and says why.
 */
#include <string.h>

#include "hal.h"
#include "rknn_ctx.h"
#include "rknn_io.h"
#include "rknn_tensor.h"

/* The shapes a static model accepts are its own: anything else is refused. */
static int same_shape_as_model(const rknn_ctx *ctx, const rknn_tensor_attr *attr)
{
    rknn_model_tensor_info t;
    rknn_tensor_attr cur;

    if (rknn_io_tensor(ctx, 1, attr->index, &t) != RKNN_SUCC ||
        rknn_tensor_user_attr(&t, attr->index, 1, &cur) != RKNN_SUCC)
        return 0;
    return cur.n_dims == attr->n_dims && memcmp(cur.dims, attr->dims, cur.n_dims * 4u) == 0;
}

int rknn_set_input_shapes(rknn_context context, uint32_t n_inputs, rknn_tensor_attr attr[])
{
    const rknn_ctx *ctx = rknn_ctx_of(context, "rknn_set_input_shapes");

    if (!ctx)
        return RKNN_ERR_CTX_INVALID;
    if (!attr || n_inputs != ctx->model.n_inputs) {
        HAL_LOG_ERR("rknn_set_input_shapes: pass all %lu inputs",
                    (unsigned long)ctx->model.n_inputs);
        return RKNN_ERR_PARAM_INVALID;
    }
    for (uint32_t i = 0; i < n_inputs; i++)
        if (!same_shape_as_model(ctx, &attr[i])) {
            HAL_LOG_ERR("rknn_set_input_shapes: input %lu: the model has static shapes; dynamic-"
                        "shape models are not supported",
                        (unsigned long)i);
            return RKNN_ERR_PARAM_INVALID;
        }
    return RKNN_SUCC;
}

int rknn_set_input_shape(rknn_context context, rknn_tensor_attr *attr)
{
    const rknn_ctx *ctx = rknn_ctx_from_handle(context);

    if (!ctx || !attr) {
        HAL_LOG_ERR("rknn_set_input_shape: invalid context or attr");
        return ctx ? RKNN_ERR_PARAM_INVALID : RKNN_ERR_CTX_INVALID;
    }
    if (!same_shape_as_model(ctx, attr)) {
        HAL_LOG_ERR("rknn_set_input_shape: the model has static shapes");
        return RKNN_ERR_PARAM_INVALID;
    }
    return RKNN_SUCC;
}

int rknn_set_batch_core_num(rknn_context context, int core_num)
{
    if (!rknn_ctx_of(context, "rknn_set_batch_core_num"))
        return RKNN_ERR_CTX_INVALID;
    if (core_num != 1) {
        HAL_LOG_ERR("rknn_set_batch_core_num: multi-batch models are not supported (use "
                    "rknn_set_core_mask for multi-core runs)");
        return RKNN_ERR_PARAM_INVALID;
    }
    return RKNN_SUCC;
}
