/*
 * model_nodes.c - graph nodes: op type, executor, input/output tensors,
 * per-core-slot task counts, and their validation.
 */
#include "model_internal.h"

#include <string.h>

#include "hal.h"
#include "rknn_api.h"

/* ---- nodes (format.md §3.3) ---------------------------------------------------------- */

static int node_index_list(const rknn_fbs_table *t, uint32_t slot, uint32_t index,
                           const char *field, uint32_t tensor_limit, rknn_fbs_vector *out)
{
    int32_t idx;
    int ret = fmt_get_vector_limited(t, slot, 4, RKNN_MODEL_MAX_NODE_IO, out, "node", index, field);

    for (uint32_t i = 0; ret == RKNN_SUCC && i < out->count; i++) {
        ret = rknn_fbs_vec_i32(out, i, &idx);
        if (fmt_is_error(ret)) {
            /* unreachable: opened with 4-byte elements and i < count, the only refusals
               of rknn_fbs_vec_i32() */
            return fmt_fb_error("node", index, field, t, ret);
        }
        if (idx < 0 || (uint32_t)idx >= tensor_limit) {
            HAL_LOG_ERR("rknn model: node %lu: %s entry %lu = %ld is not a tensor index (< %lu)",
                        (unsigned long)index, field, (unsigned long)i, (long)idx,
                        (unsigned long)tensor_limit);
            return RKNN_ERR_MODEL_INVALID;
        }
    }
    return ret;
}

/* Node slot 10: tasks per core slot (format.md §3.3). */
FMT_API int fmt_node_task_counts(const rknn_fbs_table *t, uint32_t index, uint32_t *counts,
                                 uint32_t *n_slots)
{
    rknn_fbs_vector v;
    int ret = fmt_get_vector_limited(t, N_TASKS_PER_SLOT, 4, RKNN_MODEL_MAX_CORE_SLOTS, &v, "node",
                                     index, "tasks per core slot (slot 10)");

    for (uint32_t i = 0; ret == RKNN_SUCC && i < v.count; i++) {
        ret = rknn_fbs_vec_u32(&v, i, &counts[i]);
        if (fmt_is_error(ret)) {
            /* unreachable: opened with 4-byte elements and i < count, the only refusals
               of rknn_fbs_vec_u32() */
            return fmt_fb_error("node", index, "tasks per core slot (slot 10)", t, ret);
        }
        if (counts[i] > RKNN_MODEL_MAX_TASKS)
            return fmt_limit_error("tasks of one node in one core slot", counts[i],
                                   RKNN_MODEL_MAX_TASKS);
    }
    *n_slots = v.count;
    return ret;
}

static int node_attrs(const rknn_fbs_table *t, uint32_t index, rknn_model_node_info *out)
{
    rknn_fbs_vector v;
    const uint8_t *d;
    int ret = rknn_fbs_get_vector(t, N_ATTRS, 1, &v);

    if (fmt_is_error(ret))
        return fmt_fb_error("node", index, "attributes (slot 9)", t, ret);
    d = rknn_fbs_vec_data(&v);
    /* Output operators keep 16 other bytes here: only a BSON-shaped blob counts. */
    if (ret != RKNN_FBS_OK || !fmt_bson_is_document(d, v.count))
        return RKNN_SUCC;
    if (fmt_bson_validate(d, v.count, 0, &out->n_attrs) != 0) {
        HAL_LOG_ERR("rknn model: node %lu: attributes (slot 9, %lu bytes at payload offset "
                    "0x%lx) are not a well-formed BSON document",
                    (unsigned long)index, (unsigned long)v.count, (unsigned long)v.pos);
        return RKNN_ERR_MODEL_INVALID;
    }
    if (out->n_attrs > RKNN_MODEL_MAX_ATTRS)
        return fmt_limit_error("attributes of one node", out->n_attrs, RKNN_MODEL_MAX_ATTRS);
    out->attrs = d;
    out->attrs_size = v.count;
    return RKNN_SUCC;
}

int rknn_model_node(const rknn_model_view *view, uint32_t index, rknn_model_node_info *out)
{
    return fmt_node_read(view, index, 1, out);
}

FMT_API int fmt_node_read(const rknn_model_view *view, uint32_t index, int whole,
                          rknn_model_node_info *out)
{
    rknn_fbs_table t;
    int ret;

    if (!fmt_check_view(view) || !out || index >= view->n_nodes)
        return RKNN_ERR_PARAM_INVALID;
    memset(out, 0, sizeof(*out));
    out->tensor_limit = view->n_tensors;
    ret = rknn_fbs_vec_table(&view->fbs.nodes, index, &t);
    if (fmt_is_error(ret))
        return fmt_elem_error("node", index, &view->fbs.nodes, ret);
    ret = fmt_get_string_field(&t, N_TYPE, &out->op_type, "node", index, "op type (slot 1)");
    if (ret == RKNN_SUCC)
        ret = fmt_get_string_field(&t, N_NAME, &out->name, "node", index, "name (slot 2)");
    if (ret == RKNN_SUCC) {
        int fret = rknn_fbs_get_u8(&t, N_EXECUTOR, 0, &out->executor);
        if (fmt_is_error(fret))
            ret = fmt_fb_error("node", index, "executor (slot 3)", &t, fret);
    }
    if (ret == RKNN_SUCC)
        ret =
            node_index_list(&t, N_INPUTS, index, "inputs (slot 4)", view->n_tensors, &out->inputs);
    if (ret == RKNN_SUCC)
        ret = node_index_list(&t, N_OUTPUTS, index, "outputs (slot 5)", view->n_tensors,
                              &out->outputs);
    if (ret == RKNN_SUCC)
        ret = fmt_node_task_counts(&t, index, out->tasks_per_slot, &out->n_core_slots);
    if (ret == RKNN_SUCC && whole && fmt_is_v4(view)) {
        /* the core slots, counted from the node's task tables (format.md §5.2) */
        memset(out->tasks_per_slot, 0, sizeof out->tasks_per_slot);
        ret = fmt_v4_node_task_count(view, index, out->tasks_per_slot, &out->n_core_slots);
    }
    if (ret == RKNN_SUCC && whole)
        ret = node_attrs(&t, index, out);
    out->n_inputs = out->inputs.count;
    out->n_outputs = out->outputs.count;
    return ret;
}

int rknn_model_node_input(const rknn_model_node_info *node, uint32_t i, uint32_t *tensor)
{
    if (!node)
        return RKNN_ERR_PARAM_INVALID;
    return fmt_index_from_list(&node->inputs, i, node->tensor_limit, tensor);
}

int rknn_model_node_output(const rknn_model_node_info *node, uint32_t i, uint32_t *tensor)
{
    if (!node)
        return RKNN_ERR_PARAM_INVALID;
    return fmt_index_from_list(&node->outputs, i, node->tensor_limit, tensor);
}

/* Core slots: 1 -> one core (RK356x), 3 -> up to two, 6 -> up to three (RK3588). */
static uint32_t cores_for_slots(uint32_t n_slots)
{
    switch (n_slots) {
    case 1: return 1;
    case 3: return 2;
    case 6: return 3;
    default: return 0;
    }
}

/* An OutputOperator the NPU executes (RK3566 v6): NPU records but no
 * output tensor; they copy the output (its first input) as NCHW int8 or
 * float32 into *scratch, its second input. */
static int fmt_is_output_copy(const rknn_model_node_info *n, uint32_t *scratch)
{
    return n->executor == RKNN_MODEL_EXECUTOR_NPU && n->n_outputs == 0 &&
           rknn_model_node_input(n, 1, scratch) == RKNN_SUCC;
}

/* Validates every node and lays the task blob out in groups (format.md §4.2):
 * the groups of the multi-core configurations sit at the end of the blob and
 * hold exactly their slot sums; the single-core group is what precedes them.
 * It may hold more records than its slot sum: the toolkit does not count a
 * LUT-loading task of a node in that slot (PP-OCRv4 det: 35 nodes with a LUT,
 * 35 extra records); the op_idx of each record says which node it belongs to. */
FMT_API int fmt_validate_nodes(rknn_model_view *v)
{
    rknn_model_node_info n;
    uint64_t sums[RKNN_MODEL_MAX_CORE_SLOTS] = {0};
    uint64_t multi = 0, total;
    uint32_t scratch;
    int ret;

    for (uint32_t i = 0; i < v->n_nodes; i++) {
        ret = rknn_model_node(v, i, &n);
        if (ret != RKNN_SUCC)
            return ret;
        if (n.n_core_slots == 0)
            continue;
        if (fmt_is_output_copy(&n, &scratch)) {
            v->output_copy = (uint16_t)(i + 1); /* n_nodes <= 4096 */
            v->output_copy_scratch = (uint16_t)scratch;
        }
        if (v->n_core_slots == 0)
            v->n_core_slots = n.n_core_slots;
        if (n.n_core_slots != v->n_core_slots || cores_for_slots(n.n_core_slots) == 0) {
            HAL_LOG_ERR("rknn model: node %lu: %lu core slots (slot 10), expected 1, 3 or 6 and "
                        "the same on every node (%lu)",
                        (unsigned long)i, (unsigned long)n.n_core_slots,
                        (unsigned long)v->n_core_slots);
            return RKNN_ERR_MODEL_INVALID;
        }
        for (uint32_t s = 0; s < n.n_core_slots; s++)
            sums[s] += n.tasks_per_slot[s];
    }
    for (uint32_t s = 1; s < v->n_core_slots; s++)
        multi += sums[s];
    total = multi + sums[0];
    if (total > v->n_tasks) {
        HAL_LOG_ERR("rknn model: node task counts (slot 10) add up to %lu tasks but the task "
                    "blob holds %lu records",
                    (unsigned long)(total < UINT32_MAX ? total : UINT32_MAX),
                    (unsigned long)v->n_tasks);
        return RKNN_ERR_MODEL_INVALID;
    }
    if (v->n_tasks > 0 && (v->n_core_slots == 0 || multi == v->n_tasks)) {
        HAL_LOG_ERR("rknn model: the task blob holds %lu records but the nodes (slot 10) give "
                    "the single-core configuration none",
                    (unsigned long)v->n_tasks);
        return RKNN_ERR_MODEL_INVALID;
    }
    v->max_cores = cores_for_slots(v->n_core_slots);
    if (v->n_core_slots == 0)
        return RKNN_SUCC;
    v->groups[0].first = 0;
    v->groups[0].count = v->n_tasks - (uint32_t)multi;
    for (uint32_t s = 1; s < v->n_core_slots; s++) {
        v->groups[s].first = v->groups[s - 1].first + v->groups[s - 1].count;
        v->groups[s].count = (uint32_t)sums[s];
    }
    return RKNN_SUCC;
}
