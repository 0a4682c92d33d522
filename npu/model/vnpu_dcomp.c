/*
 * vnpu_dcomp.c - the CNA's weight decompressor (DCOMP_CTRL = 1, vnpu.md §6.2),
 * called by the weight loader in vnpu_cna.c.
 *
 * RKNN-Toolkit2 1.3.4's compressed RK3588 weights, decoded into the native
 * layout before the weight loader reads them. The native weights are cut into
 * 64-byte blocks; stream s (0..15) holds the 32-bit word s of every block.
 * Each stream is a 16-byte header and a bitstream read LSB first, at
 * DCOMP_ADDR0 plus the 64-byte-aligned sizes of the streams before it,
 * (DCOMP_AMOUNTn + 1) x 16 bytes each. A symbol is a prefix code, an index
 * into the header's class table, followed by the class's payload bits; the
 * byte is the header's base plus the delta. What the one measured file does
 * not show is refused, never guessed.
 */
#include <stdio.h>
#include <string.h>

#include "vnpu_base.h"
#include "vnpu_dcomp.h"

#define VNPU_DCOMP_STREAMS      16u
#define VNPU_DCOMP_BLOCK        64u /* native bytes, one 32-bit word of every stream */
#define VNPU_DCOMP_WORD         4u  /* native bytes of one stream per block */
#define VNPU_DCOMP_UNIT         16u /* bytes counted by DCOMP_AMOUNTn; also the header */
#define VNPU_DCOMP_STREAM_ALIGN 64u
#define VNPU_DCOMP_BYTES        (1024u * 1024u) /* native weights the model holds */
#define VNPU_DCOMP_SYMBOLS      8u              /* entries of the class table */
#define VNPU_DCOMP_MAX_CLASS    7u              /* classes seen; 8 is listed, never used */

/* Header byte 0, the two stream kinds seen (vnpu.md §6.2). */
enum vnpu_dcomp_kind {
    VNPU_DCOMP_ZIGZAG = 0,  /* 0x00: zigzag deltas, no zero runs */
    VNPU_DCOMP_SIGNMAG = 17 /* 0x11: sign-magnitude deltas, zero runs */
};

static uint8_t vnpu_dcomp_out[VNPU_DCOMP_BYTES];

/* The prefix code: symbol i is code[i].len bits that, read LSB first,
 * form code[i].bits. Fixed: the same in every stream seen. */
static const struct {
    uint8_t len, bits;
} vnpu_dcomp_code[VNPU_DCOMP_SYMBOLS] = {
    {2, 0}, {2, 1}, {3, 7}, {3, 3}, {3, 6}, {4, 10}, {5, 18}, {5, 2},
};

typedef struct {
    const uint8_t *p;
    uint64_t nbits, pos;
} vnpu_bits;

/* n bits LSB first; -1 past the stream's AMOUNT. */
static int vnpu_bits_read(vnpu_bits *b, unsigned n, uint32_t *v)
{
    uint32_t x = 0;

    if (n > b->nbits - b->pos)
        return -1;
    for (unsigned i = 0; i < n; i++, b->pos++)
        x |= (uint32_t)((b->p[b->pos / 8u] >> (b->pos % 8u)) & 1u) << i;
    *v = x;
    return 0;
}

/* The next symbol's index, -1 past the end. Every 5-bit pattern starts with
 * one of the eight codes, so the loop always finds one. */
static int vnpu_dcomp_symbol(vnpu_bits *b)
{
    uint32_t acc = 0, bit;

    for (unsigned len = 1; len <= 5u; len++) {
        if (vnpu_bits_read(b, 1, &bit) != 0)
            return -1;
        acc |= bit << (len - 1u);
        for (unsigned i = 0; i < VNPU_DCOMP_SYMBOLS; i++)
            if (vnpu_dcomp_code[i].len == len && vnpu_dcomp_code[i].bits == acc)
                return (int)i;
    }
    return -1;
}

typedef struct {
    unsigned index;
    uint32_t addr;
    uint8_t kind;
    int32_t base;
    uint8_t cls[VNPU_DCOMP_SYMBOLS];
    uint16_t run[4];
} vnpu_dcomp_stream;

/* "CNA_DCOMP_ADDR0 = 0x...: weight stream n (at 0x...) <what> not modelled". */
static int vnpu_dcomp_refuse(vnpu_task *t, uint32_t reg, const vnpu_dcomp_stream *s,
                             const char *what)
{
    char msg[160];

    snprintf(msg, sizeof msg, "weight stream %u (at 0x%08lx) %s", s->index, (unsigned long)s->addr,
             what);
    return vnpu_unsupported(t, reg, msg);
}

static int vnpu_dcomp_header(vnpu_task *t, vnpu_dcomp_stream *s, const uint8_t *h)
{
    char what[64];

    s->kind = h[0];
    s->base = vnpu_sext(vnpu_ld16(h + 1), 16);
    for (unsigned i = 0; i < VNPU_DCOMP_SYMBOLS; i++)
        s->cls[i] = i % 2u ? h[4u + i / 2u] / 16u : h[4u + i / 2u] % 16u;
    for (unsigned i = 0; i < 4u; i++)
        s->run[i] = vnpu_ld16(h + 8u + 2u * i);
    if (s->kind != VNPU_DCOMP_ZIGZAG && s->kind != VNPU_DCOMP_SIGNMAG) {
        snprintf(what, sizeof what, "with header byte 0 = 0x%02x (not one of the two kinds seen)",
                 (unsigned)s->kind);
        return vnpu_dcomp_refuse(t, NPU_CNA_DCOMP_ADDR0, s, what);
    }
    /* int8 weights: the bases seen are int8 values, header byte 3 is 0 */
    if (s->base < -128 || s->base > 127 || h[3] != 0)
        return vnpu_dcomp_refuse(t, NPU_CNA_DCOMP_ADDR0, s,
                                 "with a base outside int8 or header byte 3 set");
    if (s->kind == VNPU_DCOMP_ZIGZAG && (s->run[0] | s->run[1] | s->run[2] | s->run[3]) != 0)
        return vnpu_dcomp_refuse(t, NPU_CNA_DCOMP_ADDR0, s, "of kind 0 with zero-run lengths");
    if (s->kind == VNPU_DCOMP_SIGNMAG && (s->run[0] == 0 || s->run[0] > VNPU_DCOMP_WORD))
        return vnpu_dcomp_refuse(t, NPU_CNA_DCOMP_ADDR0, s, "with a first zero run outside 1..4");
    return 0;
}

/* A stream ran out of payload bits before its bytes were complete. */
static int vnpu_dcomp_overrun(vnpu_task *t, const vnpu_dcomp_stream *s)
{
    return vnpu_dcomp_refuse(t, NPU_CNA_DCOMP_AMOUNT0 + 4u * s->index, s,
                             "running past its AMOUNT of 16-byte units (an overrun)");
}

/* The delta of one symbol of class k; -1 after an error. A zero run of the
 * sign-magnitude kind is returned in *run (bytes equal to the base). */
static int vnpu_dcomp_delta(vnpu_task *t, const vnpu_dcomp_stream *s, vnpu_bits *b, unsigned k,
                            int32_t *delta, uint32_t *run)
{
    uint32_t v, code;

    *run = 0;
    if (k > VNPU_DCOMP_MAX_CLASS)
        return vnpu_dcomp_refuse(t, NPU_CNA_DCOMP_ADDR0, s, "using payload class 8");
    if (s->kind == VNPU_DCOMP_ZIGZAG) {
        /* class 0 is codes 0 and 1, class k >= 1 is [2^k, 2^(k+1)) */
        if (vnpu_bits_read(b, k ? k : 1u, &v) != 0)
            return vnpu_dcomp_overrun(t, s);
        code = k ? (1u << k) + v : v;
        *delta = code % 2u ? -(int32_t)((code + 1u) / 2u) : (int32_t)(code / 2u);
        return 0;
    }
    if (k == 0) {
        /* a zero run: a selector follows; "0" picks the first length, the
         * others never occur in the file the format comes from */
        if (vnpu_bits_read(b, 1, &v) != 0)
            return vnpu_dcomp_overrun(t, s);
        if (v != 0)
            return vnpu_dcomp_refuse(t, NPU_CNA_DCOMP_ADDR0, s, "selecting another zero run");
        *delta = 0;
        *run = s->run[0];
        return 0;
    }
    if (k < VNPU_DCOMP_MAX_CLASS) {
        if (vnpu_bits_read(b, k, &v) != 0)
            return vnpu_dcomp_overrun(t, s);
        code = (1u << k) + v;
    } else {
        /* class 7: 8 bits, the code modulo 256; 1 stands for 257 (-128),
         * the only value below 128 a wrapped int8 delta needs */
        if (vnpu_bits_read(b, 8, &v) != 0)
            return vnpu_dcomp_overrun(t, s);
        if (v < 128u && v != 1u)
            return vnpu_dcomp_refuse(t, NPU_CNA_DCOMP_ADDR0, s,
                                     "with a class-7 code below 128 other than 1");
        code = v < 128u ? v + 256u : v;
    }
    *delta = code % 2u ? -(int32_t)(code / 2u) : (int32_t)(code / 2u);
    return 0;
}

/* Decode stream s into its words of the `blocks` native blocks. */
static int vnpu_dcomp_stream_decode(vnpu_task *t, vnpu_dcomp_stream *s, uint32_t amount,
                                    uint64_t blocks)
{
    uint64_t len = ((uint64_t)amount + 1u) * VNPU_DCOMP_UNIT;
    uint64_t n = blocks * VNPU_DCOMP_WORD, i = 0;
    const uint8_t *h = vnpu_dma_read(t, s->addr, len, "CNA compressed weights");
    vnpu_bits b;

    if (h == NULL || vnpu_dcomp_header(t, s, h) != 0)
        return -1;
    b = (vnpu_bits){h + VNPU_DCOMP_UNIT, (uint64_t)amount * VNPU_DCOMP_UNIT * 8u, 0};
    while (i < n) {
        int sym = vnpu_dcomp_symbol(&b);
        int32_t delta = 0;
        uint32_t run = 0;

        if (sym < 0)
            return vnpu_dcomp_overrun(t, s);
        if (vnpu_dcomp_delta(t, s, &b, s->cls[sym], &delta, &run) != 0)
            return -1;
        if (run > n - i)
            return vnpu_dcomp_overrun(t, s);
        for (uint32_t r = 0; r < (run ? run : 1u); r++, i++)
            vnpu_dcomp_out[(i / VNPU_DCOMP_WORD) * VNPU_DCOMP_BLOCK + s->index * VNPU_DCOMP_WORD +
                           i % VNPU_DCOMP_WORD] = (uint8_t)(s->base + delta);
    }
    return 0;
}

/* 1 if DCOMP_CTRL asks for compressed weights, 0 if the weights are plain,
 * -1 after an error (programming the model has not established). */
int vnpu_dcomp_enabled(vnpu_task *t, unsigned prec)
{
    uint32_t ctrl = R(t, NPU_CNA_DCOMP_CTRL), regnum = R(t, NPU_CNA_DCOMP_REGNUM);

    if (ctrl == 0)
        return 0;
    if (ctrl != NPU_CNA_DCOMP_CTRL_DECOMP_CONTROL(1))
        return vnpu_unsupported(t, NPU_CNA_DCOMP_CTRL, "this weight decompressor setting (only 1)");
    if (t->dev->soc->id != RKNPU_SOC_RK3588)
        return vnpu_unsupported(t, NPU_CNA_DCOMP_CTRL, "weight decompression outside RK3588");
    if (prec != VNPU_PREC_INT8) /* only int8 weights were seen compressed */
        return vnpu_unsupported(t, NPU_CNA_DCOMP_CTRL,
                                prec == VNPU_PREC_FP16 ? "weight decompression of fp16 weights"
                                                       : "weight decompression of int4 weights");
    for (unsigned s = 0; s < VNPU_DCOMP_STREAMS; s++)
        if (npu_field_get(
                regnum, NPU_CNA_DCOMP_REGNUM_STREAM0_SHIFT + s * NPU_CNA_DCOMP_REGNUM_STREAM0_WIDTH,
                NPU_CNA_DCOMP_REGNUM_STREAM0_WIDTH) != 1u)
            return vnpu_unsupported(t, NPU_CNA_DCOMP_REGNUM, "a weight stream field other than 1");
    return 1;
}

/* The `total` bytes of native weights decoded from the 16 streams at
 * DCOMP_ADDR0, or NULL after an error naming the register. */
const uint8_t *vnpu_dcomp_weights(vnpu_task *t, uint64_t total)
{
    uint32_t addr = R(t, NPU_CNA_DCOMP_ADDR0);
    uint64_t at = addr;

    if (addr % VNPU_DCOMP_STREAM_ALIGN != 0) {
        vnpu_unsupported(t, NPU_CNA_DCOMP_ADDR0, "compressed weights not 64-byte aligned");
        return NULL;
    }
    if (total % VNPU_DCOMP_BLOCK != 0) {
        vnpu_unsupported(t, NPU_CNA_WEIGHT_SIZE0,
                         "compressed weights that are not whole 64-byte blocks");
        return NULL;
    }
    if (total > VNPU_DCOMP_BYTES) {
        vnpu_fail(t, VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR,
                  "%llu bytes of compressed weights exceed the model's %lu-byte buffer "
                  "(not modelled)",
                  (unsigned long long)total, (unsigned long)VNPU_DCOMP_BYTES);
        return NULL;
    }
    for (unsigned s = 0; s < VNPU_DCOMP_STREAMS; s++) {
        uint32_t amount = R(t, NPU_CNA_DCOMP_AMOUNT0 + 4u * s);
        vnpu_dcomp_stream st = {.index = s};

        /* amounts that push a stream past 32 bits: a DMA error like any other */
        if (at > UINT32_MAX) {
            vnpu_fail(t, VNPU_INT_DMA_READ_ERROR,
                      "CNA compressed weight stream %u starts past the 32-bit address space", s);
            return NULL;
        }
        st.addr = (uint32_t)at;
        if (vnpu_dcomp_stream_decode(t, &st, amount, total / VNPU_DCOMP_BLOCK) != 0)
            return NULL;
        at += ((uint64_t)amount + 1u) * VNPU_DCOMP_UNIT;
        at =
            (at + VNPU_DCOMP_STREAM_ALIGN - 1u) / VNPU_DCOMP_STREAM_ALIGN * VNPU_DCOMP_STREAM_ALIGN;
    }
    return vnpu_dcomp_out;
}
