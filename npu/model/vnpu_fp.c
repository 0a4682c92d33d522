/*
 * vnpu_fp.c - IEEE binary16 <-> binary32 conversions for the fp16 data
 * paths, written with integer bit operations so that they behave the same
 * on every target (no _Float16 / __fp16 dependency, no libm).
 */
#include "vnpu_base.h"

float vnpu_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t man = h & 0x3FFu;

    if (exp == 0x1F) /* inf / NaN keep their payload */
        return vnpu_f32_from_bits(sign | 0x7F800000u | (man << 13));
    if (exp != 0)
        return vnpu_f32_from_bits(sign | ((exp + 112u) << 23) | (man << 13));
    if (man == 0)
        return vnpu_f32_from_bits(sign);
    /* subnormal: normalise the mantissa */
    exp = 113;
    while (!(man & 0x400u)) {
        man <<= 1;
        exp--;
    }
    return vnpu_f32_from_bits(sign | (exp << 23) | ((man & 0x3FFu) << 13));
}

uint16_t vnpu_f32_to_f16(float f)
{
    uint32_t u = vnpu_f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t exp = (u >> 23) & 0xFFu;
    uint32_t man = u & 0x7FFFFFu;

    if (exp == 0xFF) /* inf stays inf, NaN stays a quiet NaN */
        return (uint16_t)(sign | 0x7C00u | (man ? 0x200u | (man >> 13) : 0));
    int32_t e = (int32_t)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7C00u); /* overflow: infinity */
    if (e <= 0) {
        /* subnormal half (or zero): shift the full mantissa into place */
        if (e < -10)
            return sign;
        uint32_t m = man | 0x800000u;
        unsigned shift = (unsigned)(14 - e);
        uint32_t q = m >> shift;
        uint32_t r = m & ((1u << shift) - 1u);
        uint32_t half = 1u << (shift - 1);
        if (r > half || (r == half && (q & 1u)))
            q++;
        return (uint16_t)(sign | q);
    }
    uint32_t q = ((uint32_t)e << 10) | (man >> 13);
    uint32_t r = man & 0x1FFFu;
    if (r > 0x1000u || (r == 0x1000u && (q & 1u)))
        q++; /* may carry into the exponent, up to infinity: correct */
    return (uint16_t)(sign | q);
}
