/*
 * test_float.h - IEEE 754 facts the conversion tests compute their
 * expected values from, in double and without libm (bare-metal targets).
 */
#ifndef TEST_FLOAT_H
#define TEST_FLOAT_H

#include <stdint.h>

/* 2^k, exactly. */
static inline double pow2(int k)
{
    double v = 1.0;

    for (; k > 0; k--)
        v *= 2.0;
    for (; k < 0; k++)
        v *= 0.5;
    return v;
}

/* The value of a finite binary16 code: (-1)^s x (exp == 0 ? mant x 2^-24
 * : (1024 + mant) x 2^(exp - 25)). */
static inline double f16_value(uint16_t h)
{
    uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    double v = e ? (1024.0 + m) * pow2((int)e - 25) : m * pow2(-24);

    return (h & 0x8000u) ? -v : v;
}

#endif
