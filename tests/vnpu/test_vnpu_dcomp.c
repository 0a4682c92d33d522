/*
 * test_vnpu_dcomp - the virtual NPU's weight decompressor (DCOMP_CTRL = 1,
 * vnpu.md §6.2). An encoder written here from that description compresses
 * native int8 weights; each convolution then runs twice, with the plain and
 * with the compressed weights, and both outputs must equal each other and a
 * plain C reference (NCHW loops, exact int32 sums). Shapes: the vendor
 * sample's (3 real of 16 channels, 8 kernels, 3x3), two kernel groups and
 * input slices, a 1x1 with small weights and long zero runs, a depthwise one
 * (int16 output, weights small enough not to saturate);
 * both stream kinds, mixed within one task. Then the programming the model
 * refuses: other DCOMP_CTRL and REGNUM values, an AMOUNT too short (overrun)
 * or far too long (outside the DMA window), unknown header contents, another
 * zero-run selector, class 8, fp16, RK3566, unaligned or partial blocks.
 *
 * The encoder shares no code with the model; register values come from the
 * regs.def packers and the builder (vnpu_test_asm.h).
 */
#include <stdio.h>
#include <string.h>

#include "npu_regs.h"
#include "npu_soc.h"
#include "test_util.h"
#include "vnpu.h"
#include "vnpu_test_asm.h"

#define ARENA_BYTES (1u << 20)
#define ARENA_BASE  0x20000000u
#define MAX_WBYTES  32768u
#define MAX_X       8192u
#define MAX_OUT     65536u
#define STREAMS     16u

static _Alignas(64) uint8_t arena[ARENA_BYTES];
static vnpu_device dev;
static tasm_mem mem;
static tasm_task tasks[1];
static const npu_soc_profile *soc;

static void setup(rknpu_soc_id id)
{
    soc = tasm_setup(&dev, &mem, arena, ARENA_BASE, ARENA_BYTES, id);
    CHECK(soc != NULL);
}

/* ---- the encoder (vnpu.md §6.2) ------------------------------------------------- */

enum { KIND_ZIGZAG = 0x00, KIND_SIGNMAG = 0x11 };

/* The eight symbol codes, as bit strings in stream order. */
static const char *const sym_code[8] = {"00", "10", "111", "110", "011", "0101", "01001", "01000"};

/* Deliberate faults, to see the model refuse them. */
enum enc_fault { FAULT_NONE, FAULT_SELECTOR, FAULT_CLASS7_LOW };

typedef struct {
    uint8_t *out; /* stream bytes, header included */
    uint32_t cap, nbits;
} bitw;

static int put_bit(bitw *w, unsigned b)
{
    uint32_t byte = 16u + w->nbits / 8u;

    if (byte >= w->cap)
        return -1;
    if (b)
        w->out[byte] |= (uint8_t)(1u << (w->nbits % 8u));
    w->nbits++;
    return 0;
}

static int put_bits(bitw *w, uint32_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (put_bit(w, (v >> i) & 1u) != 0)
            return -1;
    return 0;
}

static int put_str(bitw *w, const char *s)
{
    for (; *s; s++)
        if (put_bit(w, *s == '1') != 0)
            return -1;
    return 0;
}

static int bit_length(uint32_t v)
{
    int n = 0;

    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}

/* Code and class of a wrapped int8 delta in each kind. */
static uint32_t sm_code(int32_t d)
{
    return d == -128 ? 257u : (uint32_t)(d < 0 ? -d : d) * 2u + (d < 0);
}
static uint32_t zz_code(int32_t d)
{
    return d >= 0 ? (uint32_t)d * 2u : (uint32_t)(-d) * 2u - 1u;
}
static unsigned class_of(uint32_t code, int kind)
{
    if (kind == KIND_SIGNMAG && code >= 128u)
        return 7;
    return code < 2u ? 0u : (unsigned)bit_length(code) - 1u;
}

/* One stream: n bytes at v; returns its payload AMOUNT (16-byte units) or
 * -1 when it does not fit `cap` bytes or the zero runs do not fit `run0`. */
static int encode_stream(const uint8_t *v, uint32_t n, int kind, unsigned run0, uint8_t *out,
                         uint32_t cap, enum enc_fault fault)
{
    uint32_t count[9] = {0}, seen[256] = {0};
    int32_t base = 0, d[MAX_WBYTES / STREAMS];
    unsigned order[8], rank_of[9];
    bitw w = {out, cap, 0};

    if (cap < 16u || n > MAX_WBYTES / STREAMS)
        return -1;
    memset(out, 0, cap);
    /* base: the most common byte, so that the padding lanes cost little */
    for (uint32_t i = 0; i < n; i++)
        seen[v[i]]++;
    for (uint32_t b = 0; b < 256; b++)
        if (seen[b] > seen[(uint8_t)base])
            base = (int8_t)b;
    for (uint32_t i = 0; i < n; i++) {
        d[i] = (int8_t)(uint8_t)(v[i] - (uint8_t)base);
        count[class_of(kind == KIND_SIGNMAG ? sm_code(d[i]) : zz_code(d[i]), kind)]++;
    }
    /* the table: classes 0..7 by falling frequency */
    for (unsigned j = 0; j < 8; j++)
        order[j] = j;
    for (unsigned a = 0; a < 8; a++)
        for (unsigned b = a + 1; b < 8; b++)
            if (count[order[b]] > count[order[a]]) {
                unsigned x = order[a];
                order[a] = order[b];
                order[b] = x;
            }
    for (unsigned j = 0; j < 8; j++)
        rank_of[order[j]] = j;
    out[0] = (uint8_t)kind;
    out[1] = (uint8_t)base;
    out[2] = base < 0 ? 0xFF : 0;
    for (unsigned j = 0; j < 8; j++)
        out[4 + j / 2] |= (uint8_t)(order[j] << (4u * (j % 2u)));
    if (kind == KIND_SIGNMAG) {
        /* run lengths: run0 first, the others after it (never selected) */
        out[8] = (uint8_t)run0;
        for (unsigned len = 1, j = 1; len <= 4; len++)
            if (len != run0)
                out[8 + 2 * j++] = (uint8_t)len;
    }
    for (uint32_t i = 0; i < n;) {
        if (kind == KIND_SIGNMAG && d[i] == 0) {
            if (run0 > n - i)
                return -1;
            for (unsigned r = 0; r < run0; r++)
                if (d[i + r] != 0)
                    return -1;
            if (put_str(&w, sym_code[rank_of[0]]) != 0 || put_bit(&w, fault == FAULT_SELECTOR) != 0)
                return -1;
            fault = fault == FAULT_SELECTOR ? FAULT_NONE : fault;
            i += run0;
            continue;
        }
        uint32_t code = kind == KIND_SIGNMAG ? sm_code(d[i]) : zz_code(d[i]);
        unsigned k = class_of(code, kind);
        if (put_str(&w, sym_code[rank_of[k]]) != 0)
            return -1;
        if (kind == KIND_ZIGZAG && k == 0) {
            if (put_bit(&w, code) != 0)
                return -1;
        } else if (kind == KIND_SIGNMAG && k == 7) {
            uint32_t field = code % 256u;
            if (fault == FAULT_CLASS7_LOW) {
                field = 5; /* a code of 261: no int8 delta */
                fault = FAULT_NONE;
            }
            if (put_bits(&w, field, 8) != 0)
                return -1;
        } else if (put_bits(&w, code - (1u << k), k) != 0) {
            return -1;
        }
        i++;
    }
    if (fault != FAULT_NONE)
        return -1; /* the fault found no place in this stream */
    return (int)((w.nbits + 127u) / 128u);
}

typedef struct {
    uint32_t addr;
    uint32_t amount[STREAMS];
} dcomp_blob;

/* Compress `total` native bytes into 16 streams at 64-byte-aligned places.
 * kinds: bit s set = stream s of the sign-magnitude kind. The longest zero
 * run (4..1) that encodes a stream is its first run length. */
static int compress(const uint8_t *native, uint32_t total, uint32_t kinds, dcomp_blob *blob,
                    int fault_stream, enum enc_fault fault)
{
    static uint8_t lane[MAX_WBYTES / STREAMS];
    uint32_t n = total / 64u * 4u, used = 0;
    uint32_t cap = 16u + 2u * n + 64u; /* every symbol below 2 bytes a byte, plus slack */

    if (total % 64u != 0 || total > MAX_WBYTES)
        return -1;
    blob->addr = tasm_alloc(&mem, STREAMS * align_up(cap, 64), 64);
    if (!blob->addr)
        return -1;
    for (unsigned s = 0; s < STREAMS; s++) {
        int kind = (kinds >> s) & 1u ? KIND_SIGNMAG : KIND_ZIGZAG, amount = -1;
        enum enc_fault f = (int)s == fault_stream ? fault : FAULT_NONE;
        for (uint32_t i = 0; i < n; i++)
            lane[i] = native[(i / 4u) * 64u + s * 4u + i % 4u];
        for (unsigned run0 = kind == KIND_SIGNMAG ? 4u : 1u; run0 >= 1 && amount < 0; run0--)
            amount = encode_stream(lane, n, kind, kind == KIND_SIGNMAG ? run0 : 0u,
                                   tasm_host(&mem, blob->addr + used), cap, f);
        if (amount < 0)
            return -1;
        blob->amount[s] = (uint32_t)amount;
        used += align_up(16u * ((uint32_t)amount + 1u), 64);
    }
    return 0;
}

static uint32_t regnum_all(uint32_t value)
{
    uint32_t r = 0;

    for (unsigned s = 0; s < STREAMS; s++)
        r = npu_field_set(
            r, NPU_CNA_DCOMP_REGNUM_STREAM0_SHIFT + s * NPU_CNA_DCOMP_REGNUM_STREAM0_WIDTH,
            NPU_CNA_DCOMP_REGNUM_STREAM0_WIDTH, value);
    return r;
}

/* The decompressor's registers, after the builder's plain-weight ones. */
static void dcomp_regs(tasm_task *t, const dcomp_blob *b)
{
    tasm_reg(t, NPU_CNA_DCOMP_CTRL, NPU_CNA_DCOMP_CTRL_DECOMP_CONTROL(1));
    tasm_reg(t, NPU_CNA_DCOMP_REGNUM, regnum_all(1));
    tasm_reg(t, NPU_CNA_DCOMP_ADDR0, b->addr);
    for (unsigned s = 0; s < STREAMS; s++)
        tasm_reg(t, NPU_CNA_DCOMP_AMOUNT0 + 4u * s, b->amount[s]);
}

/* ---- convolutions -------------------------------------------------------------- */

typedef struct {
    const char *name;
    int dw;
    uint32_t cin, cin_real, hin, win, kout, k, pad;
    int32_t wlo, whi; /* weight range */
    uint32_t kinds;   /* sign-magnitude streams (bit per stream) */
} dcomp_case;

static int32_t X[MAX_X];           /* [c][y][x], real channels */
static int32_t W[MAX_WBYTES];      /* [k][c][ky][kx] (dw: [c][ky][kx]), padded channels too */
static int64_t REF[MAX_OUT];       /* [k][y][x] */
static uint8_t native[MAX_WBYTES]; /* the NPU's weight layout */

static int32_t x_at(const dcomp_case *cc, int32_t padv, uint32_t c, int64_t y, int64_t x)
{
    if (y < 0 || x < 0 || y >= cc->hin || x >= cc->win)
        return padv;
    return c < cc->cin_real ? X[((size_t)c * cc->hin + (size_t)y) * cc->win + (size_t)x] : 0;
}

/* Native layout (hardware.md §4.3): direct [group of 32][slice of 32][ky][kx]
 * [kernel][channel], depthwise [slice of 64][ky][kx][channel]. */
static uint32_t pack_native(const dcomp_case *cc)
{
    uint32_t taps = cc->k * cc->k, n = 0;

    if (cc->dw) {
        for (uint32_t s0 = 0; s0 < cc->cin; s0 += 64)
            for (uint32_t tap = 0; tap < taps; tap++)
                for (uint32_t c = s0; c < s0 + 64 && c < cc->cin; c++)
                    native[n++] = (uint8_t)W[(size_t)c * taps + tap];
        return n;
    }
    for (uint32_t k0 = 0; k0 < cc->kout; k0 += 32)
        for (uint32_t s0 = 0; s0 < cc->cin; s0 += 32)
            for (uint32_t tap = 0; tap < taps; tap++)
                for (uint32_t k = k0; k < k0 + 32 && k < cc->kout; k++)
                    for (uint32_t c = s0; c < s0 + 32 && c < cc->cin; c++)
                        native[n++] = (uint8_t)W[((size_t)k * cc->cin + c) * taps + tap];
    return n;
}

/* The program for one case; the weights at w_addr. */
static void conv_desc(const dcomp_case *cc, tasm_conv *c, uint32_t in, uint32_t wts, uint32_t out,
                      int32_t padv)
{
    uint32_t out_hw = (cc->hin + 2 * cc->pad - cc->k + 1) * (cc->win + 2 * cc->pad - cc->k + 1);

    tasm_conv_defaults(c);
    c->depthwise = cc->dw;
    c->hin = cc->hin;
    c->win = cc->win;
    c->cin_real = cc->cin_real;
    c->cin = cc->cin;
    c->nker = cc->dw ? 1 : cc->kout;
    c->kh = c->kw = cc->k;
    c->pt = c->pl = cc->pad;
    c->hout = cc->hin + 2 * cc->pad - cc->k + 1;
    c->wout = cc->win + 2 * cc->pad - cc->k + 1;
    c->kout = cc->dw ? cc->cin : align_up(cc->kout, 32);
    c->pad_value = (uint32_t)padv;
    c->in_addr = in;
    c->w_addr = wts;
    c->out_addr = out;
    c->out_surf = out_hw * 16u;
    /* the accumulators themselves: int32, or int16 for depthwise, whose
     * int32 output atoms do not fit SIZE_E (vnpu.md §7) */
    c->out_prec = cc->dw ? 1u : 4u;
}

static void run_case(const dcomp_case *cc)
{
    uint32_t taps = cc->k * cc->k, hout = cc->hin + 2 * cc->pad - cc->k + 1;
    uint32_t wout = cc->win + 2 * cc->pad - cc->k + 1, npix = hout * wout;
    uint32_t nk = cc->dw ? cc->cin : cc->kout, kpad = cc->dw ? cc->cin : align_up(cc->kout, 32);
    uint32_t oe = cc->dw ? 2u : 4u, oc2 = 16u / oe; /* output element bytes, per atom */
    uint32_t osize = kpad / oc2 * npix * 16u, bad = 0, differ = 0;
    int32_t padv = rnd_range(-128, 127);
    tasm_conv c;
    dcomp_blob blob;

    setup(RKNPU_SOC_RK3588);
    for (uint32_t i = 0; i < cc->cin_real * cc->hin * cc->win; i++)
        X[i] = rnd_range(-128, 127);
    /* padded channels hold one value per kernel, as the vendor's do */
    for (uint32_t k = 0; k < (cc->dw ? 1u : cc->kout); k++) {
        int32_t fill = rnd_range(-40, 40);
        for (uint32_t ch = 0; ch < cc->cin; ch++)
            for (uint32_t tap = 0; tap < taps; tap++)
                W[((size_t)k * cc->cin + ch) * taps + tap] =
                    ch < cc->cin_real ? rnd_range(cc->wlo, cc->whi) : fill;
    }
    for (uint32_t k = 0; k < nk; k++)
        for (uint32_t oy = 0; oy < hout; oy++)
            for (uint32_t ox = 0; ox < wout; ox++) {
                int64_t acc = 0;
                for (uint32_t ch = cc->dw ? k : 0; ch < (cc->dw ? k + 1 : cc->cin); ch++)
                    for (uint32_t ky = 0; ky < cc->k; ky++)
                        for (uint32_t kx = 0; kx < cc->k; kx++) {
                            int64_t y = (int64_t)oy + ky - cc->pad, x = (int64_t)ox + kx - cc->pad;
                            size_t wi =
                                ((size_t)(cc->dw ? 0 : k) * cc->cin + ch) * taps + ky * cc->k + kx;
                            acc += (int64_t)x_at(cc, padv, ch, y, x) * W[wi];
                        }
                REF[((size_t)k * hout + oy) * wout + ox] = acc;
            }
    uint32_t total = pack_native(cc);

    /* the input, NC1HWC2 with 16-channel surfaces */
    uint32_t in = tasm_alloc(&mem, cc->cin / 16u * cc->hin * cc->win * 16u, 64);
    for (uint32_t ch = 0; ch < cc->cin_real; ch++)
        for (uint32_t p = 0; p < cc->hin * cc->win; p++)
            tasm_host(&mem, in)[(ch / 16u) * cc->hin * cc->win * 16u + p * 16u + ch % 16u] =
                (uint8_t)X[(size_t)ch * cc->hin * cc->win + p];
    uint32_t wplain = tasm_alloc(&mem, total, 64);
    memcpy(tasm_host(&mem, wplain), native, total);
    uint32_t out_plain = tasm_alloc(&mem, osize, 64), out_dcomp = tasm_alloc(&mem, osize, 64);
    if (!CHECK(out_dcomp != 0) || !CHECK(compress(native, total, cc->kinds, &blob, -1, 0) == 0))
        return;

    conv_desc(cc, &c, in, wplain, out_plain, padv);
    tasm_conv_task(&tasks[0], soc, &c);
    if (!CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0))
        printf("  %s plain: %s\n", cc->name, vnpu_last_error(&dev, 0));
    conv_desc(cc, &c, in, wplain, out_dcomp, padv);
    tasm_conv_task(&tasks[0], soc, &c);
    dcomp_regs(&tasks[0], &blob);
    if (!CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0))
        printf("  %s compressed: %s\n", cc->name, vnpu_last_error(&dev, 0));

    for (uint32_t k = 0; k < nk; k++)
        for (uint32_t p = 0; p < npix; p++) {
            size_t o = (k / oc2) * npix * 16u + p * 16u + (k % oc2) * oe;
            const uint8_t *a = tasm_host(&mem, out_plain) + o, *b = tasm_host(&mem, out_dcomp) + o;
            int32_t got = oe == 2u ? (int16_t)(uint16_t)(b[0] | b[1] << 8)
                                   : (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 |
                                               (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
            differ += memcmp(a, b, oe) != 0;
            if (got != REF[(size_t)k * npix + p] && bad++ < 3)
                printf("  %s: kernel %lu pixel %lu: got %ld want %lld\n", cc->name,
                       (unsigned long)k, (unsigned long)p, (long)got,
                       (long long)REF[(size_t)k * npix + p]);
        }
    uint32_t packed = 0;
    for (unsigned s = 0; s < STREAMS; s++)
        packed += 16u * (blob.amount[s] + 1u);
    printf("  %s: %lu native bytes in %lu compressed\n", cc->name, (unsigned long)total,
           (unsigned long)packed);
    CHECK_EQ_U(differ, 0);
    CHECK_EQ_U(bad, 0);
}

/* clang-format off */
static const dcomp_case cases[] = {
    /* name                         dw cin real  h   w kout k pad  wlo  whi  sign-magnitude streams */
    {"vendor shape 3 of 16, k8",    0, 16,  3, 12, 10,  8, 3, 1, -128, 127, 0xFFFFu},
    {"same, zigzag streams",        0, 16,  3, 12, 10,  8, 3, 1, -128, 127, 0x0000u},
    {"c20 of 32, k40, mixed",       0, 32, 20,  7,  9, 40, 3, 1, -128, 127, 0x5A5Au},
    {"1x1 c64 k36, small weights",  0, 64, 64,  5,  6, 36, 1, 0,   -3,   3, 0xFFFFu},
    {"1x1 c64 k36, zigzag",         0, 64, 64,  5,  6, 36, 1, 0,   -3,   3, 0x0000u},
    {"depthwise 3x3 c64",           1, 64, 64,  6,  6,  0, 3, 1,  -25,  25, 0x00FFu},
};
/* clang-format on */

/* ---- what the model refuses ------------------------------------------------------ */

/* A small compressed convolution (vendor shape) to break one way at a time. */
static tasm_conv base_conv;
static dcomp_blob base_blob;
static uint32_t base_total;

static void base_setup(rknpu_soc_id id, int fault_stream, enum enc_fault fault)
{
    static const dcomp_case cc = {"base", 0, 16, 3, 6, 6, 8, 3, 1, -128, 127, 0xFFFFu};

    setup(id);
    for (uint32_t k = 0; k < 8; k++)
        for (uint32_t i = 0; i < 16 * 9; i++)
            W[k * 16 * 9 + i] = i < 3 * 9 ? rnd_range(-128, 127) : (int32_t)k - 4;
    base_total = pack_native(&cc);
    uint32_t in = tasm_alloc(&mem, 6 * 6 * 16, 64), out = tasm_alloc(&mem, 8 * 36 * 16, 64);
    CHECK(compress(native, base_total, cc.kinds, &base_blob, fault_stream, fault) == 0);
    conv_desc(&cc, &base_conv, in, base_blob.addr, out, 0);
}

/* Build the base task, apply `reg = value` (none when reg is 0), run, and
 * expect a refusal whose message names `what`. */
static void expect_refused(uint32_t reg, uint32_t value, const char *what)
{
    tasm_conv_task(&tasks[0], soc, &base_conv);
    dcomp_regs(&tasks[0], &base_blob);
    if (reg)
        tasm_reg(&tasks[0], reg, value);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), -1);
    if (!CHECK(strstr(vnpu_last_error(&dev, 0), what) != NULL))
        printf("  expected \"%s\" in: %s\n", what, vnpu_last_error(&dev, 0));
}

static void test_refusals(void)
{
    uint8_t *h;

    base_setup(RKNPU_SOC_RK3588, -1, FAULT_NONE);
    tasm_conv_task(&tasks[0], soc, &base_conv);
    dcomp_regs(&tasks[0], &base_blob);
    if (!CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), 0)) /* the base program runs */
        printf("  base: %s\n", vnpu_last_error(&dev, 0));

    expect_refused(NPU_CNA_DCOMP_CTRL, NPU_CNA_DCOMP_CTRL_DECOMP_CONTROL(2), "CNA_DCOMP_CTRL");
    expect_refused(NPU_CNA_DCOMP_CTRL,
                   NPU_CNA_DCOMP_CTRL_DECOMP_CONTROL(1) | NPU_CNA_DCOMP_CTRL_WT_DEC_BYPASS(1),
                   "CNA_DCOMP_CTRL");
    expect_refused(NPU_CNA_DCOMP_REGNUM,
                   npu_field_set(regnum_all(1), NPU_CNA_DCOMP_REGNUM_STREAM5_SHIFT,
                                 NPU_CNA_DCOMP_REGNUM_STREAM5_WIDTH, 2),
                   "CNA_DCOMP_REGNUM");
    expect_refused(NPU_CNA_DCOMP_REGNUM, 0, "CNA_DCOMP_REGNUM");
    /* an AMOUNT one unit short: stream 3 runs out of bits */
    expect_refused(NPU_CNA_DCOMP_AMOUNT3, base_blob.amount[3] - 1u, "CNA_DCOMP_AMOUNT3");
    expect_refused(NPU_CNA_DCOMP_AMOUNT0, 0, "CNA_DCOMP_AMOUNT0");
    /* an AMOUNT that reaches past the DMA window: a read error */
    expect_refused(NPU_CNA_DCOMP_AMOUNT7, ARENA_BYTES / 16u, "outside the DMA window");
    expect_refused(NPU_CNA_DCOMP_ADDR0, base_blob.addr + 16u, "64-byte aligned");

    /* the stream headers, one change at a time (restored after each) */
    h = tasm_host(&mem, base_blob.addr);
    h[0] = 0x22;
    expect_refused(0, 0, "header byte 0");
    h[0] = KIND_SIGNMAG;
    h[3] = 1;
    expect_refused(0, 0, "header byte 3");
    h[3] = 0;
    uint8_t b1 = h[1], b2 = h[2];
    h[1] = 200;
    h[2] = 0;
    expect_refused(0, 0, "base outside int8");
    h[1] = b1;
    h[2] = b2;
    uint8_t r0 = h[8];
    h[8] = 0;
    expect_refused(0, 0, "first zero run");
    h[8] = r0;
    uint8_t tab[4];
    memcpy(tab, h + 4, 4);
    memset(h + 4, 0x88, 4); /* every symbol means class 8 */
    expect_refused(0, 0, "class 8");
    memcpy(h + 4, tab, 4);
    h[0] = KIND_ZIGZAG; /* a zigzag header with run lengths */
    expect_refused(0, 0, "zero-run lengths");
    h[0] = KIND_SIGNMAG;
    tasm_conv_task(&tasks[0], soc, &base_conv);
    dcomp_regs(&tasks[0], &base_blob);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), 0); /* all restored */

    /* a zero run with the selector bit 1; a class-7 field below 128 (not 1) */
    base_setup(RKNPU_SOC_RK3588, 2, FAULT_SELECTOR);
    expect_refused(0, 0, "selecting another zero run");
    base_setup(RKNPU_SOC_RK3588, 0, FAULT_CLASS7_LOW);
    expect_refused(0, 0, "class-7 code below 128");

    /* weights that are not whole 64-byte blocks: 3 kernels of 16 bytes */
    base_setup(RKNPU_SOC_RK3588, -1, FAULT_NONE);
    base_conv.nker = 3;
    base_conv.kh = base_conv.kw = 1;
    base_conv.pt = base_conv.pl = 0;
    base_conv.pad_value = 0;
    expect_refused(0, 0, "64-byte blocks");

    /* fp16 weights */
    base_setup(RKNPU_SOC_RK3588, -1, FAULT_NONE);
    base_conv.fp16 = 1;
    base_conv.kout = 16;
    expect_refused(0, 0, "fp16");

    /* another SoC */
    base_setup(RKNPU_SOC_RK3566, -1, FAULT_NONE);
    base_conv.kout = 16;
    expect_refused(0, 0, "outside RK3588");
}

int main(void)
{
    tasm_seed(0x2468ACE1u);
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    test_refusals();
    return test_report("vnpu_dcomp");
}
