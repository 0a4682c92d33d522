/*
 * rknn_query.c - every query an application can make of a context. Each
 * command checks that the caller's buffer is large enough for its struct;
 * commands that have no meaning on bare metal return a clear error.
 */
#include <stdio.h>
#include <string.h>

#include "hal.h"
#include "rknn_ctx.h"
#include "rknn_io.h"
#include "rknn_tensor.h"

static int need_size(uint32_t size, size_t want, const char *what)
{
    if (size < want) {
        HAL_LOG_ERR("rknn_query(%s): buffer of %lu bytes, the result needs %lu", what, (unsigned long)(size), (unsigned long)((unsigned)want));
        return RKNN_ERR_PARAM_INVALID;
    }
    return RKNN_SUCC;
}

/* The model tensor behind input/output `index` of the caller's attr. */
static int io_tensor(const rknn_ctx *ctx, int is_input, uint32_t index,
                     rknn_model_tensor_info *t)
{
    uint32_t count = is_input ? ctx->model.n_inputs : ctx->model.n_outputs;

    if (index >= count) {
        HAL_LOG_ERR("rknn_query: %s index %lu out of range (model has %lu)",
                    is_input ? "input" : "output", (unsigned long)(index), (unsigned long)(count));
        return RKNN_ERR_PARAM_INVALID;
    }
    return rknn_io_tensor(ctx, is_input, index, t);
}

static int query_attr(const rknn_ctx *ctx, int is_input, int native, void *info, uint32_t size)
{
    rknn_tensor_attr *a = info;
    rknn_model_tensor_info t;
    int ret = need_size(size, sizeof *a, "tensor attr");

    if (ret == RKNN_SUCC)
        ret = io_tensor(ctx, is_input, a->index, &t);
    if (ret != RKNN_SUCC)
        return ret;
    return native ? rknn_tensor_native_attr(&t, a->index, a)
                  : rknn_tensor_user_attr(&t, a->index, is_input, a);
}

/* NHWC native inputs exist only where the NPU reads packed NHWC. */
static int query_native_nhwc_input(const rknn_ctx *ctx, void *info, uint32_t size)
{
    rknn_tensor_attr *a = info;
    int ret = query_attr(ctx, 1, 1, info, size);

    if (ret == RKNN_SUCC && a->fmt != RKNN_TENSOR_NHWC) {
        HAL_LOG_ERR("rknn_query: input %lu is read by the NPU as %s, not NHWC", (unsigned long)(a->index),
                    get_format_string(a->fmt));
        return RKNN_ERR_PARAM_INVALID;
    }
    return ret;
}

static int query_mem_size(const rknn_ctx *ctx, void *info, uint32_t size)
{
    rknn_mem_size *m = info;
    int ret = need_size(size, sizeof *m, "mem size");

    if (ret != RKNN_SUCC)
        return ret;
    memset(m, 0, sizeof *m);
    m->total_weight_size = ctx->plan.weight_bytes;
    m->total_internal_size = ctx->plan.arena_bytes;
    if (ctx->store->image_owned)
        m->total_dma_allocated_size += ctx->plan.image_bytes;
    if (ctx->store->dma_owned)
        m->total_dma_allocated_size += ctx->plan.weight_bytes;
    if (ctx->regcmd)
        m->total_dma_allocated_size += ctx->plan.regcmd_bytes;
    if (ctx->arena_owned)
        m->total_dma_allocated_size += ctx->plan.arena_bytes;
    return RKNN_SUCC; /* no SRAM on this runtime: sram sizes are 0 */
}

static int query_sdk_version(const rknn_ctx *ctx, void *info, uint32_t size)
{
    rknn_sdk_version *v = info;
    int ret = need_size(size, sizeof *v, "sdk version");

    if (ret != RKNN_SUCC)
        return ret;
    memset(v, 0, sizeof *v);
    snprintf(v->api_version, sizeof v->api_version, "rknpu-bm %s (rknn_api 2.x compatible)",
             RKNPU_BM_VERSION_STRING);
    snprintf(v->drv_version, sizeof v->drv_version, "rknpu-bm bare-metal driver %s, %s, %u core(s)",
             RKNPU_BM_VERSION_STRING, ctx->soc->name, ctx->soc->core_count);
    return RKNN_SUCC;
}

static int query_custom_string(const rknn_ctx *ctx, void *info, uint32_t size)
{
    rknn_custom_string *s = info;
    int ret = need_size(size, sizeof *s, "custom string");

    if (ret != RKNN_SUCC)
        return ret;
    memset(s, 0, sizeof *s);
    rknn_fbs_string_copy(ctx->model.custom_string, s->string, sizeof s->string);
    return RKNN_SUCC;
}

static int query_perf_run(const rknn_ctx *ctx, void *info, uint32_t size)
{
    rknn_perf_run *p = info;
    int ret = need_size(size, sizeof *p, "perf run");

    if (ret == RKNN_SUCC)
        p->run_duration = ctx->last_run_us;
    return ret;
}

static int query_perf_detail(const rknn_ctx *ctx, void *info, uint32_t size)
{
    rknn_perf_detail *p = info;
    int ret = need_size(size, sizeof *p, "perf detail");

    if (ret != RKNN_SUCC)
        return ret;
    if (!(ctx->flags & RKNN_FLAG_COLLECT_PERF_MASK)) {
        HAL_LOG_ERR("rknn_query(PERF_DETAIL): needs rknn_init(..., RKNN_FLAG_COLLECT_PERF_MASK)");
        return RKNN_ERR_PARAM_INVALID;
    }
    p->perf_data = (char *)(uintptr_t)(ctx->runs ? ctx->perf_text : "no run yet");
    p->data_len = strlen(p->perf_data);
    return RKNN_SUCC;
}

static int query_io_num(const rknn_ctx *ctx, void *info, uint32_t size)
{
    rknn_input_output_num *n = info;
    int ret = need_size(size, sizeof *n, "in/out num");

    if (ret == RKNN_SUCC) {
        n->n_input = ctx->model.n_inputs;
        n->n_output = ctx->model.n_outputs;
    }
    return ret;
}

static int query_dispatch(const rknn_ctx *ctx, rknn_query_cmd cmd, void *info, uint32_t size)
{
    switch (cmd) {
    case RKNN_QUERY_IN_OUT_NUM: return query_io_num(ctx, info, size);
    case RKNN_QUERY_INPUT_ATTR:
    case RKNN_QUERY_CURRENT_INPUT_ATTR: return query_attr(ctx, 1, 0, info, size);
    case RKNN_QUERY_OUTPUT_ATTR:
    case RKNN_QUERY_CURRENT_OUTPUT_ATTR: return query_attr(ctx, 0, 0, info, size);
    case RKNN_QUERY_NATIVE_INPUT_ATTR:
    case RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR: return query_attr(ctx, 1, 1, info, size);
    case RKNN_QUERY_NATIVE_OUTPUT_ATTR:
    case RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR: return query_attr(ctx, 0, 1, info, size);
    case RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR: return query_native_nhwc_input(ctx, info, size);
    case RKNN_QUERY_PERF_DETAIL: return query_perf_detail(ctx, info, size);
    case RKNN_QUERY_PERF_RUN: return query_perf_run(ctx, info, size);
    case RKNN_QUERY_SDK_VERSION: return query_sdk_version(ctx, info, size);
    case RKNN_QUERY_MEM_SIZE: return query_mem_size(ctx, info, size);
    case RKNN_QUERY_CUSTOM_STRING: return query_custom_string(ctx, info, size);
    case RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR:
        HAL_LOG_ERR("rknn_query(NATIVE_NHWC_OUTPUT_ATTR): the NPU writes this model's outputs "
                    "in NC1HWC2; use NATIVE_OUTPUT_ATTR");
        return RKNN_ERR_PARAM_INVALID;
    case RKNN_QUERY_INPUT_DYNAMIC_RANGE:
        HAL_LOG_ERR("rknn_query(INPUT_DYNAMIC_RANGE): the model has static shapes (dynamic-shape "
                    "models are not supported)");
        return RKNN_ERR_PARAM_INVALID;
    case RKNN_QUERY_DEVICE_MEM_INFO:
        HAL_LOG_ERR("rknn_query(DEVICE_MEM_INFO): not available on bare metal (use "
                    "rknpu_mem_get_stats)");
        return RKNN_ERR_PARAM_INVALID;
    default:
        HAL_LOG_ERR("rknn_query: unknown command %d", (int)cmd);
        return RKNN_ERR_PARAM_INVALID;
    }
}

int rknn_query(rknn_context context, rknn_query_cmd cmd, void *info, uint32_t size)
{
    const rknn_ctx *ctx = rknn_ctx_from_handle(context);

    if (!ctx) {
        HAL_LOG_ERR("rknn_query: invalid context");
        return RKNN_ERR_CTX_INVALID;
    }
    if (!info) {
        HAL_LOG_ERR("rknn_query: info is NULL");
        return RKNN_ERR_PARAM_INVALID;
    }
    return query_dispatch(ctx, cmd, info, size);
}
