/*
 * rknn_loader.c - a validated model bound to one context: the memory plan
 * with the runtime's own parts, the relocation of the command stream for
 * the context's buffers (rknn/format/model_reloc.c does the patching), and
 * re-pointing one tensor at a zero-copy buffer.
 */
#include <string.h>

#include "hal.h"
#include "rknn_ctx.h"
#include "rknn_io.h"
#include "rknpu_platform_internal.h"

static uint32_t dma32(const void *p)
{
    return (uint32_t)rknpu_hook_virt_to_phys(p);
}

int rknn_loader_validate(const rknn_model_view *m, const npu_soc_profile *soc, rknn_mem_plan *plan)
{
    int ret = rknn_model_plan(m, soc, plan);

    if (ret != RKNN_SUCC)
        return ret;
    /* the input plans, then a table of the outputs' own buffers (rknn_io.c) */
    plan->io_plan_bytes = hal_align_up(m->n_inputs * (uint32_t)sizeof(rknn_io_plan) +
                                           RKNN_CTX_MAX_OUTPUTS * (uint32_t)sizeof(uint8_t *),
                                       MEM_MIN_ALIGN);
    plan->step_memo_bytes =
        hal_align_up(m->n_nodes * (uint32_t)sizeof(rknn_step_memo), MEM_MIN_ALIGN);
    return RKNN_SUCC;
}

/* Where each blob starts in the store's constants: its file offset when the
 * NPU reads them in place, else its offset in the packed layout. A
 * SHARE_WEIGHT_MEM context of another file (same blobs, checked at init)
 * takes the offsets of the file the store holds. */
static int store_blob_offsets(const rknn_ctx *ctx, uint32_t *offsets)
{
    const rknn_model_store *st = ctx->store;
    const rknn_model_view *m = &ctx->model;
    rknn_model_view held;
    int ret;

    if (!st->in_place)
        return rknn_model_blob_offsets(m, offsets);
    if (m->file != st->image) {
        if ((ret = rknn_model_parse(st->image, st->image_size, &held)) != RKNN_SUCC)
            return ret;
        m = &held;
    }
    for (uint32_t b = 0; b < m->n_blobs; b++) {
        const uint8_t *data;
        uint32_t size;
        if ((ret = rknn_model_blob(m, b, &data, &size)) != RKNN_SUCC)
            return ret; /* unreachable: the parse of this image checked every blob */
        offsets[b] = (uint32_t)(data - st->image);
    }
    return RKNN_SUCC;
}

/* The stream's bytes: the copy's, or, relocated where it lies, the stream's
 * own (what follows it is the model's, not padding to clear). */
static uint32_t stream_bytes(const rknn_ctx *ctx)
{
    return ctx->regcmd_in_place ? ctx->model.regcmd_size : ctx->plan.regcmd_bytes;
}

int rknn_loader_relocate(rknn_ctx *ctx)
{
    const rknn_model_view *m = &ctx->model;
    rknn_model_reloc_target to;
    uint32_t *blob_offsets;
    void *scratch = NULL;
    int ret;

    ret = rknpu_carve_alloc(ctx->plan.scratch_bytes, 8, &scratch, "rknn_init: loader scratch");
    if (ret != RKNN_SUCC)
        return ret;
    blob_offsets = scratch;
    ret = store_blob_offsets(ctx, blob_offsets);
    if (ret == RKNN_SUCC) {
        to.stream = ctx->regcmd;
        to.stream_dma = dma32(ctx->regcmd);
        to.stream_bytes = stream_bytes(ctx);
        to.constants_dma = dma32(ctx->store->dma);
        to.blob_offsets = blob_offsets;
        to.arena_dma = dma32(ctx->arena);
        to.bitmap = (uint32_t *)((uint8_t *)scratch + hal_align_up(m->n_blobs * 4u, 8));
        ret = rknn_model_relocate(&ctx->model, &to);
    }
    rknpu_carve_free(scratch);
    if (ret != RKNN_SUCC)
        return ret;
    rknpu_hook_cache_clean(ctx->regcmd, stream_bytes(ctx));
    ctx->relocated = 1;
    if (ctx->regcmd_in_place) /* every view of the store reads it relocated from now on */
        ctx->store->regcmd_dma = ctx->model.regcmd_dma;
    return RKNN_SUCC;
}

int rknn_loader_plan_file(const void *model, size_t size, rknn_mem_plan *plan,
                          rknn_model_view *view)
{
    int ret = rknn_model_parse(model, size, view);

    if (ret != RKNN_SUCC)
        return ret;
    /* The stream checks need a SoC: use the one the model was built for. */
    char platform[RKNN_PLATFORM_NAME_MAX];
    const npu_soc_profile *soc;
    rknn_model_string_copy(view->target_platform, platform, sizeof platform);
    soc = npu_soc_find_platform(platform);
    if (!soc) {
        HAL_LOG_ERR("rknpu_model_mem_requirements: unknown target platform '%s'", platform);
        return RKNN_ERR_TARGET_PLATFORM_UNMATCH;
    }
    return rknn_loader_validate(view, soc, plan);
}

int rknn_loader_rebind(rknn_ctx *ctx, uint32_t tensor_index, uint32_t dma)
{
    int ret = rknn_model_repoint(&ctx->model, ctx->regcmd, tensor_index, dma);

    if (ret == RKNN_SUCC)
        rknpu_hook_cache_clean(ctx->regcmd, ctx->model.regcmd_size);
    return ret;
}
