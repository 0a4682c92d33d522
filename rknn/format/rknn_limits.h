/*
 * rknn_limits.h - every limit of the runtime in one place, each with the
 * reason for its value. A model above a format limit is refused with
 * RKNN_ERR_MODEL_INVALID and a log line naming the limit; the resource
 * budgets (static pools) are build options or sized for the samples and the
 * real networks the tests run, and are refused the same way.
 */
#ifndef RKNN_LIMITS_H
#define RKNN_LIMITS_H

#include "rknn_api.h"

/* ---- the .rknn format (what one model file may describe) ------------------ */

/* Graphs in Model slot 2: static models have one; dynamic-shape models one
 * per shape set (unsupported: only graph 0 is read, the rest is counted). */
#define RKNN_MODEL_MAX_GRAPHS 16
/* Tables of one graph. FlatBuffer vectors are bounded by the file anyway;
 * these keep the linear look-ups of the loader in a known range (the largest
 * sample, PP-OCRv4 det, has 415 tensors, 170 nodes, 233 blobs). */
#define RKNN_MODEL_MAX_TENSORS 4096
#define RKNN_MODEL_MAX_NODES   4096
#define RKNN_MODEL_MAX_BLOBS   8192
/* Graph inputs or outputs, and the tensors of one node. */
#define RKNN_MODEL_MAX_IO      256
#define RKNN_MODEL_MAX_NODE_IO 1024
/* Rank of a shape, original or native: what rknn_tensor_attr.dims can hold
 * (the vendor API's RKNN_MAX_DIMS). Native weight shapes of toolkit 2.3 have
 * up to 12 entries. */
#define RKNN_MODEL_MAX_DIMS RKNN_MAX_DIMS
/* Per-channel quantisation entries of one tensor: 16-bit channel counts. */
#define RKNN_MODEL_MAX_QUANT 65536
/* mean/std entries per input (the toolkit stores 4). */
#define RKNN_MODEL_MAX_NORM_CHANNELS 16
/* LUT tensors whose blob stays out of DMA memory (more are held, unused) */
#define RKNN_MODEL_MAX_LUT_BLOBS 8
/* Relocation tables (one per relocated tensor) and their entries in all. */
#define RKNN_MODEL_MAX_RELOCS        4096
#define RKNN_MODEL_MAX_RELOC_ENTRIES 1048576
/* Task records: 16-bit task numbers of the PC on RV1106 bound one chain. */
#define RKNN_MODEL_MAX_TASKS 65536
/* Container 4 (format.md §5.1): entries of one task's register list (its
 * PC fetch amount must fit 16 bits), and the command stream built from all
 * of them (a list may be named by many tasks: the stream is bounded, not
 * the file). */
#ifndef RKNN_CONTAINER_V4
#define RKNN_CONTAINER_V4 1 /* meson option container_v4 */
#endif
#define RKNN_MODEL_MAX_V4_TASK_REGS    16384
#define RKNN_MODEL_MAX_V4_STREAM_BYTES 0x10000000u
/* Core slots of Node slot 10: 1 + 2 + 3 for the RK3588's core configurations. */
#define RKNN_MODEL_MAX_CORE_SLOTS 6
/* Operator attributes of one node, and BSON nesting inside one. */
#define RKNN_MODEL_MAX_ATTRS      256
#define RKNN_MODEL_MAX_ATTR_DEPTH 4

/* DMA alignment of every buffer the NPU reads or writes (the PC fetches the
 * stream in 64-byte lines; DMA bases of feature data are 64-byte aligned). */
#define RKNN_DMA_ALIGN 64u
/* A model's target-platform / NPU-family string ("rk3588", "RKNPU v2"). */
#define RKNN_PLATFORM_NAME_MAX 32u

/* ---- resource budgets (static memory, no heap) ----------------------------- */

/* Contexts alive at once: the meson option max_contexts (each slot is static
 * RAM, rknpu_model_mem.context_static_bytes). */
#ifndef RKNN_MAX_CONTEXTS
#define RKNN_MAX_CONTEXTS 2
#endif
/* Inputs and outputs of one model: per-context bindings are arrays of this. */
#define RKNN_CTX_MAX_INPUTS  16
#define RKNN_CTX_MAX_OUTPUTS 16
/* Custom-op nodes of one model, and the tensors of one such node. */
#define RKNN_CTX_MAX_CUSTOM_NODES 8
#define RKNN_CUSTOM_MAX_IO        8
/* Tensor-memory handles (rknn_create_mem and friends) alive at once. */
#ifndef RKNN_MAX_TENSOR_MEMS
#define RKNN_MAX_TENSOR_MEMS 32
#endif

#endif
