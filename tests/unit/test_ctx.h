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
 * in one carve-out block): plans is the NPU address of ctx->in_plan. */
static inline int test_in_input_homes(const rknn_ctx *ctx, uint32_t v, uint32_t plans)
{
    uint32_t start = plans + ctx->plan.io_plan_bytes;

    return ctx->in_plan && v >= start && v - start < ctx->plan.input_home_bytes;
}

#endif
