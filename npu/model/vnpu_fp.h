/*
 * vnpu_fp.h - IEEE binary16 <-> binary32 conversions for the fp16 data
 * paths, written with integer bit operations so that they behave the same
 * on every target (no _Float16 / __fp16 dependency, no libm). Inline: the
 * data paths convert every element. Included by vnpu_base.h after the bit
 * helpers it uses.
 */
#ifndef VNPU_FP_H
#define VNPU_FP_H

/* The conversion itself; vnpu_f16_to_f32() reads its results from a table. */
static inline float vnpu_f16_to_f32_calc(uint16_t h)
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

/* binary16 -> binary32 through a table of every half's value (256 KiB,
 * filled from vnpu_f16_to_f32_calc by vnpu_init, vnpu_base.c): the data
 * paths convert every element they read, and all of them run on a device
 * vnpu_init set up. */
extern float vnpu_f16_table[65536];

static inline float vnpu_f16_to_f32(uint16_t h)
{
    return vnpu_f16_table[h];
}

/* The common case of the conversion below, a float whose half is normal
 * (exponent 1..30; vnpu_f16_normal_range), in a few integer operations:
 * rebias, then round to nearest even by adding 0xFFF plus the kept
 * mantissa's lowest bit; a carry into exponent 31 is infinity, as in the
 * general path. u: the float's bits. */
static inline int vnpu_f16_normal_range(uint32_t u)
{
    uint32_t a = u & 0x7FFFFFFFu;

    return a >= 0x38800000u && a < 0x47800000u;
}

static inline uint16_t vnpu_f32_to_f16_normal(uint32_t u)
{
    uint32_t a = u & 0x7FFFFFFFu;

    return (uint16_t)(((u >> 16) & 0x8000u) |
                      ((a - 0x38000000u + 0xFFFu + ((a >> 13) & 1u)) >> 13));
}

/* round to nearest even, overflow to inf */
static inline uint16_t vnpu_f32_to_f16(float f)
{
    uint32_t u = vnpu_f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);

    if (vnpu_f16_normal_range(u))
        return vnpu_f32_to_f16_normal(u);
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
    /* unreachable: from here on, what is left is e 1..30, a normal half,
     * which vnpu_f16_normal_range() sent to vnpu_f32_to_f16_normal() above */
    uint32_t q = ((uint32_t)e << 10) | (man >> 13);
    uint32_t r = man & 0x1FFFu;
    if (r > 0x1000u || (r == 0x1000u && (q & 1u)))
        q++; /* may carry into the exponent, up to infinity: correct */
    return (uint16_t)(sign | q);
}

/* v[0, n) as halves into h: the normal-range rounding for all of them in
 * one branch-free (vectorisable) pass; should any value need another case,
 * the whole run goes through the general conversion. */
static inline void vnpu_f32_to_f16_run(uint16_t *h, const float *v, uint32_t n)
{
    uint32_t other = 0;

    for (uint32_t j = 0; j < n; j++) {
        uint32_t u = vnpu_f32_bits(v[j]);
        other |= (uint32_t)!vnpu_f16_normal_range(u);
        h[j] = vnpu_f32_to_f16_normal(u);
    }
    if (other)
        for (uint32_t j = 0; j < n; j++)
            h[j] = vnpu_f32_to_f16(v[j]);
}

#endif
