/*
 * rknn_convert.h - data conversion between the application's tensors and
 * the NPU's native buffers: layouts (NHWC / NCHW / packed NHWC with a row
 * stride / NC1HWC2), element types, normalisation and (de)quantisation.
 */
#ifndef RKNN_CONVERT_H
#define RKNN_CONVERT_H

#include <stdint.h>

#include "rknn_api.h"

typedef enum {
    RKNN_LAYOUT_NCHW,    /* plain, also for non-4-D tensors */
    RKNN_LAYOUT_NHWC,    /* rows of w_stride pixels of C channels */
    RKNN_LAYOUT_NC1HWC2, /* ceil(C/C2) surfaces of H x W atoms of C2 channels */
} rknn_layout_kind;

/* A 4-D buffer: logical N, C, H, W plus how it is laid out. */
typedef struct {
    rknn_layout_kind kind;
    uint32_t n, c, h, w;
    uint32_t w_stride; /* NHWC: pixels per row (>= w) */
    uint32_t c2;       /* NC1HWC2: channels per atom */
    uint32_t c1;       /* NC1HWC2: surfaces (>= ceil(c / c2)) */
    rknn_tensor_type type;
} rknn_layout;

/* Bytes the layout occupies. */
uint64_t rknn_layout_bytes(const rknn_layout *l);

/* How values map between the user's and the NPU's representation. */
typedef struct {
    float mean[4], std[4]; /* input normalisation, per channel (c % 4); std != 0 */
    int normalise;         /* apply mean/std */
    float scale;           /* affine quantisation of the NPU side (int8) */
    int32_t zp;
    int quantised;        /* NPU side is affine int8 */
    int32_t store_offset; /* added to the stored int8 code (uint8 pixels for the converter: +128) */
    int by_product;       /* dequantise as code * scale - zp * scale (RK356x; api.md §4) */
} rknn_value_map;

/* user -> native: read `src` in layout `from` (any supported user type),
 * write `dst` in layout `to` (INT8 or FLOAT16 native). Padding (row stride,
 * channel tail of the last surface) is filled with the zero point / 0. */
int rknn_convert_input(const rknn_layout *from, const void *src, const rknn_layout *to, void *dst,
                       const rknn_value_map *map);

/* 1 when every uint8 pixel p of every channel converts to the code
 * p + *offset without saturating (the CNA's input converter can then do the
 * conversion, rknn_cvt.c); 0 otherwise. */
int rknn_convert_pixel_offset(const rknn_value_map *map, int32_t *offset);

/* native -> user: read `src` in layout `from`, write `dst` in layout `to`
 * as `to->type`: INT8, UINT8, INT16, INT32, FLOAT16 or FLOAT32 into its own
 * type (codes copied), FLOAT32 from INT8 (dequantised), FLOAT16, INT16 or
 * INT32, FLOAT16 from INT8 (dequantised) or FLOAT32, UINT8 from INT8
 * (code + 128). -1 for any other pair or different shapes. */
int rknn_convert_output(const rknn_layout *from, const void *src, const rknn_layout *to, void *dst,
                        const rknn_value_map *map);

/* IEEE binary16 <-> binary32, round to nearest even. */
uint16_t rknn_f32_to_f16(float f);
float rknn_f16_to_f32(uint16_t h);

#endif
