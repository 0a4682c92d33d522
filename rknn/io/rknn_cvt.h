/*
 * rknn_cvt.h - the CNA input converter of the tasks that read a model
 * input, programmed for what the input's buffer holds (api.md §4.1).
 */
#ifndef RKNN_CVT_H
#define RKNN_CVT_H

#include <stdint.h>

#include "npu_soc.h"
#include "rknn_ctx.h"
#include "rknn_io.h"

/* What the input's buffer holds, hence the converter's program. */
enum {
    RKNN_CVT_NONE,   /* not programmed: the file's words stay */
    RKNN_CVT_CODES,  /* int8 codes: converter off, signed bytes */
    RKNN_CVT_PIXELS, /* uint8 pixels: converter on, code = pixel + offset */
    RKNN_CVT_FLOAT,  /* float16: converter off */
};

/* The register values of one program: CVT_CON0, CVT_CON1..4, CVT_CON5; and
 * for rows the native buffer pads past the width, DATA_SIZE0's width field,
 * DMA_CON1 and DMA_CON2 (0: the file's word stays; rknn_cvt.c). */
typedef struct {
    uint32_t con[9];
} rknn_cvt_words;

/* The program for an input of `channels` (1..4) channels on `soc`. */
void rknn_cvt_words_of(const npu_soc_profile *soc, uint32_t channels, int mode, int32_t offset,
                       rknn_cvt_words *w);
/* At init, after plan->native and plan->map: whether the tasks reading the
 * input may get their converter programmed, and uint8 pixels reach the NPU
 * as they are; the relocated stream confirms both (plan->cvt_checked). */
void rknn_cvt_plan(rknn_io_plan *plan);
/* The program for what input `input`'s buffer now holds (RKNN_CVT_CODES or
 * RKNN_CVT_PIXELS); rewrites the relocated stream when it changes. */
int rknn_cvt_select(rknn_ctx *ctx, uint32_t input, int mode);
/* Every programmed input's words into a freshly relocated stream. */
int rknn_cvt_apply_all(rknn_ctx *ctx);

#endif
