/*
 * rknn_ctx.c - rknn_init, rknn_dup_context, rknn_destroy and the handle
 * table. Contexts and shared weight records come from static pools; all
 * NPU memory comes from the carve-out and goes back to it on destroy (or on
 * any failure inside rknn_init).
 */
#include <string.h>

#include "hal.h"
#include "rknn_ctx.h"
#include "rknn_io.h"
#include "rknpu_platform_internal.h"

MEM_POOL_DEFINE(ctx_pool, rknn_ctx, RKNN_MAX_CONTEXTS);
MEM_POOL_DEFINE(weights_pool, rknn_weights, RKNN_MAX_CONTEXTS);

rknn_ctx *rknn_ctx_from_handle(rknn_context handle)
{
    rknn_ctx *ctx = (rknn_ctx *)(uintptr_t)handle;

    if (!handle || !mem_pool_owns(&ctx_pool, ctx) || ctx->magic != RKNN_CTX_MAGIC)
        return NULL;
    return ctx;
}

rknn_context rknn_ctx_to_handle(const rknn_ctx *ctx)
{
    return (rknn_context)(uintptr_t)ctx;
}

/* ---- carve-out helpers ---------------------------------------------------- */

static int dma_alloc(uint32_t size, uint8_t **out, const char *what)
{
    void *p = NULL;
    int ret;

    if (size == 0) {
        *out = NULL;
        return RKNN_SUCC;
    }
    ret = rknpu_carve_alloc(size, RKNN_DMA_ALIGN, &p, what);
    if (ret != RKNN_SUCC) {
        rknpu_mem_stats st;
        mem_carveout_stats(rknpu_platform_carveout(), &st);
        HAL_LOG_ERR("%s: %lu bytes needed, largest free block %lu of %lu free", what, (unsigned long)(size),
                    (unsigned long)st.largest_free, (unsigned long)st.free_bytes);
        return ret;
    }
    *out = p;
    return RKNN_SUCC;
}

static void dma_free(uint8_t **p)
{
    if (*p) {
        mem_carveout_free(rknpu_platform_carveout(), *p);
        *p = NULL;
    }
}

static void weights_release(rknn_ctx *ctx)
{
    rknn_weights *w = ctx->weights;

    if (!w)
        return;
    ctx->weights = NULL;
    if (--w->refs)
        return;
    if (w->owned && w->dma)
        mem_carveout_free(rknpu_platform_carveout(), w->dma);
    mem_pool_give(&weights_pool, w);
}

/* Free everything a context holds and return it to the pool. */
static void ctx_release(rknn_ctx *ctx)
{
    if (ctx->pending.active && rknn_ctx_settle(ctx) != RKNN_SUCC)
        HAL_LOG_WARN("rknn_destroy: the run in flight failed; its cores were reset");
    if (ctx->async_prev)
        mem_carveout_free(rknpu_platform_carveout(), ctx->async_prev);
    rknn_io_release_all(ctx);
    rknn_custom_release_all(ctx);
    weights_release(ctx);
    dma_free(&ctx->regcmd);
    if (ctx->arena_owned)
        dma_free(&ctx->arena);
    if (ctx->mapped_file)
        rknpu_board_unmap_file(ctx->mapped_file, ctx->mapped_size);
    ctx->magic = 0;
    mem_pool_give(&ctx_pool, ctx);
}

/* ---- rknn_init ------------------------------------------------------------ */

static int check_flags(uint32_t flags, const rknn_init_extend *extend)
{
    uint32_t unsupported = flags & ~(uint32_t)RKNN_CTX_SUPPORTED_FLAGS;

    if (unsupported) {
        HAL_LOG_ERR("rknn_init: flags 0x%lx are not supported on bare metal (SRAM, fences and "
                    "GPU fallback need the Linux driver stack)", (unsigned long)(unsupported));
        return RKNN_ERR_PARAM_INVALID;
    }
    if ((flags & RKNN_FLAG_SHARE_WEIGHT_MEM) && (!extend || !rknn_ctx_from_handle(extend->ctx))) {
        HAL_LOG_ERR("rknn_init: RKNN_FLAG_SHARE_WEIGHT_MEM needs extend->ctx = a live context");
        return RKNN_ERR_PARAM_INVALID;
    }
    return RKNN_SUCC;
}

/* Weights: shared with extend->ctx, left to the user, or ours. */
static int bind_weights(rknn_ctx *ctx, const rknn_init_extend *extend)
{
    rknn_weights *w;
    int ret;

    if (ctx->flags & RKNN_FLAG_SHARE_WEIGHT_MEM) {
        rknn_ctx *master = rknn_ctx_from_handle(extend->ctx);
        if (!master->weights || master->plan.weight_bytes != ctx->plan.weight_bytes) {
            HAL_LOG_ERR("rknn_init: cannot share weights: the master context's model differs");
            return RKNN_ERR_PARAM_INVALID;
        }
        ctx->weights = master->weights;
        ctx->weights->refs++;
        return RKNN_SUCC;
    }
    w = mem_pool_take(&weights_pool);
    if (!w) {
        HAL_LOG_ERR("rknn_init: no free weight record (RKNN_MAX_CONTEXTS = %d)", RKNN_MAX_CONTEXTS);
        return RKNN_ERR_MALLOC_FAIL;
    }
    w->refs = 1;
    w->model = ctx->model.file;
    w->size = ctx->plan.weight_bytes;
    ctx->weights = w;
    if (ctx->flags & RKNN_FLAG_MEM_ALLOC_OUTSIDE)
        return RKNN_SUCC; /* rknn_set_weight_mem() provides it */
    ret = dma_alloc(w->size, &w->dma, "rknn_init: weights");
    if (ret != RKNN_SUCC)
        return ret;
    w->owned = 1;
    ret = rknn_loader_copy_weights(&ctx->model, w->dma);
    if (ret == RKNN_SUCC)
        rknpu_hook_cache_clean(w->dma, w->size);
    return ret;
}

static int bind_memory(rknn_ctx *ctx, const rknn_init_extend *extend)
{
    int ret = rknn_io_plan_inputs(ctx);

    if (ret == RKNN_SUCC)
        ret = bind_weights(ctx, extend);

    if (ret != RKNN_SUCC)
        return ret;
    ret = dma_alloc(ctx->plan.regcmd_bytes, &ctx->regcmd, "rknn_init: command stream");
    if (ret != RKNN_SUCC)
        return ret;
    if (ctx->flags & (RKNN_FLAG_MEM_ALLOC_OUTSIDE | RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE))
        return RKNN_SUCC; /* rknn_set_internal_mem() provides the arena */
    ret = dma_alloc(ctx->plan.arena_bytes, &ctx->arena, "rknn_init: activation arena");
    if (ret != RKNN_SUCC)
        return ret;
    ctx->arena_owned = 1;
    /* No dirty CPU lines may sit over memory the NPU writes. */
    rknpu_hook_cache_invalidate(ctx->arena, ctx->plan.arena_bytes);
    /* Without weights yet (user memory to come) the stream waits; a model
     * without constants has none to wait for. */
    if (ctx->weights->dma || ctx->plan.weight_bytes == 0)
        return rknn_loader_relocate(ctx);
    return RKNN_SUCC;
}

static int load_model(rknn_ctx *ctx, void *model, uint32_t size)
{
    const void *data = model;
    size_t len = size;
    int ret;

    if (size == 0) {
        /* The vendor demos pass a path with size 0; only the host can open one. */
        ret = rknpu_board_map_file((const char *)model, &data, &len);
        if (ret != RKNN_SUCC)
            return ret;
        ctx->mapped_file = data;
        ctx->mapped_size = len;
    }
    ret = rknn_model_parse(data, len, &ctx->model);
    if (ret == RKNN_SUCC && (ctx->model.n_inputs > RKNN_CTX_MAX_INPUTS ||
                             ctx->model.n_outputs > RKNN_CTX_MAX_OUTPUTS)) {
        HAL_LOG_ERR("rknn_init: model has %lu inputs / %lu outputs; rknpu-bm supports %d / %d",
                    (unsigned long)ctx->model.n_inputs, (unsigned long)ctx->model.n_outputs,
                    RKNN_CTX_MAX_INPUTS, RKNN_CTX_MAX_OUTPUTS);
        ret = RKNN_ERR_MODEL_INVALID;
    }
    if (ret == RKNN_SUCC)
        ret = rknn_loader_check_compat(&ctx->model, ctx->soc);
    if (ret == RKNN_SUCC)
        ret = rknn_loader_validate(&ctx->model, ctx->soc, &ctx->plan);
    if (ret == RKNN_SUCC) /* decided once: rknn_run must not walk the graph */
        ctx->has_cpu_nodes = (uint8_t)rknn_custom_has_cpu_nodes(ctx);
    return ret;
}

static int init_locked(rknn_context *context, void *model, uint32_t size, uint32_t flags,
                       rknn_init_extend *extend)
{
    rknn_ctx *ctx;
    int ret = check_flags(flags, extend);

    if (ret != RKNN_SUCC)
        return ret;
    ctx = mem_pool_take(&ctx_pool);
    if (!ctx) {
        HAL_LOG_ERR("rknn_init: all %d contexts are in use (build option max_contexts)",
                    RKNN_MAX_CONTEXTS);
        return RKNN_ERR_MALLOC_FAIL;
    }
    ctx->magic = RKNN_CTX_MAGIC;
    ctx->flags = flags;
    ctx->soc = rknpu_platform_profile();
    ret = load_model(ctx, model, size);
    if (ret == RKNN_SUCC && !(flags & RKNN_FLAG_COLLECT_MODEL_INFO_ONLY))
        ret = bind_memory(ctx, extend);
    if (ret != RKNN_SUCC) {
        ctx_release(ctx);
        return ret;
    }
    HAL_LOG_INFO("rknn_init: %lu tensors, %lu tasks, weights %lu B, stream %lu B, arena %lu B", (unsigned long)(ctx->model.n_tensors), (unsigned long)(ctx->model.n_tasks), (unsigned long)(ctx->plan.weight_bytes), (unsigned long)(ctx->plan.regcmd_bytes), (unsigned long)(ctx->plan.arena_bytes));
    *context = rknn_ctx_to_handle(ctx);
    return RKNN_SUCC;
}

int rknn_init(rknn_context *context, void *model, uint32_t size, uint32_t flag,
              rknn_init_extend *extend)
{
    int ret;

    if (!context || !model) {
        HAL_LOG_ERR("rknn_init: %s is NULL", context ? "model" : "context");
        return RKNN_ERR_PARAM_INVALID;
    }
    *context = 0;
    ret = rknpu_board_autoinit();
    if (ret != RKNN_SUCC)
        return ret;
    rknpu_hook_lock();
    ret = init_locked(context, model, size, flag, extend);
    rknpu_hook_unlock();
    return ret;
}

/* ---- rknn_dup_context / rknn_destroy ---------------------------------------- */

static int dup_locked(rknn_ctx *src, rknn_context *out)
{
    rknn_ctx *ctx = mem_pool_take(&ctx_pool);
    rknn_init_extend share = {0};
    int ret;

    if (!ctx) {
        HAL_LOG_ERR("rknn_dup_context: all %d contexts are in use", RKNN_MAX_CONTEXTS);
        return RKNN_ERR_MALLOC_FAIL;
    }
    ctx->magic = RKNN_CTX_MAGIC;
    ctx->flags = src->flags | RKNN_FLAG_SHARE_WEIGHT_MEM;
    ctx->soc = src->soc;
    ctx->model = src->model;
    ctx->plan = src->plan;
    ctx->has_cpu_nodes = src->has_cpu_nodes;
    share.ctx = rknn_ctx_to_handle(src);
    ret = bind_memory(ctx, &share);
    if (ret != RKNN_SUCC) {
        ctx_release(ctx);
        return ret;
    }
    ctx->flags = src->flags; /* the sharing is an implementation detail */
    *out = rknn_ctx_to_handle(ctx);
    return RKNN_SUCC;
}

int rknn_dup_context(rknn_context *context_in, rknn_context *context_out)
{
    rknn_ctx *src;
    int ret;

    if (!context_in || !context_out) {
        HAL_LOG_ERR("rknn_dup_context: NULL argument");
        return RKNN_ERR_PARAM_INVALID;
    }
    src = rknn_ctx_from_handle(*context_in);
    if (!src) {
        HAL_LOG_ERR("rknn_dup_context: invalid context");
        return RKNN_ERR_CTX_INVALID;
    }
    if (src->mapped_file || (src->flags & RKNN_FLAG_COLLECT_MODEL_INFO_ONLY) || !src->weights) {
        HAL_LOG_ERR("rknn_dup_context: the context has no loaded weights to share (info-only or "
                    "path-loaded contexts cannot be duplicated)");
        return RKNN_ERR_PARAM_INVALID;
    }
    rknpu_hook_lock();
    ret = dup_locked(src, context_out);
    rknpu_hook_unlock();
    return ret;
}

int rknn_destroy(rknn_context context)
{
    rknn_ctx *ctx;

    rknpu_hook_lock();
    ctx = rknn_ctx_from_handle(context);
    if (!ctx) {
        rknpu_hook_unlock();
        HAL_LOG_ERR("rknn_destroy: invalid context");
        return RKNN_ERR_CTX_INVALID;
    }
    ctx_release(ctx);
    rknpu_hook_unlock();
    return RKNN_SUCC;
}

/* ---- rknpu_model_mem_requirements ---------------------------------------- */

int rknpu_model_mem_requirements(const void *model, size_t size, rknpu_model_mem *out)
{
    rknn_model_view view;
    rknn_mem_plan plan;
    int ret;

    if (!model || !out || size == 0) {
        HAL_LOG_ERR("rknpu_model_mem_requirements: NULL or empty argument");
        return RKNN_ERR_PARAM_INVALID;
    }
    ret = rknn_loader_plan_file(model, size, &plan, &view);
    if (ret != RKNN_SUCC)
        return ret;
    memset(out, 0, sizeof *out);
    out->weight_bytes = plan.weight_bytes;
    out->regcmd_bytes = plan.regcmd_bytes;
    out->internal_bytes = plan.arena_bytes;
    out->loader_scratch_bytes = plan.scratch_bytes;
    /* Peak during rknn_init: everything plus the scratch block, each rounded
     * to the allocator's granule. */
    out->carveout_bytes = (uint64_t)plan.weight_bytes + plan.regcmd_bytes + plan.arena_bytes +
                          plan.io_plan_bytes + plan.scratch_bytes + 4u * MEM_MIN_ALIGN;
    return RKNN_SUCC;
}
