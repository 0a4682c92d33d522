/*
 * rknn_mem.c - the zero-copy API: tensor memory from the carve-out or
 * wrapped from the caller, bound to inputs, outputs, weights and internal
 * memory.
 *
 * A buffer bound with rknn_set_io_mem in the tensor's native type and
 * layout is used by the NPU directly: the tensor's relocations are pointed
 * at it. A buffer in another type or layout (e.g. float32 NCHW output) is
 * converted by the CPU at rknn_run, as the vendor runtime does.
 * Memory handles come from a static pool.
 */
#include <string.h>

#include "hal.h"
#include "rknn_ctx.h"
#include "rknn_cvt.h"
#include "rknn_io.h"
#include "rknn_mem.h"
#include "rknn_run.h"
#include "rknn_tensor.h"
#include "rknpu_platform_internal.h"

typedef struct {
    rknn_tensor_mem mem; /* first: the handle applications hold */
    uint32_t magic;
} mem_record;

#define MEM_RECORD_MAGIC 0x524b4d45u /* "RKME" */

MEM_POOL_DEFINE(mem_pool_records, mem_record, RKNN_MAX_TENSOR_MEMS);

static mem_record *record_of(rknn_tensor_mem *mem)
{
    mem_record *r = (mem_record *)(void *)mem;

    return mem && mem_pool_owns(&mem_pool_records, r) && r->magic == MEM_RECORD_MAGIC ? r : NULL;
}

static rknn_tensor_mem *new_record(void *virt, uint64_t phys, uint32_t size, uint32_t flags)
{
    mem_record *r = mem_pool_take(&mem_pool_records);

    if (!r) {
        HAL_LOG_ERR("rknn_create_mem: all %d tensor-memory handles are in use",
                    RKNN_MAX_TENSOR_MEMS);
        return NULL;
    }
    r->magic = MEM_RECORD_MAGIC;
    r->mem.virt_addr = virt;
    r->mem.phys_addr = phys;
    r->mem.fd = -1;
    r->mem.offset = 0;
    r->mem.size = size;
    r->mem.flags = flags;
    return &r->mem;
}

/* Context 0 is allowed with RKNN_MEM_FLAG_ALLOC_NO_CONTEXT: memory made
 * before rknn_init, e.g. the model buffer of RKNN_FLAG_MODEL_BUFFER_ZERO_COPY. */
static rknn_tensor_mem *create_inside(rknn_context context, uint64_t size, int no_context,
                                      const char *who)
{
    void *p = NULL;
    rknn_tensor_mem *m;

    if ((no_context ? rknpu_board_autoinit() != RKNN_SUCC : !rknn_ctx_from_handle(context)) ||
        size == 0 || size > UINT32_MAX) {
        HAL_LOG_ERR("%s: invalid context or size %llu", who, (unsigned long long)size);
        return NULL;
    }
    rknpu_hook_lock();
    if (rknpu_carve_alloc((size_t)size, 64, &p, who) != RKNN_SUCC) {
        rknpu_hook_unlock();
        return NULL;
    }
    m = new_record(p, rknpu_hook_virt_to_phys(p), (uint32_t)size,
                   RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE);
    if (!m)
        mem_carveout_free(rknpu_platform_carveout(), p);
    rknpu_hook_unlock();
    return m;
}

rknn_tensor_mem *rknn_create_mem(rknn_context ctx, uint32_t size)
{
    return create_inside(ctx, size, 0, "rknn_create_mem");
}

rknn_tensor_mem *rknn_create_mem2(rknn_context ctx, uint64_t size, uint64_t alloc_flags)
{
    /* cacheability is the board's choice of carve-out attributes */
    return create_inside(ctx, size, !ctx && (alloc_flags & RKNN_MEM_FLAG_ALLOC_NO_CONTEXT),
                         "rknn_create_mem2");
}

rknn_tensor_mem *rknn_create_mem_from_phys(rknn_context ctx, uint64_t phys_addr, void *virt_addr,
                                           uint32_t size)
{
    rknn_tensor_mem *m;

    if (!rknn_ctx_from_handle(ctx) || !virt_addr || size == 0) {
        HAL_LOG_ERR("rknn_create_mem_from_phys: invalid context, address or size");
        return NULL;
    }
    if (phys_addr + size > (1ull << 32) || phys_addr % 16u) {
        HAL_LOG_ERR("rknn_create_mem_from_phys: NPU address 0x%llx (+%lu) must be 16-byte aligned "
                    "and below 4 GiB",
                    (unsigned long long)phys_addr, (unsigned long)size);
        return NULL;
    }
    rknpu_hook_lock();
    m = new_record(virt_addr, phys_addr, size, RKNN_TENSOR_MEMORY_FLAGS_FROM_PHYS);
    rknpu_hook_unlock();
    return m;
}

rknn_tensor_mem *rknn_create_mem_from_fd(rknn_context ctx, int32_t fd, void *virt_addr,
                                         uint32_t size, int32_t offset)
{
    (void)ctx;
    (void)fd;
    (void)virt_addr;
    (void)size;
    (void)offset;
    HAL_LOG_ERR("rknn_create_mem_from_fd: there are no dma-buf file descriptors on bare metal; use "
                "rknn_create_mem_from_phys");
    return NULL;
}

rknn_tensor_mem *rknn_create_mem_from_mb_blk(rknn_context ctx, void *mb_blk, int32_t offset)
{
    (void)ctx;
    (void)mb_blk;
    (void)offset;
    HAL_LOG_ERR("rknn_create_mem_from_mb_blk: media-buffer blocks do not exist on bare metal");
    return NULL;
}

static int apply_binding(rknn_ctx *ctx, int is_input, uint32_t index);

/* Drops one binding; the NPU goes back to the context's own buffer for it. */
static int unbind(rknn_ctx *ctx, int is_input, uint32_t index)
{
    rknn_io_binding *b = is_input ? &ctx->in_bind[index] : &ctx->out_bind[index];

    memset(b, 0, sizeof *b);
    if (is_input)
        ctx->inputs_set &= ~(1u << index);
    /* back to the tensor's own buffer (an input's home, if it has one) */
    return apply_binding(ctx, is_input, index);
}

/* Drops every binding of a context that uses mem, after any run in flight
 * that may still read or write it. */
static int unbind_everywhere(rknn_ctx *ctx, rknn_tensor_mem *mem)
{
    int ret = RKNN_SUCC;

    if (rknn_run_settle(ctx) != RKNN_SUCC)
        HAL_LOG_WARN("rknn_destroy_mem: the run in flight failed; its cores were reset");
    for (int in = 0; in < 2; in++)
        for (uint32_t i = 0; i < (in ? RKNN_CTX_MAX_INPUTS : RKNN_CTX_MAX_OUTPUTS); i++)
            if ((in ? ctx->in_bind : ctx->out_bind)[i].mem == mem &&
                unbind(ctx, in, i) != RKNN_SUCC)
                ret = RKNN_ERR_MODEL_INVALID;
    return ret;
}

int rknn_destroy_mem(rknn_context context, rknn_tensor_mem *mem)
{
    rknn_ctx *ctx = rknn_ctx_from_handle(context);
    mem_record *r;
    int ret = RKNN_SUCC;

    rknpu_hook_lock();
    r = record_of(mem);
    if (!r) {
        rknpu_hook_unlock();
        HAL_LOG_ERR("rknn_destroy_mem: not a tensor memory created by this runtime");
        return RKNN_ERR_PARAM_INVALID;
    }
    if (ctx && unbind_everywhere(ctx, mem) != RKNN_SUCC) {
        /* untested: the relocation ran at rknn_init on the same tables; only
         * a zero-copy model buffer the application overwrote since fails it */
        HAL_LOG_ERR("rknn_destroy_mem: the model no longer relocates; the context must be "
                    "destroyed");
        ret = RKNN_ERR_MODEL_INVALID;
    }
    if (mem->flags == RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE)
        mem_carveout_free(rknpu_platform_carveout(), mem->virt_addr);
    r->magic = 0;
    mem_pool_give(&mem_pool_records, r);
    rknpu_hook_unlock();
    return ret;
}

int rknn_mem_sync(rknn_context context, rknn_tensor_mem *mem, rknn_mem_sync_mode mode)
{
    (void)context; /* the vendor lets it be 0 on most SoCs */
    if (!record_of(mem) || !(mode & RKNN_MEMORY_SYNC_BIDIRECTIONAL)) {
        HAL_LOG_ERR("rknn_mem_sync: unknown memory or mode %d", (int)mode);
        return RKNN_ERR_PARAM_INVALID;
    }
    if (mode & RKNN_MEMORY_SYNC_TO_DEVICE)
        rknpu_hook_cache_clean((uint8_t *)mem->virt_addr + mem->offset, mem->size);
    if (mode & RKNN_MEMORY_SYNC_FROM_DEVICE)
        rknpu_hook_cache_invalidate((uint8_t *)mem->virt_addr + mem->offset, mem->size);
    return RKNN_SUCC;
}

/* ---- binding -------------------------------------------------------------- */

/* strnlen is POSIX, not C11. */
static size_t bounded_len(const char *s, size_t cap)
{
    size_t n = 0;

    while (n < cap && s[n])
        n++;
    return n;
}

static uint32_t mem_dma(const rknn_tensor_mem *mem)
{
    return (uint32_t)(mem->phys_addr + (uint32_t)mem->offset);
}

/* Which input or output the attr names (by name; the index alone is
 * ambiguous between inputs and outputs). */
static int find_io(const rknn_ctx *ctx, const rknn_tensor_attr *attr, int *is_input,
                   uint32_t *index)
{
    for (int in = 1; in >= 0; in--) {
        uint32_t count = in ? ctx->model.n_inputs : ctx->model.n_outputs;
        for (uint32_t i = 0; i < count; i++) {
            rknn_model_tensor_info t;
            if (rknn_io_tensor(ctx, in, i, &t) != RKNN_SUCC)
                continue; /* unreachable: rknn_init validated every input and output */
            if (t.name.len == bounded_len(attr->name, sizeof attr->name) &&
                memcmp(t.name.ptr, attr->name, t.name.len) == 0) {
                *is_input = in;
                *index = i;
                return RKNN_SUCC;
            }
        }
    }
    HAL_LOG_ERR("rknn_set_io_mem: no input or output is named '%.64s'", attr->name);
    return RKNN_ERR_PARAM_INVALID;
}

/* An output bound as NCHW int8 or float32 where the model's OutputOperator
 * makes that form on the NPU: the operator's scratch tensor moves into the
 * bound buffer, so the NPU writes the user's bytes there and no copy
 * follows, as Rockchip's runtime does. Otherwise the scratch is back at its
 * place in the arena. */
static int point_output_form(rknn_ctx *ctx, rknn_io_binding *b)
{
    rknn_model_tensor_info s;

    if (!ctx->model.output_copy || ctx->model.n_outputs != 1 ||
        rknn_model_tensor(&ctx->model, ctx->model.output_copy_scratch, &s) != RKNN_SUCC ||
        s.kind != RKNN_MODEL_KIND_INTERNAL)
        return RKNN_SUCC; /* no such operator */
    /* float32 uses the whole scratch (its float16 half as well); a type
     * the operator does not make it never writes (rknn_io_get_output) */
    b->form = (uint8_t)(b->mem && !b->native && b->fmt == RKNN_TENSOR_NCHW &&
                        mem_dma(b->mem) % 16u == 0 &&
                        (b->type == RKNN_TENSOR_INT8 || b->mem->size >= s.size));
    return rknn_loader_rebind(
        ctx, ctx->model.output_copy_scratch,
        b->form ? mem_dma(b->mem) : (uint32_t)rknpu_hook_virt_to_phys(ctx->arena + s.arena_offset));
}

/* Point the NPU at a binding's buffer (native) or at the tensor's own
 * buffer (converted by the CPU around the run; rknn_io_buffer). Before
 * weights and internal memory are bound, relocation applies it. */
static int apply_binding(rknn_ctx *ctx, int is_input, uint32_t index)
{
    rknn_io_binding *b = is_input ? &ctx->in_bind[index] : &ctx->out_bind[index];
    rknn_model_tensor_info t;
    uint32_t tensor, dma;
    int ret = rknn_model_io(&ctx->model, is_input, index, &tensor);

    if (!ctx->relocated)
        return RKNN_SUCC;
    if (ret == RKNN_SUCC)
        ret = rknn_model_tensor(&ctx->model, tensor, &t);
    if (ret != RKNN_SUCC)
        return ret; /* unreachable: index is an input or output rknn_init validated */
    dma = b->mem && b->native ? mem_dma(b->mem)
                              : (uint32_t)rknpu_hook_virt_to_phys(
                                    rknn_io_buffer(ctx, is_input, index, t.arena_offset));
    ret = rknn_loader_rebind(ctx, tensor, dma);
    return ret == RKNN_SUCC && !is_input ? point_output_form(ctx, b) : ret;
}

/* Re-point the stream at every input's and output's buffer (after
 * relocation, which points them at the arena). */
static int rknn_mem_apply_bindings(rknn_ctx *ctx)
{
    int ret = RKNN_SUCC;

    for (int in = 0; in < 2; in++)
        for (uint32_t i = 0; i < (in ? ctx->model.n_inputs : ctx->model.n_outputs); i++)
            if (ret == RKNN_SUCC)
                ret = apply_binding(ctx, in, i);
    return ret;
}

/* A native binding: same type and layout as the NPU buffer. */
static int is_native(const rknn_tensor_attr *attr, const rknn_tensor_attr *native)
{
    return attr->type == native->type && attr->fmt == native->fmt &&
           (attr->pass_through || native->qnt_type == RKNN_TENSOR_QNT_NONE ||
            attr->type == RKNN_TENSOR_INT8 || attr->type == RKNN_TENSOR_FLOAT16 ||
            attr->type == RKNN_TENSOR_FLOAT32);
}

/* A 4-D native the NPU holds as NC1HWC2 while its attribute says NCHW (as
 * the vendor answers for fp16 outputs): binding it converts. */
static int held_otherwise(const rknn_ctx *ctx, const rknn_model_tensor_info *t,
                          const rknn_tensor_attr *native)
{
    rknn_layout l;

    /* untested: the tests bind fp16 outputs by NC1HWC2 attributes (PP-OCRv4) */
    return native->fmt == RKNN_TENSOR_NCHW && rknn_io_native_layout(ctx, t, &l) == RKNN_SUCC &&
           l.kind != RKNN_LAYOUT_NCHW;
}

/* A float16 input with a mean/std in the model: Rockchip's runtime takes a
 * native buffer as values before normalisation (only pass-through as
 * they are) and normalises them on the CPU around each run; so do we
 * (api.md, compat.md). */
static int normalised_on_cpu(const rknn_ctx *ctx, int is_input, uint32_t index,
                             const rknn_tensor_attr *attr)
{
    return is_input && ctx->in_plan && ctx->in_plan[index].map.normalise && !attr->pass_through &&
           attr->type == RKNN_TENSOR_FLOAT16;
}

/* The internal memory from now on (invalidated: the NPU writes it), the
 * stream relocated for it. */
static int use_arena(rknn_ctx *ctx, void *arena)
{
    ctx->arena = arena;
    rknpu_hook_cache_invalidate(arena, ctx->plan.arena_bytes);
    return rknn_mem_relocate_when_complete(ctx);
}

/* A converted output binding has the NPU write where the file puts the
 * output, in the internal memory, as Rockchip's runtime does. An arena of
 * our own ends before a tail output: it grows to the file's in place of
 * the output's own buffer, so the context holds the same bytes
 * (format.md §4.4), and the stream is relocated for it. */
static int arena_to_tail(rknn_ctx *ctx)
{
    uint8_t **home;
    void *arena;

    if (!ctx->arena_owned || !ctx->plan.output_home_bytes ||
        rknpu_carve_alloc(ctx->plan.arena_bytes, RKNN_DMA_ALIGN, &arena, "rknn_set_io_mem"))
        return RKNN_SUCC; /* the output's own buffer serves (a failure is logged) */
    /* inputs already set stay set, as in Rockchip's runtime */
    memcpy(arena, ctx->arena, rknn_plan_own_arena(&ctx->plan));
    rknpu_carve_free(ctx->arena);
    home = &ctx->out_home[ctx->plan.tail_output - 1];
    rknpu_carve_free(*home);
    *home = NULL;
    ctx->plan.output_home_bytes = 0;
    return use_arena(ctx, arena);
}

static int bind_io(rknn_ctx *ctx, rknn_tensor_mem *mem, const rknn_tensor_attr *attr)
{
    rknn_model_tensor_info t;
    rknn_tensor_attr native;
    rknn_io_binding nb;
    uint32_t index, need;
    int is_input, ret = find_io(ctx, attr, &is_input, &index);

    if (ret == RKNN_SUCC)
        ret = rknn_io_tensor(ctx, is_input, index, &t);
    if (ret == RKNN_SUCC)
        ret = rknn_tensor_native_attr(&t, index, &native);
    if (ret != RKNN_SUCC)
        return ret;
    /* Built aside: a refused binding leaves the previous one in force. */
    memset(&nb, 0, sizeof nb);
    nb.native = (uint8_t)(is_native(attr, &native) && !held_otherwise(ctx, &t, &native) &&
                          !normalised_on_cpu(ctx, is_input, index, attr));
    /* A converted binding holds the logical elements; its attr may be the
     * native one with the type or layout changed (padded count, api.md). */
    need = nb.native ? native.size_with_stride
                     : rknn_tensor_elems(&t) * rknn_tensor_type_size(attr->type);
    if (!nb.native && attr->n_elems != rknn_tensor_elems(&t) && attr->n_elems != native.n_elems) {
        HAL_LOG_ERR("rknn_set_io_mem: '%.64s' has %lu elements, the attr says %lu", attr->name,
                    (unsigned long)rknn_tensor_elems(&t), (unsigned long)attr->n_elems);
        return RKNN_ERR_PARAM_INVALID;
    }
    if (need == 0 || mem->size < need || (nb.native && mem_dma(mem) % 16u)) {
        HAL_LOG_ERR("rknn_set_io_mem: '%.64s' needs %lu bytes%s, the memory has %lu", attr->name,
                    (unsigned long)need, nb.native ? " at a 16-byte aligned address" : "",
                    (unsigned long)mem->size);
        return RKNN_ERR_PARAM_INVALID;
    }
    nb.mem = mem;
    nb.type = attr->type;
    nb.fmt = attr->fmt;
    nb.pass_through = attr->pass_through;
    *(is_input ? &ctx->in_bind[index] : &ctx->out_bind[index]) = nb;
    if (is_input)
        ctx->inputs_set |= 1u << index;
    else if (!nb.native && index + 1u == ctx->plan.tail_output &&
             (ret = arena_to_tail(ctx)) != RKNN_SUCC)
        return ret;
    /* the NPU reads int8 codes from a native binding (rknn_cvt.c) */
    if (is_input && nb.native && (ret = rknn_cvt_select(ctx, index, RKNN_CVT_CODES)) != RKNN_SUCC)
        return ret;
    return apply_binding(ctx, is_input, index);
}

int rknn_set_io_mem(rknn_context context, rknn_tensor_mem *mem, rknn_tensor_attr *attr)
{
    rknn_ctx *ctx = rknn_ctx_of(context, "rknn_set_io_mem");
    int ret;

    if (!ctx)
        return RKNN_ERR_CTX_INVALID;
    if (!record_of(mem) || !attr) {
        HAL_LOG_ERR("rknn_set_io_mem: %s", attr ? "unknown tensor memory" : "attr is NULL");
        return RKNN_ERR_PARAM_INVALID;
    }
    rknpu_hook_lock();
    ret = rknn_run_settle(ctx);
    if (ret == RKNN_SUCC)
        ret = bind_io(ctx, mem, attr);
    rknpu_hook_unlock();
    return ret;
}

/* ---- weights and internal memory (RKNN_FLAG_MEM_ALLOC_OUTSIDE) ------------- */

int rknn_mem_relocate_when_complete(rknn_ctx *ctx)
{
    int ret;

    /* a model without constants waits for nothing but its arena */
    if ((!ctx->store->dma && ctx->plan.weight_bytes) || !ctx->arena)
        return RKNN_SUCC;
    ret = rknn_loader_relocate(ctx);
    if (ret == RKNN_SUCC)
        ret = rknn_mem_apply_bindings(ctx);
    /* the fresh copy has the file's converter words again */
    return ret == RKNN_SUCC ? rknn_cvt_apply_all(ctx) : ret;
}

static int check_outside_mem(const rknn_ctx *ctx, const rknn_tensor_mem *mem, uint32_t need,
                             const char *who)
{
    if (!ctx) {
        HAL_LOG_ERR("%s: invalid context", who);
        return RKNN_ERR_CTX_INVALID;
    }
    if (!record_of((rknn_tensor_mem *)(uintptr_t)mem) || mem->size < need || mem_dma(mem) % 64u) {
        HAL_LOG_ERR("%s: needs a tensor memory of %lu bytes at a 64-byte aligned address", who,
                    (unsigned long)need);
        return RKNN_ERR_PARAM_INVALID;
    }
    return RKNN_SUCC;
}

int rknn_set_weight_mem(rknn_context context, rknn_tensor_mem *mem)
{
    rknn_ctx *ctx = rknn_ctx_from_handle(context);
    int ret = check_outside_mem(ctx, mem, ctx ? ctx->plan.weight_bytes : 0, "rknn_set_weight_mem");

    if (ret != RKNN_SUCC)
        return ret;
    if ((ctx->flags & (RKNN_FLAG_MEM_ALLOC_OUTSIDE | RKNN_FLAG_COLLECT_MODEL_INFO_ONLY)) !=
            RKNN_FLAG_MEM_ALLOC_OUTSIDE ||
        ctx->store->refs > 1) {
        HAL_LOG_ERR(
            "rknn_set_weight_mem: only for contexts created with RKNN_FLAG_MEM_ALLOC_OUTSIDE "
            "(not info-only) whose weights are not shared");
        return RKNN_ERR_PARAM_INVALID;
    }
    rknpu_hook_lock();
    ret = rknn_run_settle(ctx); /* a run in flight still reads the old weights */
    if (ret == RKNN_SUCC) {
        ctx->store->dma = (uint8_t *)mem->virt_addr + mem->offset;
        ctx->store->in_place = 0;
        ret = rknn_model_copy_weights(&ctx->model, ctx->store->dma);
    }
    if (ret == RKNN_SUCC) {
        rknpu_hook_cache_clean(ctx->store->dma, ctx->plan.weight_bytes);
        ret = rknn_mem_relocate_when_complete(ctx);
    }
    rknpu_hook_unlock();
    return ret;
}

int rknn_set_internal_mem(rknn_context context, rknn_tensor_mem *mem)
{
    rknn_ctx *ctx = rknn_ctx_from_handle(context);
    int ret = check_outside_mem(ctx, mem, ctx ? ctx->plan.arena_bytes : 0, "rknn_set_internal_mem");

    if (ret != RKNN_SUCC)
        return ret;
    if (!(ctx->flags & (RKNN_FLAG_MEM_ALLOC_OUTSIDE | RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE))) {
        HAL_LOG_ERR("rknn_set_internal_mem: only for contexts created with "
                    "RKNN_FLAG_MEM_ALLOC_OUTSIDE or RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE");
        return RKNN_ERR_PARAM_INVALID;
    }
    rknpu_hook_lock();
    ret = rknn_run_settle(ctx); /* a run in flight still uses the old internal memory */
    if (ret == RKNN_SUCC)
        ret = use_arena(ctx, (uint8_t *)mem->virt_addr + mem->offset);
    rknpu_hook_unlock();
    return ret;
}
