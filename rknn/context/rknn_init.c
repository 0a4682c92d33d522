/*
 * rknn_init.c - rknn_init, rknn_dup_context, rknn_destroy: a context's life
 * cycle, on top of io, custom, mem and run. Contexts (rknn_ctx.c) and shared
 * model stores come from static pools; all NPU memory, and the runtime's
 * copy of the model, comes from the carve-out and goes back to it on destroy
 * (or on any failure inside rknn_init).
 *
 * Container-4 code stands behind RKNN_CONTAINER_V4: with the meson option
 * container_v4=false the parse refuses containers 4 and 2 (parse_container),
 * so nothing is lowered and that code would only take room.
 */
#include <string.h>

#include "hal.h"
#include "rknn_ctx.h"
#include "rknn_custom.h"
#include "rknn_io.h"
#include "rknn_mem.h"
#include "rknn_run.h"
#include "rknpu_platform_internal.h"

MEM_POOL_DEFINE(store_pool, rknn_model_store, RKNN_MAX_CONTEXTS);

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
        mem_stats st;
        mem_carveout_stats(rknpu_platform_carveout(), &st);
        HAL_LOG_ERR("%s: %lu bytes needed, largest free block %lu of %lu free", what,
                    (unsigned long)(size), (unsigned long)st.largest_free,
                    (unsigned long)(st.total_bytes - st.used_bytes));
        return ret;
    }
    *out = p;
    return RKNN_SUCC;
}

static void dma_free(uint8_t **p)
{
    rknpu_carve_free(*p);
    *p = NULL;
}

static void store_release(rknn_ctx *ctx)
{
    rknn_model_store *st = ctx->store;

    dma_free(&ctx->own_image);
    if (RKNN_CONTAINER_V4) /* else never set: lower_model builds nothing */
        dma_free(&ctx->own_lowered);
    if (!st)
        return;
    ctx->store = NULL;
    if (--st->refs)
        return;
    if (RKNN_CONTAINER_V4)
        dma_free(&st->lowered);
    if (st->dma_owned)
        rknpu_carve_free(st->dma);
    if (st->image_owned)
        rknpu_carve_free((void *)(uintptr_t)st->image);
    memset(st, 0, sizeof *st);
    mem_pool_give(&store_pool, st);
}

/* Free everything a context holds and return it to the pool. */
static void ctx_release(rknn_ctx *ctx)
{
    if (ctx->pending.active && rknn_run_settle(ctx) != RKNN_SUCC)
        HAL_LOG_WARN("rknn_destroy: the run in flight failed; its cores were reset");
    rknpu_carve_free(ctx->async_prev);
    rknn_io_release_all(ctx);
    rknn_custom_release_all(ctx);
    store_release(ctx);
    if (ctx->regcmd_in_place)
        ctx->regcmd = NULL; /* the store's, freed with it */
    dma_free(&ctx->regcmd);
    rknpu_carve_free(ctx->steps);
    if (ctx->arena_owned)
        dma_free(&ctx->arena);
    if (ctx->mapped_file)
        rknpu_board_unmap_file(ctx->mapped_file, ctx->mapped_size);
    rknn_ctx_give_back(ctx);
}

/* ---- rknn_init ------------------------------------------------------------ */

static int check_flags(uint32_t flags, const rknn_init_extend *extend)
{
    uint32_t unsupported = flags & ~(uint32_t)RKNN_CTX_SUPPORTED_FLAGS;

    if (unsupported) {
        HAL_LOG_ERR("rknn_init: flags 0x%lx are not supported on bare metal (fences need the "
                    "Linux driver stack)",
                    (unsigned long)(unsupported));
        return RKNN_ERR_PARAM_INVALID;
    }
    if (flags & RKNN_CTX_IGNORED_FLAGS)
        HAL_LOG_INFO("rknn_init: flags 0x%lx (SRAM, GPU fallback) have nothing to act on here; "
                     "ignored",
                     (unsigned long)(flags & RKNN_CTX_IGNORED_FLAGS));
    if ((flags & RKNN_FLAG_SHARE_WEIGHT_MEM) && (!extend || !rknn_ctx_from_handle(extend->ctx))) {
        HAL_LOG_ERR("rknn_init: RKNN_FLAG_SHARE_WEIGHT_MEM needs extend->ctx = a live context");
        return RKNN_ERR_PARAM_INVALID;
    }
    return RKNN_SUCC;
}

/* 1 if the NPU reads the constants in place in the store's image: the
 * caller's buffer (MODEL_BUFFER_ZERO_COPY) or container 4's copy. Else they
 * are packed in blob order as the vendor's runtime packs them
 * (format.md §4.4): in the file other bytes than the vendor's follow each. */
static int weights_in_place(const rknn_ctx *ctx, const rknn_model_store *st)
{
    return ctx->plan.blobs_aligned &&
           (!st->image_owned || (RKNN_CONTAINER_V4 && ctx->model.container_version == 4)) &&
           (uintptr_t)st->image % RKNN_DMA_ALIGN == 0 &&
           rknpu_platform_in_carveout(st->image, st->image_size);
}

/* Constants: in place (above), a packed copy of ours, or
 * (RKNN_FLAG_MEM_ALLOC_OUTSIDE) rknn_set_weight_mem() memory to come. A
 * shared store already has them. */
static int bind_weights(rknn_ctx *ctx)
{
    rknn_model_store *st = ctx->store;
    int ret;

    if (st->dma || (ctx->flags & RKNN_FLAG_MEM_ALLOC_OUTSIDE))
        return RKNN_SUCC;
    if (weights_in_place(ctx, st)) {
        st->dma = (uint8_t *)(uintptr_t)st->image;
        st->in_place = 1;
        rknpu_hook_cache_clean(st->image, st->image_size);
        return RKNN_SUCC;
    }
    ret = dma_alloc(ctx->plan.weight_bytes, &st->dma, "rknn_init: weights");
    if (ret != RKNN_SUCC || !st->dma)
        return ret;
    st->dma_owned = 1;
    ret = rknn_model_copy_weights(&ctx->model, st->dma);
    if (ret == RKNN_SUCC)
        rknpu_hook_cache_clean(st->dma, ctx->plan.weight_bytes);
    return ret;
}

/* The first context of a store whose image or built payload is ours
 * relocates the stream where it lies (format.md §4.4), when it relocates
 * once, here (no memory from outside to wait for): no copy. Every other
 * context (a duplicate, SHARE_WEIGHT_MEM, the caller's buffer as the image)
 * relocates a copy of its own. */
static int bind_stream(rknn_ctx *ctx)
{
    const rknn_model_view *m = &ctx->model;

    if (ctx->store->refs == 1 && (rknn_model_lowered(m) || ctx->store->image_owned) &&
        m->regcmd_size && (uintptr_t)m->regcmd % RKNN_DMA_ALIGN == 0 &&
        !(ctx->flags & (RKNN_FLAG_MEM_ALLOC_OUTSIDE | RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE))) {
        ctx->regcmd = (uint8_t *)(uintptr_t)m->regcmd;
        ctx->regcmd_in_place = 1;
        return RKNN_SUCC;
    }
    return dma_alloc(ctx->plan.regcmd_bytes, &ctx->regcmd, "rknn_init: command stream");
}

static int bind_memory(rknn_ctx *ctx)
{
    uint8_t *steps = NULL;
    int ret = rknn_io_prepare(ctx);

    if (ret == RKNN_SUCC)
        ret = bind_weights(ctx);

    if (ret != RKNN_SUCC)
        return ret;
    ret = bind_stream(ctx);
    if (ret == RKNN_SUCC)
        ret = dma_alloc(ctx->plan.step_memo_bytes, &steps, "rknn_init: run steps");
    if (ret != RKNN_SUCC)
        return ret;
    ctx->steps = (rknn_step_memo *)(void *)steps;
    ctx->steps_cores = 0; /* none remembered yet: the first run zeroes the table */
    if (ctx->flags & (RKNN_FLAG_MEM_ALLOC_OUTSIDE | RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE))
        return RKNN_SUCC; /* rknn_set_internal_mem() provides the arena */
    ret = dma_alloc(rknn_plan_own_arena(&ctx->plan), &ctx->arena, "rknn_init: activation arena");
    if (ret != RKNN_SUCC)
        return ret;
    ctx->arena_owned = 1;
    /* No dirty CPU lines may sit over memory the NPU writes. */
    rknpu_hook_cache_invalidate(ctx->arena, rknn_plan_own_arena(&ctx->plan));
    /* Without weights yet (user memory to come) the stream waits. */
    return rknn_mem_relocate_when_complete(ctx);
}

/* The u64 JSON length before the trailer (format.md §2). */
#define JSON_LEN_BYTES 8u

/* Move the view onto an image of its file: the file up to its JSON trailer,
 * which nothing reads after the parse (format.md §2.1). */
static void adopt_image(rknn_model_view *m, const uint8_t *image)
{
    rknn_model_rebase(m, image);
    m->file_size = m->json_offset;
    m->json_size = 0;
    m->trailing_bytes = 0;
}

/* 1 if the store holds the view's file up to its JSON trailer. A container-6
 * stream its first context relocated where it lies must hold the same
 * program (rknn_model_same_program); container 4's lies in the built payload. */
static int same_image(const rknn_model_view *m, const rknn_model_store *st)
{
    size_t len = m->json_offset - JSON_LEN_BYTES, at = (size_t)(m->regcmd - m->file);
    size_t end = at + m->regcmd_size;

    if (st->image_size < m->json_offset)
        return 0;
    if (!st->regcmd_dma || rknn_model_lowered(m))
        return memcmp(m->file, st->image, len) == 0;
    return memcmp(m->file, st->image, at) == 0 &&
           memcmp(m->file + end, st->image + end, len - end) == 0 &&
           rknn_model_same_program(m, st->image + at);
}

/* A copy of the caller's model in the carve-out, the view moved onto it.
 * The trailer's length reads 0 in the copy: a whole container again. */
static int copy_model(rknn_ctx *ctx, uint8_t **image)
{
    size_t kept = ctx->model.json_offset - JSON_LEN_BYTES;
    int ret = dma_alloc(ctx->plan.image_bytes, image, "rknn_init: model copy");

    if (ret != RKNN_SUCC)
        return ret;
    memcpy(*image, ctx->model.file, kept);
    memset(*image + kept, 0, JSON_LEN_BYTES);
    adopt_image(&ctx->model, *image);
    return RKNN_SUCC;
}

static int new_store(rknn_ctx *ctx)
{
    rknn_model_store *st = mem_pool_take(&store_pool);
    uint8_t *image;
    int ret;

    if (!st) { /* unreachable: a context holds at most one store, both pools have
                  RKNN_MAX_CONTEXTS entries and this context already has its slot */
        HAL_LOG_ERR("rknn_init: no free model store (RKNN_MAX_CONTEXTS = %d)", RKNN_MAX_CONTEXTS);
        return RKNN_ERR_MALLOC_FAIL;
    }
    st->refs = 1;
    ctx->store = st;
    if (!(ctx->flags & RKNN_FLAG_MODEL_BUFFER_ZERO_COPY)) {
        if ((ret = copy_model(ctx, &image)) != RKNN_SUCC)
            return ret;
        st->image_owned = 1;
    }
    st->image = ctx->model.file;
    st->image_size = (uint32_t)ctx->model.file_size;
    if (RKNN_CONTAINER_V4) { /* container 4's payload, shared with the image from now on */
        st->lowered = ctx->own_lowered;
        ctx->own_lowered = NULL;
    }
    return RKNN_SUCC;
}

/* Use store st: the same file shares its image (and container 4's built
 * payload) too; another file with the same weight blobs keeps its own. */
static int join_store(rknn_ctx *ctx, rknn_model_store *st)
{
    st->refs++;
    ctx->store = st;
    if (same_image(&ctx->model, st)) {
        adopt_image(&ctx->model, st->image);
        /* the stream as the store holds it (relocated where it lies or not) */
        ctx->model.regcmd_dma = st->regcmd_dma;
        /* built from the same file for the same SoC; untested: a second
         * rknn_init of one container-4 file (the tests load YOLOv8n once) */
        if (RKNN_CONTAINER_V4 && st->lowered) {
            dma_free(&ctx->own_lowered);
            rknn_model_attach_lowered(&ctx->model, st->lowered);
        }
        return RKNN_SUCC;
    }
    if (ctx->flags & RKNN_FLAG_MODEL_BUFFER_ZERO_COPY)
        return RKNN_SUCC;
    return copy_model(ctx, &ctx->own_image);
}

/* RKNN_FLAG_SHARE_WEIGHT_MEM: the master's store. */
static int share_store(rknn_ctx *ctx, const rknn_ctx *master)
{
    if (!master->store || rknn_model_same_weight_blobs(&ctx->model, &master->model) != RKNN_SUCC) {
        HAL_LOG_ERR("rknn_init: cannot share weights: the master context's model has other "
                    "constants");
        return RKNN_ERR_PARAM_INVALID;
    }
    return join_store(ctx, master->store);
}

/* A store of ours that holds this file with its constants (the model loaded
 * again): shared as rknn_dup_context shares it, so that the file and its
 * constants are held once; NULL if none. Its first context keeps the
 * stream it relocated where it lies; this one relocates a copy. */
static rknn_model_store *held_store(const rknn_ctx *ctx)
{
    if (ctx->flags & (RKNN_FLAG_MODEL_BUFFER_ZERO_COPY | RKNN_FLAG_MEM_ALLOC_OUTSIDE))
        return NULL; /* the caller's buffer, or constants from outside */
    for (unsigned i = 0; i < RKNN_MAX_CONTEXTS; i++) {
        rknn_model_store *st = &store_pool_storage[i];
        if (mem_pool_owns(&store_pool, st) && st->image_owned && (st->in_place || st->dma_owned) &&
            same_image(&ctx->model, st))
            return st;
    }
    return NULL;
}

/* After rknn_init returns the context reads only the store's image (or its
 * own copy): the caller may free its buffer unless it asked for zero copy. */
static int keep_model(rknn_ctx *ctx, const rknn_init_extend *extend)
{
    rknn_model_store *held;
    int ret;

    if (ctx->flags & RKNN_FLAG_SHARE_WEIGHT_MEM)
        ret = share_store(ctx, rknn_ctx_from_handle(extend->ctx));
    else if ((held = held_store(ctx)) != NULL)
        ret = join_store(ctx, held);
    else
        ret = new_store(ctx);
    if (ret == RKNN_SUCC && ctx->mapped_file && ctx->model.file != ctx->mapped_file) {
        rknpu_board_unmap_file(ctx->mapped_file, ctx->mapped_size); /* copied */
        ctx->mapped_file = NULL;
    }
    return ret;
}

/* The host serves the SoC the model names; firmware has its own. */
static int select_soc(rknn_ctx *ctx)
{
    char platform[RKNN_PLATFORM_NAME_MAX];
    int ret;

    rknn_model_string_copy(ctx->model.target_platform, platform, sizeof platform);
    ret = rknpu_board_select_soc(platform, rknn_ctx_count() > 1);
    ctx->soc = rknpu_platform_profile();
    return ret;
}

/* The relocation look-up memo (rknn_model_view.reloc_tensor_memo) for the
 * passes rknn_init makes over the relocations; in the carve-out while init
 * runs (rknpu_model_mem_requirements counts it). */
static int memo_relocs(rknn_ctx *ctx)
{
    void *memo;
    int ret;

    if (ctx->model.n_relocs == 0)
        return RKNN_SUCC;
    ret = rknpu_carve_alloc((size_t)ctx->model.n_relocs * sizeof(uint16_t), sizeof(uint16_t), &memo,
                            "rknn_init: relocation memo");
    if (ret == RKNN_SUCC) {
        memset(memo, 0xFF, (size_t)ctx->model.n_relocs * sizeof(uint16_t));
        ctx->model.reloc_tensor_memo = memo;
    }
    return ret;
}

static void drop_reloc_memo(rknn_ctx *ctx)
{
    rknpu_carve_free(ctx->model.reloc_tensor_memo);
    ctx->model.reloc_tensor_memo = NULL;
}

/* Container 4: the stream, records and relocations a v6 file carries,
 * built from the register lists for this SoC (format.md §5.1). An info-only
 * context never runs: it does without (its lists were checked by the parse). */
static int lower_model(rknn_ctx *ctx)
{
    void *buf;
    int ret;

    if (!RKNN_CONTAINER_V4 || ctx->model.lowered_size == 0 ||
        (ctx->flags & RKNN_FLAG_COLLECT_MODEL_INFO_ONLY))
        return RKNN_SUCC;
    ret = rknpu_carve_alloc(ctx->model.lowered_size, 8, &buf,
                            "rknn_init: command stream built from the register lists");
    if (ret != RKNN_SUCC)
        return ret;
    ctx->own_lowered = buf;
    return rknn_model_lower(&ctx->model, ctx->soc, buf, ctx->model.lowered_size);
}

static int parse_model(rknn_ctx *ctx, void *model, uint32_t size)
{
    const void *data = model;
    size_t len = size;
    int ret;

    if (size == 0) {
        /* The vendor demos pass a path with size 0: the board opens it (rknpu_board.h) */
        ret = rknpu_board_map_file((const char *)model, &data, &len);
        if (ret != RKNN_SUCC)
            return ret;
        ctx->mapped_file = data;
        ctx->mapped_size = len;
    }
    ret = rknn_model_parse(data, len, &ctx->model);
    if (ret == RKNN_SUCC)
        ret = memo_relocs(ctx);
    if (ret == RKNN_SUCC && (ctx->model.n_inputs > RKNN_CTX_MAX_INPUTS ||
                             ctx->model.n_outputs > RKNN_CTX_MAX_OUTPUTS)) {
        /* untested: no shared model has more inputs or outputs than a context holds */
        HAL_LOG_ERR("rknn_init: model has %lu inputs / %lu outputs; rknpu-bm supports %d / %d",
                    (unsigned long)ctx->model.n_inputs, (unsigned long)ctx->model.n_outputs,
                    RKNN_CTX_MAX_INPUTS, RKNN_CTX_MAX_OUTPUTS);
        ret = RKNN_ERR_MODEL_INVALID;
    }
    if (ret == RKNN_SUCC)
        ret = select_soc(ctx);
    if (ret == RKNN_SUCC)
        ret = rknn_model_check_compat(&ctx->model, ctx->soc);
    if (ret == RKNN_SUCC)
        ret = lower_model(ctx);
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
    ctx = rknn_ctx_take(flags);
    if (!ctx) {
        HAL_LOG_ERR("rknn_init: all %d contexts are in use (build option max_contexts)",
                    RKNN_MAX_CONTEXTS);
        return RKNN_ERR_MALLOC_FAIL;
    }
    ret = parse_model(ctx, model, size);
    if (ret == RKNN_SUCC)
        ret = keep_model(ctx, extend);
    if (ret == RKNN_SUCC && !(flags & RKNN_FLAG_COLLECT_MODEL_INFO_ONLY))
        ret = bind_memory(ctx);
    drop_reloc_memo(ctx);
    if (ret != RKNN_SUCC) {
        ctx_release(ctx);
        return ret;
    }
    HAL_LOG_INFO("rknn_init: %lu tensors, %lu tasks, weights %lu B, stream %lu B, arena %lu B",
                 (unsigned long)(ctx->model.n_tensors), (unsigned long)(ctx->model.n_tasks),
                 (unsigned long)(ctx->plan.weight_bytes), (unsigned long)(ctx->plan.regcmd_bytes),
                 (unsigned long)(ctx->plan.arena_bytes));
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
    rknn_ctx *ctx = rknn_ctx_take(src->flags);
    int ret;

    if (!ctx) {
        HAL_LOG_ERR("rknn_dup_context: all %d contexts are in use", RKNN_MAX_CONTEXTS);
        return RKNN_ERR_MALLOC_FAIL;
    }
    ctx->soc = src->soc;
    ctx->model = src->model; /* points into the shared store's image */
    ctx->plan = src->plan;
    ctx->has_cpu_nodes = src->has_cpu_nodes;
    ctx->store = src->store;
    ctx->store->refs++;
    ret = bind_memory(ctx);
    if (ret == RKNN_SUCC)
        ret = rknn_custom_copy_ops(ctx, src);
    if (ret != RKNN_SUCC) {
        ctx_release(ctx);
        return ret;
    }
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
    src = rknn_ctx_of(*context_in, "rknn_dup_context");
    if (!src)
        return RKNN_ERR_CTX_INVALID;
    if (src->mapped_file || src->own_image || (RKNN_CONTAINER_V4 && src->own_lowered) ||
        (src->flags & RKNN_FLAG_COLLECT_MODEL_INFO_ONLY)) {
        HAL_LOG_ERR("rknn_dup_context: the context has no loaded weights to share (info-only, "
                    "zero-copy path-loaded and SHARE_WEIGHT_MEM contexts of another model cannot "
                    "be duplicated)");
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
    if (!ctx || ctx->matmul) {
        rknpu_hook_unlock();
        HAL_LOG_ERR("rknn_destroy: invalid context (a matmul context: rknn_matmul_destroy)");
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
    uint64_t zero_copy, stream;
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
    /* Peak during rknn_init: every block, each rounded to the allocator's
     * granule; the constants read in place unless a blob is misaligned. */
    /* (the arena up to a tail output and the output's own buffer: the
     * file's arena, in 64-byte blocks) */
    zero_copy = (uint64_t)plan.arena_bytes + plan.io_plan_bytes + plan.input_home_bytes +
                plan.step_memo_bytes + plan.scratch_bytes + 4u * MEM_MIN_ALIGN +
                (uint64_t)view.n_relocs * sizeof(uint16_t) + MEM_MIN_ALIGN; /* the memo */
    stream = plan.regcmd_bytes + MEM_MIN_ALIGN; /* a copy of the stream */
    /* container 4: the built payload, its stream relocated there */
    if (RKNN_CONTAINER_V4 && plan.lowered_bytes)
        zero_copy += plan.lowered_bytes + MEM_MIN_ALIGN;
    else /* the caller's buffer as the image: a copy */
        zero_copy += stream;
    if (!plan.blobs_aligned) /* untested: the shared models' blobs are all 64-byte aligned */
        zero_copy += plan.weight_bytes + MEM_MIN_ALIGN;
    /* our image: the stream relocated where it lies if it is aligned there */
    if ((RKNN_CONTAINER_V4 && plan.lowered_bytes) || !view.regcmd_size ||
        (size_t)(view.regcmd - view.file) % RKNN_DMA_ALIGN)
        stream = 0;
    out->model_copy_bytes = plan.image_bytes;
    out->carveout_bytes = zero_copy - stream + plan.image_bytes + MEM_MIN_ALIGN;
    /* and the constants packed as the vendor's runtime packs them (but
     * container 4's read in place there) */
    if (plan.blobs_aligned && (!RKNN_CONTAINER_V4 || view.container_version != 4))
        out->carveout_bytes += plan.weight_bytes + MEM_MIN_ALIGN;
    out->carveout_zero_copy_bytes = zero_copy;
    out->context_static_bytes = (uint32_t)(sizeof(rknn_ctx) + sizeof(rknn_model_store));
    return RKNN_SUCC;
}
