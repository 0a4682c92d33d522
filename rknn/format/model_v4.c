/*
 * model_v4.c - containers 4 and 2 / schema 1 (RKNN-Toolkit2 1.x;
 * format.md §5.1, §5.2). The file keeps one register list per task instead of a
 * command stream, task records and relocations. Here, at the top of the
 * format layer below the entry points: the rules that say which tensor each
 * address register points into, checking every entry at parse time, and
 * lowering the lists into the payload a container-6 file carries, which the
 * rest of the runtime then checks, relocates and runs exactly as it does a
 * v6 file's. Reading the lists and the built payload is model_v4_access.c.
 */
#include "model_internal.h"

#include <string.h>

#include "hal.h"
#include "npu_regs.h"
#include "rknn_api.h"

#if RKNN_CONTAINER_V4

/* What a node's tasks do, which decides where their address registers point. */
typedef enum {
    V4_OP_UNKNOWN,
    V4_OP_CONV,
    V4_OP_CONV_ADD, /* a Conv whose DPU adds input 3 (container 2, format.md §5.2) */
    V4_OP_ADD,
    V4_OP_SPLIT,
    V4_OP_CONCAT,
    V4_OP_MAXPOOL,
    V4_OP_RESIZE,
    V4_OP_LUT_LOAD, /* the task the runtime adds to load a LUT tensor */
    V4_OP_MC_SYNC,  /* a multi-core configuration's closing PPU task (format.md §5.2) */
} v4_op;

/* The op types whose addressing format.md §5.1 worked out; others are refused. */
static const struct {
    const char *name;
    v4_op op;
} v4_op_types[] = {
    {"Conv", V4_OP_CONV},        {"ConvExSwish", V4_OP_CONV}, {"ConvSigmoid", V4_OP_CONV},
    {"ConvAdd", V4_OP_CONV_ADD}, {"Add", V4_OP_ADD},          {"Split", V4_OP_SPLIT},
    {"Concat", V4_OP_CONCAT},    {"MaxPool", V4_OP_MAXPOOL},  {"Resize", V4_OP_RESIZE},
};

/* The tensors a multi-core configuration's closing PPU task reads and
 * writes: constants of the file, named so in every RK3588 sample (the v6
 * files relocate the same task's registers to them by these names). */
static const char *const v4_temp_mc_names[2] = {"tempMC11_input", "tempMC11_output"};

static v4_op op_of(rknn_model_string type)
{
    for (size_t i = 0; i < sizeof v4_op_types / sizeof v4_op_types[0]; i++)
        if (type.len == strlen(v4_op_types[i].name) &&
            memcmp(type.ptr, v4_op_types[i].name, type.len) == 0)
            return v4_op_types[i].op;
    return V4_OP_UNKNOWN;
}

/* ---- building (or only counting and checking) the payload ---------------- */

/* The weight decompressor's registers one task writes (format.md §5.2). */
#define V4_DCOMP_STREAMS 16u
enum { V4_DCOMP_CTRL = 1u << 16, V4_DCOMP_REGNUM = 1u << 17, V4_DCOMP_ADDR = 1u << 18 };
typedef struct {
    uint32_t written; /* bit n: DCOMP_AMOUNTn, and the V4_DCOMP_* bits */
    uint32_t ctrl, regnum, addr;
    uint32_t amount[V4_DCOMP_STREAMS];
} v4_dcomp;

/* One pass over every task. Without outputs it counts and checks (the
 * parse); with them it writes the stream, records and relocation entries. */
typedef struct {
    const rknn_model_view *v;
    const npu_soc_profile *soc;
    uint8_t *stream;      /* NULL: count and check only */
    uint8_t *records;     /* n_tasks * 40 bytes */
    uint8_t *entries;     /* relocation entries, grouped by tensor */
    uint32_t *per_tensor; /* writing: words relocated per tensor */
    uint64_t n_words;     /* stream words so far */
    uint32_t n_tasks;     /* records so far */
    uint64_t n_relocated; /* relocation entries so far */
    uint32_t slot;        /* the core slot walked (format.md §4.2) */
    uint32_t core;        /* the physical core its tasks run on */
    uint32_t node;        /* what is being walked, for the log */
    const rknn_model_node_info *node_info;
    v4_op op;
    uint32_t task_in_node; /* index in the node's task tables */
    uint32_t task_in_slot; /* index among the node's tasks of this core slot */
    uint32_t n_slots;      /* the core slots of the tasks walked */
    uint32_t page;         /* the last entry's register page, its block and target */
    int page_block;
    uint16_t page_target;
    uint32_t temp_mc[2]; /* v4_temp_mc_names' tensors, UINT32_MAX if absent */
    v4_dcomp dcomp;      /* of the task being walked */
} v4_walk;

static void put_le32(uint8_t *p, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Node tensor `i` of the inputs (or outputs), or UINT32_MAX. */
static uint32_t node_tensor(const rknn_model_node_info *n, int output, uint32_t i)
{
    uint32_t t;
    int ret = output ? rknn_model_node_output(n, i, &t) : rknn_model_node_input(n, i, &t);

    return ret == RKNN_SUCC ? t : UINT32_MAX;
}

/* Where an address register points (format.md §5.1): one of the node's
 * inputs or outputs, the given one or the task's own (Split writes output
 * t, Concat reads input t), or a tempMC tensor. */
enum { V4_IN, V4_OUT, V4_IN_OF_TASK, V4_OUT_OF_TASK, V4_TEMP_MC };

static const struct {
    uint8_t op;
    uint8_t where;
    uint8_t index;
    uint16_t reg;
} v4_bindings[] = {
    {V4_OP_CONV, V4_IN, 0, NPU_CNA_FEATURE_DATA_ADDR},
    {V4_OP_CONV, V4_IN, 1, NPU_CNA_DCOMP_ADDR0},       /* weights */
    {V4_OP_CONV, V4_IN, 2, NPU_DPU_RDMA_BS_BASE_ADDR}, /* bias */
    {V4_OP_CONV, V4_OUT, 0, NPU_DPU_DST_BASE_ADDR},
    /* and Conv's four (bound_tensor); both RDMA reads are the added input */
    {V4_OP_CONV_ADD, V4_IN, 3, NPU_DPU_RDMA_SRC_BASE_ADDR},
    {V4_OP_CONV_ADD, V4_IN, 3, NPU_DPU_RDMA_EW_BASE_ADDR},
    {V4_OP_ADD, V4_IN, 0, NPU_DPU_RDMA_SRC_BASE_ADDR},
    {V4_OP_ADD, V4_IN, 1, NPU_DPU_RDMA_EW_BASE_ADDR},
    {V4_OP_ADD, V4_OUT, 0, NPU_DPU_DST_BASE_ADDR},
    {V4_OP_SPLIT, V4_IN, 0, NPU_DPU_RDMA_SRC_BASE_ADDR},
    {V4_OP_SPLIT, V4_OUT_OF_TASK, 0, NPU_DPU_DST_BASE_ADDR},
    {V4_OP_CONCAT, V4_IN_OF_TASK, 0, NPU_DPU_RDMA_SRC_BASE_ADDR},
    {V4_OP_CONCAT, V4_OUT, 0, NPU_DPU_DST_BASE_ADDR},
    {V4_OP_MAXPOOL, V4_IN, 0, NPU_PPU_RDMA_SRC_BASE_ADDR},
    {V4_OP_MAXPOOL, V4_OUT, 0, NPU_PPU_DST_BASE_ADDR},
    {V4_OP_RESIZE, V4_IN, 0, NPU_DPU_RDMA_SRC_BASE_ADDR},
    {V4_OP_RESIZE, V4_OUT, 0, NPU_DPU_DST_BASE_ADDR},
    /* A LUT load's source and destination are left 0 by the file and bound
     * to the command stream when relocated (model_reloc.c). */
    /* The file leaves them 0 too; Rockchip's runtime points them there. */
    {V4_OP_MC_SYNC, V4_TEMP_MC, 0, NPU_PPU_RDMA_SRC_BASE_ADDR},
    {V4_OP_MC_SYNC, V4_TEMP_MC, 1, NPU_PPU_DST_BASE_ADDR},
};

/* The tensor address register `reg` (table offset) of the walked task
 * points into; UINT32_MAX when the op has no rule for it. */
static uint32_t bound_tensor(const v4_walk *w, uint32_t reg)
{
    for (size_t i = 0; i < sizeof v4_bindings / sizeof v4_bindings[0]; i++) {
        unsigned where = v4_bindings[i].where, op = v4_bindings[i].op;
        if ((op != w->op && !(op == V4_OP_CONV && w->op == V4_OP_CONV_ADD)) ||
            v4_bindings[i].reg != reg)
            continue;
        if (where == V4_TEMP_MC)
            return w->temp_mc[v4_bindings[i].index];
        return node_tensor(w->node_info, where == V4_OUT || where == V4_OUT_OF_TASK,
                           where == V4_IN_OF_TASK || where == V4_OUT_OF_TASK
                               ? w->task_in_slot
                               : v4_bindings[i].index);
    }
    return UINT32_MAX;
}

static int entry_error(const v4_walk *w, uint32_t e, uint32_t reg, uint32_t value, const char *why)
{
    HAL_LOG_ERR("rknn model: node %lu %s task %lu entry %lu (register 0x%04lx = 0x%lx): %s",
                (unsigned long)w->node, w->op == V4_OP_LUT_LOAD ? "LUT load for" : "register list,",
                (unsigned long)w->task_in_node, (unsigned long)e, (unsigned long)reg,
                (unsigned long)value, why);
    return RKNN_ERR_MODEL_INVALID;
}

/* The file must not change between the parse (which sized the buffer) and
 * the writing pass: a zero-copy model is the caller's memory. The host suite
 * shrinks a list after the parse (build() finds it); lists that grow would
 * need entries that pass every check of the walk, which it does not craft. */
static int changed_since_parse(void)
{
    HAL_LOG_ERR("rknn model: the register lists changed since the parse");
    return RKNN_ERR_MODEL_INVALID;
}

/* An address word: counted; when building, appended in stream order as
 * (tensor, word) and counted for its tensor (group_entries places them). */
static int note_reloc(v4_walk *w, uint32_t tensor, uint32_t word)
{
    if (w->entries) {
        uint8_t *e;
        if (w->n_relocated >= w->v->n_reloc_entries)
            return changed_since_parse(); /* untested: lists grown since the parse */
        e = w->entries + (size_t)w->n_relocated * RELOC_ENTRY_SIZE;
        put_le32(e, tensor);
        put_le32(e + 4, word);
        w->per_tensor[tensor]++;
    }
    w->n_relocated++;
    return RKNN_SUCC;
}

/* The build's walk goes over what the parse's walk checked, in the same
 * rknn_init: the tensor decodes behind the weight-stream and address
 * checks are not made again. */
static int checked(const v4_walk *w)
{
    return w->stream != NULL;
}

/* An address register: bound to its tensor (its value an offset inside it),
 * or, with no rule for it, left 0 (the unit does not use it). */
static int address_entry(v4_walk *w, uint32_t e, uint32_t table_reg, uint32_t value, uint64_t word)
{
    rknn_model_tensor_info t;
    uint32_t tensor = bound_tensor(w, table_reg), extent;

    if (tensor == UINT32_MAX) {
        if (value == 0)
            return RKNN_SUCC;
        return entry_error(w, e, table_reg, value,
                           "an address register with no rule for this op (format.md §5.1)");
    }
    /* the plan's relocation check reads every built entry's extent again
     * (fmt_check_reloc) */
    if (!checked(w) && (rknn_model_tensor(w->v, tensor, &t) != RKNN_SUCC ||
                        fmt_tensor_extent(w->v, &t, &extent) != RKNN_SUCC || value >= extent))
        return entry_error(w, e, table_reg, value,
                           "the address is not inside the tensor its rule names");
    return note_reloc(w, tensor, (uint32_t)word);
}

/* Notes a write to the weight decompressor (table offset `reg`). */
static void note_dcomp(v4_dcomp *d, uint32_t reg, uint32_t value)
{
    uint32_t n = (reg - NPU_CNA_DCOMP_AMOUNT0) / 4u;

    if (reg == NPU_CNA_DCOMP_CTRL) {
        d->ctrl = value;
        d->written |= V4_DCOMP_CTRL;
    } else if (reg == NPU_CNA_DCOMP_REGNUM) {
        d->regnum = value;
        d->written |= V4_DCOMP_REGNUM;
    } else if (reg == NPU_CNA_DCOMP_ADDR0) {
        d->addr = value;
        d->written |= V4_DCOMP_ADDR;
    } else if (reg >= NPU_CNA_DCOMP_AMOUNT0 && n < V4_DCOMP_STREAMS && reg % 4u == 0) {
        d->amount[n] = value;
        d->written |= 1u << n;
    }
}

/* On a multi-IRQ SoC CNA and CORE S_POINTER carry the core's index (the
 * driver arms them so, hardware.md §3.2 step 2). The lists write index 0;
 * as Rockchip's runtime, the lowering puts in the index of the core the
 * task runs on (format.md §5.2). */
static uint32_t with_core_index(const v4_walk *w, uint32_t table, uint32_t value)
{
    if ((table != NPU_CNA_S_POINTER && table != NPU_CORE_S_POINTER) || !w->soc->multi_irq)
        return value;
    return (value & ~NPU_CNA_S_POINTER_CORE_INDEX_MASK) | NPU_CNA_S_POINTER_CORE_INDEX(w->core);
}

/* What a task's entries read and advance, held in locals while they are
 * walked: the stream's byte stores may alias the walk, so fields of it
 * would be loaded again for every entry. */
typedef struct {
    uint8_t *stream;
    uint32_t at;   /* the next stream word (the stream bound keeps it 32-bit) */
    uint32_t page; /* the last entry's register page, its block and target */
    int block;
    uint16_t target;
    int checked;
    int writes_lut; /* an entry set LUT_ACCESS_CFG to write a table */
} v4_cursor;

/* One register list entry: a register of a compute block of this SoC. */
static int walk_entry(v4_walk *w, v4_cursor *c, const uint8_t *p, uint32_t e)
{
    uint32_t reg = rknn_fbs_le16(p + 2), value = rknn_fbs_le32(p + 4), table = reg;
    uint32_t at = c->at;
    uint64_t word;

    /* outside the CORE page a register's table offset is its own, and its
     * block the page's: looked up once per run of entries in one page (calls
     * per entry were most of rknn_init's time under emulation) */
    if (reg >> 12 != c->page || c->block == NPU_BLOCK_CORE) {
        table = npu_soc_to_table_offset(w->soc, reg);
        c->block = table == NPU_SOC_NO_OFFSET ? -1 : npu_block_of_offset(table);
        /* blocks without a command target (DDMA, SDMA, GLOBAL) would become NOPs */
        c->target = c->block < 0 ? 0 : npu_block_target((enum npu_block)c->block);
        c->page = reg >> 12;
    }

    if (rknn_fbs_le16(p) != 0)
        return entry_error(w, e, reg, value, "the first 16 bits are not 0");
    if (c->target == 0 || c->block == NPU_BLOCK_PC ||
        (w->op == V4_OP_LUT_LOAD && c->block != NPU_BLOCK_DPU && c->block != NPU_BLOCK_DPU_RDMA))
        return entry_error(w, e, reg, value,
                           w->op == V4_OP_LUT_LOAD ? "a LUT may only write DPU registers"
                                                   : "not a compute-unit register");
    value = with_core_index(w, table, value);
    if (!c->checked && table == NPU_DPU_LUT_ACCESS_CFG &&
        NPU_DPU_LUT_ACCESS_CFG_ACCESS_TYPE_GET(value)) {
        /* relocation finds the LUT loads by this write and points their
         * source and destination at the stream (model_reloc.c) */
        if (w->op != V4_OP_LUT_LOAD)
            return entry_error(w, e, reg, value,
                               "it sets DPU_LUT_ACCESS_CFG to write a LUT table, which only "
                               "the loads of a LUT tensor may (format.md §5.1)");
        c->writes_lut = 1;
    }
    if (!c->checked)
        note_dcomp(&w->dcomp, table, value);
    word = npu_regcmd_make(c->target, (uint16_t)reg, value);
    if (c->stream) {
        if (at >= w->v->n_regcmd_words)
            return changed_since_parse(); /* untested: lists grown since the parse */
        fmt_put_word(c->stream, at, word);
    }
    c->at = at + 1;
    if (fmt_is_address_word(word))
        return address_entry(w, e, table, value, at);
    return RKNN_SUCC;
}

/* Bytes the decompressor reads from DCOMP_ADDR0 (format.md §5.2): stream n
 * is (AMOUNTn + 1) x 16 bytes, and the next starts 64-byte aligned. */
static uint64_t dcomp_extent(const v4_dcomp *d)
{
    uint64_t at = d->addr;

    for (uint32_t n = 0; n < V4_DCOMP_STREAMS; n++) {
        at += ((uint64_t)d->amount[n] + 1u) * 16u;
        if (n + 1 < V4_DCOMP_STREAMS)
            at = (at + 63u) / 64u * 64u;
    }
    return at;
}

/* A convolution's weights: plain (DCOMP_CTRL 0), or compressed in the one
 * layout known, whose streams must end inside the weight tensor. A task
 * that leaves the decompressor as an earlier one set it cannot be checked:
 * every task seen writes it. */
static int check_dcomp(const v4_walk *w, uint32_t enable)
{
    const v4_dcomp *d = &w->dcomp;
    const uint32_t all = V4_DCOMP_CTRL | V4_DCOMP_REGNUM | V4_DCOMP_ADDR | 0xFFFFu;
    rknn_model_tensor_info t;
    uint32_t extent = 0;
    uint64_t end;

    if (!(enable & NPU_UNIT_CNA) || ((d->written & V4_DCOMP_CTRL) && d->ctrl == 0))
        return RKNN_SUCC;
    if (d->ctrl != 1 || (d->written & all) != all || d->regnum != 0x55555555u) {
        HAL_LOG_ERR("rknn model: node %lu task %lu: a convolution whose weight decompressor is "
                    "not written or not the one layout known (CNA_DCOMP_CTRL 1, REGNUM "
                    "0x55555555, ADDR0 and the 16 AMOUNTn; format.md §5.2)",
                    (unsigned long)w->node, (unsigned long)w->task_in_node);
        return RKNN_ERR_MODEL_INVALID;
    }
    end = dcomp_extent(d);
    if (rknn_model_tensor(w->v, bound_tensor(w, NPU_CNA_DCOMP_ADDR0), &t) != RKNN_SUCC ||
        fmt_tensor_extent(w->v, &t, &extent) != RKNN_SUCC || end > extent) {
        HAL_LOG_ERR("rknn model: node %lu task %lu: compressed weight streams "
                    "(CNA_DCOMP_AMOUNTn) end at byte %lu of a weight tensor of %lu",
                    (unsigned long)w->node, (unsigned long)w->task_in_node,
                    (unsigned long)(end > UINT32_MAX ? UINT32_MAX : end), (unsigned long)extent);
        return RKNN_ERR_MODEL_INVALID;
    }
    return RKNN_SUCC;
}

/* A LUT load that writes no table would run its dummy op on addresses
 * no relocation sets (0): relocation only binds loads that write one. */
static int lut_load_error(const v4_walk *w)
{
    HAL_LOG_ERR("rknn model: node %lu task %lu: a part of its LUT's register list does not set "
                "DPU_LUT_ACCESS_CFG to write a table (format.md §5.1)",
                (unsigned long)w->node, (unsigned long)w->task_in_node);
    return RKNN_ERR_MODEL_INVALID;
}

/* One task: its entries, room for the PC tail (written once every task's
 * place is known), padded to 16 bytes; and its record. */
static int walk_task(v4_walk *w, const uint8_t *entries, uint32_t n_entries, uint32_t enable,
                     uint32_t int_mask)
{
    uint64_t first = w->n_words;
    uint32_t amount;
    int ret = RKNN_SUCC;

    if (w->stream && w->n_tasks >= w->v->n_tasks)
        return changed_since_parse(); /* untested: lists grown since the parse */
    v4_cursor c = {.stream = w->stream,
                   .at = (uint32_t)first,
                   .page = w->page,
                   .block = w->page_block,
                   .target = w->page_target,
                   .checked = checked(w)};

    memset(&w->dcomp, 0, sizeof w->dcomp);
    for (uint32_t e = 0; e < n_entries && ret == RKNN_SUCC; e++)
        ret = walk_entry(w, &c, entries + (size_t)e * V4_ENTRY_SIZE, e);
    w->n_words = c.at;
    w->page = c.page;
    w->page_block = c.block;
    w->page_target = c.target;
    if (ret == RKNN_SUCC && w->op != V4_OP_LUT_LOAD && !checked(w))
        ret = check_dcomp(w, enable);
    if (ret == RKNN_SUCC && w->op == V4_OP_LUT_LOAD && !checked(w) && !c.writes_lut)
        ret = lut_load_error(w);
    if (ret != RKNN_SUCC)
        return ret;
    amount = (uint32_t)(w->n_words - first);
    w->n_words += NPU_PC_TAIL_WORDS;
    w->n_words += w->n_words % 2; /* task starts are 16-byte aligned */
    if (w->stream && w->n_words > w->v->n_regcmd_words)
        return changed_since_parse(); /* untested: lists grown since the parse */
    if (w->n_tasks >= RKNN_MODEL_MAX_TASKS ||
        w->n_words * RKNN_MODEL_REGCMD_WORD_SIZE > RKNN_MODEL_MAX_V4_STREAM_BYTES) {
        /* untested: task tables of 65536 tasks in all (LUT loads included) or register
           lists of 256 MiB, far more than the samples' tables and lists, not built here */
        HAL_LOG_ERR("rknn model: node %lu: more than %d tasks or %lu stream bytes",
                    (unsigned long)w->node, RKNN_MODEL_MAX_TASKS,
                    (unsigned long)RKNN_MODEL_MAX_V4_STREAM_BYTES);
        return RKNN_ERR_MODEL_INVALID;
    }
    if (w->records) {
        uint8_t *r = w->records + (size_t)w->n_tasks * RKNN_MODEL_TASK_RECORD_SIZE;
        put_le32(r + NPU_TASK_OP_IDX, w->node);
        put_le32(r + NPU_TASK_ENABLE_MASK, enable);
        put_le32(r + NPU_TASK_INT_MASK, int_mask);
        put_le32(r + NPU_TASK_INT_CLEAR, w->soc->int_clear_all);
        put_le32(r + NPU_TASK_REGCFG_AMOUNT, amount);
        put_le32(r + NPU_TASK_REGCMD_ADDR, (uint32_t)(first * RKNN_MODEL_REGCMD_WORD_SIZE));
    }
    w->n_tasks++;
    return RKNN_SUCC;
}

/* The added tasks that load LUT tensor `lut` (dummy DPU ops): one per part
 * of its register list (fmt_v4_lut_part_end). */
static int walk_lut_loads(v4_walk *w, uint32_t lut, uint32_t task_in_node, v4_op op)
{
    const uint8_t *entries;
    uint32_t n_entries;
    int ret =
        fmt_v4_reglist(w->v, lut, RKNN_MODEL_KIND_LUT, w->node, task_in_node, &entries, &n_entries);

    w->op = V4_OP_LUT_LOAD;
    for (uint32_t at = 0, end; ret == RKNN_SUCC && at < n_entries; at = end) {
        end = fmt_v4_lut_part_end(entries, n_entries, at);
        ret = walk_task(w, entries + (size_t)at * V4_ENTRY_SIZE, end - at,
                        NPU_UNIT_DPU | NPU_UNIT_DPU_RDMA, NPU_INT_DPU_DONE);
    }
    w->op = op;
    return ret;
}

/* The op of a node's task in this core slot: the node's, or the closing
 * PPU task of a multi-core configuration. Only Conv and ConvAdd were seen
 * split across cores (format.md §5.2): how other ops address their tensors
 * there is not known. */
static v4_op task_op(const v4_walk *w, v4_op node_op, const v4_task *t)
{
    if (t->n_cores == 1)
        return node_op;
    if (node_op != V4_OP_CONV && node_op != V4_OP_CONV_ADD)
        return V4_OP_UNKNOWN;
    if (t->enable != (NPU_UNIT_PPU | NPU_UNIT_PPU_RDMA))
        return node_op;
    return w->temp_mc[0] != UINT32_MAX && w->temp_mc[1] != UINT32_MAX ? V4_OP_MC_SYNC
                                                                      : V4_OP_UNKNOWN;
}

static int unknown_op(uint32_t k, rknn_model_string type, const v4_task *t)
{
    HAL_LOG_ERR("rknn model: node %lu: op type \"%.*s\" on %lu core(s) in a schema-1 container "
                "is not supported: which tensors its registers address is not known "
                "(format.md §5.1, §5.2)",
                (unsigned long)k, (int)(type.len > 48 ? 48 : type.len), type.ptr,
                (unsigned long)t->n_cores);
    return RKNN_ERR_MODEL_INVALID;
}

/* Task i of the node, when it belongs to the walked core slot: the loads
 * of its LUT if it names one, then its register list. */
static int walk_node_task(v4_walk *w, const rknn_fbs_vector *tasks, uint32_t i, v4_op node_op)
{
    v4_task t;
    int ret = fmt_v4_read_task(w->v, tasks, w->node, i, &t);

    if (ret == RKNN_SUCC && t.n_cores * (t.n_cores + 1) / 2 > w->n_slots)
        w->n_slots = t.n_cores * (t.n_cores + 1) / 2;
    if (ret != RKNN_SUCC || t.slot != w->slot)
        return ret;
    w->task_in_node = i;
    if ((w->op = task_op(w, node_op, &t)) == V4_OP_UNKNOWN)
        return unknown_op(w->node, w->node_info->op_type, &t);
    if (t.lut != V4_NO_LUT)
        ret = walk_lut_loads(w, t.lut, i, w->op);
    if (ret == RKNN_SUCC)
        ret = walk_task(w, t.entries, t.n_entries, t.enable, t.int_mask);
    w->task_in_slot++;
    return ret;
}

/* The node's tasks of the walked core slot, in file order. */
static int walk_node(v4_walk *w, uint32_t k)
{
    rknn_model_node_info node;
    rknn_fbs_vector tasks;
    /* its tables, not its counts: the walk reads every task's head anyway */
    int ret = fmt_node_read(w->v, k, 0, &node);

    if (ret == RKNN_SUCC)
        ret = fmt_v4_task_tables(w->v, k, &tasks);
    if (ret != RKNN_SUCC)
        return ret;
    w->node = k;
    w->node_info = &node;
    w->task_in_slot = 0;
    for (uint32_t i = 0; ret == RKNN_SUCC && i < tasks.count; i++)
        ret = walk_node_task(w, &tasks, i, op_of(node.op_type));
    return ret;
}

/* How many copies of the single-core group the lowering builds: one per
 * core where the lists carry the core's index (with_core_index), so that a
 * run on one core takes its own copy, as Rockchip's runtime submits. */
static uint32_t single_core_copies(const npu_soc_profile *soc)
{
    return soc->multi_irq ? soc->core_count : 1u;
}

/* The core count of core slot `slot` (format.md §4.2: 0 | 1, 2 | 3, 4, 5). */
static uint32_t cores_of_slot(uint32_t slot)
{
    uint32_t n = 1;

    while (slot >= n * (n + 1) / 2)
        n++;
    return n;
}

/* Every node's tasks of one core slot, on physical core `core`. */
static int walk_slot(v4_walk *w, uint32_t core)
{
    w->core = core;
    for (uint32_t k = 0; k < w->v->n_nodes; k++) {
        int ret = walk_node(w, k);
        if (ret != RKNN_SUCC)
            return ret;
    }
    return RKNN_SUCC;
}

/* Core slot by core slot, as a v6 file orders its task groups
 * (format.md §4.2); the single-core slot once per copy, core by core. */
static int walk_all(v4_walk *w)
{
    int ret = RKNN_SUCC;

    w->slot = 0;
    for (uint32_t c = 0; ret == RKNN_SUCC && c < single_core_copies(w->soc); c++)
        ret = walk_slot(w, c);
    /* the core slots some node has (a one-core SoC's file: slot 0 only) */
    for (w->slot = 1; ret == RKNN_SUCC && w->slot < w->n_slots; w->slot++) {
        uint32_t n = cores_of_slot(w->slot);
        ret = walk_slot(w, w->slot - n * (n - 1) / 2);
    }
    return ret;
}

/* A walk over `v` for `soc`, counting and checking only. */
static void walk_init(v4_walk *w, const rknn_model_view *v, const npu_soc_profile *soc)
{
    memset(w, 0, sizeof *w);
    w->page = UINT32_MAX;
    w->v = v;
    w->soc = soc;
    for (unsigned i = 0; i < 2; i++)
        if (rknn_model_find_tensor(v, v4_temp_mc_names[i], (uint32_t)strlen(v4_temp_mc_names[i]),
                                   &w->temp_mc[i]) != RKNN_SUCC)
            w->temp_mc[i] = UINT32_MAX;
}

/* Parse-time: count and check everything rknn_model_lower() will build,
 * with the register map of the SoC the model names. */
FMT_API int fmt_validate_v4(rknn_model_view *v)
{
    char platform[RKNN_PLATFORM_NAME_MAX];
    const npu_soc_profile *soc;
    v4_walk w;
    int ret;

    rknn_fbs_string_copy(v->target_platform, platform, sizeof platform);
    soc = npu_soc_find_platform(platform);
    if (!soc) {
        HAL_LOG_ERR("rknn model: container %lu for target platform '%s': no SoC profile to read "
                    "its register lists with",
                    (unsigned long)v->container_version, platform);
        return RKNN_ERR_MODEL_INVALID;
    }
    walk_init(&w, v, soc);
    if ((ret = walk_all(&w)) != RKNN_SUCC)
        return ret;
    if (w.n_relocated > RKNN_MODEL_MAX_RELOC_ENTRIES) {
        /* untested: register lists with over a million address entries (8 MiB and more),
           which the host suite does not build */
        return fmt_limit_error("relocated registers", (uint32_t)w.n_relocated,
                               RKNN_MODEL_MAX_RELOC_ENTRIES);
    }
    v->n_tasks = w.n_tasks;
    v->n_regcmd_words = (uint32_t)w.n_words;
    v->regcmd_size = (uint32_t)(w.n_words * RKNN_MODEL_REGCMD_WORD_SIZE);
    v->n_reloc_entries = (uint32_t)w.n_relocated;
    v->lowered_size = fmt_v4_layout_of(v).total;
    if ((ret = fmt_validate_nodes(v)) != RKNN_SUCC)
        return ret;
    /* the single-core group is its first copy; the others follow it */
    v->single_core_copies = (uint8_t)single_core_copies(soc);
    v->groups[0].count /= v->single_core_copies;
    return RKNN_SUCC;
}

/* When task t + 1 continues t's chain (one per core group and per copy of
 * the single-core group): the chain's core count; else 0. */
static uint32_t chain_cores(const rknn_model_view *v, uint32_t t)
{
    uint32_t single = v->groups[0].count;

    if (t + 1 < single * v->single_core_copies)
        return (t + 1) % single != 0;
    for (uint32_t s = 1; s < v->n_core_slots; s++)
        if (t + 1 > v->groups[s].first && t + 1 < v->groups[s].first + v->groups[s].count)
            return cores_of_slot(s);
    return 0;
}

/* Every task's PC tail: the next task of its chain, with the chain's core
 * count less one in the amount's bits 17:16 as Rockchip's runtime writes
 * them (format.md §5.2), or the chain's end. */
static void write_tails(const rknn_model_view *v, const npu_soc_profile *soc, uint8_t *stream)
{
    for (uint32_t t = 0; t < v->n_tasks; t++) {
        rknn_model_task_info ti, next;
        uint32_t at, cores = chain_cores(v, t);
        if (rknn_model_task(v, t, &ti) != RKNN_SUCC)
            continue; /* unreachable: t < n_tasks of a lowered view */
        at = (uint32_t)(ti.regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE) + ti.regcfg_amount;
        if (cores && rknn_model_task(v, t + 1, &next) == RKNN_SUCC) {
            fmt_put_word(stream, at, npu_regcmd_next_address((uint32_t)next.regcmd_addr));
            fmt_put_word(stream, at + 1,
                         npu_regcmd_next_amount(
                             npu_pc_fetch_amount(next.regcfg_amount, soc->pc_data_amount_scale) |
                             NPU_PC_DATA_AMOUNT_UNDOC_17_16(cores - 1)));
        } else { /* as Rockchip's runtime ends the chain: a NOP, then amount
                  * 0 (container 2) or another NOP (container 4) */
            fmt_put_word(stream, at, npu_regcmd_nop());
            fmt_put_word(stream, at + 1,
                         v->container_version == 4 ? npu_regcmd_nop() : npu_regcmd_next_amount(0));
        }
        fmt_put_word(stream, at + 2, npu_regcmd_pre_enable());
        fmt_put_word(stream, at + 3, npu_regcmd_op_enable(ti.enable_mask));
    }
}

static uint32_t entry_field(const uint8_t *entries, uint32_t i, uint32_t field)
{
    return rknn_fbs_le32(entries + (size_t)i * RELOC_ENTRY_SIZE + field);
}

/* The relocation entries, appended in stream order as (tensor, word),
 * grouped by tensor in place and in stream order within a group: each
 * entry's tensor becomes its place (its group's next, in stream order),
 * then every entry not at its place is swapped there, which leaves one
 * more entry placed per swap. Each entry's first field then becomes its
 * addend: the offset its address word holds until relocation. One walk
 * of the register lists thus does for two (counting per tensor, then
 * placing), which were a third of rknn_init on YOLOv8n. */
static void group_entries(const rknn_model_view *v, const uint8_t *stream, uint8_t *entries,
                          const uint32_t *first, uint32_t *cursor)
{
    uint8_t swap[RELOC_ENTRY_SIZE];

    for (uint32_t t = 0; t < v->n_tensors; t++)
        cursor[t] = first[t];
    for (uint32_t i = 0; i < v->n_reloc_entries; i++)
        put_le32(entries + (size_t)i * RELOC_ENTRY_SIZE, cursor[entry_field(entries, i, 0)]++);
    for (uint32_t i = 0; i < v->n_reloc_entries; i++)
        for (uint32_t to; (to = entry_field(entries, i, 0)) != i;) {
            uint8_t *a = entries + (size_t)i * RELOC_ENTRY_SIZE;
            uint8_t *b = entries + (size_t)to * RELOC_ENTRY_SIZE;
            memcpy(swap, b, RELOC_ENTRY_SIZE);
            memcpy(b, a, RELOC_ENTRY_SIZE);
            memcpy(a, swap, RELOC_ENTRY_SIZE);
        }
    for (uint32_t i = 0; i < v->n_reloc_entries; i++)
        put_le32(entries + (size_t)i * RELOC_ENTRY_SIZE,
                 npu_regcmd_value(rknn_fbs_le64(stream + (size_t)entry_field(entries, i, 4) * 8u)));
}

/* The stream, the task records and the relocation tables grouped by
 * tensor, in one walk. */
static int build(rknn_model_view *v, const npu_soc_profile *soc, uint8_t *buf)
{
    v4_layout l = fmt_v4_layout_of(v);
    uint32_t *first = (uint32_t *)(void *)(buf + l.first);
    uint32_t *cursor = (uint32_t *)(void *)(buf + l.relocated);
    v4_walk w;
    uint32_t n = 0;
    int ret;

    walk_init(&w, v, soc);
    w.stream = buf;
    w.records = buf + l.records;
    w.entries = buf + l.entries;
    w.per_tensor = first + 1;
    if ((ret = walk_all(&w)) != RKNN_SUCC)
        return ret;
    if (w.n_tasks != v->n_tasks || w.n_words != v->n_regcmd_words ||
        w.n_relocated != v->n_reloc_entries)
        return changed_since_parse();
    for (uint32_t t = 0; t < v->n_tensors; t++)
        first[t + 1] += first[t];
    group_entries(v, buf, buf + l.entries, first, cursor);
    for (uint32_t t = 0; t < v->n_tensors; t++) /* n <= t: overwrites used cursors only */
        if (first[t + 1] > first[t])
            cursor[n++] = t;
    return RKNN_SUCC;
}

int rknn_model_lower(rknn_model_view *v, const npu_soc_profile *soc, void *buf, uint32_t size)
{
    int ret;

    if (!v || !soc)
        return RKNN_ERR_PARAM_INVALID;
    if (!fmt_is_v4(v))
        return RKNN_SUCC;
    if (!buf || size < v->lowered_size || (uintptr_t)buf % 8u) {
        HAL_LOG_ERR("rknn model: lowering needs %lu bytes, 8-byte aligned",
                    (unsigned long)v->lowered_size);
        return RKNN_ERR_PARAM_INVALID;
    }
    memset(buf, 0, v->lowered_size);
    ret = build(v, soc, buf);
    if (ret == RKNN_SUCC) {
        rknn_model_attach_lowered(v, buf);
        write_tails(v, soc, buf);
        /* what the parse checks on a v6 file, on what was built */
        if ((ret = fmt_validate_tasks(v)) == RKNN_SUCC &&
            (ret = fmt_validate_task_order(v)) == RKNN_SUCC)
            ret = fmt_validate_relocs(v);
    }
    if (ret != RKNN_SUCC) {
        v->lowered = NULL;
        v->regcmd = NULL;
        v->task_data = NULL;
        v->n_relocs = 0;
    }
    return ret;
}

#else /* meson option container_v4=false: container-4 and -2 files are refused */

/* Never called: fmt_is_v4() is 0, parse_container() refuses the versions. */
FMT_API int fmt_validate_v4(rknn_model_view *v)
{
    (void)v;
    return RKNN_ERR_MODEL_INVALID;
}
int rknn_model_lower(rknn_model_view *v, const npu_soc_profile *soc, void *buf, uint32_t size)
{
    (void)buf;
    (void)size;
    if (!v || !soc)
        return RKNN_ERR_PARAM_INVALID;
    return fmt_is_v4(v) ? RKNN_ERR_MODEL_INVALID : RKNN_SUCC;
}

#endif
