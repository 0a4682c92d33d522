/*
 * vnpu_cvt.c - the CNA's input converter (CVT_CON0..4, vnpu.md §5.3),
 * applied by the input loaders of vnpu_cna.c to the first <= 4 real channels
 * of int8 input. CVT_CON0[0] means bypass on RK3588/RV1106 and enable on
 * RK356x (reading (A), switchable with vnpu_set_cvt_bit0); TYPE 0:
 * ((x * scale) >> trunc) + offset, TYPE 1: ((x + offset) * scale) >> trunc,
 * floor shifts, DATA_SIGN = 0 reads bytes unsigned; the result saturates to
 * int8. The pad value is applied after it.
 */
#include "vnpu_cvt.h"

#include "vnpu_base.h"

/* CVT_CON0's truncation of channel c (four fields of one kind). */
static unsigned vnpu_cvt_trunc(uint32_t c0, unsigned c)
{
    switch (c) {
    case 0: return NPU_CNA_CVT_CON0_CVT_TRUNCATE_0_GET(c0);
    case 1: return NPU_CNA_CVT_CON0_CVT_TRUNCATE_1_GET(c0);
    case 2: return NPU_CNA_CVT_CON0_CVT_TRUNCATE_2_GET(c0);
    default: return NPU_CNA_CVT_CON0_CVT_TRUNCATE_3_GET(c0);
    }
}

/* Signed data and every channel's ((x [+ off]) * scale) >> trunc [+ off]
 * equal to x: the converter changes nothing, whichever channel set applies. */
static int vnpu_cvt_is_identity(const vnpu_task *t, uint32_t c0)
{
    if (!NPU_CNA_CVT_CON0_DATA_SIGN_GET(c0))
        return 0;
    for (unsigned c = 0; c < 4; c++) { /* CVT_CON1..4 share CVT_CON1's layout */
        uint32_t con = R(t, NPU_CNA_CVT_CON1 + 4u * c);
        if (NPU_CNA_CVT_CON1_CVT_OFFSET0_GET(con) != 0 ||
            NPU_CNA_CVT_CON1_CVT_SCALE0_GET(con) != (uint32_t)1 << vnpu_cvt_trunc(c0, c))
            return 0;
    }
    return 1;
}

int vnpu_cvt_decode(vnpu_task *t, vnpu_cvt_prog *cvt, uint32_t creal, int fp, int int4)
{
    uint32_t c0 = R(t, NPU_CNA_CVT_CON0);
    int bit0 = (int)NPU_CNA_CVT_CON0_CVT_BYPASS_GET(c0);

    cvt->creal = creal;
    cvt->on = t->cfg->cvt_bit0_enable ? bit0 : !bit0;
    if (cvt->on && vnpu_cvt_is_identity(t, c0))
        cvt->on = 0; /* e.g. RK356x identity tasks (0xA) read with bit 0 = bypass */
    if (!cvt->on)
        return 0;
    if (fp || int4)
        return vnpu_unsupported(t, NPU_CNA_CVT_CON0,
                                fp ? "the input converter on fp16 data"
                                   : "the input converter on int4 data");
    if (NPU_CNA_CVT_CON0_ROUND_TYPE_GET(c0))
        return vnpu_unsupported(t, NPU_CNA_CVT_CON0, "converter ROUND_TYPE = 1");
    if (creal > 4)
        return vnpu_unsupported(t, NPU_CNA_CVT_CON0, "the converter on more than 4 channels");
    cvt->type1 = (int)NPU_CNA_CVT_CON0_CVT_TYPE_GET(c0);
    cvt->data_signed = (int)NPU_CNA_CVT_CON0_DATA_SIGN_GET(c0);
    for (unsigned c = 0; c < 4; c++) {
        uint32_t con = R(t, NPU_CNA_CVT_CON1 + 4u * c);
        cvt->scale[c] = NPU_CNA_CVT_CON1_CVT_SCALE0_GET(con);
        cvt->off[c] = vnpu_sext(NPU_CNA_CVT_CON1_CVT_OFFSET0_GET(con), 16);
        cvt->trunc[c] = vnpu_cvt_trunc(c0, c);
    }
    return 0;
}
