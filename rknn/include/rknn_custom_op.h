/*
 * rknn_custom_op.h - RKNPU2 custom operators as implemented by rknpu-bm:
 * CPU callbacks for operators of a model that the NPU does not run.
 *
 * Source compatible with Rockchip's rknn_custom_op.h (SDK v2.0.0b0); written
 * from docs/api.md, not from the vendor file. rknpu-bm has no GPU and no
 * OpenCL: RKNN_TARGET_TYPE_GPU ops are rejected and gpu_ctx stays zero; the
 * cl_* fields exist only for layout compatibility. There is no dlopen either:
 * firmware links its ops and registers them after rknn_init().
 */
#ifndef RKNN_CUSTOM_OP_H
#define RKNN_CUSTOM_OP_H

#include <stdint.h>

#include "rknn_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An init callback returns this to use the runtime's own implementation of
 * the op instead (when it has one). */
#define RKNN_WARNING_SKIP_CUSTOM_OP_COMPUTE -14

#define RKNN_CUSTOM_OP_MAX_STR_LEN   64
#define RKNN_CUSTOM_OP_MAX_VALUE_LEN 32

/* Marks get_rknn_custom_op() in a plugin library (vendor tooling). */
#define RKNN_CUSTOM_OP_EXPORT __attribute__((visibility("default")))

/* File-name prefix of custom-op plugin libraries (librkcst_<op>.so). Plugins
 * are a Linux feature; defined for source compatibility only. */
#define RKNN_CSTOP_PLUGIN_PREFIX "librkcst_"

/* Runtime-private per-op handle ("interal" is the vendor's spelling). */
#ifdef __arm__
typedef uint32_t rknn_custom_op_interal_context;
#else
typedef uint64_t rknn_custom_op_interal_context;
#endif

/* Where an op runs. */
typedef enum _rknn_target_type {
    RKNN_TARGET_TYPE_CPU = 1,
    RKNN_TARGET_TYPE_GPU = 2, /* not supported by rknpu-bm */
    RKNN_TARGET_TYPE_MAX = 3,
    RKNPU_BM_TARGET_TYPE_ENUM_4_BYTES = 0x7fffffff /* see rknn_api.h */
} rknn_target_type;

/* OpenCL objects of a GPU op (cast to cl_context etc.); zero in rknpu-bm. */
typedef struct _rknn_gpu_op_context {
    void *cl_context;
    void *cl_command_queue;
    void *cl_kernel;
} rknn_gpu_op_context;

/* Passed to every callback of one op instance. */
typedef struct _rknn_custom_op_context {
    rknn_target_type target;
    rknn_custom_op_interal_context internal_ctx; /* runtime-private */
    rknn_gpu_op_context gpu_ctx;
    void *priv_data; /* the op's own: create in init, free in destroy */
} rknn_custom_op_context;

/* One input or output of an op: float32 (int64 if the model says so), NCHW
 * or UNDEFINED; data at (char *)mem.virt_addr + mem.offset. */
typedef struct _rknn_custom_op_tensor {
    rknn_tensor_attr attr;
    rknn_tensor_mem mem;
} rknn_custom_op_tensor;

/* One attribute of an op from the model (rknn_custom_op_get_op_attr). */
typedef struct _rknn_custom_op_attr {
    char name[RKNN_MAX_NAME_LEN];
    rknn_tensor_type dtype; /* strings come as UINT8, ints as INT64 */
    uint32_t n_elems;
    void *data; /* points into the model; do not free */
} rknn_custom_op_attr;

/* Signature of init, prepare, compute and compute_native (rknpu-bm names). */
typedef int (*rknn_custom_op_kernel_func)(rknn_custom_op_context *op_ctx,
                                          rknn_custom_op_tensor *inputs, uint32_t n_inputs,
                                          rknn_custom_op_tensor *outputs, uint32_t n_outputs);
/* Signature of destroy (rknpu-bm name). */
typedef int (*rknn_custom_op_destroy_func)(rknn_custom_op_context *op_ctx);

/* Registration record of one op type. */
typedef struct _rknn_custom_op {
    uint32_t version;                          /* the op's own version, e.g. 1 */
    rknn_target_type target;                   /* RKNN_TARGET_TYPE_CPU */
    char op_type[RKNN_MAX_NAME_LEN];           /* as in the model, e.g. "cstSoftmax" */
    char cl_kernel_name[RKNN_MAX_NAME_LEN];    /* GPU only */
    char *cl_kernel_source;                    /* GPU only */
    uint64_t cl_source_size;                   /* GPU only */
    char cl_build_options[RKNN_MAX_NAME_LEN];  /* GPU only */
    rknn_custom_op_kernel_func init;           /* optional, once at register */
    rknn_custom_op_kernel_func prepare;        /* optional, each run before compute */
    rknn_custom_op_kernel_func compute;        /* required, each run */
    rknn_custom_op_kernel_func compute_native; /* reserved: set NULL */
    rknn_custom_op_destroy_func destroy;       /* optional, in rknn_destroy */
} rknn_custom_op;

/* Type of get_rknn_custom_op() exported by a plugin library. */
typedef rknn_custom_op *(*get_custom_op_func)(void);

/* Register custom_op_num op types for ctx (after rknn_init, before the first
 * run); calls each init. The descriptions are copied: the array may be freed
 * once the call returns (the callbacks it points to must stay). CPU
 * ops only; an op type the model lacks or registers twice is an error. */
int rknn_register_custom_ops(rknn_context ctx, rknn_custom_op *op, uint32_t custom_op_num);

/* Look up attribute attr_name of the op instance op_ctx belongs to. Not
 * found: op_attr gets n_elems = 0 and data = NULL. */
void rknn_custom_op_get_op_attr(rknn_custom_op_context *op_ctx, const char *attr_name,
                                rknn_custom_op_attr *op_attr);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RKNN_CUSTOM_OP_H */
