/*
 * rknn_loader.c - from a parsed .rknn file to NPU-ready memory: the
 * compatibility check, validation of the command stream and relocation
 * table, the memory plan, and relocation itself.
 *
 * Nothing the model file says is trusted. A model is rejected at init if it
 * would make the NPU fetch commands outside its stream, follow a chain link
 * that is not a task start, write a register of another block, or read or
 * write memory outside the context's own buffers.
 */
#include <string.h>

#include "hal.h"
#include "npu_regcmd.h"
#include "npu_regs.h"
#include "rknn_ctx.h"
#include "rknn_io.h"
#include "rknpu_platform_internal.h"

#define PC_TAIL_WORDS 4u
/* Compiler codes of the samples the runtime is tested with (MMmmpp). */
#define COMPILER_CODE_MIN 10600u /* container v6 appeared with toolkit 1.6 */
#define COMPILER_CODE_MAX 29999u

static uint64_t stream_word(const rknn_model_view *m, uint32_t index)
{
    return rknn_fbs_le64(m->regcmd + (size_t)index * RKNN_MODEL_REGCMD_WORD_SIZE);
}

static uint32_t align_up32(uint32_t v, uint32_t a)
{
    return (v + a - 1) & ~(a - 1);
}

/* ---- compatibility ------------------------------------------------------- */

int rknn_loader_check_compat(const rknn_model_view *m, const npu_soc_profile *soc)
{
    char platform[RKNN_PLATFORM_NAME_MAX], family[RKNN_PLATFORM_NAME_MAX];

    rknn_fbs_string_copy(m->target_platform, platform, sizeof platform);
    rknn_fbs_string_copy(m->npu_family, family, sizeof family);
    if (!npu_soc_find_platform(platform)) {
        HAL_LOG_ERR("rknn_init: model is built for target platform '%s', which has no SoC profile "
                    "in rknpu-bm (supported: rk3588, rk3566, rk3568, rv1106); this is %s",
                    platform, soc->name);
        return RKNN_ERR_TARGET_PLATFORM_UNMATCH;
    }
    if (!npu_soc_accepts_platform(soc, platform)) {
        HAL_LOG_ERR("rknn_init: model is built for target platform '%s', this is %s "
                    "(rebuild it with rknn.config(target_platform=...) for this SoC)",
                    platform, soc->name);
        return RKNN_ERR_TARGET_PLATFORM_UNMATCH;
    }
    if (family[0] && !npu_soc_accepts_model_family(soc, family)) {
        HAL_LOG_ERR("rknn_init: model is for NPU family '%s', which %s does not have", family,
                    soc->name);
        return RKNN_ERR_TARGET_PLATFORM_UNMATCH;
    }
    if (m->max_cores > soc->core_count) {
        HAL_LOG_ERR("rknn_init: model has task groups for %lu cores, %s has %lu", (unsigned long)(m->max_cores),
                    soc->name, (unsigned long)(soc->core_count));
        return RKNN_ERR_TARGET_PLATFORM_UNMATCH;
    }
    if (m->compiler_code < COMPILER_CODE_MIN || m->compiler_code > COMPILER_CODE_MAX) {
        HAL_LOG_ERR("rknn_init: model compiler version code %lu is outside the supported range "
                    "%lu..%lu (RKNN-Toolkit2 1.6 to 2.x)", (unsigned long)(m->compiler_code), (unsigned long)(COMPILER_CODE_MIN), (unsigned long)(COMPILER_CODE_MAX));
        return RKNN_ERR_TARGET_PLATFORM_UNMATCH;
    }
    return RKNN_SUCC;
}

/* ---- stream validation ---------------------------------------------------- */

/* The registers that hold DMA addresses; relocation may patch only these. */
static const uint16_t address_registers[] = {
    NPU_CNA_FEATURE_DATA_ADDR, NPU_CNA_DCOMP_ADDR0,      NPU_DPU_DST_BASE_ADDR,
    NPU_DPU_RDMA_SRC_BASE_ADDR, NPU_DPU_RDMA_BS_BASE_ADDR, NPU_DPU_RDMA_BN_BASE_ADDR,
    NPU_DPU_RDMA_EW_BASE_ADDR, NPU_PPU_DST_BASE_ADDR,     NPU_PPU_RDMA_SRC_BASE_ADDR,
};

static int is_address_word(uint64_t w)
{
    uint16_t reg = npu_regcmd_reg(w);

    for (size_t i = 0; i < sizeof address_registers / sizeof address_registers[0]; i++)
        if (address_registers[i] == reg) {
            int block = npu_block_of_offset(reg);
            return block >= 0 && npu_regcmd_target(w) == npu_block_target((enum npu_block)block);
        }
    return 0;
}

/* A body word must be padding or a write to a compute block whose target
 * matches the register's block. PC registers are written only by tails. */
static int body_word_ok(uint64_t w, const npu_soc_profile *soc)
{
    uint16_t target = npu_regcmd_target(w);
    int block, tblock;

    if (npu_regcmd_is_nop(w))
        return 1;
    tblock = npu_block_from_target(target);
    if (tblock < 0 || tblock == NPU_BLOCK_PC)
        return 0;
    if (tblock == NPU_BLOCK_CMAC && soc->cmac_target_carries_ddma)
        return 1; /* RV1106 sends DDMA configuration words with this target */
    if (tblock == NPU_BLOCK_CMAC && !soc->has_cmac)
        return 0;
    block = npu_block_of_offset(npu_regcmd_reg(w));
    return block == tblock;
}

static int check_task_record(const rknn_model_view *m, uint32_t t, const rknn_model_task_info *ti)
{
    uint64_t first_word = ti->regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE;

    if (ti->regcmd_addr % 16u || ti->regcfg_amount == 0 ||
        first_word + ti->regcfg_amount + PC_TAIL_WORDS > m->n_regcmd_words) {
        HAL_LOG_ERR("rknn_init: task %lu: stream at byte %llu with %lu words is misaligned or "
                    "outside the %lu-word command stream", (unsigned long)(t), (unsigned long long)ti->regcmd_addr, (unsigned long)(ti->regcfg_amount), (unsigned long)(m->n_regcmd_words));
        return RKNN_ERR_MODEL_INVALID;
    }
    if (ti->int_mask == 0 || (ti->int_mask & ~0xFFFu) || (ti->enable_mask & ~0x7Fu)) {
        HAL_LOG_ERR("rknn_init: task %lu: interrupt mask 0x%lx / enable mask 0x%lx are not valid", (unsigned long)(t), (unsigned long)(ti->int_mask), (unsigned long)(ti->enable_mask));
        return RKNN_ERR_MODEL_INVALID;
    }
    return RKNN_SUCC;
}

static int check_task_body(const rknn_model_view *m, uint32_t t, const rknn_model_task_info *ti,
                           const npu_soc_profile *soc)
{
    uint32_t first = (uint32_t)(ti->regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE);

    for (uint32_t i = 0; i < ti->regcfg_amount; i++) {
        uint64_t w = stream_word(m, first + i);
        if (!body_word_ok(w, soc)) {
            HAL_LOG_ERR("rknn_init: task %lu word %lu: target 0x%04lx register 0x%04lx is not a "
                        "register of that block on %s", (unsigned long)(t), (unsigned long)(i), (unsigned long)(npu_regcmd_target(w)), (unsigned long)(npu_regcmd_reg(w)), soc->name);
            return RKNN_ERR_MODEL_INVALID;
        }
    }
    return RKNN_SUCC;
}

/* The last link of a chain is never followed (TASK_NUMBER stops the PC), but
 * rebase_chain() turns it into a DMA address like the others: it must be 0
 * or a task start, never a position inside a task. */
static int check_chain_end(const rknn_model_view *m, uint32_t t, uint64_t addr)
{
    uint32_t v = npu_regcmd_value(addr);

    if (npu_regcmd_is_nop(addr) || v == 0)
        return RKNN_SUCC;
    for (uint32_t k = 0; k < m->n_tasks; k++) {
        rknn_model_task_info ti;
        if (rknn_model_task(m, k, &ti) == RKNN_SUCC && ti.regcmd_addr == v)
            return RKNN_SUCC;
    }
    HAL_LOG_ERR("rknn_init: task %lu ends its chain with a link to stream byte %lu, which is "
                "not a task start", (unsigned long)t, (unsigned long)v);
    return RKNN_ERR_MODEL_INVALID;
}

/* The 4-word tail: next address, next amount, pre-enable, op-enable. */
static int check_tail(const rknn_model_view *m, uint32_t t, const rknn_model_task_info *ti,
                      const rknn_model_task_info *next, const npu_soc_profile *soc)
{
    uint32_t at = (uint32_t)(ti->regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE) + ti->regcfg_amount;
    uint64_t addr = stream_word(m, at), amount = stream_word(m, at + 1);
    uint64_t pre = stream_word(m, at + 2), op = stream_word(m, at + 3);
    int addr_ok = npu_regcmd_target(addr) == NPU_TARGET_PC && npu_regcmd_reg(addr) == NPU_PC_DATA_ADDR;
    /* The vendor ends a chain with a NOP where the next address would be. */
    int pc_ok = (addr_ok || (!next && npu_regcmd_is_nop(addr))) &&
                npu_regcmd_target(amount) == NPU_TARGET_PC &&
                npu_regcmd_reg(amount) == NPU_PC_DATA_AMOUNT;

    if (!pc_ok || !npu_regcmd_is_pre_enable(pre) || !npu_regcmd_is_op_enable(op)) {
        HAL_LOG_ERR("rknn_init: task %lu: the 4 words after its %lu registers are not the PC "
                    "tail (next address, amount, pre-enable, op-enable)", (unsigned long)(t), (unsigned long)(ti->regcfg_amount));
        return RKNN_ERR_MODEL_INVALID;
    }
    if (!next)
        return check_chain_end(m, t, addr); /* TASK_NUMBER stops the PC here */
    if (npu_regcmd_value(addr) != next->regcmd_addr ||
        NPU_PC_DATA_AMOUNT_DATA_AMOUNT_GET(npu_regcmd_value(amount)) !=
            npu_pc_fetch_amount(next->regcfg_amount, soc->pc_data_amount_scale)) {
        HAL_LOG_ERR("rknn_init: task %lu: chain link points at stream byte %lu amount %lu, the next "
                    "task starts at %llu with %lu words", (unsigned long)(t), (unsigned long)(npu_regcmd_value(addr)), (unsigned long)NPU_PC_DATA_AMOUNT_DATA_AMOUNT_GET(npu_regcmd_value(amount)),
                    (unsigned long long)next->regcmd_addr, (unsigned long)(next->regcfg_amount));
        return RKNN_ERR_MODEL_INVALID;
    }
    return RKNN_SUCC;
}

static int check_groups(const rknn_model_view *m, const npu_soc_profile *soc)
{
    for (uint32_t s = 0; s < m->n_core_slots; s++) {
        rknn_model_task_range g = m->groups[s];
        for (uint32_t k = 0; k < g.count; k++) {
            rknn_model_task_info ti, next;
            int has_next = k + 1 < g.count, ret;
            if ((ret = rknn_model_task(m, g.first + k, &ti)) != RKNN_SUCC ||
                (has_next && (ret = rknn_model_task(m, g.first + k + 1, &next)) != RKNN_SUCC))
                return ret;
            ret = check_tail(m, g.first + k, &ti, has_next ? &next : NULL, soc);
            if (ret != RKNN_SUCC)
                return ret;
        }
    }
    return RKNN_SUCC;
}

static int check_tasks(const rknn_model_view *m, const npu_soc_profile *soc)
{
    if (m->n_tasks == 0) {
        HAL_LOG_ERR("rknn_init: model has no NPU tasks");
        return RKNN_ERR_MODEL_INVALID;
    }
    for (uint32_t t = 0; t < m->n_tasks; t++) {
        rknn_model_task_info ti;
        int ret = rknn_model_task(m, t, &ti);
        if (ret == RKNN_SUCC)
            ret = check_task_record(m, t, &ti);
        if (ret == RKNN_SUCC)
            ret = check_task_body(m, t, &ti, soc);
        if (ret != RKNN_SUCC)
            return ret;
    }
    return check_groups(m, soc);
}

/* ---- tensors and the memory plan ------------------------------------------ */

static int is_activation(int kind)
{
    return kind == RKNN_MODEL_KIND_INPUT || kind == RKNN_MODEL_KIND_OUTPUT ||
           kind == RKNN_MODEL_KIND_INTERNAL;
}

static int is_constant(int kind)
{
    return kind == RKNN_MODEL_KIND_CONST || kind == RKNN_MODEL_KIND_GENERATED_CONST;
}

/* Blobs that go to the weights region: all but the stream and task blobs. */
static int blob_is_weight(const rknn_model_view *m, uint32_t b)
{
    return b != m->regcmd_blob && b != m->task_blob;
}

/* Walk the weight blobs in blob order: record each one's offset in the
 * weights region (offsets, optional), copy it there (weights, optional,
 * zero-padding to the next blob because the NPU may prefetch it), and give
 * the region's total size. */
static int weight_layout(const rknn_model_view *m, uint32_t *offsets, uint8_t *weights,
                         uint32_t *total)
{
    uint32_t off = 0;

    for (uint32_t b = 0; b < m->n_blobs; b++) {
        int ret;
        const uint8_t *data;
        uint32_t size;
        if ((ret = rknn_model_blob(m, b, &data, &size)) != RKNN_SUCC)
            return ret;
        if (offsets)
            offsets[b] = off;
        if (!blob_is_weight(m, b) || size == 0)
            continue;
        if ((uint64_t)off + size + RKNN_DMA_ALIGN > UINT32_MAX) {
            HAL_LOG_ERR("rknn_init: constants exceed 4 GiB");
            return RKNN_ERR_MODEL_INVALID;
        }
        if (weights) {
            memcpy(weights + off, data, size);
            memset(weights + off + size, 0, align_up32(size, RKNN_DMA_ALIGN) - size);
        }
        off = align_up32(off + size, RKNN_DMA_ALIGN);
    }
    *total = off;
    return RKNN_SUCC;
}

/* The NPU can read the constants in place in a 64-byte aligned copy of the
 * file only if every weight blob starts 64-byte aligned in it (it does in
 * every toolkit-2 file seen; the check keeps other files working, copied). */
static int blobs_aligned(const rknn_model_view *m)
{
    for (uint32_t b = 0; b < m->n_blobs; b++) {
        const uint8_t *data;
        uint32_t size;
        if (rknn_model_blob(m, b, &data, &size) != RKNN_SUCC)
            return 0;
        if (blob_is_weight(m, b) && size && (size_t)(data - m->file) % RKNN_DMA_ALIGN)
            return 0;
    }
    return 1;
}

int rknn_loader_same_weight_blobs(const rknn_model_view *a, const rknn_model_view *b)
{
    if (a->n_blobs != b->n_blobs)
        return RKNN_ERR_PARAM_INVALID;
    for (uint32_t i = 0; i < a->n_blobs; i++) {
        const uint8_t *da, *db;
        uint32_t sa, sb;
        if (rknn_model_blob(a, i, &da, &sa) != RKNN_SUCC ||
            rknn_model_blob(b, i, &db, &sb) != RKNN_SUCC || sa != sb ||
            blob_is_weight(a, i) != blob_is_weight(b, i))
            return RKNN_ERR_PARAM_INVALID;
    }
    return RKNN_SUCC;
}

/* The extent a relocation into tensor t may start in: its blob for a
 * constant, its bytes in the arena for an activation. */
static int tensor_extent(const rknn_model_view *m, const rknn_model_tensor_info *t, uint32_t *extent)
{
    if (is_constant(t->kind)) {
        const uint8_t *data;
        /* Those two blobs are not copied to the weights region: a constant
         * stored there has no DMA address (it would point past the weights). */
        if (!blob_is_weight(m, t->blob_index))
            return RKNN_ERR_MODEL_INVALID;
        return rknn_model_blob(m, t->blob_index, &data, extent);
    }
    if (is_activation(t->kind)) {
        if ((uint64_t)t->arena_offset + t->size > m->arena_size)
            return RKNN_ERR_MODEL_INVALID;
        *extent = t->size;
        return RKNN_SUCC;
    }
    return RKNN_ERR_MODEL_INVALID;
}

/* Checks one relocation table; marks its words in the bitmap and hands
 * back the table and its tensor (out_ri/out_t may be NULL). */
static int check_reloc(const rknn_model_view *m, uint32_t r, uint32_t *patched,
                       rknn_model_reloc_info *out_ri, rknn_model_tensor_info *out_t)
{
    rknn_model_reloc_info ri;
    rknn_model_tensor_info t;
    uint32_t extent;
    int ret = rknn_model_reloc(m, r, &ri);

    if (ret != RKNN_SUCC)
        return ret;
    if ((ret = rknn_model_tensor(m, ri.tensor_index, &t)) != RKNN_SUCC)
        return ret;
    if (out_ri)
        *out_ri = ri;
    if (out_t)
        *out_t = t;
    if (tensor_extent(m, &t, &extent) != RKNN_SUCC || extent == 0) {
        HAL_LOG_ERR("rknn_init: relocation table %lu names tensor %lu (kind %d) which has no "
                    "memory the NPU may address", (unsigned long)(r), (unsigned long)(ri.tensor_index), t.kind);
        return RKNN_ERR_MODEL_INVALID;
    }
    for (uint32_t e = 0; e < ri.n_entries; e++) {
        uint32_t addend, word;
        uint64_t w;
        if ((ret = rknn_model_reloc_entry(&ri, e, &addend, &word)) != RKNN_SUCC)
            return ret;
        w = stream_word(m, word);
        if (!is_address_word(w) || addend >= extent || npu_regcmd_value(w) != addend) {
            HAL_LOG_ERR("rknn_init: relocation %lu.%lu (tensor %lu, +%lu of %lu bytes) patches word "
                        "%lu = register 0x%04lx value 0x%lx: not an in-range address register", (unsigned long)(r), (unsigned long)(e), (unsigned long)(ri.tensor_index), (unsigned long)(addend), (unsigned long)(extent), (unsigned long)(word), (unsigned long)(npu_regcmd_reg(w)), (unsigned long)(npu_regcmd_value(w)));
            return RKNN_ERR_MODEL_INVALID;
        }
        if (patched)
            patched[word / 32] |= 1u << (word % 32);
    }
    return RKNN_SUCC;
}

/* Every address register in a task body must be relocated, or the NPU would
 * use a raw offset from the file as a physical address. */
static int check_unrelocated(const rknn_model_view *m, const uint32_t *patched)
{
    for (uint32_t t = 0; t < m->n_tasks; t++) {
        rknn_model_task_info ti;
        uint32_t first;
        int ret = rknn_model_task(m, t, &ti);
        if (ret != RKNN_SUCC)
            return ret;
        first = (uint32_t)(ti.regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE);
        for (uint32_t i = first; i < first + ti.regcfg_amount; i++) {
            uint64_t w = stream_word(m, i);
            if (is_address_word(w) && !(patched[i / 32] & (1u << (i % 32))) &&
                npu_regcmd_value(w) != 0) {
                HAL_LOG_ERR("rknn_init: task %lu sets address register 0x%04lx to 0x%lx but no "
                            "relocation covers it", (unsigned long)(t), (unsigned long)(npu_regcmd_reg(w)), (unsigned long)(npu_regcmd_value(w)));
                return RKNN_ERR_MODEL_INVALID;
            }
        }
    }
    return RKNN_SUCC;
}

/* 1 if another activation tensor uses some of tensor t's arena bytes. */
static int arena_shared(const rknn_model_view *m, uint32_t t, const rknn_model_tensor_info *ti)
{
    for (uint32_t i = 0; i < m->n_tensors; i++) {
        rknn_model_tensor_info o;
        if (i == t || rknn_model_tensor(m, i, &o) != RKNN_SUCC || !is_activation(o.kind))
            continue;
        if ((uint64_t)o.arena_offset < (uint64_t)ti->arena_offset + ti->size &&
            (uint64_t)ti->arena_offset < (uint64_t)o.arena_offset + o.size)
            return 1;
    }
    return 0;
}

int rknn_loader_input_home_size(const rknn_model_view *m, uint32_t input, uint32_t *size)
{
    rknn_model_tensor_info ti;
    uint32_t t;
    int ret = rknn_model_input(m, input, &t);

    if (ret == RKNN_SUCC)
        ret = rknn_model_tensor(m, t, &ti);
    if (ret != RKNN_SUCC)
        return ret;
    *size = arena_shared(m, t, &ti) ? align_up32(ti.size, RKNN_DMA_ALIGN) : 0;
    return RKNN_SUCC;
}

static int input_home_bytes(const rknn_model_view *m, uint32_t *total)
{
    *total = 0;
    for (uint32_t i = 0; i < m->n_inputs; i++) {
        uint32_t size;
        int ret = rknn_loader_input_home_size(m, i, &size);
        if (ret != RKNN_SUCC)
            return ret;
        *total += size;
    }
    return RKNN_SUCC;
}

static uint32_t scratch_size(const rknn_model_view *m)
{
    /* blob offset table + one bit per stream word */
    return align_up32(m->n_blobs * 4u, 8) + align_up32((m->n_regcmd_words + 31) / 32 * 4u, 8);
}

int rknn_loader_validate(const rknn_model_view *m, const npu_soc_profile *soc,
                         rknn_mem_plan *plan)
{
    int ret = check_tasks(m, soc);

    if (ret != RKNN_SUCC)
        return ret;
    if (m->arena_size > UINT32_MAX - RKNN_DMA_ALIGN) {
        HAL_LOG_ERR("rknn_init: activation arena of %llu bytes exceeds the NPU's 4 GiB",
                    (unsigned long long)m->arena_size);
        return RKNN_ERR_MODEL_INVALID;
    }
    for (uint32_t r = 0; r < m->n_relocs; r++)
        if ((ret = check_reloc(m, r, NULL, NULL, NULL)) != RKNN_SUCC)
            return ret;
    memset(plan, 0, sizeof *plan);
    if ((ret = weight_layout(m, NULL, NULL, &plan->weight_bytes)) != RKNN_SUCC)
        return ret;
    plan->regcmd_bytes = align_up32(m->regcmd_size, RKNN_DMA_ALIGN);
    plan->arena_bytes = align_up32((uint32_t)m->arena_size, RKNN_DMA_ALIGN);
    plan->scratch_bytes = scratch_size(m);
    plan->io_plan_bytes = align_up32(m->n_inputs * (uint32_t)sizeof(rknn_io_plan), MEM_MIN_ALIGN);
    if ((ret = input_home_bytes(m, &plan->input_home_bytes)) != RKNN_SUCC)
        return ret;
    plan->image_bytes = align_up32((uint32_t)m->file_size, RKNN_DMA_ALIGN);
    plan->blobs_aligned = (uint8_t)blobs_aligned(m);
    return RKNN_SUCC;
}

/* ---- copy and relocation ---------------------------------------------------- */

int rknn_loader_copy_weights(const rknn_model_view *m, uint8_t *weights)
{
    uint32_t total;

    return weight_layout(m, NULL, weights, &total);
}

static void put_word(uint8_t *stream, uint32_t index, uint64_t w)
{
    for (unsigned i = 0; i < 8; i++)
        stream[(size_t)index * 8 + i] = (uint8_t)(w >> (8 * i));
}

static uint32_t dma32(const void *p)
{
    return (uint32_t)rknpu_hook_virt_to_phys(p);
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
    uint32_t total;
    int ret;

    if (!st->in_place)
        return weight_layout(m, offsets, NULL, &total);
    if (m->file != st->image) {
        if ((ret = rknn_model_parse(st->image, st->image_size, &held)) != RKNN_SUCC)
            return ret;
        m = &held;
    }
    for (uint32_t b = 0; b < m->n_blobs; b++) {
        const uint8_t *data;
        uint32_t size;
        if ((ret = rknn_model_blob(m, b, &data, &size)) != RKNN_SUCC)
            return ret;
        offsets[b] = (uint32_t)(data - st->image);
    }
    return RKNN_SUCC;
}

/* The DMA address of a tensor's first byte in this context. */
static uint32_t tensor_dma(const rknn_ctx *ctx, const rknn_model_tensor_info *t,
                           const uint32_t *blob_offsets)
{
    if (is_constant(t->kind))
        return dma32(ctx->store->dma + blob_offsets[t->blob_index]);
    return dma32(ctx->arena + t->arena_offset);
}

/* Points every word of one relocation at base + its addend. The entries are
 * decoded again (the decoder bounds each word), since the model may sit in
 * writable memory. */
static int patch_entries(rknn_ctx *ctx, const rknn_model_reloc_info *ri, uint32_t base)
{
    for (uint32_t e = 0; e < ri->n_entries; e++) {
        uint32_t addend, word;
        uint64_t w;
        int ret = rknn_model_reloc_entry(ri, e, &addend, &word);
        if (ret != RKNN_SUCC)
            return ret;
        w = stream_word(&ctx->model, word);
        put_word(ctx->regcmd, word,
                 npu_regcmd_make(npu_regcmd_target(w), npu_regcmd_reg(w), base + addend));
    }
    return RKNN_SUCC;
}

static int patch_relocs(rknn_ctx *ctx, const uint32_t *blob_offsets, uint32_t *patched)
{
    const rknn_model_view *m = &ctx->model;

    for (uint32_t r = 0; r < m->n_relocs; r++) {
        rknn_model_reloc_info ri;
        rknn_model_tensor_info t;
        /* checked again: the file is re-read, and may be in writable memory */
        int ret = check_reloc(m, r, patched, &ri, &t);
        if (ret != RKNN_SUCC)
            return ret;
        ret = patch_entries(ctx, &ri, tensor_dma(ctx, &t, blob_offsets));
        if (ret != RKNN_SUCC)
            return ret;
    }
    return RKNN_SUCC;
}

/* Chain words hold stream-relative offsets: make them DMA addresses. Each
 * one was checked to be a task start (check_tail) or is rejected here. */
static int rebase_chain(rknn_ctx *ctx)
{
    const rknn_model_view *m = &ctx->model;
    uint32_t base = dma32(ctx->regcmd);

    for (uint32_t t = 0; t < m->n_tasks; t++) {
        rknn_model_task_info ti;
        uint32_t at;
        uint64_t w;
        rknn_model_task(m, t, &ti);
        at = (uint32_t)(ti.regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE) + ti.regcfg_amount;
        w = stream_word(m, at);
        if (npu_regcmd_is_nop(w) || npu_regcmd_value(w) == 0)
            continue;
        if (npu_regcmd_value(w) % 16u || npu_regcmd_value(w) >= m->regcmd_size) {
            HAL_LOG_ERR("rknn_init: task %lu links to stream byte %lu, outside the stream", (unsigned long)(t), (unsigned long)(npu_regcmd_value(w)));
            return RKNN_ERR_MODEL_INVALID;
        }
        put_word(ctx->regcmd, at, npu_regcmd_next_address(base + npu_regcmd_value(w)));
    }
    return RKNN_SUCC;
}

/* Words no task covers (gaps between tasks, the DMA block's padding) become
 * NOPs: nothing the file put there was validated, and the PC's fetch
 * granularity (2 words on RK3588) can reach one word past a task's tail.
 * `covered` is a bitmap of n_regcmd_words bits. */
static void clear_unfetched(rknn_ctx *ctx, uint32_t *covered)
{
    const rknn_model_view *m = &ctx->model;

    memset(covered, 0, (m->n_regcmd_words + 31) / 32 * 4u);
    for (uint32_t t = 0; t < m->n_tasks; t++) {
        rknn_model_task_info ti;
        uint32_t first;
        if (rknn_model_task(m, t, &ti) != RKNN_SUCC)
            continue;
        first = (uint32_t)(ti.regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE);
        for (uint32_t i = first; i < first + ti.regcfg_amount + PC_TAIL_WORDS; i++)
            covered[i / 32] |= 1u << (i % 32);
    }
    for (uint32_t i = 0; i < m->n_regcmd_words; i++)
        if (!(covered[i / 32] & (1u << (i % 32))))
            put_word(ctx->regcmd, i, npu_regcmd_nop());
    memset(ctx->regcmd + m->regcmd_size, 0, ctx->plan.regcmd_bytes - m->regcmd_size);
}

int rknn_loader_relocate(rknn_ctx *ctx)
{
    mem_carveout *heap = rknpu_platform_carveout();
    const rknn_model_view *m = &ctx->model;
    uint32_t *blob_offsets = NULL, *patched;
    void *scratch = NULL;
    int ret;

    ret = rknpu_carve_alloc(ctx->plan.scratch_bytes, 8, &scratch, "rknn_init: loader scratch");
    if (ret != RKNN_SUCC)
        return ret;
    blob_offsets = scratch;
    patched = (uint32_t *)((uint8_t *)scratch + align_up32(m->n_blobs * 4u, 8));
    memset(patched, 0, (m->n_regcmd_words + 31) / 32 * 4u);
    memcpy(ctx->regcmd, m->regcmd, m->regcmd_size);
    ret = store_blob_offsets(ctx, blob_offsets);
    if (ret == RKNN_SUCC)
        ret = patch_relocs(ctx, blob_offsets, patched);
    if (ret == RKNN_SUCC)
        ret = check_unrelocated(m, patched);
    if (ret == RKNN_SUCC)
        ret = rebase_chain(ctx);
    if (ret == RKNN_SUCC)
        clear_unfetched(ctx, patched); /* the bitmap is free again */
    mem_carveout_free(heap, scratch);
    if (ret != RKNN_SUCC)
        return ret;
    rknpu_hook_cache_clean(ctx->regcmd, ctx->plan.regcmd_bytes);
    ctx->relocated = 1;
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
    rknn_fbs_string_copy(view->target_platform, platform, sizeof platform);
    soc = npu_soc_find_platform(platform);
    if (!soc) {
        HAL_LOG_ERR("rknpu_model_mem_requirements: unknown target platform '%s'", platform);
        return RKNN_ERR_TARGET_PLATFORM_UNMATCH;
    }
    return rknn_loader_validate(view, soc, plan);
}

int rknn_loader_rebind(rknn_ctx *ctx, uint32_t tensor_index, uint32_t dma)
{
    const rknn_model_view *m = &ctx->model;

    for (uint32_t r = 0; r < m->n_relocs; r++) {
        rknn_model_reloc_info ri;
        int ret = rknn_model_reloc(m, r, &ri);
        if (ret != RKNN_SUCC)
            return ret;
        if (ri.tensor_index != tensor_index)
            continue;
        ret = patch_entries(ctx, &ri, dma);
        if (ret != RKNN_SUCC)
            return ret;
    }
    rknpu_hook_cache_clean(ctx->regcmd, m->regcmd_size);
    return RKNN_SUCC;
}
