/*
 * rknn_custom.c - custom CPU operators and graphs that mix NPU and CPU work.
 *
 * rknn_register_custom_ops binds an application's op type to every node of
 * that type in the model, calls the op's init, and reserves its tensors: a
 * float32 NCHW buffer per input and output (the vendor hands float32 NCHW
 * to the compute callback of a float op), carved out once so runs allocate
 * nothing.
 *
 * A run walks the nodes in graph order. Consecutive NPU nodes form one
 * segment, run in steps like any run (rknn_steps.h). A custom
 * node between segments converts its inputs from the NPU's native buffers
 * (NC1HWC2 / packed NHWC, int8 or fp16) to float32 NCHW, runs prepare and
 * compute, and converts its outputs back to their native layout for the
 * next segment or for rknn_outputs_get.
 */
#include <string.h>

#include "hal.h"
#include "npu_driver.h"
#include "rknn_convert.h"
#include "rknn_ctx.h"
#include "rknn_custom.h"
#include "rknn_custom_op.h"
#include "rknn_io.h"
#include "rknn_steps.h"
#include "rknn_tensor.h"
#include "rknpu_platform_internal.h"

#define ATTR_BUF_BYTES 256u

/* What a record keeps of the caller's rknn_custom_op, whose array may be a
 * local of the registering function: its type and CPU callbacks, not the
 * GPU fields (520 bytes of carve-out per node). */
typedef struct {
    char op_type[RKNN_MAX_NAME_LEN];
    uint32_t version;
    rknn_custom_op_kernel_func init, prepare, compute;
    rknn_custom_op_destroy_func destroy;
} op_copy;

struct rknn_custom_node {
    op_copy op;
    rknn_ctx *ctx;
    uint32_t node; /* index in the model's node table */
    uint32_t n_in, n_out;
    uint32_t tensor_index[RKNN_CUSTOM_MAX_IO]; /* model tensors: inputs, then outputs */
    rknn_custom_op_context op_ctx;             /* handed to the callbacks */
    rknn_custom_op_tensor *tensors;            /* n_in + n_out, in the same carve-out block */
    uint8_t attr_buf[ATTR_BUF_BYTES];          /* rknn_custom_op_get_op_attr values */
};

static int is_io_pseudo_op(rknn_model_string type)
{
    return (type.len == 13 && memcmp(type.ptr, "InputOperator", 13) == 0) ||
           (type.len == 14 && memcmp(type.ptr, "OutputOperator", 14) == 0);
}

/* A node the CPU must execute: not NPU work, not an I/O pseudo-op. */
static int is_cpu_node(const rknn_model_node_info *n)
{
    return n->executor != RKNN_MODEL_EXECUTOR_NPU && !is_io_pseudo_op(n->op_type);
}

int rknn_custom_has_cpu_nodes(const rknn_ctx *ctx)
{
    for (uint32_t j = 0; j < ctx->model.n_nodes; j++) {
        rknn_model_node_info n;
        if (rknn_model_node(&ctx->model, j, &n) == RKNN_SUCC && is_cpu_node(&n))
            return 1;
    }
    return 0;
}

static struct rknn_custom_node *node_record(const rknn_ctx *ctx, uint32_t node)
{
    for (uint32_t i = 0; i < ctx->n_custom; i++)
        if (ctx->custom[i]->node == node)
            return ctx->custom[i];
    return NULL;
}

/* ---- tensors of a custom node ------------------------------------------------ */

static int float_layout(const rknn_model_tensor_info *t, rknn_layout *l)
{
    memset(l, 0, sizeof *l);
    rknn_io_logical_dims(t, l);
    l->kind = RKNN_LAYOUT_NCHW;
    l->type = RKNN_TENSOR_FLOAT32;
    return l->n && l->c && l->h && l->w ? RKNN_SUCC : RKNN_ERR_MODEL_INVALID;
}

static void describe_tensor(const rknn_model_tensor_info *t, uint32_t index, void *buf,
                            uint32_t bytes, rknn_custom_op_tensor *out)
{
    rknn_tensor_attr a;

    memset(out, 0, sizeof *out);
    if (rknn_tensor_user_attr(t, index, 0, &a) == RKNN_SUCC)
        out->attr = a;
    out->attr.index = index;
    out->attr.type = RKNN_TENSOR_FLOAT32;
    out->attr.qnt_type = RKNN_TENSOR_QNT_NONE;
    out->attr.size = bytes;
    out->attr.size_with_stride = bytes;
    out->mem.virt_addr = buf;
    out->mem.phys_addr = rknpu_hook_virt_to_phys(buf);
    out->mem.fd = -1;
    out->mem.size = bytes;
    out->mem.flags = RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE;
}

/* Bytes of the float32 buffers of a node's tensors. */
static int node_buffer_bytes(const rknn_ctx *ctx, const rknn_model_node_info *n, uint64_t *total)
{
    *total = 0;
    for (uint32_t k = 0; k < n->n_inputs + n->n_outputs; k++) {
        rknn_model_tensor_info t;
        rknn_layout l;
        uint32_t ti;
        int ret = k < n->n_inputs ? rknn_model_node_input(n, k, &ti)
                                  : rknn_model_node_output(n, k - n->n_inputs, &ti);
        if (ret == RKNN_SUCC)
            ret = rknn_model_tensor(&ctx->model, ti, &t);
        if (ret == RKNN_SUCC)
            ret = float_layout(&t, &l);
        if (ret != RKNN_SUCC) /* untested: dual_residual's tensors are all 4-D int8 or fp16 */
            return ret;
        *total += (rknn_layout_bytes(&l) + 63u) & ~63ull;
    }
    return RKNN_SUCC;
}

static int make_record(rknn_ctx *ctx, const op_copy *op, uint32_t node,
                       const rknn_model_node_info *n, struct rknn_custom_node **out)
{
    uint32_t n_io = n->n_inputs + n->n_outputs;
    size_t head = (sizeof(struct rknn_custom_node) + n_io * sizeof(rknn_custom_op_tensor) + 63u) &
                  ~(size_t)63u;
    struct rknn_custom_node *r;
    uint64_t bufs;
    uint8_t *p;
    void *block = NULL;
    int ret;

    if (n_io > RKNN_CUSTOM_MAX_IO) { /* untested: dual_residual's nodes have 2 or 3 */
        HAL_LOG_ERR("rknn_register_custom_ops: node %lu has %lu tensors, at most %d supported",
                    (unsigned long)node, (unsigned long)n_io, RKNN_CUSTOM_MAX_IO);
        return RKNN_ERR_MODEL_INVALID;
    }
    if ((ret = node_buffer_bytes(ctx, n, &bufs)) != RKNN_SUCC)
        return ret;
    ret = rknpu_carve_alloc((size_t)(head + bufs), 64, &block,
                            "rknn_register_custom_ops: op tensors");
    if (ret != RKNN_SUCC)
        return ret;
    memset(block, 0, head);
    r = block;
    r->op = *op;
    r->ctx = ctx;
    r->node = node;
    r->n_in = n->n_inputs;
    r->n_out = n->n_outputs;
    r->op_ctx.target = RKNN_TARGET_TYPE_CPU;
    r->op_ctx.internal_ctx = (rknn_custom_op_interal_context)(uintptr_t)r;
    r->tensors = (rknn_custom_op_tensor *)(r + 1);
    p = (uint8_t *)block + head;
    for (uint32_t k = 0; k < n_io; k++) {
        rknn_model_tensor_info t;
        rknn_layout l;
        uint64_t bytes;
        uint32_t ti;
        if (k < n->n_inputs)
            rknn_model_node_input(n, k, &ti);
        else
            rknn_model_node_output(n, k - n->n_inputs, &ti);
        rknn_model_tensor(&ctx->model, ti, &t);
        float_layout(&t, &l);
        bytes = rknn_layout_bytes(&l);
        r->tensor_index[k] = ti;
        describe_tensor(&t, k < n->n_inputs ? k : k - n->n_inputs, p, (uint32_t)bytes,
                        &r->tensors[k]);
        p += (bytes + 63u) & ~63ull;
    }
    *out = r;
    return RKNN_SUCC;
}

static void free_record(struct rknn_custom_node *r)
{
    rknpu_carve_free(r);
}

/* An initialised node: the op's destroy, then its memory. */
static void release_node(struct rknn_custom_node *r)
{
    if (r->op.destroy)
        r->op.destroy(&r->op_ctx);
    free_record(r);
}

/* ---- registration ----------------------------------------------------------- */

static int check_op(const rknn_ctx *ctx, const rknn_custom_op *op)
{
    size_t len = 0;

    while (len < sizeof op->op_type && op->op_type[len])
        len++;
    if (len == 0 || len == sizeof op->op_type) {
        HAL_LOG_ERR("rknn_register_custom_ops: op_type is empty or not terminated");
        return RKNN_ERR_PARAM_INVALID;
    }
    if (op->target != RKNN_TARGET_TYPE_CPU) {
        HAL_LOG_ERR("rknn_register_custom_ops: '%s': only RKNN_TARGET_TYPE_CPU ops are supported "
                    "(there is no GPU on this platform)",
                    op->op_type);
        return RKNN_ERR_PARAM_INVALID;
    }
    if (!op->compute) {
        HAL_LOG_ERR("rknn_register_custom_ops: '%s' has no compute callback", op->op_type);
        return RKNN_ERR_PARAM_INVALID;
    }
    for (uint32_t i = 0; i < ctx->n_custom; i++)
        if (strcmp(ctx->custom[i]->op.op_type, op->op_type) == 0) {
            HAL_LOG_ERR("rknn_register_custom_ops: '%s' is already registered", op->op_type);
            return RKNN_ERR_PARAM_INVALID;
        }
    return RKNN_SUCC;
}

static int call_init(struct rknn_custom_node *r)
{
    int ret;

    if (!r->op.init)
        return RKNN_SUCC;
    ret = r->op.init(&r->op_ctx, r->tensors, r->n_in, r->tensors + r->n_in, r->n_out);
    if (ret != 0) {
        HAL_LOG_ERR("rknn_register_custom_ops: '%s' init returned %d", r->op.op_type, ret);
        return RKNN_ERR_FAIL;
    }
    return RKNN_SUCC;
}

/* What a record keeps of a checked op. */
static void keep_op(const rknn_custom_op *op, op_copy *out)
{
    memcpy(out->op_type, op->op_type, sizeof out->op_type);
    out->version = op->version;
    out->init = op->init;
    out->prepare = op->prepare;
    out->compute = op->compute;
    out->destroy = op->destroy;
}

/* Bind one checked op type to every node of that type; 0 nodes is an error. */
static int register_op(rknn_ctx *ctx, const op_copy *op)
{
    uint32_t bound = 0, first = ctx->n_custom;
    size_t len = strlen(op->op_type);
    int ret = RKNN_SUCC;

    for (uint32_t j = 0; ret == RKNN_SUCC && j < ctx->model.n_nodes; j++) {
        rknn_model_node_info n;
        struct rknn_custom_node *r;
        if ((ret = rknn_model_node(&ctx->model, j, &n)) != RKNN_SUCC)
            break;
        if (!is_cpu_node(&n) || n.op_type.len != len || memcmp(n.op_type.ptr, op->op_type, len))
            continue;
        /* untested: a model with more CPU nodes than a context holds */
        if (ctx->n_custom == RKNN_CTX_MAX_CUSTOM_NODES) {
            HAL_LOG_ERR("rknn_register_custom_ops: more than %d custom-op nodes",
                        RKNN_CTX_MAX_CUSTOM_NODES);
            ret = RKNN_ERR_MALLOC_FAIL;
            break;
        }
        if ((ret = make_record(ctx, op, j, &n, &r)) != RKNN_SUCC)
            break;
        ctx->custom[ctx->n_custom++] = r; /* init may read its attributes */
        if ((ret = call_init(r)) != RKNN_SUCC) {
            free_record(ctx->custom[--ctx->n_custom]); /* init failed: no destroy for it */
            break;
        }
        bound++;
    }
    if (ret == RKNN_SUCC && bound == 0) {
        HAL_LOG_ERR("rknn_register_custom_ops: the model has no node of type '%s'", op->op_type);
        ret = RKNN_ERR_PARAM_INVALID;
    }
    if (ret != RKNN_SUCC) /* undo this op's nodes only, each initialised */
        while (ctx->n_custom > first)
            release_node(ctx->custom[--ctx->n_custom]);
    return ret;
}

int rknn_register_custom_ops(rknn_context context, rknn_custom_op *op, uint32_t custom_op_num)
{
    rknn_ctx *ctx = rknn_ctx_of(context, "rknn_register_custom_ops");
    int ret = RKNN_SUCC;

    if (!ctx)
        return RKNN_ERR_CTX_INVALID;
    if (!op || custom_op_num == 0) {
        HAL_LOG_ERR("rknn_register_custom_ops: no ops given");
        return RKNN_ERR_PARAM_INVALID;
    }
    rknpu_hook_lock();
    for (uint32_t i = 0; i < custom_op_num && ret == RKNN_SUCC; i++) {
        op_copy kept;
        if ((ret = check_op(ctx, &op[i])) == RKNN_SUCC) {
            keep_op(&op[i], &kept);
            ret = register_op(ctx, &kept);
        }
    }
    rknpu_hook_unlock();
    return ret;
}

int rknn_custom_copy_ops(rknn_ctx *dst, const rknn_ctx *src)
{
    int ret = RKNN_SUCC;

    for (uint32_t i = 0; i < src->n_custom && ret == RKNN_SUCC; i++) {
        int known = 0;
        for (uint32_t k = 0; k < dst->n_custom; k++)
            known |= strcmp(dst->custom[k]->op.op_type, src->custom[i]->op.op_type) == 0;
        if (!known) /* one registration binds every node of the type */
            ret = register_op(dst, &src->custom[i]->op);
    }
    return ret;
}

void rknn_custom_release_all(rknn_ctx *ctx)
{
    while (ctx->n_custom)
        release_node(ctx->custom[--ctx->n_custom]);
}

/* ---- attributes --------------------------------------------------------------- */

static struct rknn_custom_node *record_of_op_ctx(rknn_custom_op_context *op_ctx)
{
    struct rknn_custom_node *r;

    if (!op_ctx || !op_ctx->internal_ctx)
        return NULL;
    r = (struct rknn_custom_node *)(uintptr_t)op_ctx->internal_ctx;
    for (uint32_t i = 0; rknn_ctx_from_handle(rknn_ctx_to_handle(r->ctx)) && i < r->ctx->n_custom;
         i++)
        if (r->ctx->custom[i] == r)
            return r;
    return NULL;
}

/* Decode a BSON attribute value into the vendor's types: floats as FLOAT32,
 * integers as INT64, strings as UINT8 characters. */
static void decode_attr(struct rknn_custom_node *r, const rknn_model_attr *a,
                        rknn_custom_op_attr *out)
{
    uint32_t n = a->value_type == RKNN_MODEL_ATTR_ARRAY ? a->n_elems : 1;

    if (a->value_type == RKNN_MODEL_ATTR_STRING || a->value_type == RKNN_MODEL_ATTR_BINARY) {
        uint32_t len = a->value_size < ATTR_BUF_BYTES - 1 ? a->value_size : ATTR_BUF_BYTES - 1;
        memcpy(r->attr_buf, a->value, len);
        r->attr_buf[len] = 0;
        out->dtype = RKNN_TENSOR_UINT8;
        out->n_elems = len;
        out->data = r->attr_buf;
        return;
    }
    for (uint32_t i = 0; i < n && (i + 1) * 8 <= ATTR_BUF_BYTES; i++) {
        rknn_model_attr_value v;
        double d = 0;
        int64_t q = 0;
        if (a->value_type == RKNN_MODEL_ATTR_ARRAY) {
            if (rknn_model_attr_elem(a, i, &v) != RKNN_SUCC)
                return; /* unreachable: the parse validated every element of the array */
        } else {
            v.type = a->value_type;
            v.data = a->value;
            v.size = a->value_size;
        }
        if (v.type == RKNN_MODEL_ATTR_DOUBLE && v.size == 8) {
            float f;
            memcpy(&d, v.data, 8);
            f = (float)d;
            memcpy(r->attr_buf + 4 * i, &f, 4);
            out->dtype = RKNN_TENSOR_FLOAT32;
        } else {
            if (v.type == RKNN_MODEL_ATTR_INT32 && v.size == 4) {
                int32_t x;
                memcpy(&x, v.data, 4);
                q = x;
            } else if ((v.type == RKNN_MODEL_ATTR_INT64 && v.size == 8) ||
                       (v.type == RKNN_MODEL_ATTR_BOOL && v.size == 1)) {
                memcpy(&q, v.data, v.size);
            }
            memcpy(r->attr_buf + 8 * i, &q, 8);
            out->dtype = RKNN_TENSOR_INT64;
        }
        out->n_elems = i + 1;
    }
    out->data = out->n_elems ? r->attr_buf : NULL;
}

void rknn_custom_op_get_op_attr(rknn_custom_op_context *op_ctx, const char *attr_name,
                                rknn_custom_op_attr *op_attr)
{
    struct rknn_custom_node *r = record_of_op_ctx(op_ctx);
    rknn_model_node_info n;
    rknn_model_attr a;

    if (!op_attr)
        return;
    memset(op_attr, 0, sizeof *op_attr);
    if (attr_name)
        strncpy(op_attr->name, attr_name, sizeof op_attr->name - 1);
    if (!r || !attr_name || rknn_model_node(&r->ctx->model, r->node, &n) != RKNN_SUCC ||
        rknn_model_node_attr_find(&n, attr_name, &a) != RKNN_SUCC) {
        HAL_LOG_WARN("rknn_custom_op_get_op_attr: no attribute '%.64s'",
                     attr_name ? attr_name : "");
        return;
    }
    decode_attr(r, &a, op_attr);
}

/* ---- running a mixed graph ---------------------------------------------------- */

/* The native buffer of a model tensor in this context: a model input or
 * output may be bound to the application's memory. */
static uint8_t *native_of(rknn_ctx *ctx, uint32_t tensor, const rknn_model_tensor_info *t)
{
    for (int in = 0; in < 2; in++)
        for (uint32_t i = 0; i < (in ? ctx->model.n_inputs : ctx->model.n_outputs); i++) {
            uint32_t ti;
            if (rknn_model_io(&ctx->model, in, i, &ti) == RKNN_SUCC && ti == tensor)
                return rknn_io_buffer(ctx, in, i, t->arena_offset);
        }
    return ctx->arena + t->arena_offset;
}

static int convert_tensor(rknn_ctx *ctx, struct rknn_custom_node *r, uint32_t k, int to_float)
{
    rknn_model_tensor_info t;
    rknn_layout native, f32;
    rknn_value_map map;
    uint8_t *buf;
    int ret = rknn_model_tensor(&ctx->model, r->tensor_index[k], &t);

    if (ret == RKNN_SUCC)
        ret = rknn_io_native_layout(ctx, &t, &native);
    if (ret == RKNN_SUCC)
        ret = float_layout(&t, &f32);
    if (ret != RKNN_SUCC) /* untested: these tensors passed float_layout at registration;
                           * only a size below the native layout's fails here */
        return ret;
    buf = native_of(ctx, r->tensor_index[k], &t);
    rknn_io_value_map(ctx, UINT32_MAX, &t, &native, &map);
    if (to_float) {
        rknpu_hook_cache_invalidate(buf, t.size);
        return rknn_convert_output(&native, buf, &f32, r->tensors[k].mem.virt_addr, &map) == 0
                   ? RKNN_SUCC
                   : RKNN_ERR_FAIL;
    }
    ret = rknn_convert_input(&f32, r->tensors[k].mem.virt_addr, &native, buf, &map) == 0
              ? RKNN_SUCC
              : RKNN_ERR_FAIL;
    rknpu_hook_cache_clean(buf, t.size);
    return ret;
}

static int run_custom_node(rknn_ctx *ctx, uint32_t node, const rknn_model_node_info *n)
{
    struct rknn_custom_node *r = node_record(ctx, node);
    int ret = RKNN_SUCC;

    if (!r) {
        HAL_LOG_ERR("rknn_run: node %lu is custom op '%.*s', which runs on the CPU and was not "
                    "registered (rknn_register_custom_ops)",
                    (unsigned long)node, (int)(n->op_type.len > 64 ? 64 : n->op_type.len),
                    n->op_type.ptr);
        return RKNN_ERR_MODEL_INVALID;
    }
    for (uint32_t k = 0; k < r->n_in && ret == RKNN_SUCC; k++)
        ret = convert_tensor(ctx, r, k, 1);
    if (ret == RKNN_SUCC && r->op.prepare &&
        r->op.prepare(&r->op_ctx, r->tensors, r->n_in, r->tensors + r->n_in, r->n_out) != 0) {
        HAL_LOG_ERR("rknn_run: custom op '%s' prepare failed", r->op.op_type);
        return RKNN_ERR_FAIL;
    }
    if (ret == RKNN_SUCC) {
        int c = r->op.compute(&r->op_ctx, r->tensors, r->n_in, r->tensors + r->n_in, r->n_out);
        if (c != 0) {
            HAL_LOG_ERR("rknn_run: custom op '%s' compute returned %d", r->op.op_type, c);
            return RKNN_ERR_FAIL;
        }
    }
    for (uint32_t k = r->n_in; k < r->n_in + r->n_out && ret == RKNN_SUCC; k++)
        ret = convert_tensor(ctx, r, k, 0);
    return ret;
}

int rknn_custom_run_graph(rknn_ctx *ctx, const rknn_run_cores *rc, uint64_t *hw_us)
{
    uint32_t seg = 0;
    int ret;

    *hw_us = 0;
    for (uint32_t j = 0; j < ctx->model.n_nodes; j++) {
        rknn_model_node_info node;
        if ((ret = rknn_model_node(&ctx->model, j, &node)) != RKNN_SUCC)
            return ret;
        if (!is_cpu_node(&node))
            continue;
        if ((ret = rknn_steps_run(ctx, rc, seg, j, hw_us)) != RKNN_SUCC ||
            (ret = run_custom_node(ctx, j, &node)) != RKNN_SUCC)
            return ret;
        seg = j + 1;
    }
    return rknn_steps_run(ctx, rc, seg, ctx->model.n_nodes, hw_us);
}
