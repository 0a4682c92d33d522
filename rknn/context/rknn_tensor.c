/*
 * rknn_tensor.c - rknn_tensor_attr for a model's inputs and outputs, in the
 * user-facing layout (NHWC inputs, NCHW outputs, as the vendor runtime
 * reports them) and in the NPU's native layout (packed NHWC for 1/3/4
 * channel inputs, NC1HWC2 otherwise).
 */
#include <string.h>

#include "hal.h"
#include "rknn_tensor.h"

static int rknn_tensor_type_from_model(int dtype, rknn_tensor_type *out)
{
    /* 1 + the tensor type of each model data type an input or output may
     * have (0: none) */
    static const uint8_t io_type[] = {
        [RKNN_MODEL_DTYPE_INT8] = 1 + RKNN_TENSOR_INT8,
        [RKNN_MODEL_DTYPE_INT16] = 1 + RKNN_TENSOR_INT16,
        [RKNN_MODEL_DTYPE_INT32] = 1 + RKNN_TENSOR_INT32,
        [RKNN_MODEL_DTYPE_INT64] = 1 + RKNN_TENSOR_INT64,
        [RKNN_MODEL_DTYPE_FLOAT16] = 1 + RKNN_TENSOR_FLOAT16,
        [RKNN_MODEL_DTYPE_FLOAT32] = 1 + RKNN_TENSOR_FLOAT32,
    };

    if ((unsigned)dtype >= sizeof io_type || !io_type[dtype])
        return RKNN_ERR_MODEL_INVALID;
    *out = (rknn_tensor_type)(io_type[dtype] - 1);
    return RKNN_SUCC;
}

uint32_t rknn_tensor_type_size(rknn_tensor_type t)
{
    switch (t) {
    case RKNN_TENSOR_INT8:
    case RKNN_TENSOR_UINT8:
    case RKNN_TENSOR_BOOL: return 1;
    case RKNN_TENSOR_FLOAT16:
    case RKNN_TENSOR_BFLOAT16:
    case RKNN_TENSOR_INT16:
    case RKNN_TENSOR_UINT16: return 2;
    case RKNN_TENSOR_FLOAT32:
    case RKNN_TENSOR_INT32:
    case RKNN_TENSOR_UINT32: return 4;
    case RKNN_TENSOR_INT64: return 8;
    default: return 0;
    }
}

/* Name, type and quantisation: the same in every layout. */
static int fill_common(const rknn_model_tensor_info *t, uint32_t index, rknn_tensor_attr *a)
{
    int ret;

    memset(a, 0, sizeof *a);
    a->index = index;
    rknn_model_string_copy(t->name, a->name, sizeof a->name);
    ret = rknn_tensor_type_from_model(t->dtype, &a->type);
    if (ret != RKNN_SUCC) { /* untested: the shared models' inputs and outputs are int8, fp16 */
        HAL_LOG_ERR("tensor '%s': data type %d is not an I/O type rknpu-bm supports", a->name,
                    t->dtype);
        return ret;
    }
    a->qnt_type = RKNN_TENSOR_QNT_NONE;
    if (t->n_scales > 0 && t->n_zero_points > 0) {
        int32_t zp = 0;
        float scale = 0;
        if (rknn_model_tensor_scale(t, 0, &scale) != RKNN_SUCC ||
            rknn_model_tensor_zero_point(t, 0, &zp) != RKNN_SUCC)
            return RKNN_ERR_MODEL_INVALID; /* unreachable: element 0 of bounds-checked vectors */
        a->qnt_type = RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC;
        a->zp = zp;
        a->scale = scale;
    } else if (a->type == RKNN_TENSOR_FLOAT16 || a->type == RKNN_TENSOR_FLOAT32) {
        /* as Rockchip's runtime answers (1.6.0, compat.md): a float tensor
         * is AFFINE with scale 1 and zero point 0, i.e. value = stored */
        a->qnt_type = RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC;
        a->scale = 1.0f;
    }
    return RKNN_SUCC;
}

static int dims_valid(const int32_t *d, uint32_t n)
{
    if (n == 0 || n > RKNN_MAX_DIMS)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (d[i] <= 0)
            return 0;
    return 1;
}

static uint32_t elems_of(const rknn_tensor_attr *a)
{
    uint64_t n = 1;

    for (uint32_t i = 0; i < a->n_dims; i++)
        n *= a->dims[i];
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* The attr's shape: its format and n dims (valid), its element count and
 * bytes, size_with_stride the same (w_stride left to the caller). */
static void set_shape(rknn_tensor_attr *a, rknn_tensor_format fmt, const int32_t *dims, uint32_t n)
{
    a->fmt = fmt;
    a->n_dims = n;
    for (uint32_t i = 0; i < n; i++)
        a->dims[i] = (uint32_t)dims[i];
    a->n_elems = elems_of(a);
    a->size = a->n_elems * rknn_tensor_type_size(a->type);
    a->size_with_stride = a->size;
}

/* The same with NCHW dims given in NHWC order (the vendor's for 4-D
 * inputs, and the NHWC native query's). */
static void set_nhwc_shape(rknn_tensor_attr *a, const int32_t *nchw)
{
    const int32_t nhwc[4] = {nchw[0], nchw[2], nchw[3], nchw[1]};

    set_shape(a, RKNN_TENSOR_NHWC, nhwc, 4);
}

int rknn_tensor_user_attr(const rknn_model_tensor_info *t, uint32_t index, int is_input,
                          rknn_tensor_attr *a)
{
    int ret;

    /* Inputs are fed NHWC (the vendor convention for 4-D inputs): the NHWC
     * attribute, a packed-NHWC native's padded rows too, as Rockchip's
     * runtime 1.6.0 answers (api.md §2.3). */
    if (t->n_dims == 4 && is_input)
        return rknn_tensor_nhwc_attr(t, index, 1, a);
    ret = fill_common(t, index, a);
    if (ret != RKNN_SUCC)
        return ret;
    if (!dims_valid(t->dims, t->n_dims)) {
        HAL_LOG_ERR("tensor '%s': shape is not valid", a->name);
        return RKNN_ERR_MODEL_INVALID;
    }
    set_shape(a, t->n_dims == 4 ? RKNN_TENSOR_NCHW : RKNN_TENSOR_UNDEFINED, t->dims, t->n_dims);
    return RKNN_SUCC;
}

#if RKNN_CONTAINER_V4
/* Container 2 (toolkit 1.3.4) gives an NC1HWC2 tensor the C1 of its channels
 * where the NPU writes more surfaces: multiple_input_demo's output has 8
 * channels, native [1,1,128,128,16], but its DPU computes 32 (two 16-channel
 * surfaces) and the tensor's size is 524,288 bytes. Rockchip's runtime 1.6.0
 * answers C1 = 2, as the same network's container-6 file says: the surfaces
 * the size holds, so a zero-copy buffer of the native size takes them. */
static void v2_surfaces(const rknn_model_tensor_info *t, rknn_tensor_attr *a)
{
    uint32_t surface = a->size / a->dims[1];

    if (t->c1_from_size && surface && t->size % surface == 0 && t->size / surface > a->dims[1]) {
        a->dims[1] = t->size / surface;
        a->n_elems = elems_of(a);
        a->size = a->size_with_stride = t->size;
    }
}
#endif

int rknn_tensor_native_attr(const rknn_model_tensor_info *t, uint32_t index, rknn_tensor_attr *a)
{
    const int32_t *nd = t->native_dims;
    uint32_t elem;
    int ret = fill_common(t, index, a);

    if (ret != RKNN_SUCC)
        return ret;
    if (!dims_valid(nd, t->n_native_dims) || !dims_valid(t->dims, t->n_dims)) {
        HAL_LOG_ERR("tensor '%s': native shape is not valid", a->name);
        return RKNN_ERR_MODEL_INVALID;
    }
    elem = rknn_tensor_type_size(a->type);
    a->n_elems = rknn_tensor_elems(t);
    a->size = t->size;
    a->size_with_stride = t->size;
    if (t->n_native_dims == 5 && nd[1] == 1 && t->n_dims == 4 && nd[4] == t->dims[1]) {
        /* Packed NHWC (first-layer inputs with 1, 3 or 4 channels); rows may
         * be padded: the stride is what the tensor's byte size implies (row
         * is 0 only when a file's dims wrap 64 bits: no stride then). */
        uint64_t row = (uint64_t)nd[0] * (uint32_t)nd[2] * (uint32_t)nd[4] * elem;
        a->fmt = RKNN_TENSOR_NHWC;
        a->n_dims = 4;
        a->dims[0] = (uint32_t)nd[0];
        a->dims[1] = (uint32_t)nd[2];
        a->dims[2] = (uint32_t)nd[3];
        a->dims[3] = (uint32_t)nd[4];
        a->w_stride = row && t->size % row == 0 ? (uint32_t)(t->size / row) : a->dims[2];
        a->size = a->n_elems * elem;
    } else if (t->n_native_dims == 5) {
        /* As Rockchip's runtime 1.6.0 answers (compat.md): the element count
         * and bytes of the padded dims (the file may reserve more: PP-OCRv4's
         * output, twice), w_stride 0 (the dims say the layout). */
        set_shape(a, RKNN_TENSOR_NC1HWC2, nd, 5);
#if RKNN_CONTAINER_V4
        v2_surfaces(t, a);
#endif
    } else {
        /* 4-D natives the NPU may hold as NC1HWC2 (fp16 outputs): the vendor
         * answers the NCHW form, which a binding gets converted (rknn_mem.c). */
        a->fmt = t->n_native_dims == 4 ? RKNN_TENSOR_NCHW : RKNN_TENSOR_UNDEFINED;
        a->n_dims = t->n_native_dims;
        for (uint32_t i = 0; i < t->n_native_dims; i++)
            a->dims[i] = (uint32_t)nd[i];
        a->size = a->n_elems * elem;
        a->size_with_stride = a->size;
    }
    return RKNN_SUCC;
}

uint32_t rknn_tensor_elems(const rknn_model_tensor_info *t)
{
    uint64_t n = 1;

    for (uint32_t i = 0; i < t->n_dims && i < RKNN_MAX_DIMS; i++)
        n *= t->dims[i] > 0 ? (uint32_t)t->dims[i] : 0u;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

int rknn_tensor_nhwc_attr(const rknn_model_tensor_info *t, uint32_t index, int is_input,
                          rknn_tensor_attr *a)
{
    int ret = rknn_tensor_native_attr(t, index, a);

    if (ret != RKNN_SUCC || a->fmt == RKNN_TENSOR_NHWC)
        return ret;
    if (t->n_dims != 4) {
        /* No NHWC form: the native attr itself (vendor code asks this for
         * every output of a model and aborts on an error). untested: every
         * input and output of the shared models is 4-D. */
        HAL_LOG_INFO("tensor '%s': %lu-D, no NHWC layout; the native attribute is the answer",
                     a->name, (unsigned long)t->n_dims);
        return RKNN_SUCC;
    }
    /* The native type in NHWC order, converted by the CPU (rknn_set_io_mem
     * binds it as a converted buffer). */
    set_nhwc_shape(a, t->dims);
    /* the vendor answers w_stride 0 for outputs (compat.md) */
    a->w_stride = is_input ? a->dims[2] : 0;
    return RKNN_SUCC;
}
