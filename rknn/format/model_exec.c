/*
 * model_exec.c - what the NPU executes: the relocation table, the task
 * records, the per-core task groups, and their validation.
 */
#include "model_internal.h"

#include <string.h>

#include "hal.h"
#include "rknn_api.h"

/* ---- relocations (format.md §4.3) ----------------------------------------------------- */

/* Relocation i; its tensor looked up from tensor `from` on where no memo
 * says where to start (fmt_validate_relocs: the previous one's). */
static int reloc_from(const rknn_model_view *view, uint32_t i, uint32_t from,
                      rknn_model_reloc_info *out)
{
    rknn_fbs_table t;
    int ret;

    if (!fmt_check_view(view) || !out || i >= view->n_relocs)
        return RKNN_ERR_PARAM_INVALID;
    memset(out, 0, sizeof(*out));
    out->word_limit = view->n_regcmd_words;
    if (fmt_is_v4(view))
        return fmt_v4_reloc(view, i, out);
    ret = rknn_fbs_vec_table(&view->fbs.relocs, i, &t);
    if (fmt_is_error(ret))
        return fmt_elem_error("relocation", i, &view->fbs.relocs, ret);
    ret = fmt_get_string_field(&t, RELOC_NAME, &out->tensor_name, "relocation", i,
                               "tensor name (slot 0)");
    if (ret == RKNN_SUCC)
        ret = fmt_get_vector_limited(&t, RELOC_ENTRIES, RELOC_ENTRY_SIZE,
                                     RKNN_MODEL_MAX_RELOC_ENTRIES, &out->entries, "relocation", i,
                                     "entries (slot 1)");
    if (ret != RKNN_SUCC)
        return ret;
    out->n_entries = out->entries.count;
    if (out->tensor_name.len == 0) {
        HAL_LOG_ERR("rknn model: relocation %lu has an empty tensor name", (unsigned long)i);
        return RKNN_ERR_MODEL_INVALID;
    }
    if (view->reloc_tensor_memo) {
        const uint16_t *memo = view->reloc_tensor_memo;
        if (memo[i] != RKNN_MODEL_RELOC_UNRESOLVED) {
            out->tensor_index = memo[i];
            return RKNN_SUCC;
        }
        /* from the previous relocation's tensor (unresolved is past every
         * tensor: from 0) */
        from = i ? memo[i - 1] : 0;
    }
    ret = rknn_model_find_tensor_from(view, out->tensor_name.ptr, out->tensor_name.len, from,
                                      &out->tensor_index);
    if (ret == RKNN_SUCC && view->reloc_tensor_memo) /* n_tensors <= 4096: fits */
        view->reloc_tensor_memo[i] = (uint16_t)out->tensor_index;
    if (ret == RKNN_ERR_PARAM_INVALID) {
        HAL_LOG_ERR("rknn model: relocation %lu names tensor \"%.*s\", which does not exist",
                    (unsigned long)i, (int)(out->tensor_name.len > 64 ? 64 : out->tensor_name.len),
                    out->tensor_name.ptr);
        ret = RKNN_ERR_MODEL_INVALID;
    }
    return ret;
}

int rknn_model_reloc(const rknn_model_view *view, uint32_t i, rknn_model_reloc_info *out)
{
    return reloc_from(view, i, 0, out);
}

int rknn_model_reloc_entry(const rknn_model_reloc_info *reloc, uint32_t i, uint32_t *addend,
                           uint32_t *word_index)
{
    const uint8_t *e;
    uint32_t word;

    if (!reloc || !addend || !word_index || i >= reloc->n_entries ||
        fmt_is_error(rknn_fbs_vec_struct(&reloc->entries, i, &e)))
        return RKNN_ERR_PARAM_INVALID;
    word = rknn_fbs_le32(e + 4);
    if (word >= reloc->word_limit) {
        HAL_LOG_ERR("rknn model: relocation of \"%.*s\" entry %lu patches regcmd word %lu of %lu",
                    (int)(reloc->tensor_name.len > 64 ? 64 : reloc->tensor_name.len),
                    reloc->tensor_name.ptr, (unsigned long)i, (unsigned long)word,
                    (unsigned long)reloc->word_limit);
        return RKNN_ERR_MODEL_INVALID;
    }
    *addend = rknn_fbs_le32(e);
    *word_index = word;
    return RKNN_SUCC;
}

/* ---- tasks (format.md §4.2) ----------------------------------------------------------- */

int rknn_model_task(const rknn_model_view *view, uint32_t i, rknn_model_task_info *out)
{
    const uint8_t *r;

    if (!fmt_check_view(view) || !out || i >= view->n_tasks || !view->task_data)
        return RKNN_ERR_PARAM_INVALID;
    r = view->task_data + (size_t)i * RKNN_MODEL_TASK_RECORD_SIZE;
    out->flags = rknn_fbs_le32(r + NPU_TASK_FLAGS);
    out->op_idx = rknn_fbs_le32(r + NPU_TASK_OP_IDX);
    out->enable_mask = rknn_fbs_le32(r + NPU_TASK_ENABLE_MASK);
    out->int_mask = rknn_fbs_le32(r + NPU_TASK_INT_MASK);
    out->int_clear = rknn_fbs_le32(r + NPU_TASK_INT_CLEAR);
    out->int_status = rknn_fbs_le32(r + NPU_TASK_INT_STATUS);
    out->regcfg_amount = rknn_fbs_le32(r + NPU_TASK_REGCFG_AMOUNT);
    out->regcfg_offset = rknn_fbs_le32(r + NPU_TASK_REGCFG_OFFSET);
    out->regcmd_addr = rknn_fbs_le64(r + NPU_TASK_REGCMD_ADDR);
    return RKNN_SUCC;
}

/* ---- the command stream and its chain links (format.md §4.2) ------------------------- */

FMT_API uint64_t fmt_stream_word(const rknn_model_view *m, uint32_t index)
{
    return rknn_fbs_le64(m->regcmd + (size_t)index * RKNN_MODEL_REGCMD_WORD_SIZE);
}

/* Task a's chain link holds task b's start (plus the stream's address once
 * it was relocated where it lies). */
FMT_API int fmt_links_to_record(const rknn_model_view *m, const rknn_model_task_info *a,
                                const rknn_model_task_info *b)
{
    uint32_t at = (uint32_t)(a->regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE) + a->regcfg_amount;
    uint64_t addr = fmt_stream_word(m, at);

    return npu_regcmd_target(addr) == NPU_TARGET_PC && npu_regcmd_reg(addr) == NPU_PC_DATA_ADDR &&
           npu_regcmd_value(addr) - m->regcmd_dma == b->regcmd_addr;
}

int rknn_model_task_links_to(const rknn_model_view *m, uint32_t from, uint32_t to)
{
    rknn_model_task_info a, b;

    if (rknn_model_task(m, from, &a) != RKNN_SUCC || rknn_model_task(m, to, &b) != RKNN_SUCC)
        return 0;
    return fmt_links_to_record(m, &a, &b);
}

/* ---- task groups and steps (format.md §4.2) ---------------------------------------- */

/* Task i's node, for indices the caller has bounded by n_tasks (a group's
 * range is checked against n_tasks at parse time). */
static uint32_t task_op_idx(const rknn_model_view *v, uint32_t i)
{
    return rknn_fbs_le32(v->task_data + (size_t)i * RKNN_MODEL_TASK_RECORD_SIZE + NPU_TASK_OP_IDX);
}

/* Slots: 1-core config first, then the 2-core pair, then the 3-core trio. */
static uint32_t group_slot(uint32_t n_cores, uint32_t core)
{
    return n_cores * (n_cores - 1) / 2 + core;
}

int rknn_model_task_group(const rknn_model_view *view, uint32_t n_cores, uint32_t core,
                          rknn_model_task_range *out)
{
    uint32_t slot;

    if (!fmt_check_view(view) || !out || n_cores == 0 || n_cores > view->max_cores ||
        core >= n_cores)
        return RKNN_ERR_PARAM_INVALID;
    slot = group_slot(n_cores, core);
    if (slot >= view->n_core_slots)
        return RKNN_ERR_PARAM_INVALID;
    *out = view->groups[slot];
    return RKNN_SUCC;
}

FMT_API int fmt_validate_tasks(const rknn_model_view *v)
{
    rknn_model_task_info t;

    for (uint32_t i = 0; i < v->n_tasks; i++) {
        if (rknn_model_task(v, i, &t) != RKNN_SUCC)
            return RKNN_ERR_MODEL_INVALID; /* no task data (a view not lowered yet) */
        if (t.op_idx >= v->n_nodes) {
            HAL_LOG_ERR("rknn model: task %lu: op_idx %lu >= node count %lu", (unsigned long)i,
                        (unsigned long)t.op_idx, (unsigned long)v->n_nodes);
            return RKNN_ERR_MODEL_INVALID;
        }
        if (t.regcmd_addr % RKNN_MODEL_REGCMD_WORD_SIZE != 0 || t.regcmd_addr > v->regcmd_size ||
            (uint64_t)t.regcfg_amount * RKNN_MODEL_REGCMD_WORD_SIZE >
                v->regcmd_size - t.regcmd_addr) {
            HAL_LOG_ERR("rknn model: task %lu: %lu register words at regcmd offset 0x%lx do not "
                        "fit the %lu-byte regcmd blob",
                        (unsigned long)i, (unsigned long)t.regcfg_amount,
                        (unsigned long)t.regcmd_addr, (unsigned long)v->regcmd_size);
            return RKNN_ERR_MODEL_INVALID;
        }
    }
    return RKNN_SUCC;
}

/* Node `node`'s records in one group: the run of records whose op_idx is
 * `node` (records are in node order, fmt_validate_task_order). */
static rknn_model_task_range node_run(const rknn_model_view *v, rknn_model_task_range g,
                                      uint32_t node)
{
    uint32_t lo = g.first, hi = g.first + g.count, first;

    while (lo < hi) { /* first record with op_idx >= node */
        uint32_t mid = lo + (hi - lo) / 2;
        if (task_op_idx(v, mid) < node)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* then its run, one record at a time (a node's records are few) */
    for (first = lo, hi = g.first + g.count; lo < hi && task_op_idx(v, lo) == node;)
        lo++;
    return (rknn_model_task_range){first, lo - first};
}

/* The first of records r that writes DPU register `reg` with a bit of
 * `mask` set; r.first + r.count if none does. */
static uint32_t first_setting(const rknn_model_view *v, rknn_model_task_range r, uint16_t reg,
                              uint32_t mask)
{
    for (uint32_t i = r.first; i < r.first + r.count; i++) {
        /* records the view's checks bounded (fmt_validate_tasks) */
        const uint8_t *rec = v->task_data + (size_t)i * RKNN_MODEL_TASK_RECORD_SIZE;
        uint32_t word = (uint32_t)(rknn_fbs_le64(rec + NPU_TASK_REGCMD_ADDR) /
                                   RKNN_MODEL_REGCMD_WORD_SIZE),
                 n = rknn_fbs_le32(rec + NPU_TASK_REGCFG_AMOUNT);
        for (uint32_t k = 0; k < n; k++) {
            uint64_t w = fmt_stream_word(v, word + k);
            if (npu_regcmd_reg(w) == reg && npu_regcmd_target(w) == NPU_TARGET_DPU &&
                (npu_regcmd_value(w) & mask))
                return i;
        }
    }
    return r.first + r.count;
}

/* Whether records r upload a DPU LUT (set LUT_ACCESS_CFG to write; every
 * other task writes it 0): a step that does runs alone, ping-pong off. */
static int range_uploads_lut(const rknn_model_view *v, rknn_model_task_range r)
{
    return first_setting(v, r, NPU_DPU_LUT_ACCESS_CFG, NPU_DPU_LUT_ACCESS_CFG_ACCESS_TYPE_MASK) <
           r.first + r.count;
}

static int step_uploads_lut(const rknn_model_view *v, uint32_t n_cores, const rknn_model_step *s)
{
    for (uint32_t c = 0; c < n_cores; c++)
        if (range_uploads_lut(v, s->core[c]))
            return 1;
    return 0;
}

uint32_t rknn_model_output_form(const rknn_model_view *v, rknn_tensor_type type, uint32_t bytes,
                                rknn_model_task_range *tasks)
{
    rknn_model_tensor_info t;
    rknn_model_task_range r;
    uint32_t split;

    tasks->count = 0;
    /* without an operator (output_copy 0) node_run finds no records */
    if (v->n_outputs != 1 || (type != RKNN_TENSOR_INT8 && type != RKNN_TENSOR_FLOAT32) ||
        rknn_model_tensor(v, v->output_copy_scratch, &t) != RKNN_SUCC ||
        t.kind != RKNN_MODEL_KIND_INTERNAL || t.size < bytes) /* inside the arena */
        return 0;
    r = node_run(v, v->groups[0], v->output_copy - 1u);
    /* the int8 form's records first, then those from the first whose DPU
     * writes another precision (float16, then float32) */
    split = first_setting(v, r, NPU_DPU_DATA_FORMAT, NPU_DPU_DATA_FORMAT_OUT_PRECISION_MASK);
    *tasks = type == RKNN_TENSOR_INT8 ? (rknn_model_task_range){r.first, split - r.first}
                                      : (rknn_model_task_range){split, r.first + r.count - split};
    return t.arena_offset;
}

/* Node `node`'s records on every core of an n_cores configuration; the
 * number of cores with records. */
static uint32_t node_step(const rknn_model_view *v, uint32_t n_cores, uint32_t node,
                          rknn_model_step *out)
{
    uint32_t used = 0;

    memset(out->core, 0, sizeof out->core);
    if (node + 1u == v->output_copy) /* run by rknn_outputs_get */
        return 0;
    for (uint32_t c = 0; c < n_cores; c++) {
        rknn_model_task_range g = v->groups[group_slot(n_cores, c)];
        out->core[c] = node_run(v, g, node);
        used += out->core[c].count != 0;
    }
    return used;
}

#if RKNN_CONTAINER_V4
/* Container 2 on several cores: each core's chain runs on into the next
 * node while that node has tasks on the same cores, each following its
 * core's run (the next record, linked), as Rockchip's runtime submits the
 * chains whole (format.md §5.2). A node without tasks ends the step. */
static void v4_extend_multi_core(const rknn_model_view *v, uint32_t n_cores, uint32_t *node,
                                 uint32_t end, rknn_model_step *out)
{
    rknn_model_step next;

    while (*node < end && node_step(v, n_cores, *node, &next) > 0) {
        for (uint32_t c = 0; c < n_cores; c++) {
            rknn_model_task_range r = out->core[c], n = next.core[c];
            if ((r.count == 0) != (n.count == 0) ||
                (n.count && (n.first != r.first + r.count ||
                             !rknn_model_task_links_to(v, r.first + r.count - 1, n.first))))
                return;
        }
        for (uint32_t c = 0; c < n_cores; c++)
            out->core[c].count += next.core[c].count;
        out->ping_pong = (uint8_t)(out->ping_pong && !step_uploads_lut(v, n_cores, &next));
        ++*node;
    }
}
#endif

int rknn_model_next_step(const rknn_model_view *view, uint32_t n_cores, uint32_t *node,
                         uint32_t end, rknn_model_step *out)
{
    rknn_model_step next;
    uint32_t used = 0, only = 0;
    int lut_alone;

    if (!fmt_check_view(view) || !node || !out || n_cores == 0 || n_cores > view->max_cores ||
        end > view->n_nodes)
        return RKNN_ERR_PARAM_INVALID;
    memset(out, 0, sizeof *out);
    while (*node < end && used == 0) /* nodes without records (I/O operators) */
        used = node_step(view, n_cores, (*node)++, out);
    for (uint32_t c = 0; c < n_cores; c++)
        if (out->core[c].count)
            only = c;
    /* A container-6 node that uploads a LUT is a step of its own, so that
     * the steps around it keep ping-pong (container 4: no cut, as the
     * vendor submits its register lists). */
    lut_alone = !fmt_is_v4(view);
    out->ping_pong = (uint8_t) !(used && step_uploads_lut(view, n_cores, out));
#if RKNN_CONTAINER_V4
    if (used > 1 && fmt_is_v4(view))
        v4_extend_multi_core(view, n_cores, node, end, out);
#endif
    /* One core only: take the following nodes while they stay on that core,
     * its chain runs on into them and neither side is a LUT cut. */
    while (used == 1 && !(lut_alone && !out->ping_pong) && *node < end) {
        rknn_model_task_range *r = &out->core[only];
        uint32_t n = node_step(view, n_cores, *node, &next);
        int lut;
        /* Container 4: a node without tasks (a CPU operator: the graph's
         * outputs) ends the step, as Rockchip's runtime cuts its jobs there
         * though its chain runs on (format.md §5.1). */
        if ((n == 0 && fmt_is_v4(view)) || n > 1 ||
            (n == 1 &&
             (next.core[only].count == 0 || next.core[only].first != r->first + r->count ||
              !rknn_model_task_links_to(view, r->first + r->count - 1, next.core[only].first))))
            break;
        lut = step_uploads_lut(view, n_cores, &next);
        if (lut && lut_alone)
            break;
        r->count += next.core[only].count;
        out->ping_pong = (uint8_t)(out->ping_pong && !lut);
        ++*node;
    }
    return RKNN_SUCC;
}

/* Group by group, the records are in node order (op_idx never decreases),
 * which is what lets a run submit one node at a time. In a multi-core group
 * each node has exactly its slot-10 count; in the single-core group at least
 * that (the extra records are LUT-loading tasks the count leaves out). */
FMT_API int fmt_validate_task_order(const rknn_model_view *v)
{
    rknn_model_node_info node;

    for (uint32_t s = 0; s < v->n_core_slots; s++) {
        rknn_model_task_range g = v->groups[s];
        for (uint32_t i = g.first + 1; i < g.first + g.count; i++) {
            uint32_t prev = task_op_idx(v, i - 1), cur = task_op_idx(v, i);
            if (cur < prev) {
                HAL_LOG_ERR("rknn model: task %lu (op_idx %lu) follows a task of node %lu in "
                            "core group %lu: the records are not in node order",
                            (unsigned long)i, (unsigned long)cur, (unsigned long)prev,
                            (unsigned long)s);
                return RKNN_ERR_MODEL_INVALID;
            }
        }
    }
    for (uint32_t k = 0; k < v->n_nodes; k++) {
        if (rknn_model_node(v, k, &node) != RKNN_SUCC)
            return RKNN_ERR_MODEL_INVALID;
        for (uint32_t s = 0; s < v->n_core_slots; s++) {
            rknn_model_task_range r = node_run(v, v->groups[s], k);
            uint32_t want = s < node.n_core_slots ? node.tasks_per_slot[s] : 0;
            if (r.count < want || (s > 0 && r.count != want)) {
                HAL_LOG_ERR("rknn model: node %lu has %lu task(s) in core group %lu, its slot-10 "
                            "count says %lu",
                            (unsigned long)k, (unsigned long)r.count, (unsigned long)s,
                            (unsigned long)want);
                return RKNN_ERR_MODEL_INVALID;
            }
        }
    }
    return RKNN_SUCC;
}

FMT_API int fmt_validate_relocs(rknn_model_view *v)
{
    rknn_model_reloc_info r;
    uint32_t addend, word;
    uint64_t total = 0;
    int ret;

    r.tensor_index = 0;
    for (uint32_t i = 0; i < v->n_relocs; i++) {
        ret = reloc_from(v, i, r.tensor_index, &r);
        if (ret != RKNN_SUCC)
            return ret;
        total += r.n_entries;
        if (total > RKNN_MODEL_MAX_RELOC_ENTRIES)
            return fmt_limit_error("relocation entries", (uint32_t)total,
                                   RKNN_MODEL_MAX_RELOC_ENTRIES);
        for (uint32_t j = 0; j < r.n_entries; j++) {
            ret = rknn_model_reloc_entry(&r, j, &addend, &word);
            if (ret != RKNN_SUCC)
                return RKNN_ERR_MODEL_INVALID;
        }
    }
    v->n_reloc_entries = (uint32_t)total;
    return RKNN_SUCC;
}
