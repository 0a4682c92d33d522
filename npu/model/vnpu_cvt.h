/*
 * vnpu_cvt.h - the CNA's input converter (vnpu_cvt.c, vnpu.md §5.3), a part
 * of the CNA unit: only vnpu_cna.c includes it.
 */
#ifndef VNPU_CVT_H
#define VNPU_CVT_H

#include <stdint.h>

#include "vnpu_base.h"

/* The converter as a task programs it (CVT_CON0..4). */
typedef struct {
    int on, type1, data_signed;
    uint32_t creal; /* real channels: the converter changes channels below it */
    int64_t scale[4], off[4];
    unsigned trunc[4];
} vnpu_cvt_prog;

/* Decode the task's converter for int8 (neither fp nor int4) input of
 * `creal` real channels; -1 after an error naming CVT_CON0. */
int vnpu_cvt_decode(vnpu_task *t, vnpu_cvt_prog *cvt, uint32_t creal, int fp, int int4);

/* Converted int8 value of raw byte b of channel c (inline: it runs for
 * every input element). */
static inline int8_t vnpu_cvt_apply(const vnpu_cvt_prog *cvt, uint8_t b, uint32_t c)
{
    int64_t x;

    if (!cvt->on || c >= cvt->creal)
        return (int8_t)b;
    x = cvt->data_signed ? (int64_t)(int8_t)b : (int64_t)b;
    if (cvt->type1)
        x = vnpu_shift_floor((x + cvt->off[c]) * cvt->scale[c], cvt->trunc[c]);
    else
        x = vnpu_shift_floor(x * cvt->scale[c], cvt->trunc[c]) + cvt->off[c];
    return (int8_t)vnpu_clamp64(x, -128, 127);
}

#endif
