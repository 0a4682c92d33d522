/* rknn_tensor.h - rknn_tensor_attr of model tensors (see rknn_tensor.c). */
#ifndef RKNN_TENSOR_H
#define RKNN_TENSOR_H

#include "rknn_api.h"
#include "rknn_model.h"

/* Bytes of one element, 0 for types without a byte size (INT4, unknown). */
uint32_t rknn_tensor_type_size(rknn_tensor_type t);

/* The attr the general API uses: 4-D inputs NHWC, outputs in the model's
 * shape (NCHW for 4-D), other ranks UNDEFINED. */
int rknn_tensor_user_attr(const rknn_model_tensor_info *t, uint32_t index, int is_input,
                          rknn_tensor_attr *a);

/* The attr of the buffer the NPU reads or writes (zero-copy API). */
int rknn_tensor_native_attr(const rknn_model_tensor_info *t, uint32_t index, rknn_tensor_attr *a);
/* The native type in NHWC order (RKNN_QUERY_NATIVE_NHWC_*_ATTR): the native
 * attr itself where the NPU reads NHWC, else a layout the CPU converts to
 * and from; for a tensor that is not 4-D, the native attr unchanged. */
int rknn_tensor_nhwc_attr(const rknn_model_tensor_info *t, uint32_t index, int is_input,
                          rknn_tensor_attr *a);
/* Elements of the tensor's logical shape (what a converted binding holds). */
uint32_t rknn_tensor_elems(const rknn_model_tensor_info *t);

#endif
