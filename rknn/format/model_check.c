/*
 * model_check.c - does a parsed model fit this SoC, and may the NPU run it:
 * the compatibility check, then every task record, chain link, register
 * word and relocation (rknn_model.h). Nothing the model file says is
 * trusted: a model is rejected if it would make the NPU fetch commands
 * outside its stream, follow a chain link that is not a task start, write
 * a register of another block, or read or write memory outside the
 * context's own buffers.
 */
#include "model_internal.h"

#include <string.h>

#include "hal.h"
#include "npu_regs.h"
#include "rknn_api.h"

/* Compiler codes of the samples the runtime is tested with (MMmmpp). */
#define COMPILER_CODE_MIN 10600u /* container v6 appeared with toolkit 1.6 */
#define COMPILER_CODE_MAX 29999u
/* Container 4: toolkit 1.x before 1.6 (tested: 1.5.0, format.md §5.1). */
#define COMPILER_CODE_V4_MIN 10000u
#define COMPILER_CODE_V4_MAX 10599u

FMT_API int fmt_is_activation(int kind)
{
    return kind == RKNN_MODEL_KIND_INPUT || kind == RKNN_MODEL_KIND_OUTPUT ||
           kind == RKNN_MODEL_KIND_INTERNAL;
}

FMT_API int fmt_is_constant(int kind)
{
    return kind == RKNN_MODEL_KIND_CONST || kind == RKNN_MODEL_KIND_HELPER_CONST ||
           kind == RKNN_MODEL_KIND_GENERATED_CONST || kind == RKNN_MODEL_KIND_LUT;
}

/* Blobs that go to the weights region: all but the stream, the task and
 * the LUT blobs. */
FMT_API int fmt_blob_is_weight(const rknn_model_view *m, uint32_t b)
{
    for (uint32_t i = 0; i < m->n_lut_blobs; i++)
        if (m->lut_blobs[i] == b)
            return 0;
    return b != m->regcmd_blob && b != m->task_blob;
}

/* ---- compatibility ------------------------------------------------------- */

int rknn_model_check_compat(const rknn_model_view *m, const npu_soc_profile *soc)
{
    char platform[RKNN_PLATFORM_NAME_MAX], family[RKNN_PLATFORM_NAME_MAX];
    int v4 = fmt_is_v4(m);
    uint32_t code_min = v4 ? COMPILER_CODE_V4_MIN : COMPILER_CODE_MIN;
    uint32_t code_max = v4 ? COMPILER_CODE_V4_MAX : COMPILER_CODE_MAX;

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
        HAL_LOG_ERR("rknn_init: model has task groups for %lu cores, %s has %lu",
                    (unsigned long)(m->max_cores), soc->name, (unsigned long)(soc->core_count));
        return RKNN_ERR_TARGET_PLATFORM_UNMATCH;
    }
    if (m->compiler_code < code_min || m->compiler_code > code_max) {
        HAL_LOG_ERR("rknn_init: model compiler version code %lu is outside the range %lu..%lu "
                    "of container %lu (%s)",
                    (unsigned long)(m->compiler_code), (unsigned long)code_min,
                    (unsigned long)code_max, (unsigned long)m->container_version,
                    v4 ? "RKNN-Toolkit2 1.0 to 1.5" : "RKNN-Toolkit2 1.6 to 2.x");
        return RKNN_ERR_TARGET_PLATFORM_UNMATCH;
    }
    return RKNN_SUCC;
}

/* ---- stream validation ---------------------------------------------------- */

/* The registers that hold DMA addresses; relocation may patch only these. */
static const uint16_t address_registers[] = {
    NPU_CNA_FEATURE_DATA_ADDR,  NPU_CNA_DCOMP_ADDR0,       NPU_DPU_DST_BASE_ADDR,
    NPU_DPU_RDMA_SRC_BASE_ADDR, NPU_DPU_RDMA_BS_BASE_ADDR, NPU_DPU_RDMA_BN_BASE_ADDR,
    NPU_DPU_RDMA_EW_BASE_ADDR,  NPU_PPU_DST_BASE_ADDR,     NPU_PPU_RDMA_SRC_BASE_ADDR,
};

/* One bit per register offset's bits 7:2, set for the registers above: a
 * word whose bit is clear is no address, found without the scan (every
 * stream word is asked, several times in rknn_init). */
#define ADDRESS_BIT(reg) (1ull << (((reg) >> 2) & 63u))
#define ADDRESS_BITS                                                                               \
    (ADDRESS_BIT(NPU_CNA_FEATURE_DATA_ADDR) | ADDRESS_BIT(NPU_CNA_DCOMP_ADDR0) |                   \
     ADDRESS_BIT(NPU_DPU_DST_BASE_ADDR) | ADDRESS_BIT(NPU_DPU_RDMA_SRC_BASE_ADDR) |                \
     ADDRESS_BIT(NPU_DPU_RDMA_BS_BASE_ADDR) | ADDRESS_BIT(NPU_DPU_RDMA_BN_BASE_ADDR) |             \
     ADDRESS_BIT(NPU_DPU_RDMA_EW_BASE_ADDR) | ADDRESS_BIT(NPU_PPU_DST_BASE_ADDR) |                 \
     ADDRESS_BIT(NPU_PPU_RDMA_SRC_BASE_ADDR))

FMT_API int fmt_is_address_word(uint64_t w)
{
    uint16_t reg = npu_regcmd_reg(w);

    if (!(ADDRESS_BITS & ADDRESS_BIT(reg)))
        return 0;
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
        first_word + ti->regcfg_amount + NPU_PC_TAIL_WORDS > m->n_regcmd_words) {
        HAL_LOG_ERR("rknn_init: task %lu: stream at byte %llu with %lu words is misaligned or "
                    "outside the %lu-word command stream",
                    (unsigned long)(t), (unsigned long long)ti->regcmd_addr,
                    (unsigned long)(ti->regcfg_amount), (unsigned long)(m->n_regcmd_words));
        return RKNN_ERR_MODEL_INVALID;
    }
    if (ti->int_mask == 0 || (ti->int_mask & ~0xFFFu) || (ti->enable_mask & ~0x7Fu)) {
        HAL_LOG_ERR("rknn_init: task %lu: interrupt mask 0x%lx / enable mask 0x%lx are not valid",
                    (unsigned long)(t), (unsigned long)(ti->int_mask),
                    (unsigned long)(ti->enable_mask));
        return RKNN_ERR_MODEL_INVALID;
    }
    return RKNN_SUCC;
}

static int check_task_body(const rknn_model_view *m, uint32_t t, const rknn_model_task_info *ti,
                           const npu_soc_profile *soc)
{
    uint32_t first = (uint32_t)(ti->regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE);
    uint32_t passed = UINT32_MAX; /* the last (target, register page) found right */

    for (uint32_t i = 0; i < ti->regcfg_amount; i++) {
        uint64_t w = fmt_stream_word(m, first + i);
        /* a word's rightness depends on its target and its register's page
         * alone, and runs of words share both */
        uint32_t key = (uint32_t)npu_regcmd_target(w) << 16 | npu_regcmd_reg(w) >> 12;
        if (key == passed)
            continue;
        if (body_word_ok(w, soc)) {
            passed = npu_regcmd_is_nop(w) ? passed : key;
        } else {
            HAL_LOG_ERR("rknn_init: task %lu word %lu: target 0x%04lx register 0x%04lx is not a "
                        "register of that block on %s",
                        (unsigned long)(t), (unsigned long)(i),
                        (unsigned long)(npu_regcmd_target(w)), (unsigned long)(npu_regcmd_reg(w)),
                        soc->name);
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
    /* from the next record on, which it mostly is (the next node's first),
     * each record's start read in place (the records were checked) */
    for (uint32_t k = 0, i = t; k < m->n_tasks; k++) {
        i = i + 1 < m->n_tasks ? i + 1 : 0;
        if (rknn_fbs_le64(m->task_data + (size_t)i * RKNN_MODEL_TASK_RECORD_SIZE +
                          NPU_TASK_REGCMD_ADDR) == v)
            return RKNN_SUCC;
    }
    HAL_LOG_ERR("rknn_init: task %lu ends its chain with a link to stream byte %lu, which is "
                "not a task start",
                (unsigned long)t, (unsigned long)v);
    return RKNN_ERR_MODEL_INVALID;
}

/* The 4-word tail: next address, next amount, pre-enable, op-enable. */
static int check_tail(const rknn_model_view *m, uint32_t t, const rknn_model_task_info *ti,
                      const rknn_model_task_info *next, const npu_soc_profile *soc)
{
    uint32_t at = (uint32_t)(ti->regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE) + ti->regcfg_amount;
    uint64_t addr = fmt_stream_word(m, at), amount = fmt_stream_word(m, at + 1);
    uint64_t pre = fmt_stream_word(m, at + 2), op = fmt_stream_word(m, at + 3);
    int addr_ok =
        npu_regcmd_target(addr) == NPU_TARGET_PC && npu_regcmd_reg(addr) == NPU_PC_DATA_ADDR;
    /* The vendor ends a chain with a NOP where the next address would be
     * (and, lowering container 4, another where the amount would be:
     * format.md §5.1). */
    int pc_ok = (addr_ok || (!next && npu_regcmd_is_nop(addr))) &&
                ((npu_regcmd_target(amount) == NPU_TARGET_PC &&
                  npu_regcmd_reg(amount) == NPU_PC_DATA_AMOUNT) ||
                 (fmt_is_v4(m) && !next && npu_regcmd_is_nop(amount)));

    if (!pc_ok || !npu_regcmd_is_pre_enable(pre) || !npu_regcmd_is_op_enable(op)) {
        HAL_LOG_ERR("rknn_init: task %lu: the 4 words after its %lu registers are not the PC "
                    "tail (next address, amount, pre-enable, op-enable)",
                    (unsigned long)(t), (unsigned long)(ti->regcfg_amount));
        return RKNN_ERR_MODEL_INVALID;
    }
    if (!next)
        return check_chain_end(m, t, addr); /* TASK_NUMBER stops the PC here */
    if (npu_regcmd_value(addr) != next->regcmd_addr ||
        NPU_PC_DATA_AMOUNT_DATA_AMOUNT_GET(npu_regcmd_value(amount)) !=
            npu_pc_fetch_amount(next->regcfg_amount, soc->pc_data_amount_scale)) {
        HAL_LOG_ERR(
            "rknn_init: task %lu: chain link points at stream byte %lu amount %lu, the next "
            "task starts at %llu with %lu words",
            (unsigned long)(t), (unsigned long)(npu_regcmd_value(addr)),
            (unsigned long)NPU_PC_DATA_AMOUNT_DATA_AMOUNT_GET(npu_regcmd_value(amount)),
            (unsigned long long)next->regcmd_addr, (unsigned long)(next->regcfg_amount));
        return RKNN_ERR_MODEL_INVALID;
    }
    return RKNN_SUCC;
}

/* Within one node's run of records on a core the chain links every record
 * to the next: a run is submitted as one chain. Its last record's link is
 * not followed (TASK_NUMBER stops the PC); in multi-core groups it points at
 * the next task this core runs for a node split across cores, not at the
 * next record, so runs are checked one by one (format.md §4.2). */
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
            /* A node's last record may link to the next node's first (runs
             * then go to the NPU as one chain, rknn_steps.h): whole, then. */
            has_next = has_next && (next.op_idx == ti.op_idx || fmt_links_to_record(m, &ti, &next));
            ret = check_tail(m, g.first + k, &ti, has_next ? &next : NULL, soc);
            if (ret != RKNN_SUCC)
                return ret;
        }
    }
    return RKNN_SUCC;
}

FMT_API int fmt_check_tasks(const rknn_model_view *m, const npu_soc_profile *soc)
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

/* The extent a relocation into tensor t may start in: its blob for a
 * constant, its bytes in the arena for an activation. */
FMT_API int fmt_tensor_extent(const rknn_model_view *m, const rknn_model_tensor_info *t,
                              uint32_t *extent)
{
    if (fmt_is_constant(t->kind)) {
        const uint8_t *data;
        int ret;
        /* Those two blobs are not copied to the weights region: a constant
         * stored there has no DMA address (it would point past the weights).
         * A LUT names the stream (model_reloc.c), whatever its blob. */
        if (t->kind != RKNN_MODEL_KIND_LUT && !fmt_blob_is_weight(m, t->blob_index))
            return RKNN_ERR_MODEL_INVALID;
        ret = rknn_model_blob(m, t->blob_index, &data, extent);
        if (t->kind == RKNN_MODEL_KIND_LUT && *extent > m->regcmd_size)
            *extent = m->regcmd_size;
        return ret;
    }
    if (fmt_is_activation(t->kind)) {
        if ((uint64_t)t->arena_offset + t->size > m->arena_size)
            return RKNN_ERR_MODEL_INVALID;
        *extent = t->size;
        return RKNN_SUCC;
    }
    return RKNN_ERR_MODEL_INVALID;
}

/* Checks one relocation table; marks its words in the bitmap and hands
 * back the table and its tensor (out_ri/out_t may be NULL). */
FMT_API int fmt_check_reloc(const rknn_model_view *m, uint32_t r, uint32_t *patched,
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
    if (fmt_tensor_extent(m, &t, &extent) != RKNN_SUCC || extent == 0) {
        HAL_LOG_ERR("rknn_init: relocation table %lu names tensor %lu (kind %d) which has no "
                    "memory the NPU may address",
                    (unsigned long)(r), (unsigned long)(ri.tensor_index), t.kind);
        return RKNN_ERR_MODEL_INVALID;
    }
    for (uint32_t e = 0; e < ri.n_entries; e++) {
        uint32_t addend, word;
        uint64_t w;
        if ((ret = rknn_model_reloc_entry(&ri, e, &addend, &word)) != RKNN_SUCC)
            return ret;
        w = fmt_stream_word(m, word);
        if (patched && npu_regcmd_is_nop(w))
            continue; /* no task covers it: a NOP once relocated where it lies */
        /* The file's value is checked by the plan (patched NULL); relocation
         * replaces it, and a stream relocated where it lies holds addresses. */
        if (!fmt_is_address_word(w) || addend >= extent ||
            (!patched && npu_regcmd_value(w) != addend)) {
            HAL_LOG_ERR(
                "rknn_init: relocation %lu.%lu (tensor %lu, +%lu of %lu bytes) patches word "
                "%lu = register 0x%04lx value 0x%lx: not an in-range address register",
                (unsigned long)(r), (unsigned long)(e), (unsigned long)(ri.tensor_index),
                (unsigned long)(addend), (unsigned long)(extent), (unsigned long)(word),
                (unsigned long)(npu_regcmd_reg(w)), (unsigned long)(npu_regcmd_value(w)));
            return RKNN_ERR_MODEL_INVALID;
        }
        if (patched)
            patched[word / 32] |= 1u << (word % 32);
    }
    return RKNN_SUCC;
}

/* Every address register in a task body must be relocated, or the NPU would
 * use a raw offset from the file as a physical address. */
FMT_API int fmt_check_unrelocated(const rknn_model_view *m, const uint32_t *patched)
{
    for (uint32_t t = 0; t < m->n_tasks; t++) {
        rknn_model_task_info ti;
        uint32_t first;
        int ret = rknn_model_task(m, t, &ti);
        if (ret != RKNN_SUCC)
            return ret;
        first = (uint32_t)(ti.regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE);
        for (uint32_t i = first; i < first + ti.regcfg_amount; i++) {
            uint64_t w = fmt_stream_word(m, i);
            /* most words fail the register pre-filter: no call for them */
            if (!(ADDRESS_BITS & ADDRESS_BIT(npu_regcmd_reg(w))) ||
                (patched[i / 32] & (1u << (i % 32))) || npu_regcmd_value(w) == 0)
                continue;
            if (fmt_is_address_word(w)) {
                HAL_LOG_ERR("rknn_init: task %lu sets address register 0x%04lx to 0x%lx but no "
                            "relocation covers it",
                            (unsigned long)(t), (unsigned long)(npu_regcmd_reg(w)),
                            (unsigned long)(npu_regcmd_value(w)));
                return RKNN_ERR_MODEL_INVALID;
            }
        }
    }
    return RKNN_SUCC;
}
