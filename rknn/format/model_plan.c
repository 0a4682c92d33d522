/*
 * model_plan.c - the memory a model needs (rknn_mem_plan): the packed
 * constants, the command stream, the activation arena, the inputs' own
 * buffers, the loader's scratch; and the packed constants themselves.
 */
#include "model_internal.h"

#include <string.h>

#include "hal.h"
#include "rknn_api.h"

/* Walk the weight blobs in blob order: record each one's offset in the
 * weights region (offsets, optional), copy it there (weights, optional,
 * zero-padding to the next blob because the NPU may prefetch it), and give
 * the region's total size. */
FMT_API int fmt_weight_layout(const rknn_model_view *m, uint32_t *offsets, uint8_t *weights,
                              uint32_t *total)
{
    uint32_t off = 0;

    for (uint32_t b = 0; b < m->n_blobs; b++) {
        int ret;
        const uint8_t *data;
        uint32_t size;
        if ((ret = rknn_model_blob(m, b, &data, &size)) != RKNN_SUCC)
            return ret; /* cannot fail: parse_blobs() opened every blob at the parse */
        if (offsets)
            offsets[b] = off;
        if (!fmt_blob_is_weight(m, b) || size == 0)
            continue;
        if ((uint64_t)off + size + RKNN_DMA_ALIGN > UINT32_MAX) {
            HAL_LOG_ERR("rknn_init: constants exceed 4 GiB");
            return RKNN_ERR_MODEL_INVALID;
        }
        if (weights) {
            memcpy(weights + off, data, size);
            memset(weights + off + size, 0, hal_align_up(size, RKNN_DMA_ALIGN) - size);
        }
        off = hal_align_up(off + size, RKNN_DMA_ALIGN);
    }
    *total = off;
    return RKNN_SUCC;
}

#if RKNN_CONTAINER_V4
/* Schema 1 (containers 4 and 2): the NPU reads only the constants the built
 * relocations name; the LUTs and register lists are lowered into the stream
 * (format.md §5.1), so their blobs need no alignment (YOLOv8n's register
 * lists have none, its constants all have it). */
static int v4_blobs_aligned(const rknn_model_view *m)
{
    for (uint32_t t = 0; t < m->n_tensors; t++) {
        rknn_model_tensor_info ti;
        if (rknn_model_tensor(m, t, &ti) != RKNN_SUCC)
            return 0; /* unreachable: fmt_validate_tensors() decoded every tensor at the parse */
        if (ti.kind != RKNN_MODEL_KIND_LUT && fmt_is_constant(ti.kind) && ti.data_size &&
            (size_t)(ti.data - m->file) % RKNN_DMA_ALIGN)
            return 0;
    }
    return 1;
}
#endif

/* The NPU can read the constants in place in a 64-byte aligned copy of the
 * file only if every weight blob starts 64-byte aligned in it (it does in
 * every toolkit-2 file seen; the check keeps other files working, copied). */
static int blobs_aligned(const rknn_model_view *m)
{
#if RKNN_CONTAINER_V4
    if (fmt_is_v4(m))
        return v4_blobs_aligned(m);
#endif
    for (uint32_t b = 0; b < m->n_blobs; b++) {
        const uint8_t *data;
        uint32_t size;
        if (rknn_model_blob(m, b, &data, &size) != RKNN_SUCC)
            return 0; /* unreachable: parse_blobs() opened every blob at the parse */
        if (fmt_blob_is_weight(m, b) && size && (size_t)(data - m->file) % RKNN_DMA_ALIGN)
            return 0;
    }
    return 1;
}

int rknn_model_same_weight_blobs(const rknn_model_view *a, const rknn_model_view *b)
{
    if (a->n_blobs != b->n_blobs)
        return RKNN_ERR_PARAM_INVALID;
    for (uint32_t i = 0; i < a->n_blobs; i++) {
        const uint8_t *da, *db;
        uint32_t sa, sb;
        if (rknn_model_blob(a, i, &da, &sa) != RKNN_SUCC ||
            rknn_model_blob(b, i, &db, &sb) != RKNN_SUCC || sa != sb ||
            fmt_blob_is_weight(a, i) != fmt_blob_is_weight(b, i))
            return RKNN_ERR_PARAM_INVALID;
    }
    return RKNN_SUCC;
}

/* 1 if another activation tensor uses some of tensor t's arena bytes. */
static int arena_shared(const rknn_model_view *m, uint32_t t, const rknn_model_tensor_info *ti)
{
    for (uint32_t i = 0; i < m->n_tensors; i++) {
        rknn_model_tensor_info o;
        if (i == t || rknn_model_tensor(m, i, &o) != RKNN_SUCC || !fmt_is_activation(o.kind))
            continue;
        if ((uint64_t)o.arena_offset < (uint64_t)ti->arena_offset + ti->size &&
            (uint64_t)ti->arena_offset < (uint64_t)o.arena_offset + o.size)
            return 1;
    }
    return 0;
}

int rknn_model_home_size(const rknn_model_view *m, int is_input, uint32_t index, uint32_t *size)
{
    rknn_model_tensor_info ti;
    uint32_t t;
    int ret = rknn_model_io(m, is_input, index, &t);

    if (ret == RKNN_SUCC)
        ret = rknn_model_tensor(m, t, &ti);
    if (ret != RKNN_SUCC)
        return ret;
    if (!fmt_is_activation(ti.kind)) {
        /* its bytes would lie outside the arena the plan counts */
        HAL_LOG_ERR("rknn model: graph %s %lu is tensor %lu of kind %d, not an activation",
                    is_input ? "input" : "output", (unsigned long)index, (unsigned long)t, ti.kind);
        return RKNN_ERR_MODEL_INVALID;
    }
    *size = ti.size;
    if (!is_input) /* its bytes and all after them, whole 64-byte granules */
        ti.size = ti.size % RKNN_DMA_ALIGN ? 0 : UINT32_MAX;
    if (arena_shared(m, t, &ti) != is_input || !ti.size)
        *size = 0;
    return RKNN_SUCC;
}

/* The inputs' own buffers, and the tail output's (rknn_model_home_size): the
 * arena a context allocates for itself ends before it (rknn_plan_own_arena). */
static int home_bytes(const rknn_model_view *m, rknn_mem_plan *plan)
{
    for (int in = 0; in < 2; in++)
        for (uint32_t i = 0; i < (in ? m->n_inputs : m->n_outputs); i++) {
            uint32_t size;
            int ret = rknn_model_home_size(m, in, i, &size);
            if (ret != RKNN_SUCC)
                return ret;
            if (in) {
                plan->input_home_bytes += hal_align_up(size, RKNN_DMA_ALIGN);
            } else if (size) { /* at most one output lies past all the others */
                plan->tail_output = (uint16_t)(i + 1);
                plan->output_home_bytes = size;
            }
        }
    return RKNN_SUCC;
}

static uint32_t scratch_size(const rknn_model_view *m)
{
    /* blob offset table + one bit per stream word */
    return hal_align_up(m->n_blobs * 4u, 8) + hal_align_up((m->n_regcmd_words + 31) / 32 * 4u, 8);
}

/* The stream and relocation checks (model_check.c). A container-4 view has
 * nothing to check before rknn_model_lower() builds it; its register lists
 * were checked by the parse, and rknn_init lowers before it plans. */
static int check_payload(const rknn_model_view *m, const npu_soc_profile *soc)
{
    int ret;

    if (fmt_is_v4(m) && !m->lowered)
        return RKNN_SUCC;
    if ((ret = fmt_check_tasks(m, soc)) != RKNN_SUCC)
        return ret;
    for (uint32_t r = 0; r < m->n_relocs; r++)
        if ((ret = fmt_check_reloc(m, r, NULL, NULL, NULL)) != RKNN_SUCC)
            return ret;
    return RKNN_SUCC;
}

int rknn_model_plan(const rknn_model_view *m, const npu_soc_profile *soc, rknn_mem_plan *plan)
{
    int ret = check_payload(m, soc);

    if (ret != RKNN_SUCC)
        return ret;
    if (m->arena_size > UINT32_MAX - RKNN_DMA_ALIGN) {
        HAL_LOG_ERR("rknn_init: activation arena of %llu bytes exceeds the NPU's 4 GiB",
                    (unsigned long long)m->arena_size);
        return RKNN_ERR_MODEL_INVALID;
    }
    memset(plan, 0, sizeof *plan);
    if ((ret = fmt_weight_layout(m, NULL, NULL, &plan->weight_bytes)) != RKNN_SUCC)
        return ret;
    plan->regcmd_bytes = hal_align_up(m->regcmd_size, RKNN_DMA_ALIGN);
    plan->arena_bytes = hal_align_up((uint32_t)m->arena_size, RKNN_DMA_ALIGN);
    plan->scratch_bytes = scratch_size(m);
    if ((ret = home_bytes(m, plan)) != RKNN_SUCC)
        return ret;
    /* the file up to its JSON trailer, which nothing reads after the parse */
    plan->image_bytes = hal_align_up((uint32_t)m->json_offset, RKNN_DMA_ALIGN);
    plan->blobs_aligned = (uint8_t)blobs_aligned(m);
    if (RKNN_CONTAINER_V4) /* else nothing is lowered (the plan starts zeroed) */
        plan->lowered_bytes = hal_align_up(m->lowered_size, RKNN_DMA_ALIGN);
    return RKNN_SUCC;
}

int rknn_model_copy_weights(const rknn_model_view *m, uint8_t *weights)
{
    uint32_t total;

    return fmt_weight_layout(m, NULL, weights, &total);
}

int rknn_model_blob_offsets(const rknn_model_view *m, uint32_t *offsets)
{
    uint32_t total;

    return fmt_weight_layout(m, offsets, NULL, &total);
}
