/*
 * rknn_ctx.c - the context layer: the pool of contexts, their handles, and
 * where an output's copy sits in the async snapshot. io, custom, mem, run
 * and the life cycle (rknn_init.c) stand on it; it calls none of them.
 */
#include "rknn_ctx.h"
#include "hal.h"
#include "rknpu_bm.h"

MEM_POOL_DEFINE(ctx_pool, rknn_ctx, RKNN_MAX_CONTEXTS);
static unsigned contexts_taken; /* contexts out of ctx_pool, the one being made included */

rknn_ctx *rknn_ctx_take(uint32_t flags)
{
    rknn_ctx *ctx = mem_pool_take(&ctx_pool);

    if (ctx) {
        ctx->magic = RKNN_CTX_MAGIC;
        ctx->flags = flags;
        ctx->owner.context = rknn_ctx_to_handle(ctx);
        contexts_taken++;
    }
    return ctx;
}

rknn_ctx *rknn_ctx_from_handle(rknn_context handle)
{
    rknn_ctx *ctx = (rknn_ctx *)(uintptr_t)handle;

    if (!handle || !mem_pool_owns(&ctx_pool, ctx) || ctx->magic != RKNN_CTX_MAGIC)
        return NULL;
    return ctx;
}

#if HAL_LOG_STRINGS
rknn_ctx *rknn_ctx_of(rknn_context handle, const char *api)
{
#else
rknn_ctx *rknn_ctx_checked(rknn_context handle)
{
    const char *api = ""; /* only in the log's unevaluated arguments */
#endif
    rknn_ctx *ctx = rknn_ctx_from_handle(handle);

    if (!ctx)
        HAL_LOG_ERR("%s: invalid context", api);
    return ctx;
}

rknn_context rknn_ctx_to_handle(const rknn_ctx *ctx)
{
    return (rknn_context)(uintptr_t)ctx;
}

int rknpu_context_set_user(uint64_t context, void *user)
{
    rknn_ctx *ctx = rknn_ctx_from_handle((rknn_context)context);

    if (!ctx || context != (rknn_context)context) {
        HAL_LOG_ERR("rknpu_context_set_user: invalid context");
        return RKNN_ERR_CTX_INVALID;
    }
    ctx->owner.user = user;
    return RKNN_SUCC;
}

void rknn_ctx_give_back(rknn_ctx *ctx)
{
    ctx->magic = 0;
    contexts_taken--;
    mem_pool_give(&ctx_pool, ctx);
}

unsigned rknn_ctx_count(void)
{
    return contexts_taken;
}

uint32_t rknn_ctx_async_slot_bytes(const rknn_model_tensor_info *t)
{
    return (t->size + 63u) & ~63u;
}

uint32_t rknn_ctx_async_offset(const rknn_ctx *ctx, uint32_t output)
{
    uint32_t off = 0;

    for (uint32_t i = 0; i < output; i++) {
        uint32_t ti;
        rknn_model_tensor_info t;
        if (rknn_model_io(&ctx->model, 0, i, &ti) == RKNN_SUCC &&
            rknn_model_tensor(&ctx->model, ti, &t) == RKNN_SUCC)
            off += rknn_ctx_async_slot_bytes(&t);
    }
    return off;
}
