/*
 * test_vnpu_conv - the virtual NPU's compute against a plain C reference
 * written here (NCHW loops, int64 arithmetic, explicit floor/round
 * divisions): a convolution shape sweep (kernel 1/3/5, stride 1/2, padding
 * incl. implicit bottom/right, channel counts not multiple of 16, several
 * input slices and kernel groups, > 32 output channels, depthwise, packed
 * NHWC and NC1HWC2 inputs, int8 and fp16) on RK3588 and RK3566, the DPU
 * stages (BS bias + OW·Σx + per-channel multiplier stream, ReLU/ReLU-X,
 * BN, EW add incl. RK3588's COMB_USE form, OUT_CVT rounding and saturation,
 * int16/int32/fp16/fp32 outputs, flying mode, NONALIGN output), PPU
 * pooling, and the error state for modes the model does not implement.
 * What YOLOv8n's toolkit-1.5 RK3566 streams program: the LUT on the integer
 * path with 514-word table loads (vnpu.md §7.5), the PPU output notch and
 * the RK356x PPU registers (vnpu.md §8), unpooling that reads an atom as
 * int16 and writes it as int8 (vnpu.md §7.7).
 *
 * The register programs come from vnpu_test_asm.h; data is packed here in
 * the documented native layouts (hardware.md §4, vnpu.md §5-§7). Rounding
 * implemented by the model (and checked here): BS MUL and EW converter
 * shifts floor, OUT_CVT rounds to nearest with ties to even (CVT_ROUND 0)
 * or away from zero (CVT_ROUND 1), int8 saturation.
 */
#include <stdio.h>
#include <string.h>

#include "npu_regcmd.h"
#include "npu_regs.h"
#include "npu_soc.h"
#include "test_util.h"
#include "vnpu.h"
#include "vnpu_test_asm.h"

#define ARENA_BYTES (3u << 20)
#define ARENA_BASE  0x20000000u
#define MAX_X       32768u
#define MAX_W       131072u
#define MAX_O       32768u

static _Alignas(64) uint8_t arena[ARENA_BYTES];
static vnpu_device dev;
static tasm_mem mem;
static tasm_task tasks[2];
static const npu_soc_profile *soc;

/* ---- small helpers ------------------------------------------------------------ */

static int rk356x(void)
{
    return soc->id == RKNPU_SOC_RK3566 || soc->id == RKNPU_SOC_RK3568;
}

static void setup(rknpu_soc_id id)
{
    soc = tasm_setup(&dev, &mem, arena, ARENA_BASE, ARENA_BYTES, id);
    CHECK(soc != NULL);
}

/* floor(n / 2^s) and round-to-nearest(n / 2^s) written with division. */
static int64_t floor_div_pow2(int64_t n, unsigned s)
{
    int64_t d = (int64_t)1 << s;
    int64_t q = n / d;

    if (n % d != 0 && n < 0)
        q--;
    return q;
}

static int64_t round_div_pow2(int64_t n, unsigned s, int away)
{
    int64_t d, q, r;

    if (s == 0)
        return n;
    d = (int64_t)1 << s;
    q = floor_div_pow2(n, s);
    r = n - q * d; /* 0 <= r < d */
    if (2 * r > d)
        return q + 1;
    if (2 * r < d)
        return q;
    if (away)
        return n > 0 ? q + 1 : q;
    return (q % 2 != 0) ? q + 1 : q;
}

static int64_t sat(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/* IEEE half <-> float for exactly representable test values. */
static uint16_t f2h(float f)
{
    union {
        float f;
        uint32_t u;
    } v = {f};
    uint32_t sign = (v.u >> 16) & 0x8000u;
    int e = (int)((v.u >> 23) & 0xFF) - 127;
    uint32_t m = v.u & 0x7FFFFFu;

    if ((v.u & 0x7FFFFFFFu) == 0)
        return (uint16_t)sign;
    if (e > 15)
        return (uint16_t)(sign | 0x7C00u);
    if (e < -14) {
        unsigned sh = (unsigned)(-1 - e);
        if (sh > 24)
            return (uint16_t)sign;
        uint32_t mm = m | 0x800000u, q = mm >> sh, r = mm & ((1u << sh) - 1u), h = 1u << (sh - 1);
        return (uint16_t)(sign | (q + (r > h || (r == h && (q & 1)))));
    }
    uint32_t q = (uint32_t)(e + 15) << 10 | m >> 13, r = m & 0x1FFFu;
    return (uint16_t)(sign | (q + (r > 0x1000u || (r == 0x1000u && (q & 1)))));
}

static float h2f(uint16_t h)
{
    int e = (h >> 10) & 0x1F;
    float m = (float)(h & 0x3FF);
    float v;

    if (e == 0)
        v = m / 1024.0f / 16384.0f;
    else {
        v = (1.0f + m / 1024.0f);
        for (int i = 15; i < e; i++)
            v *= 2.0f;
        for (int i = e; i < 15; i++)
            v /= 2.0f;
    }
    return (h & 0x8000) ? -v : v;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float f32_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void st16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static uint16_t ld16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}
static uint32_t ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void st32(uint8_t *p, uint32_t v)
{
    st16(p, (uint16_t)v);
    st16(p + 2, (uint16_t)(v >> 16));
}

/* ---- the convolution case ------------------------------------------------------ */

typedef struct {
    const char *name;
    int fp16, dw, argb;
    uint32_t cin, hin, win, kout, kh, kw, sx, sy, pt, pl, pb, pr;
    int bias;        /* BS stream: ALU + OW + MUL (vendor form) */
    int mesa_bias;   /* ALU-only stream + OW from BS_OW_OP, no MUL (Mesa form) */
    int relu, relux; /* BS ReLU, ReLU-X */
    int ew, comb;    /* EW add of an int8 operand (RK3588 COMB_USE form) */
    uint32_t out_prec;
    int round_away;
} conv_case;

/* reference data (NCHW) */
static int32_t X[MAX_X]; /* int8 values or fp16 bits */
static int32_t W[MAX_W]; /* [k][c][ky][kx] (dw: [c][ky][kx]) */
static int32_t bias[1024], ow[1024], mul[1024];
static int32_t E[MAX_O];  /* EW operand, [k][y][x] */
static int64_t T[MAX_O];  /* pre-OUT_CVT value */
static double F[MAX_O];   /* fp reference */
static int64_t SX[MAX_O]; /* Σx of each output pixel (direct convolution) */

typedef struct {
    uint32_t cin_pad, kout_pad, hout, wout, c2_in, elem;
    int32_t padv;
    uint32_t oc_scale, oc_shift;
    int32_t oc_off;
    int32_t ew_off;
    uint32_t ew_scale, ew_shift;
} conv_geom;

static int32_t ref_x(const conv_case *cc, const conv_geom *g, uint32_t c, int64_t y, int64_t x)
{
    if (y < 0 || x < 0 || y >= cc->hin || x >= cc->win)
        return g->padv;
    if (c >= cc->cin)
        return 0; /* padded channels hold 0 in memory */
    return X[((size_t)c * cc->hin + (size_t)y) * cc->win + (size_t)x];
}

/* Pack the input (packed NHWC for argb, else NC1HWC2). */
static uint32_t pack_input(const conv_case *cc, const conv_geom *g, uint32_t *pitch_px)
{
    uint32_t atom = soc->feature_atom_bytes, a;

    if (cc->argb) {
        uint32_t align = rk356x() ? 8u : 16u;
        *pitch_px = align_up(cc->win * g->elem, align) / g->elem;
        a = tasm_alloc(&mem, cc->hin * *pitch_px * cc->cin * g->elem, 64);
        for (uint32_t y = 0; y < cc->hin; y++)
            for (uint32_t x = 0; x < cc->win; x++)
                for (uint32_t c = 0; c < cc->cin; c++) {
                    uint8_t *p = tasm_host(&mem, a) +
                                 ((size_t)y * *pitch_px * cc->cin + x * cc->cin + c) * g->elem;
                    int32_t v = X[((size_t)c * cc->hin + y) * cc->win + x];
                    if (cc->fp16)
                        st16(p, (uint16_t)v);
                    else
                        p[0] = (uint8_t)v;
                }
        return a;
    }
    uint32_t c1 = g->cin_pad / g->c2_in, surf = cc->hin * cc->win * atom;
    a = tasm_alloc(&mem, c1 * surf, 64);
    for (uint32_t c = 0; c < cc->cin; c++)
        for (uint32_t y = 0; y < cc->hin; y++)
            for (uint32_t x = 0; x < cc->win; x++) {
                uint8_t *p = tasm_host(&mem, a) + (c / g->c2_in) * surf + (y * cc->win + x) * atom +
                             (c % g->c2_in) * g->elem;
                int32_t v = X[((size_t)c * cc->hin + y) * cc->win + x];
                if (cc->fp16)
                    st16(p, (uint16_t)v);
                else
                    p[0] = (uint8_t)v;
            }
    return a;
}

/* Native weights: [group][slice][ky][kx][kernel][channel] or dw [slice][ky][kx][ch]. */
static uint32_t pack_weights(const conv_case *cc, const conv_geom *g)
{
    uint32_t taps = cc->kh * cc->kw, cp = g->cin_pad, e = g->elem;
    uint32_t a;
    size_t n = 0;

    if (cc->dw) {
        uint32_t ds = (rk356x() ? 32u : 64u) / e;
        a = tasm_alloc(&mem, taps * cp * e, 64);
        for (uint32_t s0 = 0; s0 < cp; s0 += ds) {
            uint32_t sc = cp - s0 < ds ? cp - s0 : ds;
            for (uint32_t tap = 0; tap < taps; tap++)
                for (uint32_t c = s0; c < s0 + sc; c++, n++) {
                    int32_t v = c < cc->cin ? W[(size_t)c * taps + tap] : 0;
                    if (e == 2)
                        st16(tasm_host(&mem, a) + n * 2, (uint16_t)v);
                    else
                        tasm_host(&mem, a)[n] = (uint8_t)v;
                }
        }
        return a;
    }
    uint32_t gsz = cc->fp16 ? (rk356x() ? 8u : 16u) : (rk356x() ? 16u : 32u);
    /* input slices of 32 channels; RK356x fp16: 16 (its documented native
     * matmul B [N/8][K/16][8][16]) */
    uint32_t sl = cc->fp16 && rk356x() ? 16u : 32u;
    a = tasm_alloc(&mem, cc->kout * taps * cp * e, 64);
    for (uint32_t k0 = 0; k0 < cc->kout; k0 += gsz) {
        uint32_t gk = cc->kout - k0 < gsz ? cc->kout - k0 : gsz;
        for (uint32_t s0 = 0; s0 < cp; s0 += sl) {
            uint32_t sc = cp - s0 < sl ? cp - s0 : sl;
            for (uint32_t tap = 0; tap < taps; tap++)
                for (uint32_t k = k0; k < k0 + gk; k++)
                    for (uint32_t c = s0; c < s0 + sc; c++, n++) {
                        /* padded channels hold the weight zero point (the OW term
                         * cancels them), as the vendor compiler does */
                        int32_t v = c < cc->cin ? W[((size_t)k * cc->cin + c) * taps + tap]
                                                : (cc->fp16 ? 0 : -ow[k]);
                        if (e == 2)
                            st16(tasm_host(&mem, a) + n * 2, (uint16_t)v);
                        else
                            tasm_host(&mem, a)[n] = (uint8_t)v;
                    }
        }
    }
    return a;
}

/* BS stream: groups of g channels [g int32 ALU][g int16 OW][g int16 MUL]
 * (vendor), or g int32 ALU only (Mesa). */
static uint32_t pack_bs(const conv_case *cc, const conv_geom *g)
{
    uint32_t grp = rk356x() ? 4u : 8u, ng = g->kout_pad / grp;
    uint32_t gb = cc->mesa_bias ? grp * 4u : grp * 8u;
    uint32_t a = tasm_alloc(&mem, ng * gb, 64);

    for (uint32_t k = 0; k < g->kout_pad; k++) {
        uint8_t *gp = tasm_host(&mem, a) + (k / grp) * gb;
        uint32_t j = k % grp;
        int real = k < (cc->dw ? cc->cin : cc->kout);
        st32(gp + 4 * j, real ? (uint32_t)bias[k] : 0);
        if (!cc->mesa_bias) {
            st16(gp + grp * 4 + 2 * j, real ? (uint16_t)ow[k] : 0);
            st16(gp + grp * 6 + 2 * j, real ? (uint16_t)mul[k] : 0);
        }
    }
    return a;
}

static uint32_t out_elem_of(uint32_t prec)
{
    return prec == 0 ? 1u : (prec <= 3 ? 2u : 4u);
}

/* Build, run and compare one convolution case. */
static void run_conv_case(const conv_case *cc)
{
    conv_geom g;
    tasm_conv c;
    uint32_t taps = cc->kh * cc->kw, atom = soc->feature_atom_bytes;
    uint32_t nk, bad = 0, pitch = 0;
    int64_t maxabs = 1;

    memset(&g, 0, sizeof g);
    g.elem = cc->fp16 ? 2u : 1u;
    g.c2_in = atom / g.elem;
    g.cin_pad = cc->argb ? g.c2_in : align_up(cc->cin, g.c2_in);
    g.hout = (cc->hin + cc->pt + cc->pb - cc->kh) / cc->sy + 1u;
    g.wout = (cc->win + cc->pl + cc->pr - cc->kw) / cc->sx + 1u;
    nk = cc->dw ? cc->cin : cc->kout;
    g.kout_pad =
        cc->dw ? g.cin_pad
               : align_up(cc->kout, cc->fp16 ? (rk356x() ? 8u : 16u) : (rk356x() ? 16u : 32u));
    g.padv = cc->fp16 ? (int32_t)f2h(-1.5f) : rnd_range(-128, 127);
    mem.used = 0;

    /* data */
    for (uint32_t i = 0; i < cc->cin * cc->hin * cc->win; i++)
        X[i] = cc->fp16 ? f2h((float)rnd_range(-32, 32) / 4.0f) : rnd_range(-128, 127);
    for (uint32_t k = 0; k < nk; k++) {
        ow[k] = cc->mesa_bias && k > 0 ? ow[0] : rnd_range(-60, 60); /* -zp_k */
        bias[k] = rnd_range(-40000, 40000);
        if (cc->fp16) /* fp16 path: fp32 ALU operands (PP-OCRv4 det's biases) */
            bias[k] = (int32_t)f32_bits((float)rnd_range(-64, 64) / 8.0f);
        mul[k] = rnd_range(8192, 32767);
    }
    for (uint32_t i = 0; i < (cc->dw ? 1u : cc->kout) * cc->cin * taps; i++)
        W[i] = cc->fp16 ? f2h((float)rnd_range(-16, 16) / 4.0f) : rnd_range(-128, 127);

    /* reference accumulation */
    for (uint32_t k = 0; k < nk; k++)
        for (uint32_t oy = 0; oy < g.hout; oy++)
            for (uint32_t ox = 0; ox < g.wout; ox++) {
                int64_t acc = 0, sx = 0;
                double facc = 0;
                uint32_t c0 = cc->dw ? k : 0, c1 = cc->dw ? k + 1 : g.cin_pad;
                for (uint32_t ch = c0; ch < c1; ch++)
                    for (uint32_t ky = 0; ky < cc->kh; ky++)
                        for (uint32_t kx = 0; kx < cc->kw; kx++) {
                            int64_t iy = (int64_t)oy * cc->sy + ky - cc->pt;
                            int64_t ix = (int64_t)ox * cc->sx + kx - cc->pl;
                            int32_t xv = ref_x(cc, &g, ch, iy, ix);
                            size_t wi = cc->dw
                                            ? (size_t)ch * taps + ky * cc->kw + kx
                                            : ((size_t)k * cc->cin + ch) * taps + ky * cc->kw + kx;
                            int32_t wv = ch < cc->cin ? W[wi] : (cc->fp16 ? 0 : -ow[k]);
                            if (cc->fp16) {
                                facc += (double)h2f((uint16_t)xv) * h2f((uint16_t)wv);
                            } else {
                                acc += (int64_t)xv * wv;
                                sx += xv;
                            }
                        }
                size_t o = ((size_t)k * g.hout + oy) * g.wout + ox;
                if (!cc->dw)
                    SX[(size_t)oy * g.wout + ox] = sx;
                if (cc->fp16) {
                    F[o] = facc + (cc->mesa_bias ? (double)f32_of((uint32_t)bias[k]) : 0.0);
                    continue;
                }
                if (cc->bias || cc->mesa_bias) {
                    acc += bias[k] + (int64_t)ow[k] * sx;
                    if (!cc->mesa_bias)
                        acc = floor_div_pow2(acc * mul[k], 14);
                }
                if (cc->relu && acc < 0)
                    acc = 0;
                if (cc->relux && acc > 3000)
                    acc = 3000;
                T[o] = acc;
            }
    /* padded output channels: zero accumulators, zero stream operands; a
     * register OW operand (Mesa form) still adds OW * Σx there */
    for (uint32_t i = nk * g.hout * g.wout; i < g.kout_pad * g.hout * g.wout; i++) {
        T[i] = cc->mesa_bias ? (int64_t)ow[0] * SX[i % (g.hout * g.wout)] : 0;
        F[i] = 0.0;
    }
    /* EW operand (padded channels of the operand hold 0) */
    g.ew_off = -rnd_range(0, 30);
    g.ew_scale = (uint32_t)rnd_range(16384, 32767);
    g.ew_shift = 4;
    if (cc->ew)
        for (uint32_t i = 0; i < g.kout_pad * g.hout * g.wout; i++) {
            E[i] = i < nk * g.hout * g.wout ? rnd_range(-128, 127) : 0;
            T[i] += floor_div_pow2((E[i] + g.ew_off) * (int64_t)g.ew_scale, g.ew_shift);
        }
    /* OUT_CVT: a 15-bit scale and a shift that maps the range to ~±180 */
    for (uint32_t i = 0; !cc->fp16 && i < g.kout_pad * g.hout * g.wout; i++)
        if ((T[i] < 0 ? -T[i] : T[i]) > maxabs)
            maxabs = T[i] < 0 ? -T[i] : T[i];
    g.oc_scale = 1;
    g.oc_shift = 0;
    g.oc_off = 0;
    if (!cc->fp16 && cc->out_prec == 0) {
        g.oc_scale = (uint32_t)rnd_range(16384, 32767);
        while (g.oc_shift < 62 && (maxabs * (int64_t)g.oc_scale >> g.oc_shift) > 180)
            g.oc_shift++;
        g.oc_off = rnd_range(-20, 20);
    }

    /* program */
    tasm_conv_defaults(&c);
    c.fp16 = cc->fp16;
    c.depthwise = cc->dw;
    c.argb = cc->argb;
    c.hin = cc->hin;
    c.win = cc->win;
    c.cin_real = cc->cin;
    c.cin = g.cin_pad;
    c.nker = cc->dw ? 1 : cc->kout;
    c.kh = cc->kh;
    c.kw = cc->kw;
    c.sx = cc->sx;
    c.sy = cc->sy;
    c.pt = cc->pt;
    c.pl = cc->pl;
    c.hout = g.hout;
    c.wout = g.wout;
    c.kout = g.kout_pad;
    c.pad_value = (uint32_t)g.padv & (cc->fp16 ? 0xFFFFu : 0xFFFFFFFFu);
    c.in_addr = pack_input(cc, &g, &pitch);
    c.argb_pitch_px = pitch;
    c.w_addr = pack_weights(cc, &g);
    /* an atom a pixel, but 16 bytes for RK356x 32-bit outputs: the
     * vendor's form, which the builder writes (hardware.md §4.5) */
    uint32_t oe = out_elem_of(cc->out_prec), pix = rk356x() && oe == 4u && !cc->dw ? 16u : atom;
    uint32_t oc2 = pix / oe, npix = g.hout * g.wout, nsurf = (g.kout_pad + oc2 - 1) / oc2;
    c.out_surf = npix * pix;
    c.out_addr = tasm_alloc(&mem, nsurf * c.out_surf, 64);
    c.out_prec = cc->out_prec;
    if (cc->bias || cc->mesa_bias) {
        c.bs_addr = pack_bs(cc, &g);
        c.bs_cfg = (rk356x() ? 0x108u : 0x20100u) | (cc->mesa_bias ? 0x10u : 0u) |
                   (cc->relu ? 0u : 0x40u) | (cc->relux ? 0x80u : 0u);
        c.bs_mul_cfg = cc->mesa_bias ? 0 : 0xE01;
        c.bs_neg_shift = 14;
        c.brdma_use = cc->mesa_bias ? 1u : 7u;
        c.bs_ow_cfg = cc->fp16 ? 0x126u : (cc->mesa_bias ? 0x124u : 0x125u); /* fp16: OD bypass */
        c.bs_relux = 3000;
    } else if (cc->relu) {
        c.bs_cfg = 0x13u | (cc->relux ? 0x80u : 0u); /* ALU+MUL bypassed, ReLU on */
        c.bs_relux = 3000;
    }
    if (cc->mesa_bias)
        c.bs_ow_op = (uint16_t)ow[0]; /* Mesa: one OW operand for all kernels */
    if (cc->ew) {
        uint32_t ec2 = atom, esurf = npix * atom, ensurf = (g.kout_pad + ec2 - 1) / ec2;
        uint32_t ea = tasm_alloc(&mem, (ensurf + 1) * esurf, 64);
        for (uint32_t k = 0; k < g.kout_pad; k++)
            for (uint32_t p = 0; p < npix; p++)
                tasm_host(&mem, ea)[(k / ec2) * esurf + p * atom + k % ec2] =
                    (uint8_t)E[(size_t)k * npix + p];
        c.ew_cfg = rk356x() ? 0x900002D0u : 0x904202C0u;
        c.ew_cvt_off = (uint32_t)g.ew_off;
        c.ew_cvt_scale = g.ew_shift << 16 | g.ew_scale;
        c.ew_surf = esurf;
        c.erdma_size = rk356x() ? 0u : 1u;
        if (cc->comb) {
            c.comb_use = 5;
            c.src_addr = ea;
            c.ew_addr = ea + esurf;
        } else {
            c.ew_addr = ea;
        }
    }
    c.oc_scale = g.oc_scale;
    c.oc_shift = g.oc_shift | (cc->round_away ? 1u << 30 : 0u);
    c.oc_offset = (uint32_t)g.oc_off;
    tasm_conv_task(&tasks[0], soc, &c);
    if (!CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0)) {
        printf("  %s: %s\n", cc->name, vnpu_last_error(&dev, 0));
        return;
    }

    /* compare every output channel (padded ones included: acc 0 there) */
    for (uint32_t k = 0; k < g.kout_pad; k++)
        for (uint32_t p = 0; p < npix; p++) {
            const uint8_t *d =
                tasm_host(&mem, c.out_addr) + (k / oc2) * c.out_surf + p * pix + (k % oc2) * oe;
            size_t o = (size_t)k * npix + p;
            if (cc->fp16) {
                double want = F[o];
                if (cc->out_prec == 2)
                    bad += ld16(d) != f2h((float)want);
                else
                    bad += ld32(d) != (union {
                                          float f;
                                          uint32_t u;
                                      }){(float)want}
                                          .u;
                continue;
            }
            int64_t t = T[o];
            int64_t y =
                round_div_pow2(t * (int64_t)g.oc_scale, g.oc_shift, cc->round_away) + g.oc_off;
            int64_t got;
            switch (cc->out_prec) {
            case 0:
                got = (int8_t)d[0];
                y = sat(y, -128, 127);
                break;
            case 1:
                got = (int16_t)ld16(d);
                y = sat(y, -32768, 32767);
                break;
            default:
                got = (int32_t)ld32(d);
                y = sat(y, INT32_MIN, INT32_MAX);
                break;
            }
            if (got != y && bad++ < 3)
                printf("  %s: channel %lu pixel %lu: got %lld want %lld\n", cc->name,
                       (unsigned long)k, (unsigned long)p, (long long)got, (long long)y);
        }
    if (!CHECK_EQ_U(bad, 0))
        printf("  %s: %lu mismatches\n", cc->name, (unsigned long)bad);
}

/* One row per case reads as a table. */
/* clang-format off */
static const conv_case sweep[] = {
    /* name                       fp dw argb cin  h   w  kout kh kw sx sy pt pl pb pr bias mesa relu rx ew comb out away */
    {"1x1 c16 k8",                 0, 0, 0, 16,  8,  8,  8, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0},
    {"3x3 p1 c20 k40",             0, 0, 0, 20,  9,  7, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0},
    {"5x5 s2 p2 argb3 k16",        0, 0, 1,  3, 13, 11, 16, 5, 5, 2, 2, 2, 2, 2, 2, 1, 0, 0, 0, 0, 0, 0, 0},
    {"3x3 s2 c48 k70",             0, 0, 0, 48, 10, 10, 70, 3, 3, 2, 2, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1},
    {"1x1 c64 k33 relu",           0, 0, 0, 64,  5,  6, 33, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0},
    {"3x3 valid c7 k12 relux",     0, 0, 0,  7,  8,  9, 12, 3, 3, 1, 1, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0},
    {"3x3 pt1 pl0 implicit",       0, 0, 0, 16,  7,  8,  9, 3, 3, 1, 2, 1, 0, 1, 2, 1, 0, 0, 0, 0, 0, 0, 0},
    {"argb1 3x3 p1 k8",            0, 0, 1,  1, 12, 12,  8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0},
    {"argb4 1x1 k5",               0, 0, 1,  4,  6, 10,  5, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0},
    {"dw 3x3 p1 c24",              0, 1, 0, 24,  8,  8,  0, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0},
    {"dw 5x5 s2 p2 c80",           0, 1, 0, 80,  9, 10,  0, 5, 5, 2, 2, 2, 2, 2, 2, 1, 0, 0, 0, 0, 0, 0, 0},
    {"mesa bias 3x3 c16 k24",      0, 0, 0, 16,  6,  6, 24, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0},
    {"ew add 3x3 c8 k8",           0, 0, 0,  8,  7,  7,  8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0},
    {"ew add comb c16 k40",        0, 0, 0, 16,  6,  5, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0, 0},
    {"int32 out 3x3 c16 k20",      0, 0, 0, 16,  5,  5, 20, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 4, 0},
    {"int16 out 1x1 c32 k16",      0, 0, 0, 32,  4,  4, 16, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
    {"fp16 3x3 p1 c12 k20",        1, 0, 0, 12,  6,  7, 20, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 2, 0},
    {"fp16 argb3 1x1 k3",          1, 0, 1,  3, 10, 10,  3, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0},
    {"fp16 5x5 s2 c40 k17 fp32",   1, 0, 0, 40,  9,  9, 17, 5, 5, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 5, 0},
    {"fp16 dw 3x3 c20",            1, 1, 0, 20,  6,  6,  0, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 2, 0},
    {"fp16 bias stream c16 k24",   1, 0, 0, 16,  6,  6, 24, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 2, 0},
};
/* clang-format on */

static void test_conv_sweep(rknpu_soc_id id)
{
    setup(id);
    for (unsigned i = 0; i < sizeof sweep / sizeof sweep[0]; i++) {
        const conv_case *cc = &sweep[i];
        if (cc->comb && id != RKNPU_SOC_RK3588)
            continue; /* COMB_USE is the RK3588 form */
        if (cc->mesa_bias && id != RKNPU_SOC_RK3588)
            continue;
        run_conv_case(cc);
    }
    vnpu_stats st;
    vnpu_get_stats(&dev, 0, &st);
    CHECK(st.macs > 1000000);
}

/* ---- DPU-only (flying) cases ---------------------------------------------------- */

/* int8 cube through the flying DPU; every value -128..127 appears. */
static uint32_t int8_cube(uint32_t w, uint32_t h, uint32_t c)
{
    uint32_t atom = soc->feature_atom_bytes;
    uint32_t a = tasm_alloc(&mem, w * h * atom, 64);

    for (uint32_t p = 0; p < w * h; p++)
        for (uint32_t ch = 0; ch < c; ch++)
            tasm_host(&mem, a)[p * atom + ch] = (uint8_t)(p * c + ch);
    return a;
}

static int64_t flying_int(const tasm_conv *e, uint32_t w, uint32_t h, uint32_t c, uint32_t src,
                          int64_t (*ref)(int64_t), const char *name)
{
    uint32_t atom = soc->feature_atom_bytes, oe = out_elem_of(e->out_prec), oc2 = atom / oe;
    uint32_t bad = 0;

    tasm_flying_task(&tasks[0], soc, 0, w, h, c, src, e, 0);
    if (!CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0)) {
        printf("  %s: %s\n", name, vnpu_last_error(&dev, 0));
        return -1;
    }
    for (uint32_t p = 0; p < w * h; p++)
        for (uint32_t ch = 0; ch < c; ch++) {
            int64_t x = (int8_t)tasm_host(&mem, src)[p * atom + ch];
            const uint8_t *d = tasm_host(&mem, e->out_addr) + (ch / oc2) * e->out_surf + p * atom +
                               (ch % oc2) * oe;
            int64_t got = e->out_prec == 0
                              ? (int8_t)d[0]
                              : (e->out_prec == 1 ? (int16_t)ld16(d) : (int32_t)ld32(d));
            int64_t want = ref(x);
            if (got != want && bad++ < 3)
                printf("  %s: x %lld got %lld want %lld\n", name, (long long)x, (long long)got,
                       (long long)want);
        }
    CHECK_EQ_U(bad, 0);
    return bad;
}

static int64_t ref_half_even(int64_t x)
{
    return round_div_pow2(x, 1, 0) + 3;
}
static int64_t ref_half_away(int64_t x)
{
    return round_div_pow2(x, 1, 1) + 3;
}
static int64_t ref_sat(int64_t x)
{
    return sat(round_div_pow2((x + 1000) * 3, 2, 0) - 700, -128, 127);
}
static int64_t ref_int16(int64_t x)
{
    return sat((x + 1000) * 30, -32768, 32767);
}
static int64_t ref_bn(int64_t x)
{
    int64_t v = x - 17;
    int64_t y = v * 3000;
    v = floor_div_pow2(y, y >= 0 ? 11 : 9);
    v = v < 0 ? 0 : (v > 150 ? 150 : v);
    return sat(v, -128, 127);
}
static int64_t ref_bs_int32(int64_t x)
{
    return floor_div_pow2((x + 100000) * -7, 1);
}

static void test_dpu_only(rknpu_soc_id id)
{
    tasm_conv e;
    uint32_t atom, src, w = 16, h = 2, c;

    setup(id);
    atom = soc->feature_atom_bytes;
    c = atom; /* one full surface */
    src = int8_cube(w, h, c);
    /* OUT_CVT x/2 + 3: every odd x is a tie */
    tasm_conv_defaults(&e);
    e.out_addr = tasm_alloc(&mem, w * h * atom, 64);
    e.out_surf = w * h * atom;
    e.oc_shift = 1;
    e.oc_offset = 3;
    flying_int(&e, w, h, c, src, ref_half_even, "OUT_CVT ties to even");
    e.oc_shift = 1u | 1u << 30;
    flying_int(&e, w, h, c, src, ref_half_away, "OUT_CVT ties away");
    /* saturation: BS ALU +1000 (register), OUT_CVT x*3 >> 2 - 700 */
    e.bs_cfg = rk356x() ? 0x58u : 0x20050u; /* ALU add from register, MUL + ReLU bypassed */
    e.bs_alu = 1000;
    e.oc_scale = 3;
    e.oc_shift = 2;
    e.oc_offset = (uint32_t)-700;
    flying_int(&e, w, h, c, src, ref_sat, "OUT_CVT saturation");
    /* int16 output */
    uint32_t oc2 = atom / 2;
    e.out_prec = 1;
    e.out_surf = w * h * atom;
    e.out_addr = tasm_alloc(&mem, ((c + oc2 - 1) / oc2) * e.out_surf, 64);
    e.oc_scale = 30;
    e.oc_shift = 0;
    e.oc_offset = 0;
    flying_int(&e, w, h, c, src, ref_int16, "int16 output");
    /* BS MUL by a negative register operand into int32 (floor shift) */
    e.out_prec = 4;
    oc2 = atom / 4;
    e.out_addr = tasm_alloc(&mem, ((c + oc2 - 1) / oc2) * e.out_surf, 64);
    e.bs_cfg = rk356x() ? 0x48u : 0x20040u; /* ALU add + MUL, ReLU bypassed */
    e.bs_alu = 100000;
    e.bs_mul_cfg = (uint32_t)(uint16_t)-7 << 16 | 1u << 8; /* operand -7, shift 1 */
    e.bs_neg_shift = 1;
    e.oc_scale = 1;
    flying_int(&e, w, h, c, src, ref_bs_int32, "BS MUL int32");
    /* BN: (x - 17) * 3000, shift 11 (>= 0) / 9 (< 0), ReLU-X 150 */
    tasm_conv_defaults(&e);
    e.out_addr = tasm_alloc(&mem, w * h * atom, 64);
    e.out_surf = w * h * atom;
    e.bn_cfg = rk356x() ? 0x88u : 0x20080u; /* ALU add reg, MUL reg, ReLU + ReLU-X */
    e.bn_alu = (uint32_t)-17;
    e.bn_mul_cfg = 3000u << 16 | 11u << 8;
    e.bn_relux = 150;
    e.bs_neg_shift = 0;
    /* BN negative shift lives in DATA_FORMAT[15:10] */
    tasm_flying_task(&tasks[0], soc, 0, w, h, c, src, &e, 0);
    tasm_reg(&tasks[0], NPU_DPU_DATA_FORMAT, 9u << 10);
    uint32_t bad = 0;
    if (CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0))
        for (uint32_t p = 0; p < w * h; p++)
            for (uint32_t ch = 0; ch < c; ch++) {
                int8_t x = (int8_t)tasm_host(&mem, src)[p * atom + ch];
                int8_t got = (int8_t)tasm_host(&mem, e.out_addr)[p * atom + ch];
                if (got != ref_bn(x) && bad++ < 3)
                    printf("  BN: x %d got %d want %lld\n", x, got, (long long)ref_bn(x));
            }
    else
        printf("  BN: %s\n", vnpu_last_error(&dev, 0));
    CHECK_EQ_U(bad, 0);
}

/* Integer EW stage in flying mode, output int32 so that every rounding of
 * the operand converter is visible: x (op) cvt(e). */
static void test_ew_int(rknpu_soc_id id)
{
    static const struct {
        uint32_t algo, cvt, type1, relu;
        const char *name;
    } ops[] = {
        {2, 1, 1, 0, "add, cvt ((e + off) * s) >> sh"},
        {2, 1, 0, 0, "add, cvt ((e * s) >> sh) + off"},
        {0, 0, 0, 0, "max"},
        {1, 0, 0, 0, "min"},
        {4, 0, 0, 1, "sub + ReLU"},
    };
    uint32_t atom, w = 16, h = 2, c, src, ew;

    setup(id);
    atom = soc->feature_atom_bytes;
    c = atom;
    src = int8_cube(w, h, c);
    ew = tasm_alloc(&mem, w * h * atom, 64);
    for (uint32_t i = 0; i < w * h * atom; i++)
        tasm_host(&mem, ew)[i] = (uint8_t)rnd();
    for (unsigned k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        tasm_conv e;
        uint32_t bad = 0, oc2 = atom / 4;
        tasm_conv_defaults(&e);
        e.out_prec = 4;
        e.out_surf = w * h * atom;
        e.out_addr = tasm_alloc(&mem, ((c + oc2 - 1) / oc2) * e.out_surf, 64);
        e.ew_cfg = 1u << 28 | 1u << 7 | 1u << 6 | (ops[k].relu ? 0u : 1u << 9) |
                   (ops[k].cvt ? 0u : 1u << 8) | (ops[k].type1 ? 1u << 31 : 0u) |
                   (rk356x() ? (ops[k].algo < 4 ? ops[k].algo << 3 : ops[k].algo << 16)
                             : (ops[k].algo << 16 | 1u << 22));
        e.ew_cvt_off = (uint32_t)-5;
        e.ew_cvt_scale = 1u << 16 | 3u; /* scale 3, shift 1 */
        e.ew_addr = ew;
        e.ew_surf = w * h * atom;
        e.erdma_size = rk356x() ? 0u : 1u;
        tasm_flying_task(&tasks[0], soc, 0, w, h, c, src, &e, 0);
        if (!CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0)) {
            printf("  ew %s: %s\n", ops[k].name, vnpu_last_error(&dev, 0));
            continue;
        }
        for (uint32_t p = 0; p < w * h; p++)
            for (uint32_t ch = 0; ch < c; ch++) {
                int64_t x = (int8_t)tasm_host(&mem, src)[p * atom + ch];
                int64_t v = (int8_t)tasm_host(&mem, ew)[p * atom + ch], want;
                if (ops[k].cvt)
                    v = ops[k].type1 ? floor_div_pow2((v - 5) * 3, 1)
                                     : floor_div_pow2(v * 3, 1) - 5;
                switch (ops[k].algo) {
                case 0: want = x > v ? x : v; break;
                case 1: want = x < v ? x : v; break;
                case 2: want = x + v; break;
                default: want = x - v; break;
                }
                if (ops[k].relu && want < 0)
                    want = 0;
                int64_t got = (int32_t)ld32(tasm_host(&mem, e.out_addr) + (ch / oc2) * e.out_surf +
                                            p * atom + (ch % oc2) * 4);
                bad += got != want;
            }
        if (!CHECK_EQ_U(bad, 0))
            printf("  ew %s\n", ops[k].name);
    }
}

/* fp16 flying: (x + a) * m as fp32 NONALIGN (the RK3566 OutputOperator form),
 * fp16 elementwise with an ERDMA fp16 operand (ab's RK3588 form). */
static void test_dpu_fp16(rknpu_soc_id id)
{
    tasm_conv e;
    uint32_t atom, c2, w = 20, h = 3, src, ew, bad = 0;
    static const struct {
        uint32_t cfg;
        const char *name;
    } ops[] = {
        {0x108203C0u, "add"}, {0x108403C0u, "sub"},
        {0x108003C0u, "max"}, {0x108103C0u, "min"},
        {0x108003C4u, "mul"}, {0x108202C0u, "add, identity converter left on (ab's recipe)"},
    };

    setup(id);
    atom = soc->feature_atom_bytes;
    c2 = atom / 2;
    src = tasm_alloc(&mem, w * h * atom, 64);
    ew = tasm_alloc(&mem, w * h * atom, 64);
    for (uint32_t i = 0; i < w * h * c2; i++) {
        st16(tasm_host(&mem, src) + 2 * i, f2h((float)rnd_range(-64, 64) / 8.0f));
        st16(tasm_host(&mem, ew) + 2 * i, f2h((float)rnd_range(-64, 64) / 8.0f));
    }
    tasm_conv_defaults(&e);
    e.out_prec = 5;
    e.out_surf = w * h * c2 * 4;
    e.out_addr = tasm_alloc(&mem, e.out_surf, 64);
    e.bs_cfg = rk356x() ? 0x48u : 0x20040u;
    e.bs_alu = 0xC1A00000u; /* fp32 -20.0 */
    e.bs_mul_cfg = (uint32_t)f2h(4.140625f) << 16;
    tasm_flying_task(&tasks[0], soc, 2, w, h, c2, src, &e, 1);
    if (CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0)) {
        for (uint32_t i = 0; i < w * h * c2; i++) {
            float x = h2f(ld16(tasm_host(&mem, src) + 2 * i));
            float want = (x - 20.0f) * 4.140625f;
            union {
                float f;
                uint32_t u;
            } got = {0};
            got.u = ld32(tasm_host(&mem, e.out_addr) + 4 * i);
            bad += got.f != want;
        }
    } else {
        printf("  fp16 flying: %s\n", vnpu_last_error(&dev, 0));
    }
    CHECK_EQ_U(bad, 0);

    for (unsigned k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        tasm_conv_defaults(&e);
        e.out_prec = 2;
        e.oc_scale = 0x10001; /* FP32TOFP16 */
        e.out_surf = w * h * atom;
        e.out_addr = tasm_alloc(&mem, e.out_surf, 64);
        e.ew_cfg = ops[k].cfg;
        e.erdma_size = 2;
        e.ew_addr = ew;
        e.ew_surf = w * h * atom;
        tasm_flying_task(&tasks[0], soc, 2, w, h, c2, src, &e, 0);
        bad = 0;
        if (!CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0)) {
            printf("  fp16 ew %s: %s\n", ops[k].name, vnpu_last_error(&dev, 0));
            continue;
        }
        for (uint32_t i = 0; i < w * h * c2; i++) {
            float a = h2f(ld16(tasm_host(&mem, src) + 2 * i));
            float b = h2f(ld16(tasm_host(&mem, ew) + 2 * i));
            float want = k == 0 || k == 5 ? a + b
                         : k == 1         ? a - b
                         : k == 2         ? (a > b ? a : b)
                         : k == 3         ? (a < b ? a : b)
                                          : a * b;
            bad += ld16(tasm_host(&mem, e.out_addr) + 2 * i) != f2h(want);
        }
        if (!CHECK_EQ_U(bad, 0))
            printf("  fp16 ew %s\n", ops[k].name);
    }
}

/* ---- PPU ------------------------------------------------------------------------ */

static void test_pooling(rknpu_soc_id id)
{
    static const struct {
        uint32_t method, kw, kh, sw, sh, pl, pt, pr, pb;
    } pc[] = {
        {1, 3, 3, 2, 2, 1, 1, 1, 1}, /* max 3x3 s2 p1 */
        {2, 2, 2, 2, 2, 0, 0, 0, 0}, /* min 2x2 s2 */
        {0, 3, 3, 1, 1, 1, 1, 1, 1}, /* avg 3x3 s1 p1 (padding counts) */
        {0, 2, 3, 2, 1, 0, 1, 1, 1}, /* avg 2x3 */
    };
    uint32_t atom, win = 9, hin = 7, c = 20;

    setup(id);
    atom = soc->feature_atom_bytes;
    uint32_t c2 = atom, c1 = (c + c2 - 1) / c2;
    uint32_t src = tasm_alloc(&mem, c1 * hin * win * atom, 64);
    for (uint32_t i = 0; i < c1 * hin * win * atom; i++)
        tasm_host(&mem, src)[i] = (uint8_t)rnd();
    for (unsigned k = 0; k < sizeof pc / sizeof pc[0]; k++) {
        tasm_pool p;
        uint32_t bad = 0;
        memset(&p, 0, sizeof p);
        p.method = pc[k].method;
        p.win = win;
        p.hin = hin;
        p.c = c;
        p.kw = pc[k].kw;
        p.kh = pc[k].kh;
        p.sw = pc[k].sw;
        p.sh = pc[k].sh;
        p.pl = pc[k].pl;
        p.pt = pc[k].pt;
        p.pr = pc[k].pr;
        p.pb = pc[k].pb;
        p.wout = (win + p.pl + p.pr - p.kw) / p.sw + 1;
        p.hout = (hin + p.pt + p.pb - p.kh) / p.sh + 1;
        p.src = src;
        p.line = win * atom;
        p.surf = hin * win * atom;
        p.dsurf = p.wout * p.hout * atom;
        p.dst = tasm_alloc(&mem, c1 * p.dsurf, 64);
        p.pad_value = 0x7FF80 + (uint32_t)k; /* low byte: -128..-125 */
        p.recip_w = 65536u / p.kw;
        p.recip_h = 65536u / p.kh;
        tasm_pool_task(&tasks[0], soc, &p);
        if (!CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0)) {
            printf("  pool %u: %s\n", k, vnpu_last_error(&dev, 0));
            continue;
        }
        for (uint32_t ch = 0; ch < c; ch++)
            for (uint32_t oy = 0; oy < p.hout; oy++)
                for (uint32_t ox = 0; ox < p.wout; ox++) {
                    int64_t acc = p.method == 1 ? -1000 : (p.method == 2 ? 1000 : 0);
                    for (uint32_t ky = 0; ky < p.kh; ky++)
                        for (uint32_t kx = 0; kx < p.kw; kx++) {
                            int64_t iy = (int64_t)oy * p.sh + ky - p.pt;
                            int64_t ix = (int64_t)ox * p.sw + kx - p.pl;
                            int64_t v = (iy < 0 || ix < 0 || iy >= hin || ix >= win)
                                            ? (int8_t)(uint8_t)p.pad_value
                                            : (int8_t)tasm_host(
                                                  &mem, src)[(ch / c2) * p.surf + iy * p.line +
                                                             ix * atom + ch % c2];
                            if (p.method == 0)
                                acc += v;
                            else if (p.method == 1 ? v > acc : v < acc)
                                acc = v;
                        }
                    if (p.method == 0)
                        acc = sat(round_div_pow2(acc * p.recip_w * p.recip_h, 32, 0), -128, 127);
                    int8_t got = (int8_t)tasm_host(
                        &mem, p.dst)[(ch / c2) * p.dsurf + (oy * p.wout + ox) * atom + ch % c2];
                    bad += got != acc;
                }
        if (!CHECK_EQ_U(bad, 0))
            printf("  pool case %u\n", k);
    }
}

/* ---- modes the model reports instead of computing --------------------------------- */

static void expect_unsupported(const tasm_conv *c, uint32_t reg, uint32_t value, const char *name)
{
    tasm_conv_task(&tasks[0], soc, c);
    tasm_reg(&tasks[0], reg, value);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), -1);
    if (!CHECK(strstr(vnpu_last_error(&dev, 0), name) != NULL))
        printf("  expected %s in: %s\n", name, vnpu_last_error(&dev, 0));
}

static void test_unsupported(void)
{
    tasm_conv c;

    setup(RKNPU_SOC_RK3588);
    tasm_conv_defaults(&c);
    c.hin = c.win = c.hout = c.wout = 4;
    c.cin_real = c.cin = 16;
    c.nker = 8;
    c.kout = 32;
    c.kh = c.kw = 1;
    c.in_addr = tasm_alloc(&mem, 4096, 64);
    c.w_addr = tasm_alloc(&mem, 4096, 64);
    c.out_addr = tasm_alloc(&mem, 4096, 64);
    c.out_surf = 256;
    tasm_conv_task(&tasks[0], soc, &c);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), 0);                /* the base program is fine */
    expect_unsupported(&c, NPU_CNA_CONV_CON1, 5, "CNA_CONV_CON1");   /* conv mode */
    expect_unsupported(&c, NPU_CNA_CONV_CON1, 0x10, "IN_PRECISION"); /* int16 */
    expect_unsupported(&c, NPU_CNA_CONV_CON3, 0x9 | 2u << 16, "dilation");
    expect_unsupported(&c, NPU_CNA_CONV_CON3, 0x9 | 1u << 8, "deconvolution");
    expect_unsupported(&c, NPU_CORE_CLIP_TRUNCATE, 2, "CORE_CLIP_TRUNCATE");
    expect_unsupported(&c, NPU_DPU_EW_CFG, 0x202, "DPU_LUT_CFG"); /* a LUT in mode 0 */
    expect_unsupported(&c, NPU_DPU_BS_CFG, 0x20120, "PReLU");
    expect_unsupported(&c, NPU_DPU_OUT_CVT_SHIFT, 1u << 31, "CVT_TYPE");
    expect_unsupported(&c, NPU_DPU_DATA_FORMAT, 7u << 29, "output precision");
    expect_unsupported(&c, NPU_DPU_FEATURE_MODE_CFG, 0x1E4 | 1u << 25, "NONALIGN");
    expect_unsupported(&c, NPU_DPU_FEATURE_MODE_CFG, 0x1E2, "OUTPUT_MODE");
    /* MRDMA on with nothing to read: DPU_RDMA enabled by a BS operand stream
     * the BS stage then bypasses (a plain conv leaves DPU_RDMA off) */
    c.brdma_use = 4u;
    c.bs_addr = c.in_addr;
    expect_unsupported(&c, NPU_DPU_RDMA_FEATURE_MODE_CFG, 0x7800, "MRDMA");
    c.brdma_use = 0;
    expect_unsupported(&c, NPU_CORE_DATAOUT_SIZE_1, 6, "fewer CORE output channels");
    expect_unsupported(&c, NPU_CNA_WEIGHT_SIZE1, 99, "weight sizes");
    expect_unsupported(&c, NPU_CNA_FC_CON0, 1, "zero skipping");
    /* CBUF programming (vnpu.md §6.1): more banks than the CBUF has, the
     * input's rows (4 x DATA_ENTRIES 64-byte entries) beyond the data banks,
     * fewer entries than a line of the 16 channels needs */
    expect_unsupported(&c, NPU_CNA_CBUF_CON0, 0x88, "exceed the CBUF");
    expect_unsupported(&c, NPU_CNA_CBUF_CON1, 2000, "CBUF bank overflow");
    expect_unsupported(&c, NPU_CNA_CBUF_CON1, 0, "K does not match the CBUF entries");
    /* the output-atom count of a kernel group (vnpu.md §7): SIZE_E, SURFACE_ADD */
    expect_unsupported(&c, NPU_DPU_BS_OW_CFG, 0x2, "SIZE_E");
    expect_unsupported(&c, NPU_DPU_SURFACE_ADD, 0, "SURFACE_ADD");
    /* the RK3566 converter with the ROUND_TYPE bit */
    setup(RKNPU_SOC_RK3566);
    c.in_addr = tasm_alloc(&mem, 4096, 64);
    c.w_addr = tasm_alloc(&mem, 4096, 64);
    c.out_addr = tasm_alloc(&mem, 4096, 64);
    c.kout = 16;
    c.cin = c.cin_real = 8;
    expect_unsupported(&c, NPU_CNA_CVT_CON0, 0x5, "ROUND_TYPE");
}

/* RK3566 input converter (CVT_CON0[0] = enable): raw uint8 x -> x - 128. */
static void test_rk3566_converter(void)
{
    tasm_conv c;
    uint32_t bad = 0;

    setup(RKNPU_SOC_RK3566);
    tasm_conv_defaults(&c);
    c.argb = 1;
    c.hin = 4;
    c.win = 5;
    c.hout = 4;
    c.wout = 5;
    c.cin_real = 3;
    c.cin = 8;
    c.argb_pitch_px = 8;
    c.nker = 3;
    c.kout = 16;
    c.kh = c.kw = 1;
    c.out_prec = 4;
    c.in_addr = tasm_alloc(&mem, 4 * 8 * 3, 64);
    c.w_addr = tasm_alloc(&mem, 3 * 8, 64);
    c.out_surf = 20 * 16; /* 32-bit output: 16 bytes (4 channels) a pixel */
    c.out_addr = tasm_alloc(&mem, 4 * c.out_surf, 64);
    c.cvt_con0 = 0x000E38E1u; /* enable, TYPE 0, unsigned, truncate 14 x3 */
    c.cvt_con[0] = c.cvt_con[1] = c.cvt_con[2] = 0x4000FF80u;
    c.cvt_con[3] = 0x10000u;
    for (uint32_t i = 0; i < 4 * 8 * 3; i++)
        tasm_host(&mem, c.in_addr)[i] = (uint8_t)(i * 37u);
    for (uint32_t k = 0; k < 3; k++)
        tasm_host(&mem, c.w_addr)[k * 8 + k] = 1; /* identity kernels */
    tasm_conv_task(&tasks[0], soc, &c);
    if (!CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0))
        printf("  converter: %s\n", vnpu_last_error(&dev, 0));
    for (uint32_t y = 0; y < 4; y++)
        for (uint32_t x = 0; x < 5; x++)
            for (uint32_t k = 0; k < 3; k++) {
                int32_t raw = tasm_host(&mem, c.in_addr)[(y * 8 + x) * 3 + k];
                int32_t got = (int32_t)ld32(tasm_host(&mem, c.out_addr) + (k / 4) * c.out_surf +
                                            (y * 5 + x) * 16 + (k % 4) * 4);
                bad += got != raw - 128;
            }
    CHECK_EQ_U(bad, 0);
}

/* ---- what YOLOv8n's toolkit-1.5 RK3566 streams program ------------------------------ */

/* A task body longer than the builder's NPU_BUILDER_MAX_WORDS: a LUT load
 * (2 x 514 LUT_ACCESS_DATA words) in front of a builder task. */
#define LONG_WORDS 2048u
typedef struct {
    uint64_t w[LONG_WORDS];
    unsigned n;
    uint32_t enable, int_mask;
} long_task;

static long_task longs[2];
static int long_overflow; /* a body outgrew LONG_WORDS */

static void long_begin(long_task *l, uint32_t enable, uint32_t int_mask)
{
    l->n = 0;
    l->enable = enable;
    l->int_mask = int_mask;
}

/* One register write, encoded by the builder (SoC offset, block target). */
static void long_reg(long_task *l, uint32_t off, uint32_t value)
{
    tasm_task one;

    tasm_task_init(&one, soc, 0, 0);
    tasm_reg(&one, off, value);
    if (l->n < LONG_WORDS)
        l->w[l->n++] = one.words[0];
    else
        long_overflow = 1;
}

/* Append a builder task's body; its unit mask and interrupt become the task's. */
static void long_append(long_task *l, const tasm_task *t)
{
    for (unsigned i = 0; i < t->n; i++) {
        if (l->n < LONG_WORDS)
            l->w[l->n++] = t->words[i];
        else
            long_overflow = 1;
    }
    l->enable = t->enable;
    l->int_mask = t->int_mask;
}

/* Poll like tasm_run: 0 done, -1 DMA error bits, -2 nothing completed. */
static int poll_done(uint32_t last)
{
    for (int i = 0; i < 100; i++) {
        uint32_t st = vnpu_mmio_read(&dev, 0, NPU_PC_INTERRUPT_STATUS);
        uint32_t raw = vnpu_mmio_read(&dev, 0, NPU_PC_INTERRUPT_RAW_STATUS);
        if (raw & (NPU_PC_INTERRUPT_RAW_STATUS_DMA_READ_ERROR_MASK |
                   NPU_PC_INTERRUPT_RAW_STATUS_DMA_WRITE_ERROR_MASK)) {
            vnpu_mmio_write(&dev, 0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
            return -1;
        }
        if (tasm_fuzz(st) == last) {
            vnpu_mmio_write(&dev, 0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
            return 0;
        }
    }
    return -2;
}

/* Place n long tasks as a chain with the PC tail (hardware.md §1.5: next
 * address, next amount, pre-enable, op-enable), kick and poll. */
static int run_long(const long_task *l, unsigned n)
{
    uint32_t scale = soc->pc_data_amount_scale, span[2], total = 0, base, at;

    if (!CHECK(n >= 1 && n <= 2 && !long_overflow))
        return -3;
    for (unsigned i = 0; i < n; i++) {
        span[i] = align_up((l[i].n + NPU_PC_TAIL_WORDS + 1u) * 8u, 64);
        total += span[i];
    }
    base = tasm_alloc(&mem, total, 64);
    if (!CHECK(base != 0))
        return -3;
    at = base;
    for (unsigned i = 0; i < n; i++) {
        uint8_t *p = tasm_host(&mem, at);
        unsigned w = 0;
        for (unsigned j = 0; j < l[i].n; j++)
            tasm_store64(p, w++, l[i].w[j]);
        if (i + 1 < n) {
            tasm_store64(p, w++, npu_regcmd_next_address(at + span[i]));
            tasm_store64(p, w++, npu_regcmd_next_amount(npu_pc_fetch_amount(l[i + 1].n, scale)));
        } else {
            tasm_store64(p, w++, npu_regcmd_nop());
            tasm_store64(p, w++, npu_regcmd_next_amount(0));
        }
        tasm_store64(p, w++, npu_regcmd_pre_enable());
        tasm_store64(p, w++, npu_regcmd_op_enable(l[i].enable));
        at += span[i];
    }
    tasm_kick(&dev, 0, base, npu_pc_fetch_amount(l[0].n, scale), n, l[0].int_mask,
              l[n - 1].int_mask);
    return poll_done(l[n - 1].int_mask);
}

static int contains(const char *s, const char *what)
{
    return strstr(s, what) != NULL;
}

/* ---- 1. the DPU LUT on the integer path (vnpu.md §7.5) ------------------------- */

#define LUT_N 513

/* One LUT programming: [0] LE, [1] LO. */
typedef struct {
    const char *name;
    uint32_t cfg; /* LUT_CFG */
    int32_t start[2], end[2];
    unsigned sel[2]; /* INDEX_SELECT: entries 2^sel index units apart */
    int32_t uscale[2], oscale[2];
    unsigned ushift[2], oshift[2];
    int8_t answers[2][3]; /* [table][below, in, above]: the cases the priorities let answer */
} lut_prog;

static int16_t lut_tab[2][LUT_N];

enum { LUT_BELOW, LUT_IN, LUT_ABOVE };
static uint32_t lut_hits[2][3], lut_hits_frac[2], lut_hits_both;

/* The reference of vnpu.md §7.5, integer path: the table x falls in answers;
 * in both HYBRID_PRIORITY picks, below both UFLOW_PRIORITY, above both
 * OFLOW_PRIORITY (1: LO). In the window y = T[i] + floor((T[i+1] - T[i])·f
 * / 2^sel) with i, f the quotient and remainder of (x - start) / 2^sel;
 * below T[0] + floor((x - start)·uscale / 2^ushift); above T[last] +
 * floor((x - end)·oscale / 2^oshift). *bad set for x above one window and
 * below the other, which the document leaves open (the tests avoid it). */
static int64_t lut_ref(const lut_prog *L, int64_t x, int *bad)
{
    int side[2], id;

    for (int k = 0; k < 2; k++)
        side[k] = x < L->start[k] ? -1 : (x > L->end[k] ? 1 : 0);
    if (side[0] == 0 && side[1] == 0) {
        id = NPU_DPU_LUT_CFG_HYBRID_PRIORITY_GET(L->cfg) ? 1 : 0;
        lut_hits_both++;
    } else if (side[0] == 0) {
        id = 0;
    } else if (side[1] == 0) {
        id = 1;
    } else if (side[0] < 0 && side[1] < 0) {
        id = NPU_DPU_LUT_CFG_UFLOW_PRIORITY_GET(L->cfg) ? 1 : 0;
    } else if (side[0] > 0 && side[1] > 0) {
        id = NPU_DPU_LUT_CFG_OFLOW_PRIORITY_GET(L->cfg) ? 1 : 0;
    } else {
        *bad = 1;
        return 0;
    }
    const int16_t *T = lut_tab[id];
    int64_t step = (int64_t)1 << L->sel[id];
    int64_t last = ((int64_t)L->end[id] - L->start[id]) / step;
    if (side[id] < 0) {
        lut_hits[id][LUT_BELOW]++;
        return T[0] + floor_div_pow2((x - L->start[id]) * L->uscale[id], L->ushift[id]);
    }
    if (side[id] > 0) {
        lut_hits[id][LUT_ABOVE]++;
        return T[last] + floor_div_pow2((x - L->end[id]) * L->oscale[id], L->oshift[id]);
    }
    lut_hits[id][LUT_IN]++;
    int64_t off = x - L->start[id], i = off / step, f = off % step;
    if (f == 0)
        return T[i];
    lut_hits_frac[id]++;
    return T[i] + floor_div_pow2((int64_t)(T[i + 1] - T[i]) * f, L->sel[id]);
}

/* The LUT load as the toolkit-1.5 streams write it: per table LUT_ACCESS_CFG
 * (write, table, address 0) and 514 LUT_ACCESS_DATA words, the last a copy
 * of the second (one past the 513-entry table: dropped); then a read access
 * with one data word (ignored). LO first, so that a word stored past LE's
 * end would land on LO's entry 0. */
static void lut_load_words(long_task *l)
{
    static const unsigned order[2] = {1, 0};

    for (unsigned k = 0; k < 2; k++) {
        unsigned id = order[k];
        long_reg(l, NPU_DPU_LUT_ACCESS_CFG,
                 NPU_DPU_LUT_ACCESS_CFG_ACCESS_TYPE(1) | NPU_DPU_LUT_ACCESS_CFG_TABLE_ID(id) |
                     NPU_DPU_LUT_ACCESS_CFG_LUT_ADDR(0));
        for (unsigned i = 0; i <= LUT_N; i++)
            long_reg(
                l, NPU_DPU_LUT_ACCESS_DATA,
                NPU_DPU_LUT_ACCESS_DATA_LUT_ACCESS_DATA((uint16_t)lut_tab[id][i < LUT_N ? i : 1]));
    }
    long_reg(l, NPU_DPU_LUT_ACCESS_CFG,
             NPU_DPU_LUT_ACCESS_CFG_ACCESS_TYPE(0) | NPU_DPU_LUT_ACCESS_CFG_TABLE_ID(0));
    long_reg(l, NPU_DPU_LUT_ACCESS_DATA, NPU_DPU_LUT_ACCESS_DATA_LUT_ACCESS_DATA(0x7FFF));
}

static void lut_regs(tasm_task *t, const lut_prog *L)
{
    tasm_reg(t, NPU_DPU_LUT_CFG, L->cfg);
    tasm_reg(t, NPU_DPU_LUT_INFO,
             NPU_DPU_LUT_INFO_LE_INDEX_SELECT(L->sel[0]) |
                 NPU_DPU_LUT_INFO_LO_INDEX_SELECT(L->sel[1]));
    /* LE then LO; the two tables' slope registers share one layout (regs.def) */
    for (unsigned k = 0; k < 2; k++) {
        static const uint32_t start[2] = {NPU_DPU_LUT_LE_START, NPU_DPU_LUT_LO_START};
        static const uint32_t end[2] = {NPU_DPU_LUT_LE_END, NPU_DPU_LUT_LO_END};
        static const uint32_t scale[2] = {NPU_DPU_LUT_LE_SLOPE_SCALE, NPU_DPU_LUT_LO_SLOPE_SCALE};
        static const uint32_t shift[2] = {NPU_DPU_LUT_LE_SLOPE_SHIFT, NPU_DPU_LUT_LO_SLOPE_SHIFT};
        tasm_reg(t, start[k], (uint32_t)L->start[k]);
        tasm_reg(t, end[k], (uint32_t)L->end[k]);
        tasm_reg(t, scale[k],
                 NPU_DPU_LUT_LE_SLOPE_SCALE_LUT_LE_SLOPE_UFLOW_SCALE((uint16_t)L->uscale[k]) |
                     NPU_DPU_LUT_LE_SLOPE_SCALE_LUT_LE_SLOPE_OFLOW_SCALE((uint16_t)L->oscale[k]));
        tasm_reg(t, shift[k],
                 NPU_DPU_LUT_LE_SLOPE_SHIFT_LUT_LE_SLOPE_UFLOW_SHIFT(L->ushift[k]) |
                     NPU_DPU_LUT_LE_SLOPE_SHIFT_LUT_LE_SLOPE_OFLOW_SHIFT(L->oshift[k]));
    }
}

/* The convolution of the LUT test: 1x1, 8 input channels, 16 kernels on a
 * 24x24 map (RK3566: one input surface, one kernel group). */
#define LUT_HW   24u
#define LUT_NPIX (LUT_HW * LUT_HW)
#define LUT_CIN  8u
#define LUT_K    16u
#define LUT_BIAS 37 /* BS ALU operand */

static int32_t lut_x[LUT_NPIX][LUT_CIN], lut_w[LUT_K][LUT_CIN];

/* The value that reaches the LUT: BS adds LUT_BIAS, BN multiplies by 3 with
 * shift 2 (both signs; a slope below 1 reaches every index value). */
static int64_t lut_index_of(int64_t acc)
{
    return floor_div_pow2((acc + LUT_BIAS) * 3, 2);
}

/* Inputs whose kernel-0 sums reach the index values `t`: kernel 0 is
 * (-128, -128, -1, 0...) and pixel p holds (-a1, -a2, -b) in channels 0-2,
 * so acc = 128·(a1 + a2) + b; the other channels and kernels are random. */
static void lut_inputs(const int32_t *t, uint32_t nt)
{
    for (uint32_t p = 0; p < LUT_NPIX; p++) {
        int64_t want = p < nt ? t[p] : rnd_range(-24000, 24000);
        int64_t n4 = 4 * want, acc = n4 / 3 + (n4 % 3 > 0 ? 1 : 0) - LUT_BIAS; /* ceil(4t/3) */
        int64_t b = acc % 128, s;
        if (b > 63)
            b -= 128;
        if (b < -64)
            b += 128;
        s = (acc - b) / 128;
        lut_x[p][0] = (int32_t)(-(s / 2));
        lut_x[p][1] = (int32_t)(-(s - s / 2));
        lut_x[p][2] = (int32_t)(-b);
        for (uint32_t c = 3; c < LUT_CIN; c++)
            lut_x[p][c] = rnd_range(-128, 127);
        CHECK(lut_x[p][0] >= -128 && lut_x[p][0] <= 127 && lut_x[p][1] >= -128 &&
              lut_x[p][1] <= 127 && lut_index_of(128 * (s / 2 + s - s / 2) + b) == want);
    }
    for (uint32_t k = 0; k < LUT_K; k++)
        for (uint32_t c = 0; c < LUT_CIN; c++)
            lut_w[k][c] = k == 0 ? (c < 2 ? -128 : (c == 2 ? -1 : 0)) : rnd_range(-40, 40);
}

/* Index values around both tables' ends and every fraction of their first
 * and last segments (up to cap). */
static uint32_t lut_targets(const lut_prog *L, int32_t *t, uint32_t cap)
{
    uint32_t n = 0;

    for (int k = 0; k < 2; k++) {
        int32_t step = 1 << L->sel[k];
        int32_t edges[] = {L->start[k] - step - 1, L->start[k] - 1,     L->start[k],
                           L->start[k] + 1,        L->end[k] - 1,       L->end[k],
                           L->end[k] + 1,          L->end[k] + step + 3};
        for (unsigned i = 0; i < sizeof edges / sizeof edges[0] && n < cap; i++)
            t[n++] = edges[i];
        for (int32_t f = 0; f < step && n + 2 < cap; f++) {
            t[n++] = L->start[k] + step + f;   /* segment 1 */
            t[n++] = L->end[k] - step + f + 1; /* the last segment, its end included */
        }
    }
    return n;
}

/* Build the convolution task of the LUT test. */
static void lut_conv_task(tasm_task *t, const lut_prog *L, uint32_t in, uint32_t wts, uint32_t out,
                          uint32_t out_prec, uint32_t oc_scale, uint32_t oc_shift, int32_t oc_off)
{
    tasm_conv c;

    tasm_conv_defaults(&c);
    c.hin = c.win = c.hout = c.wout = LUT_HW;
    c.cin_real = c.cin = LUT_CIN;
    c.nker = c.kout = LUT_K;
    c.kh = c.kw = 1;
    c.in_addr = in;
    c.w_addr = wts;
    c.out_addr = out;
    c.out_surf = LUT_NPIX * soc->feature_atom_bytes;
    c.out_prec = out_prec;
    /* BS: ALU add from the register; BN: MUL 3, shift 2 (index domain) */
    c.bs_cfg = NPU_DPU_BS_CFG_RK356X_BS_ALU_ALGO(2) | NPU_DPU_BS_CFG_BS_MUL_BYPASS(1) |
               NPU_DPU_BS_CFG_BS_RELU_BYPASS(1);
    c.bs_alu = (uint32_t)LUT_BIAS;
    c.bn_cfg = NPU_DPU_BN_CFG_BN_ALU_BYPASS(1) | NPU_DPU_BN_CFG_BN_RELU_BYPASS(1);
    c.bn_mul_cfg = NPU_DPU_BN_MUL_CFG_BN_MUL_OPERAND(3) | NPU_DPU_BN_MUL_CFG_BN_MUL_SHIFT_VALUE(2);
    /* EW: the LUT alone (operand, converter and ReLU bypassed) */
    c.ew_cfg = NPU_DPU_EW_CFG_EW_OP_BYPASS(1) | NPU_DPU_EW_CFG_EW_OP_CVT_BYPASS(1) |
               NPU_DPU_EW_CFG_EW_RELU_BYPASS(1);
    c.oc_scale = oc_scale;
    c.oc_shift = oc_shift;
    c.oc_offset = (uint32_t)oc_off;
    tasm_conv_task(t, soc, &c);
    tasm_reg(t, NPU_DPU_DATA_FORMAT,
             NPU_DPU_DATA_FORMAT_OUT_PRECISION(out_prec) | NPU_DPU_DATA_FORMAT_IN_PRECISION(0) |
                 NPU_DPU_DATA_FORMAT_PROC_PRECISION(0) |
                 NPU_DPU_DATA_FORMAT_BN_MUL_SHIFT_VALUE_NEG(2));
    tasm_reg(t, NPU_DPU_RDMA_ERDMA_CFG, NPU_DPU_RDMA_ERDMA_CFG_ERDMA_DISABLE(1));
    lut_regs(t, L);
}

/* Compare the convolution's output with the reference; int16 output with
 * OUT_CVT the identity shows every table unit, int8 the OUT_CVT after it. */
static uint32_t lut_check(const lut_prog *L, uint32_t out, uint32_t out_prec, uint32_t oc_scale,
                          uint32_t oc_shift, int32_t oc_off, const char *what)
{
    uint32_t atom = soc->feature_atom_bytes, oe = out_elem_of(out_prec), oc2 = atom / oe, bad = 0;
    int undoc = 0;

    memset(lut_hits, 0, sizeof lut_hits);
    memset(lut_hits_frac, 0, sizeof lut_hits_frac);
    lut_hits_both = 0;
    for (uint32_t k = 0; k < LUT_K; k++)
        for (uint32_t p = 0; p < LUT_NPIX; p++) {
            int64_t acc = 0;
            for (uint32_t c = 0; c < LUT_CIN; c++)
                acc += (int64_t)lut_x[p][c] * lut_w[k][c];
            int64_t x = lut_index_of(acc);
            int64_t y = lut_ref(L, x, &undoc);
            y = round_div_pow2(y * (int64_t)oc_scale, oc_shift, 0) + oc_off;
            const uint8_t *d =
                tasm_host(&mem, out) + (k / oc2) * LUT_NPIX * atom + p * atom + (k % oc2) * oe;
            int64_t got = out_prec == 0 ? (int8_t)d[0] : (int16_t)ld16(d);
            y = out_prec == 0 ? sat(y, -128, 127) : sat(y, -32768, 32767);
            if (got != y && bad++ < 5)
                printf("  LUT %s (%s): kernel %u pixel %u: index %lld got %lld want %lld\n",
                       L->name, what, (unsigned)k, (unsigned)p, (long long)x, (long long)got,
                       (long long)y);
        }
    CHECK(!undoc);
    return bad;
}

static void lut_coverage(const lut_prog *L)
{
    for (int k = 0; k < 2; k++) {
        for (int r = 0; r < 3; r++)
            if (L->answers[k][r] && !CHECK(lut_hits[k][r] > 0))
                printf("  LUT %s: table %d case %d never reached\n", L->name, k, r);
        CHECK(lut_hits_frac[k] > 0);
    }
    CHECK(lut_hits_both > 0);
}

static void lut_fill_tables(void)
{
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < LUT_N; i++)
            lut_tab[k][i] = (int16_t)rnd_range(-1200, 1200);
        if (lut_tab[k][1] == lut_tab[k][0]) /* the 514th word (= entry 1) must show */
            lut_tab[k][1] = (int16_t)(lut_tab[k][0] + 7);
    }
}

static void test_lut_int(void)
{
    /* YOLOv8n's ConvExSwish programming: LUT_CFG 0x68 (LO_LE_MUX 2, LO wins
     * in both windows and above both), index selects 5, LE [-16384, 0] with
     * underflow slope 0, LO [0, 16384] with overflow slope 0x4032·2^-13; the
     * slopes no case uses hold values that would show if one answered */
    const lut_prog yolo = {
        "YOLOv8n",
        NPU_DPU_LUT_CFG_LO_LE_MUX(2) | NPU_DPU_LUT_CFG_OFLOW_PRIORITY(1) |
            NPU_DPU_LUT_CFG_HYBRID_PRIORITY(1),
        {-16384, 0},            /* starts: LE, LO */
        {0, 16384},             /* ends */
        {5, 5},                 /* index selects */
        {0, 12345},             /* underflow scales (LO's unused) */
        {-5000, 0x4032},        /* overflow scales (LE's unused) */
        {0, 2},                 /* underflow shifts */
        {3, 13},                /* overflow shifts */
        {{1, 1, 0}, {0, 1, 1}}, /* the cases that answer */
    };
    /* overlapping windows, the other priorities (LE in both and above both,
     * LO below both), index select 6 for LO, negative products to floor */
    const lut_prog other = {
        "overlap",
        NPU_DPU_LUT_CFG_LO_LE_MUX(2) | NPU_DPU_LUT_CFG_UFLOW_PRIORITY(1),
        {-12000, -3008},        /* starts: LE, LO */
        {4000, 13376},          /* ends */
        {5, 6},                 /* index selects */
        {3000, 200},            /* underflow scales (LE's unused) */
        {-1345, -9999},         /* overflow scales (LO's unused) */
        {1, 9},                 /* underflow shifts */
        {11, 0},                /* overflow shifts */
        {{0, 1, 1}, {1, 1, 0}}, /* the cases that answer */
    };
    static int32_t targets[LUT_NPIX];
    uint32_t atom, in, wts, out16, out8, nt, flat, flout;
    tasm_task conv, fly;
    tasm_conv fc;

    setup(RKNPU_SOC_RK3566);
    atom = soc->feature_atom_bytes;
    CHECK_EQ_U(yolo.cfg, 0x68); /* the value in the YOLOv8n streams */

    /* the YOLOv8n programming: a two-task chain, the first loading both
     * tables (and copying a small cube), the second the convolution */
    lut_fill_tables();
    nt = lut_targets(&yolo, targets, LUT_NPIX);
    targets[nt++] = 0;      /* in both windows: LO (hybrid) */
    targets[nt++] = -24000; /* far below both: LE, slope 0 */
    targets[nt++] = 24000;  /* far above both: LO, slope 0x4032·2^-13 */
    for (int32_t f = 0; f < 32; f++)
        targets[nt++] = -16384 + 100 * 32 + f; /* an inner LE segment */
    lut_inputs(targets, nt);
    in = tasm_alloc(&mem, LUT_NPIX * atom, 64);
    wts = tasm_alloc(&mem, LUT_K * LUT_CIN, 64);
    out16 = tasm_alloc(&mem, (LUT_K / 4) * LUT_NPIX * atom, 64);
    out8 = tasm_alloc(&mem, (LUT_K / 8) * LUT_NPIX * atom, 64);
    for (uint32_t p = 0; p < LUT_NPIX; p++)
        for (uint32_t c = 0; c < LUT_CIN; c++)
            tasm_host(&mem, in)[p * atom + c] = (uint8_t)lut_x[p][c];
    for (uint32_t k = 0; k < LUT_K; k++) /* [kernel][channel]: one group, one slice */
        for (uint32_t c = 0; c < LUT_CIN; c++)
            tasm_host(&mem, wts)[k * LUT_CIN + c] = (uint8_t)lut_w[k][c];
    flat = int8_cube(4, 2, atom);
    flout = tasm_alloc(&mem, 4 * 2 * atom, 64);
    tasm_conv_defaults(&fc);
    fc.out_addr = flout;
    fc.out_surf = 4 * 2 * atom;
    tasm_flying_task(&fly, soc, 0, 4, 2, atom, flat, &fc, 0);
    long_begin(&longs[0], 0, 0);
    lut_load_words(&longs[0]);
    long_append(&longs[0], &fly);
    lut_conv_task(&conv, &yolo, in, wts, out16, 1, 1, 0, 0);
    long_begin(&longs[1], 0, 0);
    long_append(&longs[1], &conv);
    if (CHECK(run_long(longs, 2) == 0)) {
        CHECK(memcmp(tasm_host(&mem, flout), tasm_host(&mem, flat), 4 * 2 * atom) == 0);
        CHECK_EQ_U(lut_check(&yolo, out16, 1, 1, 0, 0, "int16, OUT_CVT identity"), 0);
        lut_coverage(&yolo);
    } else {
        printf("  LUT %s: %s\n", yolo.name, vnpu_last_error(&dev, 0));
    }

    /* the same tables in the next job (they persist), int8 through OUT_CVT
     * (x·11 / 2^6 rounded, - 2, saturated) */
    lut_conv_task(&tasks[0], &yolo, in, wts, out8, 0, 11, 6, -2);
    if (CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0))
        CHECK_EQ_U(lut_check(&yolo, out8, 0, 11, 6, -2, "int8 after OUT_CVT"), 0);
    else
        printf("  LUT %s int8: %s\n", yolo.name, vnpu_last_error(&dev, 0));

    /* other priorities and slopes, new tables loaded in the convolution's
     * own task */
    lut_fill_tables();
    nt = lut_targets(&other, targets, LUT_NPIX);
    targets[nt++] = -24000; /* below both: LO's underflow */
    targets[nt++] = 24000;  /* above both: LE's overflow */
    targets[nt++] = 0;      /* in both: LE */
    lut_inputs(targets, nt);
    for (uint32_t p = 0; p < LUT_NPIX; p++)
        for (uint32_t c = 0; c < LUT_CIN; c++)
            tasm_host(&mem, in)[p * atom + c] = (uint8_t)lut_x[p][c];
    for (uint32_t k = 0; k < LUT_K; k++)
        for (uint32_t c = 0; c < LUT_CIN; c++)
            tasm_host(&mem, wts)[k * LUT_CIN + c] = (uint8_t)lut_w[k][c];
    lut_conv_task(&conv, &other, in, wts, out16, 1, 1, 0, 0);
    long_begin(&longs[0], 0, 0);
    lut_load_words(&longs[0]);
    long_append(&longs[0], &conv);
    if (CHECK(run_long(longs, 1) == 0)) {
        CHECK_EQ_U(lut_check(&other, out16, 1, 1, 0, 0, "int16, OUT_CVT identity"), 0);
        lut_coverage(&other);
    } else {
        printf("  LUT %s: %s\n", other.name, vnpu_last_error(&dev, 0));
    }
}

/* ---- 2. PPU output notch: a wide max pooling in two tiles (vnpu.md §8) ------------ */

#define NOTCH_W     20u
#define NOTCH_H     20u
#define NOTCH_GUARD 64u
#define SENTINEL    0xA5u

/* Max pooling of channel ch at output (oy, ox) of the whole map: 5x5,
 * stride 1, padding 2 of value pad. */
static int32_t maxpool_ref(uint32_t src, uint32_t atom, uint32_t ch, int64_t oy, int64_t ox,
                           int32_t pad)
{
    uint32_t c2 = atom, surf = NOTCH_W * NOTCH_H * atom;
    int32_t m = -1000;

    for (int64_t iy = oy - 2; iy <= oy + 2; iy++)
        for (int64_t ix = ox - 2; ix <= ox + 2; ix++) {
            int32_t v =
                (iy < 0 || ix < 0 || iy >= NOTCH_H || ix >= NOTCH_W)
                    ? pad
                    : (int8_t)tasm_host(
                          &mem,
                          src)[(ch / c2) * surf + (uint32_t)(iy * NOTCH_W + ix) * atom + ch % c2];
            if (v > m)
                m = v;
        }
    return m;
}

/* One tile of YOLOv8n's SPPF max pooling (5x5, stride 1, padding 2) of a
 * 20-wide map: output columns [10·half, 10·half + 10) from input columns
 * [8·half, 8·half + 12), padding on its own side only; the output line is
 * W_out + NOTCH_ADDR = 20 pixels. RK356x: the toolkit's UNDOC registers. */
static void notch_tile(tasm_task *t, uint32_t c, uint32_t src, uint32_t dst, unsigned half,
                       uint32_t pad_value)
{
    uint32_t atom = soc->feature_atom_bytes;
    tasm_pool p;

    memset(&p, 0, sizeof p);
    p.method = 1;
    p.win = 12;
    p.hin = NOTCH_H;
    p.c = c;
    p.kw = p.kh = 5;
    p.sw = p.sh = 1;
    p.pl = half ? 0 : 2;
    p.pr = half ? 2 : 0;
    p.pt = p.pb = 2;
    p.wout = 10;
    p.hout = NOTCH_H;
    p.src = src + (half ? 8u : 0u) * atom;
    p.line = NOTCH_W * atom;
    p.surf = NOTCH_W * NOTCH_H * atom;
    p.dst = dst + (half ? 10u : 0u) * atom;
    p.dsurf = NOTCH_W * NOTCH_H * atom;
    p.pad_value = pad_value;
    tasm_pool_task(t, soc, &p);
    tasm_reg(t, NPU_PPU_OPERATION_MODE_CFG,
             NPU_PPU_OPERATION_MODE_CFG_FLYING_MODE(1) |
                 NPU_PPU_OPERATION_MODE_CFG_POOLING_METHOD(1) |
                 NPU_PPU_OPERATION_MODE_CFG_NOTCH_ADDR(NOTCH_W - 10u));
    if (rk356x()) {
        tasm_reg(t, NPU_PPU_UNDOC_604C, pad_value);
        tasm_reg(t, NPU_PPU_UNDOC_6050, pad_value);
        tasm_reg(t, NPU_PPU_RDMA_UNDOC_7018, 1);
    }
}

/* Output columns [x0, x1) against the reference, the other columns and
 * the guards around the cube still SENTINEL. */
static uint32_t notch_check(uint32_t src, uint32_t area, uint32_t c, uint32_t x0, uint32_t x1)
{
    uint32_t atom = soc->feature_atom_bytes, surf = NOTCH_W * NOTCH_H * atom, bad = 0;
    uint32_t dst = area + NOTCH_GUARD, c1 = c / atom;
    const uint8_t *a = tasm_host(&mem, area);

    for (uint32_t i = 0; i < NOTCH_GUARD; i++) {
        bad += a[i] != SENTINEL;
        bad += a[NOTCH_GUARD + c1 * surf + i] != SENTINEL;
    }
    for (uint32_t ch = 0; ch < c; ch++)
        for (uint32_t y = 0; y < NOTCH_H; y++)
            for (uint32_t x = 0; x < NOTCH_W; x++) {
                int32_t got = (int8_t)tasm_host(
                    &mem, dst)[(ch / atom) * surf + (y * NOTCH_W + x) * atom + ch % atom];
                int32_t want =
                    x >= x0 && x < x1 ? maxpool_ref(src, atom, ch, y, x, -128) : (int8_t)SENTINEL;
                if (got != want && bad++ < 5)
                    printf("  notch: channel %u (%u, %u): got %d want %d\n", (unsigned)ch,
                           (unsigned)y, (unsigned)x, (int)got, (int)want);
            }
    return bad;
}

static void test_pool_notch(rknpu_soc_id id)
{
    uint32_t atom, c, surf, src, area, dst;

    setup(id);
    atom = soc->feature_atom_bytes;
    c = 2 * atom; /* two whole surfaces */
    surf = NOTCH_W * NOTCH_H * atom;
    src = tasm_alloc(&mem, 2 * surf, 64);
    /* surface 1 all negative: a pad value other than -128 would win there */
    for (uint32_t i = 0; i < 2 * surf; i++)
        tasm_host(&mem, src)[i] = (uint8_t)(i < surf ? rnd_range(-128, 127) : rnd_range(-128, -60));
    area = tasm_alloc(&mem, 2 * surf + 2 * NOTCH_GUARD, 64);
    dst = area + NOTCH_GUARD;
    memset(tasm_host(&mem, area), SENTINEL, 2 * surf + 2 * NOTCH_GUARD);

    /* the left tile alone: its columns, nothing of the right half */
    notch_tile(&tasks[0], c, src, dst, 0, 0x80);
    if (CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0))
        CHECK_EQ_U(notch_check(src, area, c, 0, 10), 0);
    else
        printf("  notch left: %s\n", vnpu_last_error(&dev, 0));
    /* then the right tile: the whole map */
    notch_tile(&tasks[0], c, src, dst, 1, 0x80);
    if (CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0))
        CHECK_EQ_U(notch_check(src, area, c, 0, NOTCH_W), 0);
    else
        printf("  notch right: %s\n", vnpu_last_error(&dev, 0));
    /* both as one chain, as the stream runs them */
    memset(tasm_host(&mem, area), SENTINEL, 2 * surf + 2 * NOTCH_GUARD);
    notch_tile(&tasks[0], c, src, dst, 0, 0x80);
    notch_tile(&tasks[1], c, src, dst, 1, 0x80);
    if (CHECK(tasm_run(&dev, 0, &mem, tasks, 2) == 0))
        CHECK_EQ_U(notch_check(src, area, c, 0, NOTCH_W), 0);
    else
        printf("  notch chain: %s\n", vnpu_last_error(&dev, 0));
}

/* ---- 3. RK356x PPU registers: UNDOC_604C/6050, PPU_RDMA UNDOC_7018, DATA_FORMAT -- */

/* A 3x3 stride-1 padding-1 max pooling of a 6x5 cube of one surface
 * (int8, or fp16 bits); `reg` = `value` written after the builder's
 * registers (0: none). Accepted: the output equals the reference; refused:
 * the error names `name` and `kind`, and nothing was written. */
static void pool_reg_case(int fp16, uint32_t reg, uint32_t value, int ok, const char *name,
                          const char *kind)
{
    uint32_t atom = soc->feature_atom_bytes, elem = fp16 ? 2u : 1u, c2 = atom / elem;
    uint32_t w = 6, h = 5, src, dst, bad = 0;
    int32_t pad = -128;
    tasm_pool p;

    src = tasm_alloc(&mem, w * h * atom, 64);
    dst = tasm_alloc(&mem, w * h * atom, 64);
    for (uint32_t i = 0; i < w * h * c2; i++) {
        if (fp16)
            st16(tasm_host(&mem, src) + 2 * i, f2h((float)rnd_range(-64, 64) / 8.0f));
        else
            tasm_host(&mem, src)[i] = (uint8_t)rnd_range(-128, 127);
    }
    memset(tasm_host(&mem, dst), SENTINEL, w * h * atom);
    memset(&p, 0, sizeof p);
    p.method = 1;
    p.fp16 = (uint32_t)fp16;
    p.win = p.wout = w;
    p.hin = p.hout = h;
    p.c = c2;
    p.kw = p.kh = 3;
    p.sw = p.sh = 1;
    p.pl = p.pt = p.pr = p.pb = 1;
    p.src = src;
    p.line = w * atom;
    p.surf = p.dsurf = w * h * atom;
    p.dst = dst;
    p.pad_value = fp16 ? f2h(-100.0f) : (uint32_t)(uint8_t)pad;
    tasm_pool_task(&tasks[0], soc, &p);
    /* registers persist (per ping-pong group): every case writes all three */
    tasm_reg(&tasks[0], NPU_PPU_UNDOC_604C, 0);
    tasm_reg(&tasks[0], NPU_PPU_UNDOC_6050, 0);
    tasm_reg(&tasks[0], NPU_PPU_RDMA_UNDOC_7018, 0);
    if (reg)
        tasm_reg(&tasks[0], reg, value);
    int rc = tasm_run(&dev, 0, &mem, tasks, 1);
    if (!ok) {
        const char *e = vnpu_last_error(&dev, 0);
        CHECK_EQ_U(rc, -1);
        if (!CHECK(contains(e, name) && contains(e, kind)))
            printf("  expected %s / %s in: %s\n", name, kind, e);
        for (uint32_t i = 0; i < w * h * atom; i++)
            bad += tasm_host(&mem, dst)[i] != SENTINEL;
        CHECK_EQ_U(bad, 0);
        return;
    }
    if (!CHECK_EQ_U(rc, 0)) {
        printf("  %s = 0x%x: %s\n", name, (unsigned)value, vnpu_last_error(&dev, 0));
        return;
    }
    for (uint32_t ch = 0; ch < c2; ch++)
        for (int64_t oy = 0; oy < h; oy++)
            for (int64_t ox = 0; ox < w; ox++) {
                float m = -1000.0f;
                for (int64_t iy = oy - 1; iy <= oy + 1; iy++)
                    for (int64_t ix = ox - 1; ix <= ox + 1; ix++) {
                        int in = iy >= 0 && ix >= 0 && iy < h && ix < w;
                        const uint8_t *e =
                            tasm_host(&mem, src) + (uint32_t)(iy * w + ix) * atom + ch * elem;
                        float v = fp16 ? (in ? h2f(ld16(e)) : -100.0f) : (in ? (int8_t)e[0] : pad);
                        if (v > m)
                            m = v;
                    }
                const uint8_t *o =
                    tasm_host(&mem, dst) + (uint32_t)(oy * w + ox) * atom + ch * elem;
                bad += fp16 ? ld16(o) != f2h(m) : (int8_t)o[0] != (int32_t)m;
            }
    if (!CHECK_EQ_U(bad, 0))
        printf("  %s = 0x%x: wrong output\n", name, (unsigned)value);
}

static void test_ppu_rk356x_regs(void)
{
    const char *nm = "not modelled", *inc = "differs from the PPU precision";
    const char *inc356 = "PPU_RDMA precision differs from the PPU's";

    setup(RKNPU_SOC_RK3566);
    pool_reg_case(0, 0, 0, 1, "builder program", "");
    /* PPU 0x604C / 0x6050: 0 or PADDING_VALUE_1 (0x80 here) */
    pool_reg_case(0, NPU_PPU_UNDOC_604C, 0, 1, "PPU_UNDOC_604C", "");
    pool_reg_case(0, NPU_PPU_UNDOC_604C, 0x80, 1, "PPU_UNDOC_604C", "");
    pool_reg_case(0, NPU_PPU_UNDOC_604C, 0x7F, 0, "PPU_UNDOC_604C", nm);
    pool_reg_case(0, NPU_PPU_UNDOC_604C, 0x180, 0, "PPU_UNDOC_604C", nm);
    pool_reg_case(0, NPU_PPU_UNDOC_6050, 0, 1, "PPU_UNDOC_6050", "");
    pool_reg_case(0, NPU_PPU_UNDOC_6050, 0x80, 1, "PPU_UNDOC_6050", "");
    pool_reg_case(0, NPU_PPU_UNDOC_6050, 0x81, 0, "PPU_UNDOC_6050 = 0x00000081", nm);
    /* PPU_RDMA 0x7018: 0 or 1 */
    pool_reg_case(0, NPU_PPU_RDMA_UNDOC_7018, 0, 1, "PPU_RDMA_UNDOC_7018", "");
    pool_reg_case(0, NPU_PPU_RDMA_UNDOC_7018, 1, 1, "PPU_RDMA_UNDOC_7018", "");
    pool_reg_case(0, NPU_PPU_RDMA_UNDOC_7018, 2, 0, "PPU_RDMA_UNDOC_7018", nm);
    /* PPU_RDMA_DATA_FORMAT: RK356x the PPU's precision code (int8 0, fp16 2) */
    pool_reg_case(0, NPU_PPU_RDMA_DATA_FORMAT, NPU_PPU_RDMA_DATA_FORMAT_IN_PRECISION(0), 1,
                  "PPU_RDMA_DATA_FORMAT", "");
    pool_reg_case(0, NPU_PPU_RDMA_DATA_FORMAT, NPU_PPU_RDMA_DATA_FORMAT_IN_PRECISION(1), 0,
                  "PPU_RDMA_DATA_FORMAT", inc356);
    pool_reg_case(1, NPU_PPU_RDMA_DATA_FORMAT, NPU_PPU_RDMA_DATA_FORMAT_IN_PRECISION(2), 1,
                  "PPU_RDMA_DATA_FORMAT", "");
    /* RK3588: storage widths (int8 1, fp16 2) */
    setup(RKNPU_SOC_RK3588);
    pool_reg_case(0, NPU_PPU_RDMA_DATA_FORMAT, NPU_PPU_RDMA_DATA_FORMAT_IN_PRECISION(1), 1,
                  "PPU_RDMA_DATA_FORMAT", "");
    pool_reg_case(0, NPU_PPU_RDMA_DATA_FORMAT, NPU_PPU_RDMA_DATA_FORMAT_IN_PRECISION(0), 0,
                  "PPU_RDMA_DATA_FORMAT", inc);
    pool_reg_case(1, NPU_PPU_RDMA_DATA_FORMAT, NPU_PPU_RDMA_DATA_FORMAT_IN_PRECISION(2), 1,
                  "PPU_RDMA_DATA_FORMAT", "");
}

/* ---- 4. MRDMA unpooling, 4 int16 read / 8 int8 written (vnpu.md §7.7) ----------- */

/* Nearest x2 upsampling of a w x h cube of one atom per pixel: MRDMA reads
 * rd_ch channels of rd_prec, the DPU writes wr_ch channels of wr_prec; the
 * output line is DST_SURF_STRIDE, the notch one line (k_h - 1 = 1). */
static void unpool_case(uint32_t rd_prec, uint32_t rd_ch, uint32_t wr_prec, uint32_t wr_ch, int ok,
                        const char *what)
{
    uint32_t atom = soc->feature_atom_bytes, w = 7, h = 5, wo = 2 * w, ho = 2 * h;
    uint32_t out_bytes = ho * wo * atom, src, area, dst, bad = 0;
    tasm_conv e;

    src = tasm_alloc(&mem, w * h * atom, 64);
    for (uint32_t i = 0; i < w * h * atom; i++)
        tasm_host(&mem, src)[i] = (uint8_t)rnd();
    area = tasm_alloc(&mem, out_bytes + 2 * NOTCH_GUARD, 64);
    dst = area + NOTCH_GUARD;
    memset(tasm_host(&mem, area), SENTINEL, out_bytes + 2 * NOTCH_GUARD);
    tasm_conv_defaults(&e);
    e.out_prec = wr_prec;
    e.out_addr = dst;
    e.out_surf = wo * atom;
    tasm_flying_task(&tasks[0], soc, rd_prec, w, h, rd_ch, src, &e, 0);
    tasm_reg(&tasks[0], NPU_DPU_RDMA_SRC_DMA_CFG,
             NPU_DPU_RDMA_SRC_DMA_CFG_UNPOOLING_EN(1) | NPU_DPU_RDMA_SRC_DMA_CFG_KERNEL_WIDTH(1) |
                 NPU_DPU_RDMA_SRC_DMA_CFG_KERNEL_HEIGHT(1) |
                 NPU_DPU_RDMA_SRC_DMA_CFG_KERNEL_STRIDE_WIDTH(1) |
                 NPU_DPU_RDMA_SRC_DMA_CFG_KERNEL_STRIDE_HEIGHT(1));
    tasm_reg(&tasks[0], NPU_DPU_DATA_CUBE_WIDTH, NPU_DPU_DATA_CUBE_WIDTH_WIDTH(wo - 1u));
    tasm_reg(&tasks[0], NPU_DPU_DATA_CUBE_CHANNEL,
             NPU_DPU_DATA_CUBE_CHANNEL_ORIG_CHANNEL(wr_ch - 1u) |
                 NPU_DPU_DATA_CUBE_CHANNEL_CHANNEL(wr_ch - 1u));
    tasm_reg(&tasks[0], NPU_DPU_DATA_CUBE_NOTCH_ADDR,
             NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_0(wo) |
                 NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_1(wo));
    int rc = tasm_run(&dev, 0, &mem, tasks, 1);
    const uint8_t *a = tasm_host(&mem, area);
    if (!ok) {
        const char *err = vnpu_last_error(&dev, 0);
        CHECK_EQ_U(rc, -1);
        if (!CHECK(contains(err, "DPU_RDMA_SRC_DMA_CFG") && contains(err, "not modelled")))
            printf("  unpool %s: %s\n", what, err);
        for (uint32_t i = 0; i < out_bytes + 2 * NOTCH_GUARD; i++)
            bad += a[i] != SENTINEL;
        CHECK_EQ_U(bad, 0);
        return;
    }
    if (!CHECK_EQ_U(rc, 0)) {
        printf("  unpool %s: %s\n", what, vnpu_last_error(&dev, 0));
        return;
    }
    for (uint32_t i = 0; i < NOTCH_GUARD; i++)
        bad += a[i] != SENTINEL || a[NOTCH_GUARD + out_bytes + i] != SENTINEL;
    for (uint32_t y = 0; y < ho; y++)
        for (uint32_t x = 0; x < wo; x++)
            bad += memcmp(tasm_host(&mem, dst) + (y * wo + x) * atom,
                          tasm_host(&mem, src) + ((y / 2) * w + x / 2) * atom, atom) != 0;
    if (!CHECK_EQ_U(bad, 0))
        printf("  unpool %s: wrong output\n", what);
}

static void test_unpool_atoms(rknpu_soc_id id)
{
    uint32_t atom;

    setup(id);
    atom = soc->feature_atom_bytes;
    /* YOLOv8n on RK3566: atom/2 int16 read, atom int8 written */
    unpool_case(1, atom / 2, 0, atom, 1, "int16 read, int8 written");
    /* PP-OCRv4 det's form: int16 read, fp16 written */
    unpool_case(1, atom / 2, 2, atom / 2, 1, "int16 read, fp16 written");
    /* atom/2 int16 read (atom bytes) but atom/2 int8 written (half an atom) */
    unpool_case(1, atom / 2, 0, atom / 2, 0, "int16 read, half an atom of int8 written");
}

int main(void)
{
    tasm_seed(0x12345678u);
    test_conv_sweep(RKNPU_SOC_RK3588);
    test_conv_sweep(RKNPU_SOC_RK3566);
    test_dpu_only(RKNPU_SOC_RK3588);
    test_dpu_only(RKNPU_SOC_RK3566);
    test_ew_int(RKNPU_SOC_RK3588);
    test_ew_int(RKNPU_SOC_RK3566);
    test_dpu_fp16(RKNPU_SOC_RK3588);
    test_dpu_fp16(RKNPU_SOC_RK3566);
    test_pooling(RKNPU_SOC_RK3588);
    test_pooling(RKNPU_SOC_RK3566);
    test_unsupported();
    test_rk3566_converter();
    test_lut_int();
    test_pool_notch(RKNPU_SOC_RK3566);
    test_pool_notch(RKNPU_SOC_RK3588);
    test_ppu_rk356x_regs();
    test_unpool_atoms(RKNPU_SOC_RK3566);
    test_unpool_atoms(RKNPU_SOC_RK3588);
    return test_report("vnpu_conv");
}
