/*
 * rknn_io.c - rknn_inputs_set, rknn_outputs_get, rknn_outputs_release.
 *
 * Inputs are converted from the application's type and layout (uint8,
 * int8, float16, float32; NHWC or NCHW) into the tensor's native buffer:
 * normalised with the model's mean/std, quantised with its scale/zero point
 * and scattered into packed NHWC (with the row stride the NPU reads) or
 * NC1HWC2. Outputs are gathered from NC1HWC2 into NCHW and, with
 * want_float, dequantised to float32. The CPU cleans exactly the input
 * bytes it wrote and invalidates exactly the output bytes it reads.
 */
#include <string.h>

#include "hal.h"
#include "rknn_convert.h"
#include "rknn_ctx.h"
#include "rknn_cvt.h"
#include "rknn_io.h"
#include "rknn_tensor.h"
#include "rknpu_platform_internal.h"

int rknn_io_tensor(const rknn_ctx *ctx, int is_input, uint32_t index, rknn_model_tensor_info *t)
{
    uint32_t ti;
    /* RKNN_ERR_PARAM_INVALID for an index past the model's inputs/outputs */
    int ret = rknn_model_io(&ctx->model, is_input, index, &ti);

    return ret == RKNN_SUCC ? rknn_model_tensor(&ctx->model, ti, t) : ret;
}

/* Logical N, C, H, W of a tensor's original (NCHW) shape; non-4-D shapes
 * become N=1, C=1, H=1, W=elements. */
void rknn_io_logical_dims(const rknn_model_tensor_info *t, rknn_layout *l)
{
    uint64_t e = 1;

    for (uint32_t i = 0; i < t->n_dims; i++)
        e *= (uint32_t)t->dims[i];
    l->n = l->c = l->h = 1;
    l->w = (uint32_t)e;
    if (t->n_dims == 4) {
        l->n = (uint32_t)t->dims[0];
        l->c = (uint32_t)t->dims[1];
        l->h = (uint32_t)t->dims[2];
        l->w = (uint32_t)t->dims[3];
    }
}

int rknn_io_native_layout(const rknn_ctx *ctx, const rknn_model_tensor_info *t, rknn_layout *l)
{
    rknn_tensor_attr a;
    int ret = rknn_tensor_native_attr(t, 0, &a);

    if (ret != RKNN_SUCC)
        return ret;
    memset(l, 0, sizeof *l);
    rknn_io_logical_dims(t, l);
    l->type = a.type;
    if (a.fmt == RKNN_TENSOR_NHWC) {
        l->kind = RKNN_LAYOUT_NHWC;
        l->w_stride = a.w_stride;
    } else if (a.fmt == RKNN_TENSOR_NC1HWC2) {
        l->kind = RKNN_LAYOUT_NC1HWC2;
        l->c1 = a.dims[1];
        l->c2 = a.dims[4];
    } else if (t->n_dims == 4) {
        /* 4-D "NCHW" natives whose byte size says NC1HWC2 (fp16 conv outputs). */
        uint32_t c2 = a.type == RKNN_TENSOR_FLOAT16 ? ctx->soc->c2_fp16 : ctx->soc->c2_int8;
        uint32_t c1 = (l->c + c2 - 1) / c2, elem = rknn_tensor_type_size(a.type);
        uint64_t as_nc1hwc2 = (uint64_t)l->n * c1 * l->h * l->w * c2 * elem;
        l->kind = RKNN_LAYOUT_NCHW;
        if (c2 && t->size == as_nc1hwc2 && t->size != a.n_elems * elem) {
            l->kind = RKNN_LAYOUT_NC1HWC2;
            l->c1 = c1;
            l->c2 = c2;
        }
    } else {
        l->kind = RKNN_LAYOUT_NCHW;
    }
    if (rknn_layout_bytes(l) > t->size) { /* untested: every shared model's sizes fit */
        HAL_LOG_ERR("tensor '%.64s': native layout needs %llu bytes, the model gives %lu",
                    t->name.ptr, (unsigned long long)rknn_layout_bytes(l), (unsigned long)t->size);
        return RKNN_ERR_MODEL_INVALID;
    }
    return RKNN_SUCC;
}

uint8_t *rknn_io_buffer(const rknn_ctx *ctx, int is_input, uint32_t index, uint32_t arena_offset)
{
    const rknn_io_binding *b = is_input ? &ctx->in_bind[index] : &ctx->out_bind[index];
    uint8_t *home = NULL;

    if (b->mem && b->native)
        return (uint8_t *)b->mem->virt_addr + b->mem->offset;
    /* A converted input binding is converted before every run, so it needs
     * no home that outlives the run: it goes where the file puts the input,
     * as Rockchip's runtime puts it. An output's own buffer serves a
     * converted binding too, but for a tail output in an arena of our own,
     * whose binding grows the arena to the file's instead (rknn_mem.c). */
    if (ctx->in_plan)
        home = !is_input ? ctx->out_home[index] : b->mem ? NULL : ctx->in_plan[index].home;
    return home ? home : ctx->arena + arena_offset;
}

void rknn_io_value_map(const rknn_ctx *ctx, uint32_t input, const rknn_model_tensor_info *t,
                       const rknn_layout *native, rknn_value_map *m)
{
    rknn_model_norm_info norm;
    float scale = 1.0f;
    int32_t zp = 0;

    memset(m, 0, sizeof *m);
    for (int c = 0; c < 4; c++)
        m->std[c] = 1.0f;
    if (t->n_scales && t->n_zero_points && rknn_model_tensor_scale(t, 0, &scale) == RKNN_SUCC &&
        rknn_model_tensor_zero_point(t, 0, &zp) == RKNN_SUCC && scale > 0.0f) {
        m->quantised = native->type == RKNN_TENSOR_INT8;
        m->scale = scale;
        m->zp = zp;
    }
    if (input == UINT32_MAX && npu_soc_is_rk356x(ctx->soc)) {
        /* Rockchip's RK356x runtime dequantises as q * S - zp * S, S
         * rounded to float16 in a container-6 file (api.md §4) */
        m->by_product = 1;
        if (ctx->model.container_version == 6)
            m->scale = rknn_f16_to_f32(rknn_f32_to_f16(m->scale));
    }
    if (input != UINT32_MAX && rknn_model_norm(&ctx->model, input, &norm) == RKNN_SUCC) {
        for (uint32_t c = 0; c < 4 && c < norm.n_channels; c++) {
            float mean = 0.0f, std = 1.0f;
            rknn_model_norm_mean(&norm, c, &mean);
            rknn_model_norm_std(&norm, c, &std);
            m->mean[c] = mean;
            m->std[c] = std != 0.0f ? std : 1.0f;
            m->normalise |= mean != 0.0f || std != 1.0f;
        }
    }
}

/* ---- rknn_inputs_set ------------------------------------------------------- */

static int user_input_layout(const rknn_input *in, const rknn_io_plan *plan, rknn_layout *u)
{
    *u = plan->native;
    u->type = in->type;
    u->kind = in->fmt == RKNN_TENSOR_NHWC ? RKNN_LAYOUT_NHWC : RKNN_LAYOUT_NCHW;
    u->w_stride = u->w;
    if (in->type != RKNN_TENSOR_UINT8 && in->type != RKNN_TENSOR_INT8 &&
        in->type != RKNN_TENSOR_FLOAT16 && in->type != RKNN_TENSOR_FLOAT32) {
        HAL_LOG_ERR("rknn_inputs_set: input %lu: type %s is not accepted (uint8, int8, float16, "
                    "float32)",
                    (unsigned long)in->index, get_type_string(in->type));
        return RKNN_ERR_INPUT_INVALID;
    }
    if (in->fmt != RKNN_TENSOR_NHWC && in->fmt != RKNN_TENSOR_NCHW &&
        !(!plan->four_d && in->fmt == RKNN_TENSOR_UNDEFINED)) {
        HAL_LOG_ERR("rknn_inputs_set: input %lu: layout %s is not accepted (NHWC or NCHW)",
                    (unsigned long)in->index, get_format_string(in->fmt));
        return RKNN_ERR_INPUT_INVALID;
    }
    if (in->size < rknn_layout_bytes(u)) {
        HAL_LOG_ERR("rknn_inputs_set: input %lu: %lu bytes given, %llu needed",
                    (unsigned long)in->index, (unsigned long)in->size,
                    (unsigned long long)rknn_layout_bytes(u));
        return RKNN_ERR_INPUT_INVALID;
    }
    return RKNN_SUCC;
}

/* Outputs' own buffers, a carve-out block each: every output's when the
 * internal memory comes from the application (two contexts may share it,
 * run one after the other), else the tail output's (plan.tail_output). */
static int alloc_output_homes(rknn_ctx *ctx)
{
    int outside = ctx->flags & (RKNN_FLAG_MEM_ALLOC_OUTSIDE | RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE);

    ctx->plan.output_home_bytes = 0; /* what this context holds */
    memset(ctx->out_home, 0, RKNN_CTX_MAX_OUTPUTS * sizeof *ctx->out_home);
    for (uint32_t i = 0; i < ctx->model.n_outputs; i++) {
        rknn_model_tensor_info t;
        void *p;
        uint32_t size;
        int ret = rknn_io_tensor(ctx, 0, i, &t);
        /* an empty output has no home; a bad one is refused where used */
        if (ret != RKNN_SUCC || !t.size || !(outside || i + 1 == ctx->plan.tail_output))
            continue;
        size = hal_align_up(t.size, RKNN_DMA_ALIGN);
        ret = rknpu_carve_alloc(size, RKNN_DMA_ALIGN, &p, "rknn_init: output buffers");
        if (ret != RKNN_SUCC)
            return ret;
        ctx->out_home[i] = p;
        ctx->plan.output_home_bytes += size;
        /* zeros, not what the block's last user left there (the kernel
         * driver zeroes Rockchip's runtime's buffers); cleaned, so that no
         * dirty CPU line sits over memory the NPU writes */
        memset(p, 0, size);
        rknpu_hook_cache_clean(p, size);
    }
    return RKNN_SUCC;
}

int rknn_io_prepare(rknn_ctx *ctx)
{
    rknn_io_plan *plan;
    void *block = NULL;
    uint8_t *home;
    int ret;

    /* the sizes the memory plan counted (rknn_model_plan; never 0: the
     * outputs' table) */
    ret = rknpu_carve_alloc(ctx->plan.io_plan_bytes + ctx->plan.input_home_bytes, RKNN_DMA_ALIGN,
                            &block, "rknn_init: input plans");
    if (ret != RKNN_SUCC)
        return ret;
    plan = block;
    ctx->in_plan = plan;
    ctx->out_home = (uint8_t **)(void *)(plan + ctx->model.n_inputs);
    if ((ret = alloc_output_homes(ctx)) != RKNN_SUCC)
        return ret;
    home = (uint8_t *)block + ctx->plan.io_plan_bytes;
    for (uint32_t i = 0; i < ctx->model.n_inputs; i++) {
        rknn_model_tensor_info t;
        uint32_t home_size;
        if ((ret = rknn_io_tensor(ctx, 1, i, &t)) != RKNN_SUCC ||
            (ret = rknn_io_native_layout(ctx, &t, &plan[i].native)) != RKNN_SUCC ||
            (ret = rknn_model_home_size(&ctx->model, 1, i, &home_size)) != RKNN_SUCC)
            return ret;
        plan[i].home = home_size ? home : NULL;
        home += hal_align_up(home_size, RKNN_DMA_ALIGN);
        rknn_io_value_map(ctx, i, &t, &plan[i].native, &plan[i].map);
        rknn_cvt_plan(&plan[i]);
        plan[i].arena_offset = t.arena_offset;
        plan[i].size = t.size;
        plan[i].four_d = t.n_dims == 4;
    }
    return RKNN_SUCC;
}

/* uint8 pixels stored as they are: code = pixel - 128, stored + 128. */
static const rknn_value_map pixels_as_given = {.std = {1.0f, 1.0f, 1.0f, 1.0f},
                                               .scale = 1.0f,
                                               .zp = -128,
                                               .quantised = 1,
                                               .store_offset = 128};

int rknn_io_set_input(rknn_ctx *ctx, const rknn_input *in)
{
    const rknn_value_map *map;
    const rknn_io_plan *plan;
    int mode = RKNN_CVT_CODES;
    rknn_layout user;
    uint8_t *dst;
    int ret;

    if (!in->buf || in->index >= ctx->model.n_inputs || !ctx->in_plan) {
        HAL_LOG_ERR("rknn_inputs_set: input %lu: %s", (unsigned long)in->index,
                    in->buf ? "index out of range" : "buf is NULL");
        return RKNN_ERR_INPUT_INVALID;
    }
    plan = &ctx->in_plan[in->index];
    map = &plan->map;
    dst = rknn_io_buffer(ctx, 1, in->index, plan->arena_offset);
    if (in->pass_through) {
        if (in->size > plan->size) {
            HAL_LOG_ERR("rknn_inputs_set: input %lu: pass-through data of %lu bytes exceeds the "
                        "native buffer (%lu)",
                        (unsigned long)in->index, (unsigned long)in->size,
                        (unsigned long)plan->size);
            return RKNN_ERR_INPUT_INVALID;
        }
        memcpy(dst, in->buf, in->size);
    } else {
        if ((ret = user_input_layout(in, plan, &user)) != RKNN_SUCC)
            return ret;
        if (in->type == RKNN_TENSOR_UINT8 && plan->cvt_pixels && plan->cvt_checked) {
            map = &pixels_as_given; /* the NPU's converter subtracts (rknn_cvt.c) */
            mode = RKNN_CVT_PIXELS;
        }
        if (rknn_convert_input(&user, in->buf, &plan->native, dst, map) != 0)
            return RKNN_ERR_INPUT_INVALID;
    }
    if ((ret = rknn_cvt_select(ctx, in->index, mode)) != RKNN_SUCC)
        return ret;
    if (!(ctx->flags & RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE))
        rknpu_hook_cache_clean(dst, plan->size);
    ctx->inputs_set |= 1u << in->index;
    return RKNN_SUCC;
}

/* ---- rknn_outputs_get / rknn_outputs_release --------------------------------- */

int rknn_io_get_output(rknn_ctx *ctx, rknn_output *out, rknn_tensor_type user_type,
                       rknn_tensor_format user_fmt, int previous_frame, void **alloc)
{
    rknn_model_tensor_info t;
    rknn_layout native, user;
    rknn_model_task_range r;
    rknn_value_map map;
    const uint8_t *src;
    uint64_t need;
    int ret;

    if (rknn_io_tensor(ctx, 0, out->index, &t) != RKNN_SUCC) {
        HAL_LOG_ERR("rknn_outputs_get: output index %lu out of range", (unsigned long)out->index);
        return RKNN_ERR_OUTPUT_INVALID;
    }
    if ((ret = rknn_io_native_layout(ctx, &t, &native)) != RKNN_SUCC)
        return ret;
    user = native;
    user.kind = user_fmt == RKNN_TENSOR_NHWC && t.n_dims == 4 ? RKNN_LAYOUT_NHWC : RKNN_LAYOUT_NCHW;
    user.w_stride = user.w;
    user.type = user_type != RKNN_TENSOR_TYPE_MAX ? user_type
                : out->want_float                 ? RKNN_TENSOR_FLOAT32
                                                  : native.type;
    need = rknn_layout_bytes(&user);
    if (alloc && !out->is_prealloc) {
        void *p = NULL;
        ret = rknpu_carve_alloc((size_t)need, 64, &p, "rknn_outputs_get: output buffer");
        if (ret != RKNN_SUCC)
            return ret;
        *alloc = out->buf = p;
        out->size = (uint32_t)need;
    }
    if (!out->buf || out->size < need) {
        HAL_LOG_ERR("rknn_outputs_get: output %lu: buffer of %lu bytes, %llu needed",
                    (unsigned long)out->index, (unsigned long)out->size, (unsigned long long)need);
        return RKNN_ERR_OUTPUT_INVALID;
    }
    out->size = (uint32_t)need;
    /* NCHW int8 or float32: the model's OutputOperator on the NPU, if it
     * has one, lays the live output out so (RK3566) in its scratch tensor,
     * as Rockchip's runtime does; the bytes are the CPU conversion's. One
     * job of the single-core group's records, as rknn_steps_next builds
     * them, on the core of the last run (rknn_outputs_get freed it). A
     * binding in a form moved the scratch into its buffer (rknn_mem.c):
     * that form lands there; another would overrun it, the CPU makes it. */
    if (!previous_frame && user.kind == RKNN_LAYOUT_NCHW) {
        const rknn_io_binding *b = &ctx->out_bind[0];
        uint8_t *dst = ctx->arena + rknn_model_output_form(&ctx->model, user.type, out->size, &r);
        if (b->form)
            dst = b->type == user.type ? (uint8_t *)b->mem->virt_addr + b->mem->offset : NULL;
        if (r.count && dst) {
            npu_core_job job = {ctx->run_cores.core[0],
                                ctx->model.task_data,
                                r.first,
                                r.count,
                                (uint32_t)rknpu_hook_virt_to_phys(ctx->regcmd),
                                1};
            npu_job_result res;
            if ((ret = npu_run(rknpu_platform_npu(), &job, 1, &ctx->owner, &res)) != RKNN_SUCC) {
                HAL_LOG_ERR("rknn_outputs_get: output %lu: the NPU's OutputOperator (tasks %lu "
                            "+%lu) failed: %d",
                            (unsigned long)out->index, (unsigned long)r.first,
                            (unsigned long)r.count, ret);
                return ret;
            }
            rknpu_hook_cache_invalidate(dst, out->size);
            if (dst != out->buf)
                memcpy(out->buf, dst, out->size);
            return RKNN_SUCC;
        }
    }
    if (previous_frame) {
        src = ctx->async_prev + rknn_ctx_async_offset(ctx, out->index);
    } else {
        src = rknn_io_buffer(ctx, 0, out->index, t.arena_offset);
        if (!(ctx->flags & RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE))
            rknpu_hook_cache_invalidate(src, t.size);
    }
    rknn_io_value_map(ctx, UINT32_MAX, &t, &native, &map);
    if (rknn_convert_output(&native, src, &user, out->buf, &map) != 0) {
        HAL_LOG_ERR("rknn_outputs_get: output %lu: the model's %s does not convert to %s",
                    (unsigned long)out->index, get_type_string(native.type),
                    get_type_string(user.type));
        return RKNN_ERR_OUTPUT_INVALID;
    }
    return RKNN_SUCC;
}

static void free_block(void *slot)
{
    void **p = slot;

    if (*p)
        mem_carveout_free(rknpu_platform_carveout(), *p);
    *p = NULL;
}

void rknn_io_release_output(rknn_ctx *ctx, uint32_t slot)
{
    free_block(&ctx->out_alloc[slot]);
}

void rknn_io_release_all(rknn_ctx *ctx)
{
    for (uint32_t i = 0; i < RKNN_CTX_MAX_OUTPUTS; i++) {
        free_block(&ctx->out_alloc[i]);
        if (ctx->in_plan)
            free_block(&ctx->out_home[i]);
    }
    free_block(&ctx->in_plan);
}

/* ---- conversions around a run for non-native bindings ---------------------- */

static int convert_bound_input(rknn_ctx *ctx, uint32_t i)
{
    const rknn_io_binding *b = &ctx->in_bind[i];
    rknn_input in;

    memset(&in, 0, sizeof in);
    in.index = i;
    in.buf = (uint8_t *)b->mem->virt_addr + b->mem->offset;
    in.size = b->mem->size;
    in.pass_through = b->pass_through;
    in.type = b->type;
    in.fmt = b->fmt;
    return rknn_io_set_input(ctx, &in);
}

int rknn_io_before_run(rknn_ctx *ctx)
{
    for (uint32_t i = 0; i < ctx->model.n_inputs; i++) {
        const rknn_io_binding *b = &ctx->in_bind[i];
        int ret;
        if (!b->mem)
            continue;
        if (b->native) {
            if (!(ctx->flags & RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE))
                rknpu_hook_cache_clean((uint8_t *)b->mem->virt_addr + b->mem->offset, b->mem->size);
        } else if ((ret = convert_bound_input(ctx, i)) != RKNN_SUCC) {
            return ret;
        }
    }
    return RKNN_SUCC;
}

int rknn_io_after_run(rknn_ctx *ctx)
{
    for (uint32_t i = 0; i < ctx->model.n_outputs; i++) {
        const rknn_io_binding *b = &ctx->out_bind[i];
        rknn_output out;
        int ret;
        if (!b->mem)
            continue;
        if (b->native) {
            if (!(ctx->flags & RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE))
                rknpu_hook_cache_invalidate((uint8_t *)b->mem->virt_addr + b->mem->offset,
                                            b->mem->size);
            continue;
        }
        memset(&out, 0, sizeof out);
        out.index = i;
        out.is_prealloc = 1;
        out.buf = (uint8_t *)b->mem->virt_addr + b->mem->offset;
        out.size = b->mem->size;
        /* the run that just completed */
        ret = rknn_io_get_output(ctx, &out, b->type, b->fmt, 0, NULL);
        if (ret != RKNN_SUCC)
            return ret;
        if (!(ctx->flags & RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE))
            rknpu_hook_cache_clean(out.buf, out.size); /* the application may hand it to a DMA */
    }
    return RKNN_SUCC;
}
