/*
 * model_v4.c - container 4 / schema 1 ("RKNPU lite", RKNN-Toolkit2 1.x;
 * format.md §5.1). The file keeps one register list per task instead of a
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
    V4_OP_ADD,
    V4_OP_SPLIT,
    V4_OP_CONCAT,
    V4_OP_MAXPOOL,
    V4_OP_RESIZE,
    V4_OP_LUT_LOAD, /* the task the runtime adds to load a LUT tensor */
} v4_op;

/* The op types whose addressing format.md §5.1 worked out; others are refused. */
static const struct {
    const char *name;
    v4_op op;
} v4_op_types[] = {
    {"Conv", V4_OP_CONV},       {"ConvExSwish", V4_OP_CONV}, {"ConvSigmoid", V4_OP_CONV},
    {"Add", V4_OP_ADD},         {"Split", V4_OP_SPLIT},      {"Concat", V4_OP_CONCAT},
    {"MaxPool", V4_OP_MAXPOOL}, {"Resize", V4_OP_RESIZE},
};

static v4_op op_of(rknn_model_string type)
{
    for (size_t i = 0; i < sizeof v4_op_types / sizeof v4_op_types[0]; i++)
        if (type.len == strlen(v4_op_types[i].name) &&
            memcmp(type.ptr, v4_op_types[i].name, type.len) == 0)
            return v4_op_types[i].op;
    return V4_OP_UNKNOWN;
}

/* ---- building (or only counting and checking) the payload ---------------- */

/* One pass over every task. Without outputs it counts and checks (the
 * parse); with them it writes the stream, records and relocation entries. */
typedef struct {
    const rknn_model_view *v;
    const npu_soc_profile *soc;
    uint8_t *stream;      /* NULL: count and check only */
    uint8_t *records;     /* n_tasks * 40 bytes */
    uint8_t *entries;     /* relocation entries, grouped by tensor */
    uint32_t *per_tensor; /* counting: words relocated per tensor (may be NULL) */
    uint32_t *cursor;     /* writing: per tensor, its next entry */
    uint64_t n_words;     /* stream words so far */
    uint32_t n_tasks;     /* records so far */
    uint64_t n_relocated; /* relocation entries so far */
    uint32_t node;        /* what is being walked, for the log */
    const rknn_model_node_info *node_info;
    v4_op op;
    uint32_t task_in_node; /* index in the node's task tables */
    uint32_t lut;          /* the LUT a LUT_LOAD task loads */
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
 * t, Concat reads input t), or the LUT a LUT load loads. */
enum { V4_IN, V4_OUT, V4_IN_OF_TASK, V4_OUT_OF_TASK, V4_THE_LUT };

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
    /* The file leaves them 0. Like a v6 LUT load, the dummy DPU op reads and
     * writes its own table (format.md §3.4), never address 0. */
    {V4_OP_LUT_LOAD, V4_THE_LUT, 0, NPU_DPU_RDMA_SRC_BASE_ADDR},
    {V4_OP_LUT_LOAD, V4_THE_LUT, 0, NPU_DPU_DST_BASE_ADDR},
};

/* The tensor address register `reg` (table offset) of the walked task
 * points into; UINT32_MAX when the op has no rule for it. */
static uint32_t bound_tensor(const v4_walk *w, uint32_t reg)
{
    for (size_t i = 0; i < sizeof v4_bindings / sizeof v4_bindings[0]; i++) {
        unsigned where = v4_bindings[i].where;
        if (v4_bindings[i].op != w->op || v4_bindings[i].reg != reg)
            continue;
        if (where == V4_THE_LUT)
            return w->lut;
        return node_tensor(w->node_info, where == V4_OUT || where == V4_OUT_OF_TASK,
                           where >= V4_IN_OF_TASK ? w->task_in_node : v4_bindings[i].index);
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
 * the writing pass: a zero-copy model is the caller's memory. */
static int changed_since_parse(void)
{
    HAL_LOG_ERR("rknn model: the register lists changed since the parse");
    return RKNN_ERR_MODEL_INVALID;
}

static int note_reloc(v4_walk *w, uint32_t tensor, uint32_t addend, uint64_t word)
{
    if (w->per_tensor)
        w->per_tensor[tensor]++;
    if (w->entries) {
        uint8_t *e;
        if (w->cursor[tensor] >= w->v->n_reloc_entries)
            return changed_since_parse();
        e = w->entries + (size_t)w->cursor[tensor]++ * RELOC_ENTRY_SIZE;
        put_le32(e, addend);
        put_le32(e + 4, (uint32_t)word);
    }
    w->n_relocated++;
    return RKNN_SUCC;
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
    if (rknn_model_tensor(w->v, tensor, &t) != RKNN_SUCC ||
        fmt_tensor_extent(w->v, &t, &extent) != RKNN_SUCC || value >= extent)
        return entry_error(w, e, table_reg, value,
                           "the address is not inside the tensor its rule names");
    return note_reloc(w, tensor, value, word);
}

/* One register list entry: a register of a compute block of this SoC. */
static int walk_entry(v4_walk *w, const uint8_t *p, uint32_t e)
{
    uint32_t reg = rknn_fbs_le16(p + 2), value = rknn_fbs_le32(p + 4);
    uint32_t table = npu_soc_to_table_offset(w->soc, reg);
    int block = table == NPU_SOC_NO_OFFSET ? -1 : npu_block_of_offset(table);
    /* blocks without a command target (DDMA, SDMA, GLOBAL) would become NOPs */
    uint16_t target = block < 0 ? 0 : npu_block_target((enum npu_block)block);
    uint64_t word;

    if (rknn_fbs_le16(p) != 0)
        return entry_error(w, e, reg, value, "the first 16 bits are not 0");
    if (target == 0 || block == NPU_BLOCK_PC ||
        (w->op == V4_OP_LUT_LOAD && block != NPU_BLOCK_DPU && block != NPU_BLOCK_DPU_RDMA))
        return entry_error(w, e, reg, value,
                           w->op == V4_OP_LUT_LOAD ? "a LUT may only write DPU registers"
                                                   : "not a compute-unit register");
    word = npu_regcmd_make(target, (uint16_t)reg, value);
    if (w->stream)
        fmt_put_word(w->stream, (uint32_t)w->n_words, word);
    if (fmt_is_address_word(word))
        return address_entry(w, e, table, value, w->n_words);
    return RKNN_SUCC;
}

/* One task: its entries, room for the PC tail (written once every task's
 * place is known), padded to 16 bytes; and its record. */
static int walk_task(v4_walk *w, const uint8_t *entries, uint32_t n_entries, uint32_t enable,
                     uint32_t int_mask)
{
    uint64_t first = w->n_words, end = first + n_entries + NPU_PC_TAIL_WORDS;

    if (w->stream && (end + end % 2 > w->v->n_regcmd_words || w->n_tasks >= w->v->n_tasks))
        return changed_since_parse();
    for (uint32_t e = 0; e < n_entries; e++, w->n_words++) {
        int ret = walk_entry(w, entries + (size_t)e * V4_ENTRY_SIZE, e);
        if (ret != RKNN_SUCC)
            return ret;
    }
    w->n_words += NPU_PC_TAIL_WORDS;
    w->n_words += w->n_words % 2; /* task starts are 16-byte aligned */
    if (w->n_tasks >= RKNN_MODEL_MAX_TASKS ||
        w->n_words * RKNN_MODEL_REGCMD_WORD_SIZE > RKNN_MODEL_MAX_V4_STREAM_BYTES) {
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
        put_le32(r + NPU_TASK_REGCFG_AMOUNT, n_entries);
        put_le32(r + NPU_TASK_REGCMD_ADDR, (uint32_t)(first * RKNN_MODEL_REGCMD_WORD_SIZE));
    }
    w->n_tasks++;
    return RKNN_SUCC;
}

/* The added task that loads LUT tensor `lut` (a dummy DPU op). */
static int walk_lut_load(v4_walk *w, uint32_t lut, uint32_t task_in_node, v4_op op)
{
    const uint8_t *entries;
    uint32_t n_entries;
    int ret =
        fmt_v4_reglist(w->v, lut, RKNN_MODEL_KIND_LUT, w->node, task_in_node, &entries, &n_entries);

    if (ret != RKNN_SUCC)
        return ret;
    w->op = V4_OP_LUT_LOAD;
    w->lut = lut;
    ret = walk_task(w, entries, n_entries, NPU_UNIT_DPU | NPU_UNIT_DPU_RDMA, NPU_INT_DPU_DONE);
    w->op = op;
    return ret;
}

static int walk_node(v4_walk *w, uint32_t k)
{
    rknn_model_node_info node;
    rknn_fbs_vector tasks;
    uint32_t lut = V4_NO_LUT;
    int ret = rknn_model_node(w->v, k, &node);

    if (ret == RKNN_SUCC)
        ret = fmt_v4_task_tables(w->v, k, &tasks);
    if (ret != RKNN_SUCC || tasks.count == 0)
        return ret;
    w->node = k;
    w->node_info = &node;
    w->op = op_of(node.op_type);
    if (w->op == V4_OP_UNKNOWN) {
        HAL_LOG_ERR("rknn model: node %lu: op type \"%.*s\" in container 4 is not supported: "
                    "which tensors its registers address is not known (format.md §5.1)",
                    (unsigned long)k, (int)(node.op_type.len > 48 ? 48 : node.op_type.len),
                    node.op_type.ptr);
        return RKNN_ERR_MODEL_INVALID;
    }
    for (uint32_t i = 0; ret == RKNN_SUCC && i < tasks.count; i++) {
        v4_task t;
        w->task_in_node = i;
        ret = fmt_v4_read_task(w->v, &tasks, k, i, &t);
        if (ret != RKNN_SUCC)
            break;
        if (fmt_v4_needs_lut_load(i, &t)) {
            ret = walk_lut_load(w, t.lut, i, w->op);
            lut = t.lut;
        } else if (t.lut != V4_NO_LUT && t.lut != lut) {
            HAL_LOG_ERR("rknn model: node %lu task %lu needs LUT tensor %lu, which its first "
                        "task does not load",
                        (unsigned long)k, (unsigned long)i, (unsigned long)t.lut);
            ret = RKNN_ERR_MODEL_INVALID;
        }
        if (ret == RKNN_SUCC)
            ret = walk_task(w, t.entries, t.n_entries, t.enable, t.int_mask);
    }
    return ret;
}

static int walk_all(v4_walk *w)
{
    for (uint32_t k = 0; k < w->v->n_nodes; k++) {
        int ret = walk_node(w, k);
        if (ret != RKNN_SUCC)
            return ret;
    }
    return RKNN_SUCC;
}

/* Parse-time: count and check everything rknn_model_lower() will build,
 * with the register map of the SoC the model names. */
FMT_API int fmt_validate_v4(rknn_model_view *v)
{
    char platform[RKNN_PLATFORM_NAME_MAX];
    v4_walk w;
    int ret;

    memset(&w, 0, sizeof w);
    w.v = v;
    rknn_fbs_string_copy(v->target_platform, platform, sizeof platform);
    w.soc = npu_soc_find_platform(platform);
    if (!w.soc) {
        HAL_LOG_ERR("rknn model: container 4 for target platform '%s': no SoC profile to read "
                    "its register lists with",
                    platform);
        return RKNN_ERR_MODEL_INVALID;
    }
    if ((ret = walk_all(&w)) != RKNN_SUCC)
        return ret;
    if (w.n_relocated > RKNN_MODEL_MAX_RELOC_ENTRIES)
        return fmt_limit_error("relocated registers", (uint32_t)w.n_relocated,
                               RKNN_MODEL_MAX_RELOC_ENTRIES);
    v->n_tasks = w.n_tasks;
    v->n_regcmd_words = (uint32_t)w.n_words;
    v->regcmd_size = (uint32_t)(w.n_words * RKNN_MODEL_REGCMD_WORD_SIZE);
    v->n_reloc_entries = (uint32_t)w.n_relocated;
    v->lowered_size = fmt_v4_layout_of(v).total;
    return RKNN_SUCC;
}

/* Every task's PC tail: the next task of the one chain, or the chain's end. */
static void write_tails(const rknn_model_view *v, const npu_soc_profile *soc, uint8_t *stream)
{
    for (uint32_t t = 0; t < v->n_tasks; t++) {
        rknn_model_task_info ti, next;
        uint32_t at;
        if (rknn_model_task(v, t, &ti) != RKNN_SUCC)
            continue; /* t < n_tasks of a lowered view: never */
        at = (uint32_t)(ti.regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE) + ti.regcfg_amount;
        if (t + 1 < v->n_tasks && rknn_model_task(v, t + 1, &next) == RKNN_SUCC) {
            fmt_put_word(stream, at, npu_regcmd_next_address((uint32_t)next.regcmd_addr));
            fmt_put_word(stream, at + 1,
                         npu_regcmd_next_amount(
                             npu_pc_fetch_amount(next.regcfg_amount, soc->pc_data_amount_scale)));
        } else {
            fmt_put_word(stream, at, npu_regcmd_nop());
            fmt_put_word(stream, at + 1, npu_regcmd_next_amount(0));
        }
        fmt_put_word(stream, at + 2, npu_regcmd_pre_enable());
        fmt_put_word(stream, at + 3, npu_regcmd_op_enable(ti.enable_mask));
    }
}

/* Relocation tables grouped by tensor: count per tensor, then place. */
static int build(rknn_model_view *v, const npu_soc_profile *soc, uint8_t *buf)
{
    v4_layout l = fmt_v4_layout_of(v);
    uint32_t *first = (uint32_t *)(void *)(buf + l.first);
    uint32_t *cursor = (uint32_t *)(void *)(buf + l.relocated);
    v4_walk w;
    uint32_t n = 0;
    int ret;

    memset(&w, 0, sizeof w);
    w.v = v;
    w.soc = soc;
    w.per_tensor = first + 1;
    if ((ret = walk_all(&w)) != RKNN_SUCC)
        return ret;
    for (uint32_t t = 0; t < v->n_tensors; t++) {
        first[t + 1] += first[t];
        cursor[t] = first[t];
    }
    memset(&w, 0, sizeof w);
    w.v = v;
    w.soc = soc;
    w.stream = buf;
    w.records = buf + l.records;
    w.entries = buf + l.entries;
    w.cursor = cursor;
    if ((ret = walk_all(&w)) != RKNN_SUCC)
        return ret;
    if (w.n_tasks != v->n_tasks || w.n_words != v->n_regcmd_words ||
        w.n_relocated != v->n_reloc_entries)
        return changed_since_parse();
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

#else /* meson option container_v4=false: container-4 files are refused */

FMT_API int fmt_validate_v4(rknn_model_view *v)
{
    (void)v;
    HAL_LOG_ERR("rknn model: container version 4 is not supported by this build "
                "(meson option container_v4=false)");
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
