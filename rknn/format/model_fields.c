/*
 * model_fields.c - reading one field of a FlatBuffer table of the model, the
 * bottom of the format layer above the reader (rknn_fbs.c): a vector with
 * its length limit, a string, a shape, each failure logged with the item,
 * field and table it concerns; and the check every accessor makes on the
 * view it is handed. Calls nothing in the format layer but rknn_fbs.c.
 */
#include "model_internal.h"

#include "hal.h"
#include "rknn_api.h"

/* ---- logging helpers: each returns RKNN_ERR_MODEL_INVALID ---------------- */

/* A FlatBuffer access failed: say which item, which field, which table. */
FMT_API int fmt_fb_error(const char *item, uint32_t index, const char *field,
                         const rknn_fbs_table *table, int err)
{
    HAL_LOG_ERR("rknn model: %s %lu: %s (table at payload offset 0x%lx): %s", item,
                (unsigned long)index, field, (unsigned long)(table ? table->pos : 0),
                rknn_fbs_strerror(err));
    return RKNN_ERR_MODEL_INVALID;
}

/* Element `index` of a vector of tables could not be opened. */
FMT_API int fmt_elem_error(const char *item, uint32_t index, const rknn_fbs_vector *vec, int err)
{
    HAL_LOG_ERR("rknn model: %s %lu: table (offset stored at payload offset 0x%lx): %s", item,
                (unsigned long)index, (unsigned long)(vec->pos + 4ul * index),
                rknn_fbs_strerror(err));
    return RKNN_ERR_MODEL_INVALID;
}

/* A count exceeds a documented limit. */
FMT_API int fmt_limit_error(const char *what, uint32_t count, uint32_t limit)
{
    HAL_LOG_ERR("rknn model: %s = %lu exceeds the limit %lu", what, (unsigned long)count,
                (unsigned long)limit);
    return RKNN_ERR_MODEL_INVALID;
}

FMT_API int fmt_is_error(int fbs_ret)
{
    return fbs_ret < 0;
}

/* ---- small decoding helpers ------------------------------------------------ */

/* Opens a vector field and checks its length against a limit. */
FMT_API int fmt_get_vector_limited(const rknn_fbs_table *t, uint32_t slot, uint32_t elem_size,
                                   uint32_t limit, rknn_fbs_vector *out, const char *item,
                                   uint32_t index, const char *field)
{
    int ret = rknn_fbs_get_vector(t, slot, elem_size, out);

    if (fmt_is_error(ret))
        return fmt_fb_error(item, index, field, t, ret);
    if (out->count > limit) {
        HAL_LOG_ERR("rknn model: %s %lu: %s has %lu entries, limit %lu", item, (unsigned long)index,
                    field, (unsigned long)out->count, (unsigned long)limit);
        return RKNN_ERR_MODEL_INVALID;
    }
    return RKNN_SUCC;
}

FMT_API int fmt_get_string_field(const rknn_fbs_table *t, uint32_t slot, rknn_fbs_string *out,
                                 const char *item, uint32_t index, const char *field)
{
    int ret = rknn_fbs_get_string(t, slot, out);

    return fmt_is_error(ret) ? fmt_fb_error(item, index, field, t, ret) : RKNN_SUCC;
}

/* Copies a [int] shape into dims[]; more than RKNN_MODEL_MAX_DIMS is invalid. */
FMT_API int fmt_get_shape(const rknn_fbs_table *t, uint32_t slot, uint32_t index, const char *field,
                          int32_t *dims, uint32_t *n_dims)
{
    rknn_fbs_vector v;
    int ret = fmt_get_vector_limited(t, slot, 4, RKNN_MODEL_MAX_DIMS, &v, "tensor", index, field);

    if (ret != RKNN_SUCC)
        return ret;
    for (uint32_t i = 0; i < v.count; i++) {
        ret = rknn_fbs_vec_i32(&v, i, &dims[i]);
        if (fmt_is_error(ret)) {
            /* unreachable: opened with 4-byte elements and i < count, the only refusals
               of rknn_fbs_vec_i32() */
            return fmt_fb_error("tensor", index, field, t, ret);
        }
    }
    *n_dims = v.count;
    return RKNN_SUCC;
}

FMT_API int fmt_check_view(const rknn_model_view *view)
{
    return view && view->fbs.fb.data &&
           (view->container_version == RKNN_MODEL_CONTAINER_VERSION || fmt_is_v4(view));
}
