/*
 * model_tensors.c - blobs, tensors (shapes, quantisation, arena places),
 * the graph's inputs, outputs and normalisation, and their validation.
 */
#include "model_internal.h"

#include <stddef.h>
#include <string.h>

#include "hal.h"
#include "rknn_api.h"

/* ---- blobs (format.md §3.1) ---------------------------------------------------------- */

int rknn_model_blob(const rknn_model_view *view, uint32_t i, const uint8_t **data, uint32_t *size)
{
    rknn_fbs_table blob;
    rknn_fbs_vector bytes;
    int ret;

    if (!fmt_check_view(view) || !data || !size || i >= view->n_blobs)
        return RKNN_ERR_PARAM_INVALID;
    *data = NULL;
    *size = 0;
    ret = rknn_fbs_vec_table(&view->fbs.blobs, i, &blob);
    if (fmt_is_error(ret))
        return fmt_elem_error("blob", i, &view->fbs.blobs, ret);
    ret = rknn_fbs_get_vector(&blob, BLOB_DATA, 1, &bytes);
    if (fmt_is_error(ret))
        return fmt_fb_error("blob", i, "bytes (slot 0)", &blob, ret);
    if (ret == RKNN_FBS_OK) {
        *data = rknn_fbs_vec_data(&bytes);
        *size = bytes.count;
    }
    return RKNN_SUCC;
}

/* ---- tensors (format.md §3.4) -------------------------------------------------------- */

static int tensor_has_blob(int8_t kind)
{
    return kind == RKNN_MODEL_KIND_CONST || kind == RKNN_MODEL_KIND_HELPER_CONST ||
           kind == RKNN_MODEL_KIND_GENERATED_CONST || kind == RKNN_MODEL_KIND_LUT ||
           kind == RKNN_MODEL_KIND_REGLIST_OLD || kind == RKNN_MODEL_KIND_REGCMD ||
           kind == RKNN_MODEL_KIND_TASKS;
}

static int tensor_scalars(const rknn_fbs_table *t, uint32_t index, rknn_model_tensor_info *out)
{
    static const struct {
        uint8_t slot, size; /* size: 1 (int8_t, uint8_t) or 4 (uint32_t) */
        uint16_t offset;    /* in rknn_model_tensor_info */
        FMT_FIELD_NAME_MEMBER
    } fields[] = {
        {T_DTYPE, 1, offsetof(rknn_model_tensor_info, dtype) FMT_FIELD_NAME("dtype (slot 0)")},
        {T_LAYOUT, 1,
         offsetof(rknn_model_tensor_info, layout_class) FMT_FIELD_NAME("layout class (slot 1)")},
        {T_KIND, 1, offsetof(rknn_model_tensor_info, kind) FMT_FIELD_NAME("kind (slot 2)")},
        {T_SIZE, 4, offsetof(rknn_model_tensor_info, size) FMT_FIELD_NAME("size (slot 12)")},
        {T_OFFSET, 4,
         offsetof(rknn_model_tensor_info, arena_offset) FMT_FIELD_NAME("arena offset (slot 13)")},
        {T_COMPRESSED, 1,
         offsetof(rknn_model_tensor_info, compressed) FMT_FIELD_NAME("compressed flag (slot 14)")},
        {T_BLOB, 4,
         offsetof(rknn_model_tensor_info, blob_index) FMT_FIELD_NAME("blob index (slot 18)")},
    };

    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        uint8_t *dst = (uint8_t *)out + fields[i].offset;
        int ret = fields[i].size == 1
                      ? rknn_fbs_get_u8(t, fields[i].slot, 0, dst)
                      : rknn_fbs_get_u32(t, fields[i].slot, 0, (uint32_t *)(void *)dst);
        if (fmt_is_error(ret))
            return fmt_fb_error("tensor", index, FMT_NAME_OF(&fields[i]), t, ret);
    }
    return RKNN_SUCC;
}

static int tensor_quant(const rknn_fbs_table *t, uint32_t index, rknn_model_tensor_info *out)
{
    int ret;

    ret = fmt_get_string_field(t, T_QMETHOD, &out->quant_method, "tensor", index,
                               "quant method (slot 6)");
    if (ret == RKNN_SUCC)
        ret = fmt_get_string_field(t, T_QDTYPE, &out->quant_dtype, "tensor", index,
                                   "quant dtype (slot 7)");
    if (ret == RKNN_SUCC)
        ret = fmt_get_vector_limited(t, T_QSCALE, 4, RKNN_MODEL_MAX_QUANT, &out->scales, "tensor",
                                     index, "scale (slot 10)");
    if (ret == RKNN_SUCC)
        ret = fmt_get_vector_limited(t, T_QZP, 4, RKNN_MODEL_MAX_QUANT, &out->zero_points, "tensor",
                                     index, "zero point (slot 11)");
    out->n_scales = out->scales.count;
    out->n_zero_points = out->zero_points.count;
    return ret;
}

static int tensor_blob(const rknn_model_view *view, uint32_t index, rknn_model_tensor_info *out)
{
    if (!tensor_has_blob(out->kind))
        return RKNN_SUCC;
    if (out->blob_index >= view->n_blobs) {
        HAL_LOG_ERR("rknn model: tensor %lu: blob index (slot 18) %lu >= blob count %lu",
                    (unsigned long)index, (unsigned long)out->blob_index,
                    (unsigned long)view->n_blobs);
        return RKNN_ERR_MODEL_INVALID;
    }
    return rknn_model_blob(view, out->blob_index, &out->data, &out->data_size);
}

int rknn_model_tensor(const rknn_model_view *view, uint32_t index, rknn_model_tensor_info *out)
{
    rknn_fbs_table t;
    int ret;
    if (!fmt_check_view(view) || !out || index >= view->n_tensors)
        return RKNN_ERR_PARAM_INVALID;
    memset(out, 0, sizeof(*out));
    out->c1_from_size = (uint8_t)(RKNN_CONTAINER_V4 && view->container_version == 2);
    ret = rknn_fbs_vec_table(&view->fbs.tensors, index, &t);
    if (fmt_is_error(ret))
        return fmt_elem_error("tensor", index, &view->fbs.tensors, ret);
    ret = tensor_scalars(&t, index, out);
    if (ret == RKNN_SUCC)
        ret = fmt_get_shape(&t, T_NATIVE_SHAPE, index, "native shape (slot 3)", out->native_dims,
                            &out->n_native_dims);
    if (ret == RKNN_SUCC)
        ret = fmt_get_shape(&t, T_SHAPE, index, "shape (slot 4)", out->dims, &out->n_dims);
    if (ret == RKNN_SUCC)
        ret = fmt_get_string_field(&t, T_NAME, &out->name, "tensor", index, "name (slot 5)");
    if (ret == RKNN_SUCC)
        ret = tensor_quant(&t, index, out);
    if (ret == RKNN_SUCC)
        ret = tensor_blob(view, index, out);
    return ret;
}

int rknn_model_tensor_scale(const rknn_model_tensor_info *t, uint32_t i, float *out)
{
    if (!t || !out || i >= t->n_scales)
        return RKNN_ERR_PARAM_INVALID;
    return fmt_is_error(rknn_fbs_vec_f32(&t->scales, i, out)) ? RKNN_ERR_PARAM_INVALID : RKNN_SUCC;
}

int rknn_model_tensor_zero_point(const rknn_model_tensor_info *t, uint32_t i, int32_t *out)
{
    if (!t || !out || i >= t->n_zero_points)
        return RKNN_ERR_PARAM_INVALID;
    return fmt_is_error(rknn_fbs_vec_i32(&t->zero_points, i, out)) ? RKNN_ERR_PARAM_INVALID
                                                                   : RKNN_SUCC;
}

static int tensor_name(const rknn_model_view *view, uint32_t index, rknn_fbs_string *name)
{
    rknn_fbs_table t;
    int ret = rknn_fbs_vec_table(&view->fbs.tensors, index, &t);

    if (fmt_is_error(ret))
        return fmt_elem_error("tensor", index, &view->fbs.tensors, ret);
    return fmt_get_string_field(&t, T_NAME, name, "tensor", index, "name (slot 5)");
}

int rknn_model_find_tensor_from(const rknn_model_view *view, const char *name, uint32_t len,
                                uint32_t from, uint32_t *index)
{
    rknn_fbs_string s;
    int ret;

    if (!fmt_check_view(view) || !name || !index)
        return RKNN_ERR_PARAM_INVALID;
    for (uint32_t k = 0, i = from < view->n_tensors ? from : 0; k < view->n_tensors;
         k++, i = i + 1 < view->n_tensors ? i + 1 : 0) {
        ret = tensor_name(view, i, &s);
        if (ret != RKNN_SUCC)
            return ret;
        if (s.len == len && memcmp(s.ptr, name, len) == 0) {
            *index = i;
            return RKNN_SUCC;
        }
    }
    return RKNN_ERR_PARAM_INVALID;
}

/* ---- graph inputs and outputs (format.md §3.2 Graph slots 2, 3) ---------------------- */

/* Entry i of a list of tensor indices (the graph's inputs or outputs, a
 * node's), which must be below limit. */
FMT_API int fmt_index_from_list(const rknn_fbs_vector *v, uint32_t i, uint32_t limit, uint32_t *out)
{
    int32_t idx;

    if (!out || fmt_is_error(rknn_fbs_vec_i32(v, i, &idx)) || idx < 0 || (uint32_t)idx >= limit)
        return RKNN_ERR_PARAM_INVALID;
    *out = (uint32_t)idx;
    return RKNN_SUCC;
}

int rknn_model_io(const rknn_model_view *view, int is_input, uint32_t i, uint32_t *tensor)
{
    if (!fmt_check_view(view))
        return RKNN_ERR_PARAM_INVALID;
    return fmt_index_from_list(is_input ? &view->fbs.inputs : &view->fbs.outputs, i,
                               view->n_tensors, tensor);
}

/* ---- normalisation (format.md §3.2 Graph slot 4) ------------------------------------ */

_Static_assert(offsetof(rknn_model_norm_info, order) <= UINT8_MAX,
               "rknn_model_norm keeps the vectors' offsets in 8 bits");

int rknn_model_norm(const rknn_model_view *view, uint32_t i, rknn_model_norm_info *out)
{
    static const struct {
        uint8_t slot, offset; /* offset: of the vector in rknn_model_norm_info */
        FMT_FIELD_NAME_MEMBER
    } fields[] = {
        {NORM_MEAN, offsetof(rknn_model_norm_info, mean) FMT_FIELD_NAME("mean (slot 0)")},
        {NORM_STD, offsetof(rknn_model_norm_info, std) FMT_FIELD_NAME("std (slot 1)")},
        {NORM_ORDER,
         offsetof(rknn_model_norm_info, order) FMT_FIELD_NAME("channel order (slot 2)")},
    };
    rknn_fbs_table t;
    int ret;

    if (!fmt_check_view(view) || !out || i >= view->n_norms)
        return RKNN_ERR_PARAM_INVALID;
    memset(out, 0, sizeof(*out));
    ret = rknn_fbs_vec_table(&view->fbs.norms, i, &t);
    if (fmt_is_error(ret))
        return fmt_elem_error("norm", i, &view->fbs.norms, ret);
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
        if ((ret = fmt_get_vector_limited(
                 &t, fields[f].slot, 4, RKNN_MODEL_MAX_NORM_CHANNELS,
                 (rknn_fbs_vector *)(void *)((uint8_t *)out + fields[f].offset), "norm", i,
                 FMT_NAME_OF(&fields[f]))) != RKNN_SUCC)
            break;
    if (ret == RKNN_SUCC && out->mean.count != out->std.count) {
        HAL_LOG_ERR("rknn model: norm %lu: %lu mean values but %lu std values", (unsigned long)i,
                    (unsigned long)out->mean.count, (unsigned long)out->std.count);
        ret = RKNN_ERR_MODEL_INVALID;
    }
    out->n_channels = out->mean.count;
    return ret;
}

/* Channel c of a norm's mean (std 0) or std (1). noinline: the two
 * accessors below share it (footprint). */
__attribute__((noinline)) static int norm_value(const rknn_model_norm_info *norm, int std,
                                                uint32_t c, float *out)
{
    if (!norm || !out || c >= norm->n_channels)
        return RKNN_ERR_PARAM_INVALID;
    return fmt_is_error(rknn_fbs_vec_f32(std ? &norm->std : &norm->mean, c, out))
               ? RKNN_ERR_PARAM_INVALID
               : RKNN_SUCC;
}

int rknn_model_norm_mean(const rknn_model_norm_info *norm, uint32_t c, float *out)
{
    return norm_value(norm, 0, c, out);
}

int rknn_model_norm_std(const rknn_model_norm_info *norm, uint32_t c, float *out)
{
    return norm_value(norm, 1, c, out);
}

/* Remembers the single regcmd (kind 9) and task (kind 10) tensor.
 * noinline: both kinds share it (footprint). */
__attribute__((noinline)) static int note_exec_tensor(uint32_t index, uint32_t *slot,
                                                      const char *what)
{
    if (*slot != UINT32_MAX) {
        HAL_LOG_ERR("rknn model: tensors %lu and %lu are both %s tensors", (unsigned long)*slot,
                    (unsigned long)index, what);
        return RKNN_ERR_MODEL_INVALID;
    }
    *slot = index;
    return RKNN_SUCC;
}

FMT_API int fmt_validate_tensors(rknn_model_view *v)
{
    rknn_model_tensor_info t;
    int ret;

    v->regcmd_tensor = UINT32_MAX;
    v->task_tensor = UINT32_MAX;
    v->n_lut_blobs = 0;
    for (uint32_t i = 0; i < v->n_tensors; i++) {
        ret = rknn_model_tensor(v, i, &t);
        if (ret != RKNN_SUCC)
            return ret;
        if (t.kind == RKNN_MODEL_KIND_INPUT || t.kind == RKNN_MODEL_KIND_OUTPUT ||
            t.kind == RKNN_MODEL_KIND_INTERNAL) {
            uint64_t end = (uint64_t)t.arena_offset + t.size;
            if (end > v->arena_size)
                v->arena_size = end;
        } else if (t.kind == RKNN_MODEL_KIND_LUT && v->n_lut_blobs < RKNN_MODEL_MAX_LUT_BLOBS) {
            v->lut_blobs[v->n_lut_blobs++] = t.blob_index;
        } else if (t.kind == RKNN_MODEL_KIND_REGCMD) {
            ret = note_exec_tensor(i, &v->regcmd_tensor, "regcmd");
            v->regcmd_blob = t.blob_index;
            v->regcmd = t.data;
            v->regcmd_size = t.data_size;
        } else if (t.kind == RKNN_MODEL_KIND_TASKS) {
            ret = note_exec_tensor(i, &v->task_tensor, "task");
            v->task_blob = t.blob_index;
            v->task_data = t.data;
            v->n_tasks = t.data_size / RKNN_MODEL_TASK_RECORD_SIZE;
            if (t.data_size % RKNN_MODEL_TASK_RECORD_SIZE != 0) {
                HAL_LOG_ERR("rknn model: task blob %lu has %lu bytes, not a multiple of %d",
                            (unsigned long)t.blob_index, (unsigned long)t.data_size,
                            RKNN_MODEL_TASK_RECORD_SIZE);
                return RKNN_ERR_MODEL_INVALID;
            }
        }
        if (ret != RKNN_SUCC)
            return ret;
    }
    if (fmt_is_v4(v)) {
        /* No stream or records in the file (format.md §5.1): every blob is a constant. */
        if (v->regcmd_tensor != UINT32_MAX || v->task_tensor != UINT32_MAX) {
            HAL_LOG_ERR("rknn model: container %lu with a regcmd or task tensor",
                        (unsigned long)v->container_version);
            return RKNN_ERR_MODEL_INVALID;
        }
        v->regcmd_blob = v->task_blob = UINT32_MAX;
        v->n_lut_blobs = 0; /* read in place, lowered into the stream */
        return RKNN_SUCC;
    }
    if (v->regcmd_tensor == UINT32_MAX || v->task_tensor == UINT32_MAX) {
        HAL_LOG_ERR("rknn model: no %s tensor (kind %d): not a v6 execution payload",
                    v->regcmd_tensor == UINT32_MAX ? "regcmd" : "task",
                    v->regcmd_tensor == UINT32_MAX ? RKNN_MODEL_KIND_REGCMD
                                                   : RKNN_MODEL_KIND_TASKS);
        return RKNN_ERR_MODEL_INVALID;
    }
    if (v->regcmd_size % RKNN_MODEL_REGCMD_WORD_SIZE != 0) {
        HAL_LOG_ERR("rknn model: regcmd blob has %lu bytes, not a multiple of 8",
                    (unsigned long)v->regcmd_size);
        return RKNN_ERR_MODEL_INVALID;
    }
    v->n_regcmd_words = v->regcmd_size / RKNN_MODEL_REGCMD_WORD_SIZE;
    if (v->n_tasks > RKNN_MODEL_MAX_TASKS)
        return fmt_limit_error("task count", v->n_tasks, RKNN_MODEL_MAX_TASKS);
    return RKNN_SUCC;
}

/* Graph output k, then input k - n_outputs, as a tensor index. */
static int graph_io_at(const rknn_model_view *v, uint32_t k, uint32_t *tensor)
{
    int in = k >= v->n_outputs;

    return rknn_model_io(v, in, in ? k - v->n_outputs : k, tensor);
}

/* Every graph input and output names a tensor, and no tensor twice: a
 * runtime gives each its own buffer or place (an output may have a buffer
 * of its own and no bytes in the arena, format.md §4.4). */
FMT_API int fmt_validate_graph_io(rknn_model_view *v)
{
    for (uint32_t k = 0; k < v->n_inputs + v->n_outputs; k++) {
        uint32_t a, b, l = 0;
        int ret = graph_io_at(v, k, &a);
        while (ret == RKNN_SUCC && l < k)
            if (graph_io_at(v, l++, &b) != RKNN_SUCC || a == b)
                ret = RKNN_ERR_MODEL_INVALID;
        if (ret != RKNN_SUCC) {
            HAL_LOG_ERR("rknn model: graph input/output %lu (Graph slots 2, 3: outputs first) "
                        "is not a tensor index, or one named before",
                        (unsigned long)k);
            return RKNN_ERR_MODEL_INVALID;
        }
    }
    for (uint32_t i = 0; i < v->n_norms; i++) {
        rknn_model_norm_info n;
        int ret = rknn_model_norm(v, i, &n);

        if (ret != RKNN_SUCC)
            return ret;
    }
    return RKNN_SUCC;
}
