/* rknn_io.h - tensors, layouts and buffers of a context's inputs/outputs. */
#ifndef RKNN_IO_H
#define RKNN_IO_H

#include "rknn_convert.h"
#include "rknn_ctx.h"

/* The model tensor of input/output `index`. */
int rknn_io_tensor(const rknn_ctx *ctx, int is_input, uint32_t index, rknn_model_tensor_info *t);
/* Logical N, C, H, W of a tensor's original (NCHW) shape; other ranks
 * become N = C = H = 1, W = all elements. */
void rknn_io_logical_dims(const rknn_model_tensor_info *t, rknn_layout *l);
/* The layout of a tensor's native buffer (what the NPU reads / writes). */
int rknn_io_native_layout(const rknn_ctx *ctx, const rknn_model_tensor_info *t, rknn_layout *l);
/* How values map for a tensor (input = its input index, or UINT32_MAX). */
void rknn_io_value_map(const rknn_ctx *ctx, uint32_t input, const rknn_model_tensor_info *t,
                       const rknn_layout *native, rknn_value_map *m);
/* Where the NPU reads input / writes output `index`: a zero-copy buffer
 * bound with rknn_set_io_mem in native layout, else the output's own
 * buffer, the input's if it has one, else the context's arena at the
 * tensor's arena_offset. */
uint8_t *rknn_io_buffer(const rknn_ctx *ctx, int is_input, uint32_t index, uint32_t arena_offset);
/* How one input is converted, decided once at init (rknn_io_prepare). */
typedef struct rknn_io_plan_s {
    rknn_layout native;
    rknn_value_map map;
    uint32_t arena_offset;
    uint32_t size;       /* native bytes */
    uint8_t four_d;      /* the model's shape is 4-D */
    uint8_t cvt;         /* RKNN_CVT_*: the converter program in force (rknn_cvt.c) */
    uint8_t cvt_pixels;  /* uint8 pixels may go to the NPU as they are */
    uint8_t cvt_checked; /* the relocated stream was checked (rknn_cvt.c) */
    int8_t cvt_offset;   /* the code of pixel 0 then (rknn_convert_pixel_offset) */
    uint8_t *home;       /* own buffer (rknn_model_home_size), or NULL: the arena */
} rknn_io_plan;

/* Plan every input's conversion into a carve-out block (ctx->in_plan), so
 * rknn_inputs_set decodes nothing from the model per call; the same block
 * holds the outputs' table of own buffers (ctx->out_home, each a block of
 * its own) and the inputs' own buffers (plan.input_home_bytes). */
int rknn_io_prepare(rknn_ctx *ctx);

/* One input from an rknn_input (rknn_inputs_set and converted bindings). */
int rknn_io_set_input(rknn_ctx *ctx, const rknn_input *in);
/* One output into a caller's buffer (out->buf, out->size bytes; out->size
 * becomes the bytes written) in user_type (RKNN_TENSOR_TYPE_MAX: float32
 * with out->want_float, else the native type), NCHW (or NHWC for a 4-D
 * output when user_fmt says so), from the async snapshot of the previous
 * frame (previous_frame) or the live buffer. With alloc and no preallocated
 * buffer, into a carve-out buffer made for it (*alloc). */
int rknn_io_get_output(rknn_ctx *ctx, rknn_output *out, rknn_tensor_type user_type,
                       rknn_tensor_format user_fmt, int previous_frame, void **alloc);
/* Free the buffer rknn_outputs_get allocated for an output slot, if any;
 * all of a context's I/O blocks: those, the outputs' own buffers and the
 * input plans. */
void rknn_io_release_output(rknn_ctx *ctx, uint32_t slot);
void rknn_io_release_all(rknn_ctx *ctx);
/* Around a run, for zero-copy bindings: convert non-native input bindings
 * into the arena and clean native ones; afterwards convert the arena into
 * non-native output bindings and invalidate native ones. */
int rknn_io_before_run(rknn_ctx *ctx);
int rknn_io_after_run(rknn_ctx *ctx);

#endif
