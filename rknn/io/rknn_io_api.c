/*
 * rknn_io_api.c - rknn_inputs_set, rknn_outputs_get, rknn_outputs_release:
 * argument checks, locking and waiting for a run in flight around the
 * conversions of rknn_io.c.
 */
#include <string.h>

#include "hal.h"
#include "rknn_ctx.h"
#include "rknn_io.h"
#include "rknn_run.h"
#include "rknpu_platform_internal.h"

int rknn_inputs_set(rknn_context context, uint32_t n_inputs, rknn_input inputs[])
{
    rknn_ctx *ctx = rknn_ctx_of(context, "rknn_inputs_set");
    int ret = RKNN_SUCC;

    if (!ctx)
        return RKNN_ERR_CTX_INVALID;
    if (!inputs || n_inputs == 0 || n_inputs > ctx->model.n_inputs) {
        HAL_LOG_ERR("rknn_inputs_set: %lu input(s) given, the model has %lu",
                    (unsigned long)n_inputs, (unsigned long)ctx->model.n_inputs);
        return RKNN_ERR_PARAM_INVALID;
    }
    if (!ctx->arena) {
        HAL_LOG_ERR("rknn_inputs_set: the context has no internal memory bound yet");
        return RKNN_ERR_CTX_INVALID;
    }
    rknpu_hook_lock();
    ret = rknn_run_settle(ctx); /* the NPU may still be reading the inputs */
    for (uint32_t i = 0; i < n_inputs && ret == RKNN_SUCC; i++)
        ret = rknn_io_set_input(ctx, &inputs[i]);
    rknpu_hook_unlock();
    return ret;
}

int rknn_outputs_get(rknn_context context, uint32_t n_outputs, rknn_output outputs[],
                     rknn_output_extend *extend)
{
    rknn_ctx *ctx = rknn_ctx_of(context, "rknn_outputs_get");
    int ret = RKNN_SUCC;

    (void)extend;
    if (!ctx)
        return RKNN_ERR_CTX_INVALID;
    /* rknn_init refuses a model of more than RKNN_CTX_MAX_OUTPUTS outputs */
    if (!outputs || n_outputs == 0 || n_outputs > ctx->model.n_outputs) {
        HAL_LOG_ERR("rknn_outputs_get: %lu output(s) asked, the model has %lu",
                    (unsigned long)n_outputs, (unsigned long)ctx->model.n_outputs);
        return RKNN_ERR_PARAM_INVALID;
    }
    rknpu_hook_lock();
    ret = rknn_run_settle(ctx);
    if (ctx->model.output_copy) /* its OutputOperator may run (rknn_io_get_output) */
        rknn_run_free_cores(ctx, ctx->run_cores.core, 1);
    if (ret == RKNN_SUCC && ctx->runs == 0) {
        HAL_LOG_ERR("rknn_outputs_get: rknn_run has not completed yet");
        ret = RKNN_ERR_OUTPUT_INVALID;
    }
    if (ret == RKNN_SUCC && (ctx->flags & RKNN_FLAG_ASYNC_MASK) && !ctx->async_have_prev) {
        /* Async mode returns the previous frame; after the first run there
         * is none yet: an empty result, as the vendor runtime gives. */
        for (uint32_t i = 0; i < n_outputs; i++) {
            if (!outputs[i].is_prealloc)
                outputs[i].buf = NULL;
            outputs[i].size = 0;
        }
        rknpu_hook_unlock();
        return RKNN_SUCC;
    }
    for (uint32_t i = 0; i < n_outputs && ret == RKNN_SUCC; i++) {
        rknn_io_release_output(ctx, i); /* a previous get without release */
        /* RKNN_FLAG_ASYNC_MASK: rknn_outputs_get returns the frame before */
        ret = rknn_io_get_output(ctx, &outputs[i], RKNN_TENSOR_TYPE_MAX, RKNN_TENSOR_NCHW,
                                 (ctx->flags & RKNN_FLAG_ASYNC_MASK) && ctx->async_have_prev,
                                 &ctx->out_alloc[i]);
    }
    if (ret != RKNN_SUCC)
        for (uint32_t i = 0; i < n_outputs; i++)
            if (ctx->out_alloc[i]) {
                rknn_io_release_output(ctx, i);
                outputs[i].buf = NULL;
            }
    rknpu_hook_unlock();
    return ret;
}

int rknn_outputs_release(rknn_context context, uint32_t n_outputs, rknn_output outputs[])
{
    rknn_ctx *ctx = rknn_ctx_of(context, "rknn_outputs_release");

    if (!ctx)
        return RKNN_ERR_CTX_INVALID;
    if (!outputs && n_outputs) {
        HAL_LOG_ERR("rknn_outputs_release: outputs is NULL");
        return RKNN_ERR_PARAM_INVALID;
    }
    rknpu_hook_lock();
    for (uint32_t i = 0; i < n_outputs && i < RKNN_CTX_MAX_OUTPUTS; i++) {
        if (!outputs[i].is_prealloc && outputs[i].buf == ctx->out_alloc[i]) {
            rknn_io_release_output(ctx, i);
            outputs[i].buf = NULL;
        }
    }
    rknpu_hook_unlock();
    return RKNN_SUCC;
}
