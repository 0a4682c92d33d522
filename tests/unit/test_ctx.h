/*
 * test_ctx.h - checks on a loaded context's memory shared by the loader
 * robustness tests (deterministic corruption and the fuzzer).
 */
#ifndef TEST_CTX_H
#define TEST_CTX_H

#include <stdint.h>

#include "rknn_ctx.h"

/* 1 if NPU address v lies inside one of the model's constant blobs as the NPU
 * reads them: base is the NPU address of ctx->store->dma. In place, a blob
 * sits at its offset in the model file (never the stream or task blob);
 * packed, anywhere in the packed region. */
static inline int test_in_constants(const rknn_ctx *ctx, uint32_t v, uint32_t base)
{
    const rknn_model_view *m = &ctx->model;

    if (!ctx->store->in_place)
        return v >= base && v - base < ctx->plan.weight_bytes;
    for (uint32_t b = 0; b < m->n_blobs; b++) {
        const uint8_t *data;
        uint32_t size, off;
        if (b == m->regcmd_blob || b == m->task_blob ||
            rknn_model_blob(m, b, &data, &size) != RKNN_SUCC)
            continue;
        off = (uint32_t)(data - ctx->store->image);
        if (v >= base + off && v - (base + off) < size)
            return 1;
    }
    return 0;
}

/* 1 if NPU address v lies in the inputs' own buffers (after the input plans
 * in one carve-out block) or in an output's (a block each): the carve-out
 * starts at carve, NPU address carve_npu. */
static inline int test_in_io_homes(const rknn_ctx *ctx, uint32_t v, const uint8_t *carve,
                                   uint32_t carve_npu)
{
    uint32_t start =
        carve_npu + (uint32_t)((const uint8_t *)ctx->in_plan - carve) + ctx->plan.io_plan_bytes;

    if (ctx->in_plan && v >= start && v - start < ctx->plan.input_home_bytes)
        return 1;
    for (uint32_t i = 0; i < ctx->model.n_outputs; i++) {
        rknn_model_tensor_info t;
        uint32_t ti;
        start = carve_npu + (uint32_t)(ctx->out_home[i] - carve);
        if (ctx->out_home[i] && rknn_model_io(&ctx->model, 0, i, &ti) == RKNN_SUCC &&
            rknn_model_tensor(&ctx->model, ti, &t) == RKNN_SUCC && v >= start && v - start < t.size)
            return 1;
    }
    return 0;
}

#endif
