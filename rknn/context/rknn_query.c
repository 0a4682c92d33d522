/*
 * rknn_query.c - every query an application can make of a context. The
 * caller's buffer is checked once against the command's result struct
 * (result_bytes); commands that have no meaning on bare metal return a
 * clear error.
 */
#include <stdio.h>
#include <string.h>

#include "hal.h"
#include "rknn_ctx.h"
#include "rknn_cvt.h"
#include "rknn_io.h"
#include "rknn_run.h"
#include "rknn_tensor.h"
#include "rknpu_bm.h"

/* The result struct of each command (0: no result, refused below): the
 * caller's buffer is checked against it once, before any command runs. */
static const uint16_t result_bytes[] = {
    [RKNN_QUERY_IN_OUT_NUM] = sizeof(rknn_input_output_num),
    [RKNN_QUERY_INPUT_ATTR] = sizeof(rknn_tensor_attr),
    [RKNN_QUERY_OUTPUT_ATTR] = sizeof(rknn_tensor_attr),
    [RKNN_QUERY_PERF_DETAIL] = sizeof(rknn_perf_detail),
    [RKNN_QUERY_PERF_RUN] = sizeof(rknn_perf_run),
    [RKNN_QUERY_SDK_VERSION] = sizeof(rknn_sdk_version),
    [RKNN_QUERY_MEM_SIZE] = sizeof(rknn_mem_size),
    [RKNN_QUERY_CUSTOM_STRING] = sizeof(rknn_custom_string),
    [RKNN_QUERY_NATIVE_INPUT_ATTR] = sizeof(rknn_tensor_attr),
    [RKNN_QUERY_NATIVE_OUTPUT_ATTR] = sizeof(rknn_tensor_attr),
    [RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR] = sizeof(rknn_tensor_attr),
    [RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR] = sizeof(rknn_tensor_attr),
    [RKNN_QUERY_INPUT_DYNAMIC_RANGE] = sizeof(rknn_input_range),
    [RKNN_QUERY_CURRENT_INPUT_ATTR] = sizeof(rknn_tensor_attr),
    [RKNN_QUERY_CURRENT_OUTPUT_ATTR] = sizeof(rknn_tensor_attr),
    [RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR] = sizeof(rknn_tensor_attr),
    [RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR] = sizeof(rknn_tensor_attr),
};

/* The model tensor behind input/output `index` of the caller's attr.
 * noinline: two queries use it (footprint). */
__attribute__((noinline)) static int io_tensor(const rknn_ctx *ctx, int is_input, uint32_t index,
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

/* An output's size_with_stride as Rockchip's runtime 1.6.0 answers it
 * (compat.md): the bytes of its NC1HWC2 form with the width padded to C2
 * too, measured on every shared model; its size for other shapes and types. */
static uint32_t padded_output_bytes(const rknn_ctx *ctx, const rknn_tensor_attr *a)
{
    uint32_t elem = rknn_tensor_type_size(a->type), c2;
    uint64_t bytes;

    if (a->n_dims != 4 || a->fmt != RKNN_TENSOR_NCHW || (elem != 1 && elem != 2))
        return a->size; /* untested: every output of the shared models is 4-D int8 or fp16 */
    c2 = elem == 1 ? ctx->soc->c2_int8 : ctx->soc->c2_fp16;
    bytes = (uint64_t)a->dims[0] * hal_align_up(a->dims[1], c2) * a->dims[2] *
            hal_align_up(a->dims[3], c2) * elem;
    return bytes > UINT32_MAX ? a->size : (uint32_t)bytes;
}

/* Once rknn_inputs_set has handed an input's uint8 pixels to the CNA's
 * converter, Rockchip's runtime answers its native type as uint8
 * (compat.md §1); until then, and after int8 or float data, as the file's. */
static int native_input_type(const rknn_ctx *ctx, void *info, int ret)
{
    rknn_tensor_attr *a = info;

    if (ret == RKNN_SUCC && ctx->in_plan && ctx->in_plan[a->index].cvt == RKNN_CVT_PIXELS)
        a->type = RKNN_TENSOR_UINT8;
    return ret;
}

/* Which attribute query_attr answers. NHWC_NATIVE: the native type in NHWC
 * order, the NPU's own layout for packed-NHWC inputs, else one the CPU
 * converts to and from around the run (a buffer bound with this attr is a
 * converted binding); 4-D tensors only. */
enum { GENERAL = 1, NATIVE, NHWC_NATIVE };

/* The attribute queries: the attribute, and ATTR_INPUT for an input's (one
 * call site for the six instead of a case each, footprint). */
#define ATTR_INPUT 4u
static const uint8_t attr_queries[] = {
    [RKNN_QUERY_INPUT_ATTR] = ATTR_INPUT | GENERAL,
    [RKNN_QUERY_OUTPUT_ATTR] = GENERAL,
    [RKNN_QUERY_NATIVE_INPUT_ATTR] = ATTR_INPUT | NATIVE,
    [RKNN_QUERY_NATIVE_OUTPUT_ATTR] = NATIVE,
    [RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR] = ATTR_INPUT | NHWC_NATIVE,
    [RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR] = NHWC_NATIVE,
};

static int query_attr(const rknn_ctx *ctx, int is_input, int which, void *info)
{
    rknn_tensor_attr *a = info;
    rknn_model_tensor_info t;
    int ret = io_tensor(ctx, is_input, a->index, &t);

    if (ret != RKNN_SUCC)
        return ret;
    if (which == NHWC_NATIVE)
        return rknn_tensor_nhwc_attr(&t, a->index, is_input, a);
    if (which == NATIVE)
        return rknn_tensor_native_attr(&t, a->index, a);
    ret = rknn_tensor_user_attr(&t, a->index, is_input, a);
    if (ret == RKNN_SUCC && !is_input)
        a->size_with_stride = padded_output_bytes(ctx, a);
    return ret;
}

/* Rockchip's runtime 1.6.0 refuses the dynamic-shape queries on a static
 * model (every model rknpu-bm loads): RKNN_ERR_MODEL_INVALID for the
 * current and range attributes, RKNN_ERR_CTX_INVALID for the current native
 * ones, whatever the index (compat.md). */
static int refuse_static(rknn_query_cmd cmd)
{
    int native =
        cmd == RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR || cmd == RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR;

    HAL_LOG_ERR("rknn_query(%d): the model has static shapes; this query is for dynamic-shape "
                "models (refused as Rockchip's runtime refuses it)",
                (int)cmd);
    return native ? RKNN_ERR_CTX_INVALID : RKNN_ERR_MODEL_INVALID;
}

static int query_mem_size(const rknn_ctx *ctx, void *info)
{
    rknn_mem_size *m = info;

    memset(m, 0, sizeof *m);
    m->total_weight_size = ctx->plan.weight_bytes;
    m->total_internal_size = ctx->plan.arena_bytes;
    if (ctx->store->image_owned)
        m->total_dma_allocated_size += ctx->plan.image_bytes;
    if (ctx->store->dma_owned)
        m->total_dma_allocated_size += ctx->plan.weight_bytes;
    if (rknn_model_lowered(&ctx->model)) /* container 4: built from the register lists */
        m->total_dma_allocated_size += ctx->plan.lowered_bytes;
    if (ctx->regcmd && !ctx->regcmd_in_place) /* else the image or built payload holds it */
        m->total_dma_allocated_size += ctx->plan.regcmd_bytes;
    if (ctx->arena_owned)
        m->total_dma_allocated_size += rknn_plan_own_arena(&ctx->plan);
    if (ctx->steps)
        m->total_dma_allocated_size += ctx->plan.step_memo_bytes;
    if (ctx->in_plan) /* the input plans, the inputs' and the outputs' own buffers */
        m->total_dma_allocated_size +=
            ctx->plan.io_plan_bytes + ctx->plan.input_home_bytes + ctx->plan.output_home_bytes;
    return RKNN_SUCC; /* no SRAM on this runtime: sram sizes are 0 */
}

/* The versions of Rockchip's runtime and kernel driver whose answers and
 * interface rknpu-bm follows (docs/compat.md). */
#define RKNPU_COMPAT_API_VERSION "1.6.0"
#define RKNPU_COMPAT_DRV_VERSION "0.9.3"

static int query_sdk_version(const rknn_ctx *ctx, void *info)
{
    rknn_sdk_version *v = info;

    memset(v, 0, sizeof *v);
    /* The vendor's form ("1.6.0 (9a7b5d24c@2023-12-13T17:32:13)", "0.9.3"):
     * the rknn_api release whose answers this one gives (compat.md) and the
     * kernel-driver interface version its driver follows, our own version
     * after them. */
    snprintf(v->api_version, sizeof v->api_version, "%s (rknpu-bm %s)", RKNPU_COMPAT_API_VERSION,
             RKNPU_BM_VERSION_STRING);
    snprintf(v->drv_version, sizeof v->drv_version, "%s (rknpu-bm %s, %s, %u core(s))",
             RKNPU_COMPAT_DRV_VERSION, RKNPU_BM_VERSION_STRING, ctx->soc->name,
             ctx->soc->core_count);
    return RKNN_SUCC;
}

/* With RKNN_FLAG_COLLECT_PERF_MASK: the last run's total NPU time and each
 * core's task group (rknn_run.c record_perf). Without it, as Rockchip's
 * runtime 1.6.0 answers (compat.md): success with an empty text. The text
 * lives in the context until the next run or query. */
static int query_perf_detail(rknn_ctx *ctx, void *info)
{
    rknn_perf_detail *p = info;

    if (!(ctx->flags & RKNN_FLAG_COLLECT_PERF_MASK))
        ctx->perf_text[0] = '\0';
    else if (!ctx->runs)
        snprintf(ctx->perf_text, sizeof ctx->perf_text, "no run yet\n");
    p->perf_data = ctx->perf_text;
    p->data_len = strlen(ctx->perf_text);
    return RKNN_SUCC;
}

static int query_dispatch(rknn_ctx *ctx, rknn_query_cmd cmd, void *info)
{
    unsigned attr = (unsigned)cmd < sizeof attr_queries ? attr_queries[cmd] : 0;

    if (attr) { /* an attribute query; an input's native type as native_input_type says */
        int is_input = (attr & ATTR_INPUT) != 0, which = (int)(attr & 3u);
        int ret = query_attr(ctx, is_input, which, info);
        return is_input && which != GENERAL ? native_input_type(ctx, info, ret) : ret;
    }
    switch (cmd) {
    case RKNN_QUERY_IN_OUT_NUM:
        ((rknn_input_output_num *)info)->n_input = ctx->model.n_inputs;
        ((rknn_input_output_num *)info)->n_output = ctx->model.n_outputs;
        return RKNN_SUCC;
    case RKNN_QUERY_CURRENT_INPUT_ATTR:
    case RKNN_QUERY_CURRENT_OUTPUT_ATTR:
    case RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR:
    case RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR:
    case RKNN_QUERY_INPUT_DYNAMIC_RANGE: return refuse_static(cmd);
    case RKNN_QUERY_PERF_DETAIL: return query_perf_detail(ctx, info);
    case RKNN_QUERY_PERF_RUN:
        ((rknn_perf_run *)info)->run_duration = ctx->last_run_us;
        return RKNN_SUCC;
    case RKNN_QUERY_SDK_VERSION: return query_sdk_version(ctx, info);
    case RKNN_QUERY_MEM_SIZE: return query_mem_size(ctx, info);
    case RKNN_QUERY_CUSTOM_STRING:
        memset(info, 0, sizeof(rknn_custom_string));
        rknn_model_string_copy(ctx->model.custom_string, ((rknn_custom_string *)info)->string,
                               sizeof((rknn_custom_string *)info)->string);
        return RKNN_SUCC;
    default: return RKNN_ERR_PARAM_INVALID; /* never: rknn_query checked cmd */
    }
}

int rknn_query(rknn_context context, rknn_query_cmd cmd, void *info, uint32_t size)
{
    rknn_ctx *ctx = rknn_ctx_of(context, "rknn_query");

    if (!ctx)
        return RKNN_ERR_CTX_INVALID;
    if (!info) {
        HAL_LOG_ERR("rknn_query: info is NULL");
        return RKNN_ERR_PARAM_INVALID;
    }
    if (cmd == RKNN_QUERY_DEVICE_MEM_INFO) {
        HAL_LOG_ERR("rknn_query(DEVICE_MEM_INFO): not available on bare metal (use "
                    "rknpu_mem_get_stats)");
        return RKNN_ERR_PARAM_INVALID;
    }
    if ((unsigned)cmd >= sizeof result_bytes / sizeof result_bytes[0] || !result_bytes[cmd]) {
        HAL_LOG_ERR("rknn_query: unknown command %d", (int)cmd);
        return RKNN_ERR_PARAM_INVALID;
    }
    if (size < result_bytes[cmd]) {
        HAL_LOG_ERR("rknn_query(%d): buffer of %lu bytes, the result needs %u", (int)cmd,
                    (unsigned long)size, (unsigned)result_bytes[cmd]);
        return RKNN_ERR_PARAM_INVALID;
    }
    return query_dispatch(ctx, cmd, info);
}
