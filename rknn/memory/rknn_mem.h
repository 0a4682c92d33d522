/* rknn_mem.h - zero-copy bindings, for the context life cycle (rknn_init.c). */
#ifndef RKNN_MEM_H
#define RKNN_MEM_H

#include "rknn_ctx.h"

/* Once the constants and the arena are bound (at init, or by
 * rknn_set_weight_mem / rknn_set_internal_mem), relocate the stream and
 * point it at the bound I/O buffers; RKNN_SUCC while something is missing. */
int rknn_mem_relocate_when_complete(rknn_ctx *ctx);

#endif
