/*
 * client_common.c - what the clients that run a model on either runtime
 * (diff_client, bench_client) share: half floats, the pseudo-random
 * numbers, and the custom CPU operator of dual_residual_custom
 * (cstDualResidual: out0 = x*alpha - y, out1 = y*alpha - x;
 * shared/models/README.md), registered as an application does.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "diff_client.h"
#include "rknn_custom_op.h"

/* ---- numbers ----------------------------------------------------------------- */

uint16_t half_from_float(float f)
{
    uint32_t x, sign, mant;
    int exp;

    memcpy(&x, &f, 4);
    sign = (x >> 16) & 0x8000u;
    exp = (int)((x >> 23) & 0xFF) - 127 + 15;
    mant = x & 0x7FFFFFu;
    if (((x >> 23) & 0xFF) == 0xFF) /* inf, nan */
        return (uint16_t)(sign | 0x7C00u | (mant ? 0x200u : 0));
    if (exp >= 31)
        return (uint16_t)(sign | 0x7C00u);
    if (exp <= 0) { /* subnormal or zero */
        uint32_t shift, m, half, rest;
        if (exp < -10)
            return (uint16_t)sign;
        m = mant | 0x800000u;
        shift = (uint32_t)(14 - exp);
        half = 1u << (shift - 1);
        rest = m & ((1u << shift) - 1);
        m >>= shift;
        if (rest > half || (rest == half && (m & 1)))
            m++;
        return (uint16_t)(sign | m);
    }
    {
        uint32_t h = sign | (uint32_t)exp << 10 | mant >> 13;
        uint32_t rest = mant & 0x1FFFu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
            h++; /* may carry into the exponent: still right */
        return (uint16_t)h;
    }
}

float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1F, mant = h & 0x3FFu, x;
    float f;

    if (exp == 0) {
        f = ldexpf((float)mant, -24);
        return sign ? -f : f;
    }
    if (exp == 31)
        x = sign | 0x7F800000u | mant << 13;
    else
        x = sign | (exp + 112) << 23 | mant << 13;
    memcpy(&f, &x, 4);
    return f;
}

uint32_t prng_next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* ---- the custom operator ---------------------------------------------------- */

static float op_alpha;

static int op_init(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *in, uint32_t n_in,
                   rknn_custom_op_tensor *out, uint32_t n_out)
{
    rknn_custom_op_attr a;

    (void)in, (void)out, (void)n_in, (void)n_out;
    memset(&a, 0, sizeof a);
    rknn_custom_op_get_op_attr(op_ctx, "alpha", &a);
    if (a.dtype != RKNN_TENSOR_FLOAT32 || a.n_elems != 1 || !a.data)
        return -1;
    memcpy(&op_alpha, a.data, sizeof op_alpha);
    return 0;
}

static int op_compute(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *in, uint32_t n_in,
                      rknn_custom_op_tensor *out, uint32_t n_out)
{
    const float *x, *y;
    float *o0, *o1;

    (void)op_ctx;
    if (n_in != 2 || n_out != 2 || in[0].attr.type != RKNN_TENSOR_FLOAT32)
        return -1;
    x = (const float *)((uint8_t *)in[0].mem.virt_addr + in[0].mem.offset);
    y = (const float *)((uint8_t *)in[1].mem.virt_addr + in[1].mem.offset);
    o0 = (float *)((uint8_t *)out[0].mem.virt_addr + out[0].mem.offset);
    o1 = (float *)((uint8_t *)out[1].mem.virt_addr + out[1].mem.offset);
    for (uint32_t i = 0; i < in[0].attr.n_elems; i++) {
        o0[i] = x[i] * op_alpha - y[i];
        o1[i] = y[i] * op_alpha - x[i];
    }
    return 0;
}

static rknn_custom_op dual_op;

int client_register_dual_op(rknn_context ctx)
{
    memset(&dual_op, 0, sizeof dual_op);
    dual_op.version = 1;
    dual_op.target = RKNN_TARGET_TYPE_CPU;
    strncpy(dual_op.op_type, "cstDualResidual", RKNN_MAX_NAME_LEN - 1);
    dual_op.init = op_init;
    dual_op.compute = op_compute;
    return rknn_register_custom_ops(ctx, &dual_op, 1);
}
