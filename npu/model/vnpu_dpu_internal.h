/*
 * vnpu_dpu_internal.h - what the DPU's files share and no other file
 * includes: the plan a task's DPU programming becomes, the operand buffers
 * the data path reads, and the calls between the files. The units'
 * interface stays in vnpu_units.h. The files call one way only, down this
 * list, and the base below them:
 *   vnpu_dpu_fly.c     flying mode: MRDMA input through a plan and the data
 *                      path; hands unpooling to vnpu_dpu_unpool.c
 *   vnpu_dpu_unpool.c  MRDMA unpooling (a copy; no plan)
 *   vnpu_dpu_path.c    the data path: accumulators through a plan into the
 *                      output
 *   vnpu_dpu.c         the DPU core: programming checked and latched as a plan
 */
#ifndef VNPU_DPU_INTERNAL_H
#define VNPU_DPU_INTERNAL_H

#include "vnpu_base.h"
#include "vnpu_units.h"

#define VNPU_DPU_MAX_CHANNELS 8192u /* 13-bit DATA_CUBE_CHANNEL */

enum vnpu_ew_op { VNPU_EW_ADD, VNPU_EW_MAX, VNPU_EW_MIN, VNPU_EW_SUB, VNPU_EW_MUL };

typedef struct {
    uint8_t on, alu, mul, relu, relux;
    uint8_t alu_stream, mul_stream;
    int32_t alu_reg;
    int32_t mul_reg;
    unsigned shift_pos, shift_neg;
    int32_t relux_cmp;
    float f_alu, f_mul, f_relux;
    int32_t *alu_v; /* per-channel operands from the stage's stream (raw: */
    int16_t *mul_v; /* int32/int16, or fp32/fp16 bits on the fp path) */
} vnpu_stage;

/* One LUT table's window in the index domain and its edge slopes. */
typedef struct {
    int32_t start, end;
    int64_t step;                     /* index units between entries: 2^INDEX_SELECT */
    unsigned select;                  /* INDEX_SELECT */
    uint32_t last;                    /* the window's last entry: (end - start) / step */
    float uflow_slope, oflow_slope;   /* scale / 2^shift, table units per index unit */
    int32_t uflow_scale, oflow_scale; /* the same slopes for the integer path */
    unsigned uflow_shift, oflow_shift;
} vnpu_lut_table;

typedef struct {
    vnpu_lut_table table[2];               /* [0] LE, [1] LO */
    uint8_t hybrid_lo, uflow_lo, oflow_lo; /* priorities: 1 = the LO table wins */
    const int16_t (*entries)[VNPU_LUT_ENTRIES];
} vnpu_lut;

struct vnpu_dpu_plan {
    uint32_t k, npix;
    uint32_t orig;  /* ORIG_CHANNEL + 1: the real channels (k pads them) */
    uint32_t k_out; /* channels written: whole surfaces up to orig */
    uint8_t fp;
    unsigned in_prec; /* CORE's precision: picks the MAC kernel group */
    vnpu_stage bs, bn;
    uint8_t ow, ow_stream;
    int32_t ow_reg;
    /* EW */
    uint8_t ew_on, ew_do_op, ew_cvt, ew_cvt_type1, ew_relu, ew_relux;
    enum vnpu_ew_op ew_op;
    int32_t ew_cvt_off;
    uint32_t ew_cvt_scale;
    unsigned ew_cvt_shift;
    int32_t ew_relux_cmp;
    float ew_f_relux;
    const uint8_t *ew_base;
    uint32_t ew_surf;
    unsigned ew_prec, ew_elem, ew_c2;
    uint8_t ew_per_channel; /* ERDMA operand: one value per channel (DATA_MODE 0) */
    uint8_t ew_reg_operand; /* EW operand from EW_OP_VALUE (one value for every channel) */
    int32_t ew_reg_value;
    float ew_f_reg_value;
    /* LUT (EW stage, before the EW operation; vnpu.md §7.5) */
    uint8_t lut_on;
    vnpu_lut lut;
    /* OUT_CVT */
    float oc_f_scale; /* fp path: 2^-MINUS_EXP */
    int64_t oc_scale;
    unsigned oc_shift;
    uint8_t oc_half_away;
    int32_t oc_off;
    /* output */
    uint8_t *dst;
    uint32_t dst_surf;
    unsigned out_prec, out_elem, out_c2;
    uint32_t out_pix;  /* bytes of a pixel in one surface: the atom, or 16 (vnpu.md §7.8) */
    uint32_t out_w;    /* DATA_CUBE_WIDTH + 1: pixels per output line */
    uint32_t out_line; /* bytes from one output line to the next (the notch included) */
    uint8_t nonalign;
};

/* The BS and BN operand streams' per-channel values (vnpu_dpu.c fills them
 * from BRDMA/NRDMA; the data path reads these three by name, the MUL
 * operands through the plan's stages). */
extern int32_t vnpu_bs_alu[VNPU_DPU_MAX_CHANNELS];
extern int16_t vnpu_bs_ow[VNPU_DPU_MAX_CHANNELS];
extern int32_t vnpu_bn_alu[VNPU_DPU_MAX_CHANNELS];

/* The plan of a cube of `k` channels x `npix` pixels of precision
 * `in_prec`, from CORE or (flying) from MRDMA; NULL after an error
 * (vnpu_dpu.c). */
vnpu_dpu_plan *vnpu_plan_build(vnpu_task *t, uint32_t k, uint32_t npix, unsigned in_prec,
                               int flying, int depthwise);

/* A flying task with UNPOOLING_EN: input cube `win` x `hin` x `c`
 * (vnpu_dpu_unpool.c). */
int vnpu_dpu_unpool_task(vnpu_task *t, uint32_t win, uint32_t hin, uint32_t c);

#endif /* VNPU_DPU_INTERNAL_H */
