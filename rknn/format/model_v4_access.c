/*
 * model_v4_access.c - containers 4 and 2 / schema 1 (RKNN-Toolkit2 1.x;
 * format.md §5.1, §5.2), as read: each node's task tables, a task's register
 * list, LUT, unit enable and core configuration, and the payload
 * rknn_model_lower() built, read back (its relocation tables). The nodes (a node's task count) and the
 * relocation accessor (model_exec.c) use it; the walk that checks and
 * lowers the register lists is model_v4.c, at the top of the layer.
 */
#include "model_internal.h"

#include "hal.h"
#include "npu_regs.h"
#include "rknn_api.h"

#if RKNN_CONTAINER_V4

/* A task's core slot indexes rknn_model_node_info.tasks_per_slot. */
_Static_assert(RKNPU_MAX_CORES *(RKNPU_MAX_CORES + 1) / 2 <= RKNN_MODEL_MAX_CORE_SLOTS,
               "core slots of every configuration");

/* Node slot 6: one table per task, in submission order. */
enum { N_V4_TASKS = 6 };
/* Task table slots. Slot 8 is the core count of the configuration the task
 * belongs to and slot 6 its core in it (format.md §5.2; absent: 1 core,
 * core 0). Not used: slot 2, 5, 7 (the configuration's core mask, 1, 3 or
 * 7), 9, 10, and slot 4, the toolkit-1.x completion mask, which also waits
 * for the CNA's fetches (0x3F3, 0x3FC, 0x3FF): a task completes as in a v6
 * file, when the last unit is done. */
enum {
    V4_TASK_REGLIST = 0,
    V4_TASK_LUT = 1,
    V4_TASK_ENABLE = 3,
    V4_TASK_CORE = 6,
    V4_TASK_CORES = 8
};

/* A register list tensor (kind 7, or a LUT's kind 6): its entries. */
FMT_API int fmt_v4_reglist(const rknn_model_view *v, uint32_t tensor, int8_t kind, uint32_t node,
                           uint32_t task, const uint8_t **entries, uint32_t *n_entries)
{
    rknn_model_tensor_info t;

    if (tensor >= v->n_tensors || rknn_model_tensor(v, tensor, &t) != RKNN_SUCC || t.kind != kind ||
        !t.data || t.data_size == 0 || t.data_size % V4_ENTRY_SIZE != 0 ||
        t.data_size / V4_ENTRY_SIZE > RKNN_MODEL_MAX_V4_TASK_REGS) {
        HAL_LOG_ERR("rknn model: node %lu task %lu: tensor %lu is not a %s of 1 to %d 8-byte "
                    "entries (kind %d)",
                    (unsigned long)node, (unsigned long)task, (unsigned long)tensor,
                    kind == RKNN_MODEL_KIND_LUT ? "LUT" : "register list",
                    RKNN_MODEL_MAX_V4_TASK_REGS, kind);
        return RKNN_ERR_MODEL_INVALID;
    }
    *entries = t.data;
    *n_entries = t.data_size / V4_ENTRY_SIZE;
    return RKNN_SUCC;
}

static int task_u32(const rknn_fbs_table *t, uint32_t slot, uint32_t def, uint32_t *out,
                    uint32_t node, const char *field)
{
    int ret = rknn_fbs_get_u32(t, slot, def, out);

    return fmt_is_error(ret) ? fmt_fb_error("node task of node", node, field, t, ret) : RKNN_SUCC;
}

/* The core configuration of a task table: 1 to RKNPU_MAX_CORES cores, and
 * the core in it; its core slot, numbered as a v6 file's (format.md §4.2). */
static int read_task_cores(const rknn_fbs_table *t, uint32_t node, uint32_t i, v4_task *out)
{
    uint32_t core;
    int ret = task_u32(t, V4_TASK_CORES, 1, &out->n_cores, node, "core count (task slot 8)");

    if (ret == RKNN_SUCC)
        ret = task_u32(t, V4_TASK_CORE, 0, &core, node, "core (task slot 6)");
    if (ret != RKNN_SUCC)
        return ret;
    if (out->n_cores == 0 || out->n_cores > RKNPU_MAX_CORES || core >= out->n_cores) {
        HAL_LOG_ERR("rknn model: node %lu task %lu: core %lu of a %lu-core configuration "
                    "(task slots 6 and 8); 1 to %d cores are known",
                    (unsigned long)node, (unsigned long)i, (unsigned long)core,
                    (unsigned long)out->n_cores, RKNPU_MAX_CORES);
        return RKNN_ERR_MODEL_INVALID;
    }
    out->slot = out->n_cores * (out->n_cores - 1) / 2 + core;
    return RKNN_SUCC;
}

/* What a task table says without its register list: LUT and cores. */
static int read_task_head(const rknn_fbs_vector *tasks, uint32_t node, uint32_t i,
                          rknn_fbs_table *t, v4_task *out)
{
    int ret = rknn_fbs_vec_table(tasks, i, t);

    if (fmt_is_error(ret))
        return fmt_elem_error("task table of node", node, tasks, ret);
    ret = task_u32(t, V4_TASK_LUT, V4_NO_LUT, &out->lut, node, "LUT (task slot 1)");
    return ret != RKNN_SUCC ? ret : read_task_cores(t, node, i, out);
}

/* Task `i` of node `node` (its table in Node slot 6). */
FMT_API int fmt_v4_read_task(const rknn_model_view *v, const rknn_fbs_vector *tasks, uint32_t node,
                             uint32_t i, v4_task *out)
{
    rknn_fbs_table t;
    uint32_t reglist;
    int ret = read_task_head(tasks, node, i, &t, out);

    if (ret != RKNN_SUCC ||
        (ret = task_u32(&t, V4_TASK_REGLIST, UINT32_MAX, &reglist, node,
                        "register list (task slot 0)")) != RKNN_SUCC ||
        (ret = task_u32(&t, V4_TASK_ENABLE, 0, &out->enable, node, "unit enable (task slot 3)")) !=
            RKNN_SUCC)
        return ret;
    /* the DPU ends every task it is in, else the PPU (the v6 toolkits' masks) */
    out->int_mask = (out->enable & NPU_UNIT_DPU)   ? NPU_INT_DPU_DONE
                    : (out->enable & NPU_UNIT_PPU) ? NPU_INT_PPU_DONE
                                                   : 0;
    if (out->int_mask == 0 || (out->enable & ~(uint32_t)NPU_UNIT_ALL)) {
        HAL_LOG_ERR("rknn model: node %lu task %lu: unit enable 0x%lx (task slot 3) starts "
                    "neither the DPU nor the PPU, or names no unit",
                    (unsigned long)node, (unsigned long)i, (unsigned long)out->enable);
        return RKNN_ERR_MODEL_INVALID;
    }
    return fmt_v4_reglist(v, reglist, RKNN_MODEL_KIND_REGLIST_OLD, node, i, &out->entries,
                          &out->n_entries);
}

FMT_API int fmt_v4_task_tables(const rknn_model_view *v, uint32_t node, rknn_fbs_vector *out)
{
    rknn_fbs_table t;
    int ret = rknn_fbs_vec_table(&v->fbs.nodes, node, &t);

    if (fmt_is_error(ret)) {
        /* unreachable: both callers opened this table just before (fmt_node_read) */
        return fmt_elem_error("node", node, &v->fbs.nodes, ret);
    }
    return fmt_get_vector_limited(&t, N_V4_TASKS, 4, RKNN_MODEL_MAX_TASKS, out, "node", node,
                                  "task tables (slot 6)");
}

/* Every task that names a LUT gets added tasks before it that load the
 * LUT, as Rockchip's runtime submits (format.md §5.1): the LUT's register
 * list cut where its first register is written again (YOLOv8n: two tasks
 * of 584 entries, one per table). Each task then runs with its LUT in the
 * DPU whatever ran before it. Part p of a list of n entries starts at
 * `from` and ends where this returns. */
FMT_API uint32_t fmt_v4_lut_part_end(const uint8_t *entries, uint32_t n, uint32_t from)
{
    uint32_t first = rknn_fbs_le16(entries + 2);

    for (uint32_t e = from + 1; e < n; e++)
        if (rknn_fbs_le16(entries + (size_t)e * V4_ENTRY_SIZE + 2) == first)
            return e;
    return n;
}

/* The tasks that load task t's LUT (0 when it names none). */
FMT_API int fmt_v4_lut_loads(const rknn_model_view *v, const v4_task *t, uint32_t node, uint32_t i,
                             uint32_t *count)
{
    const uint8_t *entries;
    uint32_t n;
    int ret;

    *count = 0;
    if (t->lut == V4_NO_LUT)
        return RKNN_SUCC;
    ret = fmt_v4_reglist(v, t->lut, RKNN_MODEL_KIND_LUT, node, i, &entries, &n);
    for (uint32_t at = 0; ret == RKNN_SUCC && at < n; ++*count)
        at = fmt_v4_lut_part_end(entries, n, at);
    return ret;
}

/* Every core configuration up to the largest must run the node: a
 * configuration without its tasks would skip it. */
static int check_configurations(const uint32_t *counts, uint32_t max_cores, uint32_t node)
{
    for (uint32_t n = 1; n <= max_cores; n++) {
        uint32_t sum = 0;
        for (uint32_t c = 0; c < n; c++)
            sum += counts[n * (n - 1) / 2 + c];
        if (sum == 0) {
            HAL_LOG_ERR("rknn model: node %lu has tasks for %lu cores but none for %lu "
                        "(task slot 8)",
                        (unsigned long)node, (unsigned long)max_cores, (unsigned long)n);
            return RKNN_ERR_MODEL_INVALID;
        }
    }
    return RKNN_SUCC;
}

FMT_API int fmt_v4_node_task_count(const rknn_model_view *v, uint32_t node, uint32_t *counts,
                                   uint32_t *n_slots)
{
    rknn_fbs_vector tasks;
    uint32_t max_cores = 0;
    int ret = fmt_v4_task_tables(v, node, &tasks);

    *n_slots = 0;
    for (uint32_t i = 0; ret == RKNN_SUCC && i < tasks.count; i++) {
        rknn_fbs_table t;
        v4_task head;
        uint32_t loads;
        if ((ret = read_task_head(&tasks, node, i, &t, &head)) != RKNN_SUCC ||
            (ret = fmt_v4_lut_loads(v, &head, node, i, &loads)) != RKNN_SUCC)
            break;
        counts[head.slot] += 1u + loads;
        max_cores = head.n_cores > max_cores ? head.n_cores : max_cores;
    }
    if (ret == RKNN_SUCC && max_cores > 0 &&
        (ret = check_configurations(counts, max_cores, node)) == RKNN_SUCC)
        *n_slots = max_cores * (max_cores + 1) / 2;
    return ret;
}

/* ---- the built payload, read back ---------------------------------------- */

FMT_API v4_layout fmt_v4_layout_of(const rknn_model_view *v)
{
    v4_layout l;

    l.records = v->regcmd_size;
    l.entries = l.records + v->n_tasks * RKNN_MODEL_TASK_RECORD_SIZE;
    l.first = l.entries + v->n_reloc_entries * RELOC_ENTRY_SIZE;
    l.relocated = l.first + (v->n_tensors + 1) * 4u;
    l.total = l.relocated + v->n_tensors * 4u;
    return l;
}

/* A u32 of the per-tensor tables, which build() writes as native uint32_t
 * (the buffer is the runtime's own, 8-byte aligned; the offsets are too). */
static uint32_t lowered_u32(const rknn_model_view *v, uint32_t offset, uint32_t i)
{
    return ((const uint32_t *)(const void *)(v->lowered + offset))[i];
}

void rknn_model_attach_lowered(rknn_model_view *v, const void *buf)
{
    v4_layout l = fmt_v4_layout_of(v);

    v->lowered = buf;
    v->regcmd = buf;
    v->task_data = v->lowered + l.records;
    v->n_relocs = 0;
    for (uint32_t t = 0; t < v->n_tensors; t++)
        v->n_relocs += lowered_u32(v, l.first, t + 1) > lowered_u32(v, l.first, t);
}

/* Relocation table i of a lowered view: the i-th relocated tensor. */
FMT_API int fmt_v4_reloc(const rknn_model_view *v, uint32_t i, rknn_model_reloc_info *out)
{
    v4_layout l = fmt_v4_layout_of(v);
    rknn_model_tensor_info t;
    uint32_t tensor, first, end;

    if (!v->lowered || i >= v->n_relocs)
        return RKNN_ERR_PARAM_INVALID;
    tensor = lowered_u32(v, l.relocated, i);
    if (tensor >= v->n_tensors)
        return RKNN_ERR_MODEL_INVALID;
    first = lowered_u32(v, l.first, tensor);
    end = lowered_u32(v, l.first, tensor + 1);
    if (first > end || end > v->n_reloc_entries || rknn_model_tensor(v, tensor, &t) != RKNN_SUCC) {
        /* unreachable: build() wrote first[] as running sums up to n_reloc_entries, and the
           parse decoded every tensor */
        return RKNN_ERR_MODEL_INVALID;
    }
    out->tensor_name = t.name;
    out->tensor_index = tensor;
    out->n_entries = end - first;
    out->entries.buf.data = v->lowered;
    out->entries.buf.size = v->lowered_size;
    out->entries.pos = l.entries + first * RELOC_ENTRY_SIZE;
    out->entries.count = end - first;
    out->entries.elem_size = RELOC_ENTRY_SIZE;
    return RKNN_SUCC;
}

#else /* meson option container_v4=false: no container-4 view is ever parsed */

FMT_API int fmt_v4_node_task_count(const rknn_model_view *v, uint32_t node, uint32_t *counts,
                                   uint32_t *n_slots)
{
    (void)v;
    (void)node;
    (void)counts;
    *n_slots = 0;
    return RKNN_SUCC;
}

FMT_API int fmt_v4_reloc(const rknn_model_view *v, uint32_t i, rknn_model_reloc_info *out)
{
    (void)v;
    (void)i;
    (void)out;
    return RKNN_ERR_PARAM_INVALID;
}

void rknn_model_attach_lowered(rknn_model_view *v, const void *buf)
{
    (void)v;
    (void)buf;
}

#endif
