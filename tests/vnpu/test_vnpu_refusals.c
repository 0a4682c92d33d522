/*
 * test_vnpu_refusals - the virtual NPU's refusals and error states, one
 * case per check of its decoders: op-enable masks, regcmd words the program
 * controller does not take, MMIO writes, CNA/CORE sizes and strides, the
 * input converter, the DPU's stages (BS, OW, BN streams, EW and its
 * converter, LUT, OUT_CVT, output modes), flying mode, unpooling and the
 * PPU. Each case programs a task the model runs (a convolution, a flying
 * DPU copy or a pooling from vnpu_test_asm.h), changes what the case is
 * about, and requires the job to stop with the DMA read+write error bits
 * 12|13 (vnpu.h, hardware.md §1.2) and a message naming the register (or
 * the condition). Then the data paths the other tests do not take, each
 * against values computed here: the integer EW operand from the
 * EW_OP_VALUE registers and from int16 ERDMA data, the integer path into
 * fp32 and NONALIGN output, the fp16 ReLU-X, infinities and NaNs through an
 * fp16 copy and the fp16 overflow (IEEE 754 binary16, round to nearest even),
 * fp16 average pooling (the window's mean), the converter's TYPE 1, a
 * convolution of 3 input channels, the fault injection into a PPU job and
 * a dry run, the task hook, the converter bit-0 setting.
 */
#include <stdio.h>
#include <string.h>

#include "npu_regcmd.h"
#include "npu_regs.h"
#include "npu_soc.h"
#include "test_util.h"
#include "vnpu.h"
#include "vnpu_test_asm.h"

#define ARENA_BYTES (1u << 20)
#define ARENA_BASE  0x40000000u
#define BOTH        0x3000u /* DMA read (12) + write (13) error */

static _Alignas(64) uint8_t arena[ARENA_BYTES];
static vnpu_device dev;
static tasm_mem mem;
static tasm_task tasks[2];
static const npu_soc_profile *soc;

static void setup(rknpu_soc_id id)
{
    soc = tasm_setup(&dev, &mem, arena, ARENA_BASE, ARENA_BYTES, id);
    CHECK(soc != NULL);
}

static uint32_t rd(uint32_t off)
{
    return vnpu_mmio_read(&dev, 0, off);
}

static void wr(uint32_t off, uint32_t v)
{
    vnpu_mmio_write(&dev, 0, off, v);
}

static int contains(const char *hay, const char *needle)
{
    return needle == NULL || strstr(hay, needle) != NULL;
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

static uint32_t f32_bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, sizeof u);
    return u;
}

/* floor(n / 2^s) with a division (n of either sign). */
static int64_t floor_shift(int64_t n, unsigned s)
{
    int64_t d = (int64_t)1 << s, q = n / d;

    return (n % d != 0 && n < 0) ? q - 1 : q;
}

static int64_t sat(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/* IEEE 754 binary16 of a double, rounded to nearest, ties to even; beyond
 * the largest half (65504 + half a step) infinity. Exact for the test
 * values (normal and subnormal halves). */
static uint16_t half_of(double v)
{
    uint16_t sign = v < 0 ? 0x8000u : 0u;
    double a = v < 0 ? -v : v, m;
    int e = 0;

    if (a == 0)
        return sign;
    if (a >= 65520.0)
        return (uint16_t)(sign | 0x7C00u);
    while (a >= 2.0 && e < 15) {
        a /= 2.0;
        e++;
    }
    while (a < 1.0 && e > -14) {
        a *= 2.0;
        e--;
    }
    /* a in [1, 2) (or below 1 for a subnormal), 10 fraction bits */
    m = a * 1024.0;
    double fl = (double)(int64_t)m, r = m - fl;
    int64_t q = (int64_t)fl;
    if (r > 0.5 || (r == 0.5 && (q & 1)))
        q++;
    if (a < 1.0) /* subnormal: q is the mantissa (may round up to the smallest normal) */
        return (uint16_t)(sign | (uint16_t)q);
    if (q == 2048) { /* rounded up to the next binade */
        q = 1024;
        e++;
    }
    if (e > 15)
        return (uint16_t)(sign | 0x7C00u);
    return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | (uint16_t)(q - 1024));
}

/* ---- running one task and requiring its refusal --------------------------------- */

/* Place tasks[0..n), kick them on core 0, read INTERRUPT_RAW_STATUS, clear it;
 * the arena's allocator forgets the chain again. */
static uint32_t run_raw(unsigned n)
{
    uint32_t mark = mem.used, amount, a = tasm_place_chain(&mem, tasks, n, &amount), raw;

    CHECK(a != 0);
    tasm_kick(&dev, 0, a, amount, n, tasks[0].int_mask, tasks[n - 1].int_mask);
    raw = rd(NPU_PC_INTERRUPT_RAW_STATUS);
    wr(NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    mem.used = mark;
    return raw;
}

/* The job of tasks[0] stops with `bits` and a message holding `a` and `b`. */
static void expect_stop_at(int line, uint32_t bits, const char *a, const char *b)
{
    uint32_t raw = run_raw(1);
    const char *e = vnpu_last_error(&dev, 0);
    int ok = CHECK_EQ_U(raw, bits);

    ok &= CHECK(contains(e, a) && contains(e, b));
    if (!ok)
        printf("  line %d: RAW 0x%x, expected \"%s\" / \"%s\" in: %s\n", line, (unsigned)raw, a,
               b ? b : "", e);
}

#define REFUSED(a, b)       expect_stop_at(__LINE__, BOTH, a, b)
#define STOPPED(bits, a, b) expect_stop_at(__LINE__, bits, a, b)

/* The value tasks[0] last writes to register `off` (0 if none). */
static uint32_t word_val(uint32_t off)
{
    uint16_t reg = (uint16_t)npu_soc_from_table_offset(soc, off);
    uint16_t tgt = (uint16_t)npu_block_target((enum npu_block)npu_block_of_offset(off));
    uint32_t v = 0;

    for (unsigned i = 0; i < tasks[0].n; i++)
        if (npu_regcmd_target(tasks[0].words[i]) == tgt && npu_regcmd_reg(tasks[0].words[i]) == reg)
            v = npu_regcmd_value(tasks[0].words[i]);
    return v;
}

/* Rewrite register `off` of tasks[0]: the bits of `mask` replaced by `bits`. */
static void set_field(uint32_t off, uint32_t mask, uint32_t bits)
{
    tasm_reg(&tasks[0], off, (word_val(off) & ~mask) | bits);
}

static void set_reg(uint32_t off, uint32_t v)
{
    tasm_reg(&tasks[0], off, v);
}

/* ---- the task recipes ------------------------------------------------------------- */

static tasm_conv cv;

/* 4x4 pixels, 16 int8 (or fp16) channels, 1x1 kernels, 8 kernels into 32
 * (fp16: 16) output channels of int8 (fp16). */
static void conv_base(int fp16)
{
    tasm_conv_defaults(&cv);
    cv.fp16 = fp16;
    cv.hin = cv.win = cv.hout = cv.wout = 4;
    cv.cin_real = cv.cin = 16;
    cv.nker = 8;
    cv.kout = fp16 ? 16 : 32;
    cv.kh = cv.kw = 1;
    cv.out_prec = fp16 ? 2 : 0;
    cv.in_addr = tasm_alloc(&mem, 4096, 64);
    cv.w_addr = tasm_alloc(&mem, 4096, 64);
    cv.out_addr = tasm_alloc(&mem, 4096, 64);
    cv.out_surf = 256;
    cv.ew_addr = tasm_alloc(&mem, 4096, 64);
    cv.ew_surf = 256;
    cv.bs_addr = tasm_alloc(&mem, 4096, 64);
}

static void conv(void)
{
    tasm_conv_task(&tasks[0], soc, &cv);
}

/* EW on, its operation an add of an ERDMA operand, every other part bypassed. */
static uint32_t ew_add_erdma(void)
{
    return NPU_DPU_EW_CFG_EW_LUT_BYPASS(1) | NPU_DPU_EW_CFG_EW_OP_CVT_BYPASS(1) |
           NPU_DPU_EW_CFG_EW_RELU_BYPASS(1) | NPU_DPU_EW_CFG_EW_OP_SRC(1) |
           NPU_DPU_EW_CFG_EW_ALU_ALGO(2);
}

/* BS on: ALU add of BS_ALU_CFG, MUL and ReLU bypassed. */
static uint32_t bs_alu_add(void)
{
    return NPU_DPU_BS_CFG_BS_MUL_BYPASS(1) | NPU_DPU_BS_CFG_BS_RELU_BYPASS(1) |
           NPU_DPU_BS_CFG_BS_ALU_ALGO(2) | NPU_DPU_BS_CFG_RK356X_BS_ALU_ALGO(2);
}

static uint32_t fly_src, fly_dst;

/* A flying DPU task of w x h pixels, c channels of in_prec from fly_src,
 * with the epilogue of cv (conv_base's defaults unless changed). */
static void flying(uint32_t in_prec, uint32_t w, uint32_t h, uint32_t c, int nonalign)
{
    tasm_flying_task(&tasks[0], soc, in_prec, w, h, c, fly_src, &cv, nonalign);
}

static void fly_base(void)
{
    tasm_conv_defaults(&cv);
    fly_src = tasm_alloc(&mem, 8192, 64);
    fly_dst = tasm_alloc(&mem, 8192, 64);
    cv.out_addr = fly_dst;
    cv.out_surf = 4 * 2 * soc->feature_atom_bytes;
    cv.ew_addr = tasm_alloc(&mem, 8192, 64);
    cv.ew_surf = 4 * 2 * soc->feature_atom_bytes;
}

static tasm_pool pl;

/* int8 max pooling of 4x4 pixels, 16 channels (one RK3588 atom), 2x2 kernel, stride 2. */
static void pool_base(void)
{
    uint32_t atom = soc->feature_atom_bytes;

    memset(&pl, 0, sizeof pl);
    pl.method = 1;
    pl.win = pl.hin = 4;
    pl.wout = pl.hout = 2;
    pl.c = atom;
    pl.kw = pl.kh = pl.sw = pl.sh = 2;
    pl.src = tasm_alloc(&mem, 4096, 64);
    pl.dst = tasm_alloc(&mem, 4096, 64);
    pl.line = 4 * atom;
    pl.surf = 16 * atom;
    pl.dsurf = 4 * atom;
}

static void pool(void)
{
    tasm_pool_task(&tasks[0], soc, &pl);
}

/* ---- 1. the program controller and the MMIO face --------------------------------- */

static uint32_t place_words(const uint64_t *w, unsigned n)
{
    uint32_t a = tasm_alloc(&mem, n * 8u + 64u, 64);

    for (unsigned i = 0; i < n; i++)
        tasm_store64(tasm_host(&mem, a), i, w[i]);
    return a;
}

/* A DPU S_POINTER write, `bad`, the tail and the op-enable of a flying copy. */
static void bad_word(uint64_t bad, const char *a, const char *b)
{
    uint64_t w[6];
    unsigned n = 0;

    w[n++] = npu_regcmd_make(NPU_TARGET_DPU, NPU_DPU_S_POINTER, 0xE);
    w[n++] = bad;
    w[n++] = npu_regcmd_nop();
    w[n++] = npu_regcmd_next_amount(0);
    w[n++] = npu_regcmd_pre_enable();
    w[n++] = npu_regcmd_op_enable(0x18);
    tasm_kick(&dev, 0, place_words(w, n), npu_pc_fetch_amount(n - 4, soc->pc_data_amount_scale), 1,
              0x300, 0x300);
    CHECK_EQ_U(rd(NPU_PC_INTERRUPT_RAW_STATUS), BOTH);
    if (!CHECK(contains(vnpu_last_error(&dev, 0), a) && contains(vnpu_last_error(&dev, 0), b)))
        printf("  expected \"%s\" / \"%s\" in: %s\n", a, b, vnpu_last_error(&dev, 0));
    wr(NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
}

static unsigned over_fetch_lines;
static void over_fetch_sink(void *ctx, const char *line)
{
    (void)ctx;
    over_fetch_lines += strstr(line, "after the op-enable ignored") != NULL;
}

static unsigned hook_calls, hook_bad;
static void hook(void *ctx, unsigned core, uint32_t task)
{
    hook_bad += ctx != &hook_calls || core != 0 || task != hook_calls;
    hook_calls++;
}

static void test_pc(void)
{
    setup(RKNPU_SOC_RK3588);

    /* op-enable masks (hardware.md §1.4): bits above the seven units, CNA
     * without CORE, a flying DPU with the PPU, the PPU without its RDMA */
    conv_base(0);
    conv();
    CHECK_EQ_U(run_raw(1), 0x150); /* the base program completes: CNA, CORE, DPU group 0 */
    conv();
    tasks[0].enable |= 0x80u;
    REFUSED("op-enable 0x", "outside the unit mask");
    conv();
    tasks[0].enable = NPU_UNIT_CNA | NPU_UNIT_DPU;
    REFUSED("op-enable 0x9", "CNA without CORE+DPU");
    fly_base();
    flying(0, 4, 2, 16, 0);
    tasks[0].enable |= NPU_UNIT_PPU | NPU_UNIT_PPU_RDMA;
    REFUSED("op-enable 0x78", "flying DPU together with the PPU");
    flying(0, 4, 2, 16, 0);
    tasks[0].enable = NPU_UNIT_DPU;
    REFUSED("DPU_FEATURE_MODE_CFG", "without DPU_RDMA in the op-enable mask");
    pool_base();
    pool();
    tasks[0].enable = NPU_UNIT_PPU;
    REFUSED("op-enable 0x20", "starts no complete pipeline");

    /* regcmd words: an op-enable word naming another register, a PC
     * register other than the tail's two, an unknown target */
    bad_word(npu_regcmd_make(NPU_TARGET_OP_ENABLE_ALL, NPU_PC_DATA_ADDR, 0x18), "op-enable word",
             "with register 0x0010");
    bad_word(npu_regcmd_make(NPU_TARGET_PC, NPU_PC_TASK_CON, 1), "PC register 0x0030",
             "PC_TASK_CON");
    bad_word(npu_regcmd_make(0x0003, NPU_DPU_BS_CFG, 1), "unknown regcmd target 0x0003", "");

    /* words fetched after the op-enable are ignored (over-fetch), with a
     * trace line for one that is not a NOP; the job completes */
    {
        uint64_t w[NPU_BUILDER_MAX_WORDS + 8];
        unsigned n = 0;
        fly_base();
        for (uint32_t i = 0; i < 64; i++)
            tasm_host(&mem, fly_src)[i] = (uint8_t)(i * 5u + 1u);
        flying(0, 4, 1, 16, 0);
        for (unsigned i = 0; i < tasks[0].n; i++)
            w[n++] = tasks[0].words[i];
        w[n++] = npu_regcmd_nop();
        w[n++] = npu_regcmd_next_amount(0);
        w[n++] = npu_regcmd_pre_enable();
        w[n++] = npu_regcmd_op_enable(tasks[0].enable);
        w[n++] = npu_regcmd_make(NPU_TARGET_DPU, NPU_DPU_BS_CFG, 0x20); /* PReLU, ignored */
        over_fetch_lines = 0;
        vnpu_set_trace(&dev, over_fetch_sink, NULL);
        tasm_kick(&dev, 0, place_words(w, n),
                  npu_pc_fetch_amount(n - 4u, soc->pc_data_amount_scale), 1, 0x300, 0x300);
        vnpu_set_trace(&dev, NULL, NULL);
        CHECK_EQ_U(tasm_fuzz(rd(NPU_PC_INTERRUPT_RAW_STATUS)), 0x300);
        CHECK_EQ_U(over_fetch_lines, 1);
        CHECK(memcmp(tasm_host(&mem, fly_dst), tasm_host(&mem, fly_src), 64) == 0);
        CHECK(vnpu_last_error(&dev, 0)[0] == '\0');
        wr(NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    }

    /* MMIO: the broadcast op-enable (slave-mode start), a PC register the
     * model does not implement, a kick with a task DMA base */
    wr(NPU_GLOBAL_OPERATION_ENABLE, 0x18);
    CHECK_EQ_U(rd(NPU_PC_INTERRUPT_RAW_STATUS), BOTH);
    CHECK(contains(vnpu_last_error(&dev, 0), "GLOBAL_OPERATION_ENABLE") &&
          contains(vnpu_last_error(&dev, 0), "slave-mode start"));
    wr(NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    wr(NPU_GLOBAL_OPERATION_ENABLE, 0); /* 0 starts nothing: no error */
    CHECK_EQ_U(rd(NPU_PC_INTERRUPT_RAW_STATUS), 0);
    wr(NPU_PC_TASK_STATUS_V2, 5);
    CHECK_EQ_U(rd(NPU_PC_INTERRUPT_RAW_STATUS), BOTH);
    CHECK(contains(vnpu_last_error(&dev, 0), "PC_TASK_STATUS_V2") &&
          contains(vnpu_last_error(&dev, 0), "this PC register"));
    wr(NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    {
        uint32_t amount, a;
        flying(0, 4, 1, 16, 0);
        a = tasm_place_chain(&mem, tasks, 1, &amount);
        wr(NPU_PC_DATA_ADDR, a);
        wr(NPU_PC_DATA_AMOUNT, amount);
        wr(NPU_PC_TASK_CON, npu_soc_task_con(soc, 1, false));
        wr(NPU_PC_TASK_DMA_BASE_ADDR, 0x100);
        wr(NPU_PC_OPERATION_ENABLE, 1);
        CHECK_EQ_U(rd(NPU_PC_INTERRUPT_RAW_STATUS), BOTH);
        CHECK(contains(vnpu_last_error(&dev, 0), "PC_TASK_DMA_BASE_ADDR") &&
              contains(vnpu_last_error(&dev, 0), "non-zero task DMA base"));
        wr(NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
        wr(NPU_PC_TASK_DMA_BASE_ADDR, 0);
    }
}

/* vnpu_set_task_hook: one call per task run, in order; NULL removes it.
 * vnpu_get_stats of a core that does not exist: zeros. */
static void test_hook_and_stats(void)
{
    vnpu_stats st;

    setup(RKNPU_SOC_RK3588);
    fly_base();
    flying(0, 4, 1, 16, 0);
    tasks[1] = tasks[0];
    hook_calls = hook_bad = 0;
    vnpu_set_task_hook(&dev, hook, &hook_calls);
    CHECK_EQ_U(run_raw(2), 0x200); /* the second DPU task: group 1 */
    CHECK_EQ_U(hook_calls, 2);
    CHECK_EQ_U(hook_bad, 0);
    vnpu_set_task_hook(&dev, NULL, NULL);
    CHECK_EQ_U(run_raw(1), 0x100);
    CHECK_EQ_U(hook_calls, 2);
    vnpu_set_task_hook(NULL, hook, &hook_calls); /* ignored */
    memset(&st, 0xFF, sizeof st);
    vnpu_get_stats(&dev, VNPU_MAX_CORES, &st);
    CHECK(st.jobs == 0 && st.tasks == 0 && st.macs == 0 && st.dma_bytes_read == 0 &&
          st.dma_bytes_written == 0);
    vnpu_get_stats(&dev, 0, &st);
    CHECK_EQ_U(st.tasks, 3);
}

/* Fault injection: CORRUPT_OUTPUT in a dry run (nothing written, nothing to
 * corrupt) completes untouched; in a PPU job (no DPU output) it corrupts
 * the pooling output. */
static void test_faults(void)
{
    uint32_t atom, bytes, bad = 0;

    setup(RKNPU_SOC_RK3588);
    atom = soc->feature_atom_bytes;
    pool_base();
    pl.kw = pl.kh = pl.sw = pl.sh = 1;
    pl.wout = pl.hout = 4;
    pl.dsurf = 16 * atom;
    bytes = 16 * atom;
    for (uint32_t i = 0; i < bytes; i++)
        tasm_host(&mem, pl.src)[i] = (uint8_t)(i * 13u + 7u);
    pool();
    vnpu_set_dry_run(&dev, 1);
    vnpu_inject_fault(&dev, 0, VNPU_FAULT_CORRUPT_OUTPUT, 1);
    CHECK_EQ_U(run_raw(1), 0x400);
    for (uint32_t i = 0; i < bytes; i++)
        bad += tasm_host(&mem, pl.dst)[i] != 0;
    CHECK_EQ_U(bad, 0);
    vnpu_set_dry_run(&dev, 0);
    CHECK_EQ_U(run_raw(1), 0x800); /* the fault was used up: a 1x1 max pool is a copy */
    CHECK(memcmp(tasm_host(&mem, pl.dst), tasm_host(&mem, pl.src), bytes) == 0);
    memset(tasm_host(&mem, pl.dst), 0, bytes);
    vnpu_inject_fault(&dev, 0, VNPU_FAULT_CORRUPT_OUTPUT, 1);
    CHECK_EQ_U(run_raw(1), 0x400);
    for (uint32_t i = 0; i < bytes; i++)
        bad += tasm_host(&mem, pl.dst)[i] != tasm_host(&mem, pl.src)[i];
    CHECK(bad > 0);
}

/* ---- 2. CNA and CORE -------------------------------------------------------------- */

static void test_cna(void)
{
    setup(RKNPU_SOC_RK3588);
    conv_base(0);

    conv();
    set_field(NPU_CNA_CONV_CON2, 0, NPU_CNA_CONV_CON2_CSC_DO_EN(1));
    REFUSED("CNA_CONV_CON2", "CSC_DO_EN/CSC_WO_EN");
    conv();
    set_field(NPU_CNA_CONV_CON3, NPU_CNA_CONV_CON3_CONV_X_STRIDE_MASK, 0);
    REFUSED("CNA_CONV_CON3", "a stride of 0");
    conv();
    set_field(NPU_CNA_CONV_CON1, 0, NPU_CNA_CONV_CON1_DECONV(1));
    set_field(NPU_CNA_CONV_CON3, NPU_CNA_CONV_CON3_CONV_X_STRIDE_MASK,
              NPU_CNA_CONV_CON3_CONV_X_STRIDE(2));
    REFUSED("CNA_CONV_CON3", "a deconvolution with a stride above 1");
    conv();
    set_field(NPU_CNA_CONV_CON3, 0, NPU_CNA_CONV_CON3_NN_MODE(1));
    REFUSED("CNA_CONV_CON3", "multi-core NN_MODE");

    /* sizes */
    conv();
    set_reg(NPU_CNA_DATA_SIZE0, 0);
    REFUSED("CNA_DATA_SIZE0", "an empty input");
    conv();
    set_reg(NPU_CNA_DATA_SIZE1,
            NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL(16) | NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL_REAL(16));
    REFUSED("CNA_DATA_SIZE1", "more real than padded channels");
    conv();
    set_field(NPU_CNA_WEIGHT_SIZE2, NPU_CNA_WEIGHT_SIZE2_WEIGHT_HEIGHT_MASK, 0);
    REFUSED("CNA_WEIGHT_SIZE2", "an empty kernel");
    conv();
    set_reg(NPU_CNA_DATA_SIZE1,
            NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL(8192) | NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL_REAL(15));
    set_field(NPU_CNA_WEIGHT_SIZE2,
              NPU_CNA_WEIGHT_SIZE2_WEIGHT_HEIGHT_MASK | NPU_CNA_WEIGHT_SIZE2_WEIGHT_WIDTH_MASK,
              NPU_CNA_WEIGHT_SIZE2_WEIGHT_HEIGHT(4) | NPU_CNA_WEIGHT_SIZE2_WEIGHT_WIDTH(4));
    REFUSED("CNA_DATA_SIZE1", "more than 2^17 products per output");

    /* CNA and CORE describe one convolution */
    conv();
    set_field(NPU_CNA_DATA_SIZE3, 0, NPU_CNA_DATA_SIZE3_SURF_MODE(1));
    REFUSED("CNA_DATA_SIZE3", "SURF_MODE");
    conv();
    set_field(NPU_CNA_DATA_SIZE2, NPU_CNA_DATA_SIZE2_DATAOUT_WIDTH_MASK,
              NPU_CNA_DATA_SIZE2_DATAOUT_WIDTH(5));
    REFUSED("CNA_DATA_SIZE2", "DATAOUT_WIDTH differs from the CORE output width");
    conv();
    set_field(NPU_CNA_DATA_SIZE3, NPU_CNA_DATA_SIZE3_DATAOUT_ATOMICS_MASK,
              NPU_CNA_DATA_SIZE3_DATAOUT_ATOMICS(15));
    REFUSED("CNA_DATA_SIZE3", "DATAOUT_ATOMICS differs from the CORE output size");
    conv();
    set_field(NPU_CORE_MISC_CFG, 0, NPU_CORE_MISC_CFG_DW_EN(1));
    REFUSED("CORE_MISC_CFG", "CORE DW_EN does not match CONV_MODE");
    conv();
    set_field(NPU_CORE_MISC_CFG, NPU_CORE_MISC_CFG_PROC_PRECISION_MASK,
              NPU_CORE_MISC_CFG_PROC_PRECISION(2));
    REFUSED("CORE_MISC_CFG", "CORE PROC_PRECISION does not match IN_PRECISION");
    /* output rows/columns beyond kernel - 1 of implicit padding */
    conv();
    set_reg(NPU_CORE_DATAOUT_SIZE_0,
            NPU_CORE_DATAOUT_SIZE_0_DATAOUT_HEIGHT(4) | NPU_CORE_DATAOUT_SIZE_0_DATAOUT_WIDTH(3));
    set_field(NPU_CNA_DATA_SIZE3, NPU_CNA_DATA_SIZE3_DATAOUT_ATOMICS_MASK,
              NPU_CNA_DATA_SIZE3_DATAOUT_ATOMICS(20));
    REFUSED("CORE_DATAOUT_SIZE_0", "more than kernel-1 rows of bottom padding");
    conv();
    set_reg(NPU_CORE_DATAOUT_SIZE_0,
            NPU_CORE_DATAOUT_SIZE_0_DATAOUT_HEIGHT(3) | NPU_CORE_DATAOUT_SIZE_0_DATAOUT_WIDTH(4));
    set_field(NPU_CNA_DATA_SIZE2, NPU_CNA_DATA_SIZE2_DATAOUT_WIDTH_MASK,
              NPU_CNA_DATA_SIZE2_DATAOUT_WIDTH(5));
    set_field(NPU_CNA_DATA_SIZE3, NPU_CNA_DATA_SIZE3_DATAOUT_ATOMICS_MASK,
              NPU_CNA_DATA_SIZE3_DATAOUT_ATOMICS(20));
    REFUSED("CORE_DATAOUT_SIZE_0", "more than kernel-1 columns of right padding");
    /* more output channels than the accumulator chunk (2^15), than the DPU's field (2^13) */
    conv();
    set_reg(NPU_CORE_DATAOUT_SIZE_1, NPU_CORE_DATAOUT_SIZE_1_DATAOUT_CHANNEL(39999));
    REFUSED("CORE_DATAOUT_SIZE_1", "more output channels than the model's accumulator chunk");
    conv();
    set_reg(NPU_CORE_DATAOUT_SIZE_1, NPU_CORE_DATAOUT_SIZE_1_DATAOUT_CHANNEL(9999));
    REFUSED("10000 channels", "exceed the DPU's 13-bit channel field");

    /* packed input: ARGB_IN outside 8..11, channels that differ */
    conv();
    set_field(NPU_CNA_CONV_CON1, NPU_CNA_CONV_CON1_ARGB_IN_MASK, NPU_CNA_CONV_CON1_ARGB_IN(12));
    REFUSED("CNA_CONV_CON1", "this ARGB_IN value (8..11 expected)");
    conv();
    set_field(NPU_CNA_CONV_CON1, NPU_CNA_CONV_CON1_ARGB_IN_MASK, NPU_CNA_CONV_CON1_ARGB_IN(8));
    REFUSED("CNA_CONV_CON1", "ARGB_IN channels differ from DATAIN_CHANNEL_REAL + 1");
    /* RK3588 packed input: CBUF_CON1 = DATAIN_HEIGHT x row pitch (in pixels) */
    conv();
    set_reg(NPU_CNA_DATA_SIZE1,
            NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL(16) | NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL_REAL(0));
    set_field(NPU_CNA_CONV_CON1, NPU_CNA_CONV_CON1_ARGB_IN_MASK, NPU_CNA_CONV_CON1_ARGB_IN(8));
    set_reg(NPU_CNA_CBUF_CON1, 4 * 8 + 1);
    REFUSED("CNA_CBUF_CON1", "CBUF_CON1 is not DATAIN_HEIGHT x row pitch");
    conv();
    set_reg(NPU_CNA_DATA_SIZE1,
            NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL(16) | NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL_REAL(0));
    set_field(NPU_CNA_CONV_CON1, NPU_CNA_CONV_CON1_ARGB_IN_MASK, NPU_CNA_CONV_CON1_ARGB_IN(8));
    set_reg(NPU_CNA_CBUF_CON1, 4 * 3);
    REFUSED("CNA_CBUF_CON1", "row pitch is narrower than DATAIN_WIDTH");

    /* NC1HWC2 strides (RK3588 group-line fetch, vnpu.md §5.2) */
    conv();
    set_reg(NPU_CNA_DMA_CON1, 5);
    REFUSED("CNA_DMA_CON1", "LINE_STRIDE that is not a multiple of 4");
    conv();
    set_reg(NPU_CNA_DMA_CON1, 16);
    set_reg(NPU_CNA_DMA_CON2, 0x0FFFFF00u); /* -256 */
    REFUSED("CNA_DMA_CON2", "SURF_STRIDE + LINE_STRIDE is negative");
    conv();
    set_reg(NPU_CNA_DMA_CON1, 4);
    REFUSED("CNA_DMA_CON1", "the line stride is shorter than DATAIN_WIDTH atoms");

    /* a depthwise task has one kernel (WEIGHT_KERNELS 1) */
    conv_base(0);
    cv.depthwise = 1;
    cv.nker = 1;
    cv.kout = 16;
    conv();
    CHECK_EQ_U(run_raw(1) & BOTH, 0);
    conv();
    set_field(NPU_CNA_WEIGHT_SIZE2, NPU_CNA_WEIGHT_SIZE2_WEIGHT_KERNELS_MASK,
              NPU_CNA_WEIGHT_SIZE2_WEIGHT_KERNELS(2));
    REFUSED("CNA_WEIGHT_SIZE2", "a depthwise task with WEIGHT_KERNELS != 1");

    /* RK3566: the CMAC's depthwise bit, a negative surface stride, the
     * converter on more than 4 channels, a window beyond the model's buffer */
    setup(RKNPU_SOC_RK3566);
    conv_base(0);
    cv.kout = 16;
    conv();
    CHECK_EQ_U(run_raw(1) & BOTH, 0);
    conv();
    set_field(NPU_CMAC_MISC_CFG, 0, NPU_CMAC_MISC_CFG_DW_EN(1));
    REFUSED("CMAC_MISC_CFG", "CMAC MISC_CFG depthwise bit does not match CONV_MODE");
    conv();
    set_reg(NPU_CNA_DMA_CON2, 0x0FFFFFFFu); /* -1 */
    REFUSED("CNA_DMA_CON2", "a negative surface stride");
    conv();
    set_reg(NPU_CNA_CVT_CON0, 0x000E38E1u); /* on, unsigned, truncate 14: not the identity */
    REFUSED("CNA_CVT_CON0", "the converter on more than 4 channels");
    conv_base(1);
    cv.cin = cv.cin_real = 8;
    cv.hin = cv.win = 512;
    cv.hout = cv.wout = 1;
    cv.kout = 8;
    cv.out_surf = 16;
    conv();
    REFUSED("padded input window 512x512x8", "exceeds the model's");
}

/* ---- 3. DPU ----------------------------------------------------------------------- */

static void test_dpu_conv(void)
{
    setup(RKNPU_SOC_RK3588);

    /* BS stage */
    conv_base(0);
    cv.bs_cfg = NPU_DPU_BS_CFG_BS_ALU_BYPASS(1) | NPU_DPU_BS_CFG_BS_MUL_BYPASS(1) |
                NPU_DPU_BS_CFG_BS_RELU_BYPASS(1) | NPU_DPU_BS_CFG_BS_RELUX_EN(1);
    conv();
    REFUSED("DPU_BS_CFG", "ReLU-X with the ReLU bypassed");
    cv.bs_cfg = NPU_DPU_BS_CFG_BS_MUL_BYPASS(1) | NPU_DPU_BS_CFG_BS_RELU_BYPASS(1) |
                NPU_DPU_BS_CFG_BS_ALU_ALGO(1);
    conv();
    REFUSED("DPU_BS_CFG", "an ALU algorithm other than add (2)");
    cv.bs_cfg = NPU_DPU_BS_CFG_BS_ALU_BYPASS(1) | NPU_DPU_BS_CFG_BS_RELU_BYPASS(1);
    cv.bs_mul_cfg = NPU_DPU_BS_MUL_CFG_BS_TRUNCATE_SRC(1) | NPU_DPU_BS_MUL_CFG_BS_MUL_OPERAND(1);
    conv();
    REFUSED("DPU_BS_MUL_CFG", "TRUNCATE_SRC");
    /* the BS operand stream (BRDMA) */
    conv_base(0);
    cv.bs_cfg = bs_alu_add() | NPU_DPU_BS_CFG_BS_ALU_SRC(1);
    conv(); /* brdma_use 0: DPU_RDMA stays out of the op-enable mask */
    REFUSED("DPU_BS_CFG", "an operand stream without DPU_RDMA in the op-enable mask");
    cv.brdma_use = 1;
    conv();
    CHECK_EQ_U(run_raw(1) & BOTH, 0);
    conv();
    set_field(NPU_DPU_RDMA_BRDMA_CFG, 0, NPU_DPU_RDMA_BRDMA_CFG_BRDMA_DISABLE(1));
    REFUSED("DPU_RDMA_BRDMA_CFG", "operands from the stream but its read engine disabled");
    cv.brdma_use = 1 | 8;
    conv();
    REFUSED("DPU_RDMA_BRDMA_CFG", "the TRT (truncate) operand");
    cv.brdma_use = 4;
    conv();
    REFUSED("DPU_RDMA_BRDMA_CFG", "an operand from the stream that DATA_USE omits");

    /* the OW stage with the BS stage bypassed */
    conv_base(0);
    cv.bs_ow_cfg = 0;
    cv.bs_ow_op = 3;
    conv();
    REFUSED("DPU_BS_OW_CFG", "the OW stage with the BS stage bypassed");

    /* EW stage */
    conv_base(0);
    cv.ew_cfg = ew_add_erdma();
    cv.erdma_size = 1;
    conv();
    CHECK_EQ_U(run_raw(1) & BOTH, 0);
    cv.erdma_size = 0;
    conv();
    REFUSED("DPU_RDMA_ERDMA_CFG", "a 4-bit EW operand");
    cv.erdma_size = 1;
    conv();
    tasks[0].enable &= ~(uint32_t)NPU_UNIT_DPU_RDMA;
    REFUSED("DPU_EW_CFG", "an ERDMA operand without DPU_RDMA in the op-enable mask");
    conv();
    set_field(NPU_DPU_RDMA_ERDMA_CFG, 0, NPU_DPU_RDMA_ERDMA_CFG_ERDMA_DISABLE(1));
    REFUSED("DPU_RDMA_ERDMA_CFG", "EW operand from ERDMA but ERDMA disabled");
    conv();
    set_field(NPU_DPU_RDMA_ERDMA_CFG, NPU_DPU_RDMA_ERDMA_CFG_DATA_MODE_MASK,
              NPU_DPU_RDMA_ERDMA_CFG_DATA_MODE(2));
    REFUSED("DPU_RDMA_ERDMA_CFG", "an ERDMA data mode other than per-channel");
    conv();
    set_field(NPU_DPU_RDMA_ERDMA_CFG, 0, NPU_DPU_RDMA_ERDMA_CFG_NONALIGN(1));
    REFUSED("DPU_RDMA_ERDMA_CFG", "ERDMA NONALIGN/SURF_MODE");
    conv();
    set_reg(NPU_DPU_RDMA_EW_SURF_STRIDE, 16);
    REFUSED("DPU_RDMA_EW_SURF_STRIDE", "an EW surface stride smaller than one surface");
    cv.comb_use = 3;
    cv.src_addr = cv.ew_addr;
    conv();
    REFUSED("DPU_RDMA_EW_BASE_ADDR", "COMB_USE needs EW_BASE = SRC_BASE + EW_SURF_STRIDE");
    cv.comb_use = 0;
    cv.ew_cfg = ew_add_erdma() | NPU_DPU_EW_CFG_EW_BINARY_EN(1);
    conv();
    REFUSED("DPU_EW_CFG", "EW binary/equal modes");
    cv.ew_cfg = ew_add_erdma() | NPU_DPU_EW_CFG_EW_RELUX_EN(1);
    conv();
    REFUSED("DPU_EW_CFG", "EW ReLU-X with the ReLU bypassed");
    cv.ew_cfg = ew_add_erdma() | NPU_DPU_EW_CFG_EW_OP_TYPE(1);
    conv();
    REFUSED("DPU_EW_CFG", "EW MUL on the integer path");
    cv.ew_cfg = (ew_add_erdma() & ~NPU_DPU_EW_CFG_EW_ALU_ALGO_MASK) | NPU_DPU_EW_CFG_EW_ALU_ALGO(3);
    conv();
    REFUSED("DPU_EW_CFG", "this EW ALU algorithm");
    /* the EW operand converter on the integer path */
    cv.ew_cfg = ew_add_erdma() & ~NPU_DPU_EW_CFG_EW_OP_CVT_BYPASS_MASK;
    conv();
    CHECK_EQ_U(run_raw(1) & BOTH, 0);
    cv.ew_cfg |= NPU_DPU_EW_CFG_EW_CVT_ROUND(1);
    conv();
    REFUSED("DPU_EW_CFG", "EW_CVT_ROUND = 1");
    cv.ew_cfg = ew_add_erdma() & ~NPU_DPU_EW_CFG_EW_OP_CVT_BYPASS_MASK;
    cv.ew_cvt_scale = 1 | NPU_DPU_EW_CVT_SCALE_VALUE_EW_TRUNCATE(1);
    conv();
    REFUSED("DPU_EW_CVT_SCALE_VALUE", "EW_TRUNCATE");
    cv.ew_cvt_scale = 1;
    conv();
    set_field(NPU_DPU_DATA_FORMAT, 0, NPU_DPU_DATA_FORMAT_EW_TRUNCATE_NEG(1));
    REFUSED("DPU_DATA_FORMAT", "EW_TRUNCATE_NEG");
    /* EW_OP_VALUE registers: eight equal values, or refused */
    cv.ew_cfg = ew_add_erdma() & ~NPU_DPU_EW_CFG_EW_OP_SRC_MASK;
    conv();
    for (uint32_t i = 0; i < 8; i++)
        set_reg(NPU_DPU_EW_OP_VALUE_0 + 4u * i, i == 5 ? 6u : 5u);
    REFUSED("DPU_EW_OP_VALUE_5", "EW_OP_VALUE registers that differ");

    /* the LUT: two linear tables (LO_LE_MUX 2) with index selects up to 30 */
    cv.ew_cfg = NPU_DPU_EW_CFG_EW_OP_BYPASS(1) | NPU_DPU_EW_CFG_EW_OP_CVT_BYPASS(1) |
                NPU_DPU_EW_CFG_EW_RELU_BYPASS(1);
    conv();
    set_reg(NPU_DPU_LUT_CFG, NPU_DPU_LUT_CFG_LO_LE_MUX(2));
    set_reg(NPU_DPU_LUT_INFO, NPU_DPU_LUT_INFO_LE_INDEX_SELECT(31));
    REFUSED("DPU_LUT_INFO", "a LUT index select above 30");
    conv();
    set_reg(NPU_DPU_LUT_CFG, NPU_DPU_LUT_CFG_LO_LE_MUX(2));
    set_reg(NPU_DPU_LUT_INFO, NPU_DPU_LUT_INFO_LE_INDEX_SELECT(5) | 1u);
    REFUSED("DPU_LUT_INFO", "LUT_INFO bits besides the index selects");
    conv();
    set_reg(NPU_DPU_LUT_CFG, NPU_DPU_LUT_CFG_LO_LE_MUX(2));
    set_reg(NPU_DPU_LUT_LE_START, 10);
    set_reg(NPU_DPU_LUT_LE_END, 5);
    REFUSED("DPU_LUT_LE_START", "a LUT window that its 513 entries do not cover");

    /* OUT_CVT on the integer path */
    conv_base(0);
    cv.oc_shift = NPU_DPU_OUT_CVT_SHIFT_MINUS_EXP(1);
    conv();
    REFUSED("DPU_OUT_CVT_SHIFT", "MINUS_EXP on the integer path");
    cv.oc_shift = 63;
    conv();
    REFUSED("DPU_OUT_CVT_SHIFT", "a shift above 62");

    /* DPU modes */
    conv_base(0);
    conv();
    set_field(NPU_DPU_FEATURE_MODE_CFG, 0, NPU_DPU_FEATURE_MODE_CFG_RGP_TYPE(1));
    REFUSED("DPU_FEATURE_MODE_CFG", "regroup/transpose");
    conv();
    set_field(NPU_DPU_FEATURE_MODE_CFG, 0, NPU_DPU_FEATURE_MODE_CFG_COMB_USE(1));
    REFUSED("DPU_FEATURE_MODE_CFG", "COMB_USE without a flying input read by MRDMA and ERDMA");
    conv();
    set_field(NPU_DPU_FEATURE_MODE_CFG, NPU_DPU_FEATURE_MODE_CFG_CONV_MODE_MASK,
              NPU_DPU_FEATURE_MODE_CFG_CONV_MODE(3));
    REFUSED("DPU_FEATURE_MODE_CFG", "DPU CONV_MODE does not match the convolution");
    conv();
    set_field(NPU_DPU_DATA_FORMAT, NPU_DPU_DATA_FORMAT_PROC_PRECISION_MASK,
              NPU_DPU_DATA_FORMAT_PROC_PRECISION(2));
    REFUSED("DPU_DATA_FORMAT", "PROC/IN precisions that differ from the input data");
    conv();
    set_reg(NPU_DPU_DATA_CUBE_CHANNEL,
            NPU_DPU_DATA_CUBE_CHANNEL_ORIG_CHANNEL(39) | NPU_DPU_DATA_CUBE_CHANNEL_CHANNEL(31));
    REFUSED("DPU_DATA_CUBE_CHANNEL", "ORIG_CHANNEL above CHANNEL");
    conv();
    set_reg(NPU_DPU_DATA_CUBE_WIDTH, 2);
    REFUSED("DPU cube 3x4x32", "does not hold the 16 pixels x 32 channels it receives");
    conv();
    set_field(NPU_DPU_DATA_FORMAT, 0, NPU_DPU_DATA_FORMAT_MC_SURF_OUT(1));
    REFUSED("DPU_DATA_FORMAT", "MC_SURF_OUT");

    /* the fp16 path */
    conv_base(1);
    conv();
    CHECK_EQ_U(run_raw(1) & BOTH, 0);
    cv.bs_cfg = NPU_DPU_BS_CFG_BS_ALU_BYPASS(1) | NPU_DPU_BS_CFG_BS_RELU_BYPASS(1);
    cv.bs_mul_cfg =
        NPU_DPU_BS_MUL_CFG_BS_MUL_OPERAND(0x3C00) | NPU_DPU_BS_MUL_CFG_BS_MUL_SHIFT_VALUE(1);
    conv();
    REFUSED("DPU_BS_MUL_CFG", "a MUL shift on the fp16 path");
    cv.bs_cfg = bs_alu_add() | NPU_DPU_BS_CFG_BS_ALU_SRC(1);
    cv.bs_mul_cfg = 0;
    cv.brdma_use = 1 | 4;
    conv();
    REFUSED("DPU_RDMA_BRDMA_CFG", "OW, or ALU and MUL together, in an fp16 stream");
    conv_base(1);
    cv.bs_cfg = bs_alu_add();
    cv.bs_ow_cfg = 0;
    cv.bs_ow_op = 1;
    conv();
    REFUSED("DPU_BS_OW_CFG", "the OW stage on the fp16 path");
    conv_base(1);
    cv.ew_cfg = ew_add_erdma();
    cv.erdma_size = 2;
    conv();
    CHECK_EQ_U(run_raw(1) & BOTH, 0);
    cv.erdma_size = 1;
    conv();
    REFUSED("DPU_RDMA_ERDMA_CFG", "an fp-path EW operand that is not 16-bit or fp32");
    cv.erdma_size = 2;
    cv.ew_cfg = ew_add_erdma() & ~NPU_DPU_EW_CFG_EW_OP_CVT_BYPASS_MASK;
    cv.ew_cvt_off = 1;
    conv();
    REFUSED("DPU_EW_CVT_SCALE_VALUE", "a non-identity EW converter on the fp16 path");
    conv_base(1);
    cv.oc_scale = 2;
    conv();
    REFUSED("DPU_OUT_CVT_SCALE", "an OUT_CVT scale or shift on the fp16 path");
    cv.oc_scale = 1;
    cv.oc_shift = NPU_DPU_OUT_CVT_SHIFT_MINUS_EXP(127);
    conv();
    REFUSED("DPU_OUT_CVT_SHIFT", "MINUS_EXP above 126");
    cv.oc_shift = 0;
    cv.out_prec = 0;
    conv();
    REFUSED("DPU_DATA_FORMAT", "an integer output from fp16");

    /* RK3566: the 8-bit EW operand is ERDMA_DATA_SIZE 0 */
    setup(RKNPU_SOC_RK3566);
    conv_base(0);
    cv.kout = 16;
    cv.ew_cfg = ew_add_erdma();
    cv.erdma_size = 0;
    cv.ew_surf = 4 * 4 * 8;
    conv();
    CHECK_EQ_U(run_raw(1) & BOTH, 0);
    cv.erdma_size = 1;
    conv();
    REFUSED("DPU_RDMA_ERDMA_CFG", "this RK356x ERDMA data size");
}

static void test_dpu_flying(void)
{
    uint32_t atom;

    setup(RKNPU_SOC_RK3588);
    atom = soc->feature_atom_bytes;
    fly_base();
    flying(0, 4, 2, 16, 0);
    CHECK_EQ_U(run_raw(1), 0x100);
    flying(0, 4, 2, 16, 0);
    set_field(NPU_DPU_FEATURE_MODE_CFG, NPU_DPU_FEATURE_MODE_CFG_FLYING_MODE_MASK, 0);
    REFUSED("DPU_FEATURE_MODE_CFG", "a DPU-only task that is not in flying mode");
    flying(0, 4, 2, 16, 0);
    set_field(NPU_DPU_RDMA_FEATURE_MODE_CFG, 0, NPU_DPU_RDMA_FEATURE_MODE_CFG_MRDMA_DISABLE(1));
    REFUSED("DPU_RDMA_FEATURE_MODE_CFG", "whose MRDMA is not in flying mode/enabled");
    flying(0, 4, 2, 16, 0);
    set_reg(NPU_DPU_RDMA_SRC_DMA_CFG, NPU_DPU_RDMA_SRC_DMA_CFG_KERNEL_WIDTH(1));
    REFUSED("DPU_RDMA_SRC_DMA_CFG", "MRDMA pooling");
    flying(1, 4, 2, 8, 0); /* int16 input */
    REFUSED("DPU_RDMA_FEATURE_MODE_CFG", "this MRDMA input precision");
    flying(0, 4, 2, 16, 0);
    set_field(NPU_DPU_RDMA_FEATURE_MODE_CFG, 0, NPU_DPU_RDMA_FEATURE_MODE_CFG_COMB_USE(1));
    REFUSED("DPU_RDMA_FEATURE_MODE_CFG", "COMB_USE in flying mode other than 3 with fp32 input");
    cv.out_prec = 5;
    flying(5, 4, 2, 8, 0); /* fp32 with COMB_USE 3, ERDMA disabled (EW bypassed) */
    set_field(NPU_DPU_RDMA_FEATURE_MODE_CFG, 0, NPU_DPU_RDMA_FEATURE_MODE_CFG_COMB_USE(3));
    REFUSED("DPU_RDMA_FEATURE_MODE_CFG", "COMB_USE input needs ERDMA enabled");
    cv.out_prec = 0;
    /* NONALIGN: SURF_LEN * 8 and DST_SURF_STRIDE are the packed cube's bytes */
    cv.out_surf = 4 * 2 * 16;
    flying(0, 4, 2, 16, 1);
    CHECK_EQ_U(run_raw(1) & BOTH, 0);
    flying(0, 4, 2, 16, 1);
    set_field(NPU_DPU_FEATURE_MODE_CFG, NPU_DPU_FEATURE_MODE_CFG_SURF_LEN_MASK,
              NPU_DPU_FEATURE_MODE_CFG_SURF_LEN(3));
    REFUSED("DPU_FEATURE_MODE_CFG", "NONALIGN SURF_LEN * 8 and DST_SURF_STRIDE must equal");
    /* the OW stage in flying mode */
    fly_base();
    cv.bs_cfg = bs_alu_add();
    cv.bs_ow_cfg = 0;
    cv.bs_ow_op = 1;
    flying(0, 4, 2, 16, 0);
    REFUSED("DPU_BS_OW_CFG", "the OW stage in flying mode");

    /* unpooling: a kernel equal to its stride, a cube kernel-width times as wide */
    fly_base();
    cv.out_surf = 8 * 2 * atom;
    flying(0, 4, 2, 16, 0);
    set_reg(NPU_DPU_RDMA_SRC_DMA_CFG, NPU_DPU_RDMA_SRC_DMA_CFG_UNPOOLING_EN(1) |
                                          NPU_DPU_RDMA_SRC_DMA_CFG_KERNEL_WIDTH(1) |
                                          NPU_DPU_RDMA_SRC_DMA_CFG_KERNEL_STRIDE_WIDTH(1));
    set_reg(NPU_DPU_DATA_CUBE_WIDTH, 7);
    CHECK_EQ_U(run_raw(1) & BOTH, 0);
    flying(0, 4, 2, 16, 0);
    set_reg(NPU_DPU_RDMA_SRC_DMA_CFG, NPU_DPU_RDMA_SRC_DMA_CFG_UNPOOLING_EN(1) |
                                          NPU_DPU_RDMA_SRC_DMA_CFG_KERNEL_WIDTH(1) |
                                          NPU_DPU_RDMA_SRC_DMA_CFG_KERNEL_STRIDE_WIDTH(0));
    set_reg(NPU_DPU_DATA_CUBE_WIDTH, 7);
    REFUSED("DPU_RDMA_SRC_DMA_CFG", "unpooling with a kernel other than its stride");
    flying(0, 4, 2, 16, 0);
    set_reg(NPU_DPU_RDMA_SRC_DMA_CFG, NPU_DPU_RDMA_SRC_DMA_CFG_UNPOOLING_EN(1) |
                                          NPU_DPU_RDMA_SRC_DMA_CFG_KERNEL_WIDTH(1) |
                                          NPU_DPU_RDMA_SRC_DMA_CFG_KERNEL_STRIDE_WIDTH(1));
    set_reg(NPU_DPU_DATA_CUBE_WIDTH, 6);
    REFUSED("DPU_DATA_CUBE_WIDTH", "an unpooling cube that is not one surface");
}

/* A flying input whose second surface starts at 2^32 (SRC_BASE at the top
 * of a DMA window that ends there): a read error, like any address outside
 * the window. */
static void test_top_of_address_space(void)
{
    const uint32_t base = 0xFFF00000u;
    uint32_t atom, surface;

    soc = tasm_setup(&dev, &mem, arena, base, ARENA_BYTES, RKNPU_SOC_RK3588);
    CHECK(soc != NULL);
    atom = soc->feature_atom_bytes;
    surface = 4 * 2 * atom;
    tasm_conv_defaults(&cv);
    cv.out_addr = tasm_alloc(&mem, 2 * surface, 64);
    cv.out_surf = surface;
    fly_src = (uint32_t)(0x100000000ull - surface);
    flying(0, 4, 2, 2 * atom, 0);
    STOPPED(0x1000, "MRDMA (flying input)", "outside the DMA window");
}

/* ---- 4. PPU ------------------------------------------------------------------------- */

static void test_ppu(void)
{
    setup(RKNPU_SOC_RK3588);
    pool_base();
    pool();
    CHECK_EQ_U(run_raw(1), 0x400);
    pool();
    set_field(NPU_PPU_OPERATION_MODE_CFG, NPU_PPU_OPERATION_MODE_CFG_POOLING_METHOD_MASK,
              NPU_PPU_OPERATION_MODE_CFG_POOLING_METHOD(3));
    REFUSED("PPU_OPERATION_MODE_CFG", "POOLING_METHOD 3");
    pool();
    set_field(NPU_PPU_OPERATION_MODE_CFG, NPU_PPU_OPERATION_MODE_CFG_FLYING_MODE_MASK, 0);
    REFUSED("PPU_OPERATION_MODE_CFG", "PPU input from the DPU (FLYING_MODE 0)");
    pool();
    set_field(NPU_PPU_OPERATION_MODE_CFG, 0, NPU_PPU_OPERATION_MODE_CFG_INDEX_EN(1));
    REFUSED("PPU_OPERATION_MODE_CFG", "index output (INDEX_EN)");
    pool();
    set_field(NPU_PPU_DATA_FORMAT, 0, NPU_PPU_DATA_FORMAT_DPU_FLYIN(1));
    REFUSED("PPU_DATA_FORMAT", "DPU_FLYIN");
    pool();
    set_field(NPU_PPU_MISC_CTRL, 0, NPU_PPU_MISC_CTRL_NONALIGN(1));
    REFUSED("PPU_MISC_CTRL", "NONALIGN / MC_SURF_OUT output");
    pool();
    set_reg(NPU_PPU_DATA_FORMAT, NPU_PPU_DATA_FORMAT_PROC_PRECISION(1));
    REFUSED("PPU_DATA_FORMAT", "this pooling precision");
    pool();
    set_reg(NPU_PPU_DATA_CUBE_OUT_CHANNEL, 7);
    REFUSED("PPU_DATA_CUBE_OUT_CHANNEL", "pooling changes the channel count");
    pool();
    set_reg(NPU_PPU_RDMA_CUBE_IN_WIDTH, 2);
    REFUSED("PPU_RDMA_CUBE_IN_WIDTH", "PPU_RDMA and PPU input cubes differ");
    pool();
    set_reg(NPU_PPU_DATA_CUBE_OUT_WIDTH, 2);
    REFUSED("PPU_DATA_CUBE_OUT_WIDTH", "a pooling window does not fit input + padding");
    pool();
    set_reg(NPU_PPU_RDMA_SRC_LINE_STRIDE, 3 * soc->feature_atom_bytes);
    REFUSED("PPU_RDMA_SRC_LINE_STRIDE", "a line stride shorter than the input width");
    pl.c = 2 * soc->feature_atom_bytes; /* two surfaces */
    pl.surf = 8 * soc->feature_atom_bytes;
    pool();
    REFUSED("PPU_RDMA_SRC_SURF_STRIDE", "surface strides shorter than one surface");
}

/* fp16 average pooling, 2x2 windows at stride 2 with the reciprocals 0.5
 * (fp16 0x3800): each output is the mean of its four inputs. The inputs
 * are quarters within +-8, so sums and means are exact halves. */
static void test_ppu_fp16_average(void)
{
    uint32_t atom, c2, bad = 0;
    int32_t q[4 * 4 * 16];

    setup(RKNPU_SOC_RK3588);
    atom = soc->feature_atom_bytes;
    c2 = atom / 2;
    pool_base();
    pl.method = 0;
    pl.fp16 = 1;
    pl.c = c2;
    pl.recip_w = pl.recip_h = 0x3800;
    for (uint32_t p = 0; p < 16; p++)
        for (uint32_t ch = 0; ch < c2; ch++) {
            q[p * c2 + ch] = rnd_range(-32, 31); /* value q / 4 */
            st16(tasm_host(&mem, pl.src) + p * atom + ch * 2, half_of(q[p * c2 + ch] / 4.0));
        }
    pool();
    CHECK_EQ_U(run_raw(1), 0x400);
    for (uint32_t oy = 0; oy < 2; oy++)
        for (uint32_t ox = 0; ox < 2; ox++)
            for (uint32_t ch = 0; ch < c2; ch++) {
                int32_t s = 0;
                for (uint32_t ky = 0; ky < 2; ky++)
                    for (uint32_t kx = 0; kx < 2; kx++)
                        s += q[((oy * 2 + ky) * 4 + ox * 2 + kx) * c2 + ch];
                uint16_t got = ld16(tasm_host(&mem, pl.dst) + (oy * 2 + ox) * atom + ch * 2);
                bad += got != half_of(s / 16.0);
            }
    CHECK_EQ_U(bad, 0);

    /* a 1x1 max pooling copies halves without arithmetic: infinities, zeros,
     * subnormals and the largest half stay, a NaN stays a NaN of its sign,
     * quiet (IEEE 754: a signaling NaN converts to a quiet one) */
    static const uint16_t special[8] = {0x7C00, 0xFC00, 0x7C01, 0xFE00,
                                        0x8000, 0x0001, 0x7BFF, 0x7D55};
    pool_base();
    pl.fp16 = 1;
    pl.c = c2;
    pl.kw = pl.kh = pl.sw = pl.sh = 1;
    pl.wout = pl.hout = 4;
    pl.dsurf = 16 * atom;
    for (uint32_t i = 0; i < 16 * c2; i++)
        st16(tasm_host(&mem, pl.src) + (i / c2) * atom + (i % c2) * 2, special[i % 8]);
    pool();
    CHECK_EQ_U(run_raw(1), 0x800);
    for (uint32_t i = 0; i < 16 * c2; i++) {
        uint16_t h = special[i % 8];
        uint16_t got = ld16(tasm_host(&mem, pl.dst) + (i / c2) * atom + (i % c2) * 2);
        if ((h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0)
            bad += (got & 0x7C00u) != 0x7C00u || (got & 0x200u) == 0 ||
                   (got & 0x8000u) != (h & 0x8000u);
        else
            bad += got != h;
    }
    CHECK_EQ_U(bad, 0);
}

/* ---- 5. data paths against values computed here ----------------------------------- */

/* Flying int8 copy, 4x2 pixels of 16 channels, through the EW stage with an
 * operand: from the EW_OP_VALUE registers (y = sat8(x + 7)), from int16
 * ERDMA data (y = sat8(x + e)); into fp32 with OUT_CVT_OFFSET 1000 (y =
 * x + 1000); NONALIGN output of 8 channels (packed [pixel][channel]). */
static void test_int_paths(void)
{
    uint32_t atom, bad = 0, npix = 8;

    setup(RKNPU_SOC_RK3588);
    atom = soc->feature_atom_bytes;
    fly_base();
    for (uint32_t i = 0; i < npix * atom; i++)
        tasm_host(&mem, fly_src)[i] = (uint8_t)rnd();

    /* the register operand */
    cv.ew_cfg = ew_add_erdma() & ~NPU_DPU_EW_CFG_EW_OP_SRC_MASK;
    flying(0, 4, 2, 16, 0);
    for (uint32_t i = 0; i < 8; i++)
        set_reg(NPU_DPU_EW_OP_VALUE_0 + 4u * i, 7);
    CHECK_EQ_U(run_raw(1), 0x100);
    for (uint32_t i = 0; i < npix * atom; i++)
        bad += (int8_t)tasm_host(&mem, fly_dst)[i] !=
               sat((int8_t)tasm_host(&mem, fly_src)[i] + 7, -128, 127);
    CHECK_EQ_U(bad, 0);

    /* int16 ERDMA operand: C2 = 8, two surfaces */
    cv.ew_cfg = ew_add_erdma();
    cv.erdma_size = 2;
    cv.ew_surf = npix * atom;
    for (uint32_t s = 0; s < 2; s++)
        for (uint32_t p = 0; p < npix; p++)
            for (uint32_t j = 0; j < 8; j++)
                st16(tasm_host(&mem, cv.ew_addr) + s * cv.ew_surf + p * atom + j * 2,
                     (uint16_t)(int16_t)rnd_range(-300, 300));
    flying(0, 4, 2, 16, 0);
    CHECK_EQ_U(run_raw(1), 0x200);
    for (uint32_t p = 0; p < npix; p++)
        for (uint32_t ch = 0; ch < 16; ch++) {
            int16_t e = (int16_t)ld16(tasm_host(&mem, cv.ew_addr) + (ch / 8) * cv.ew_surf +
                                      p * atom + (ch % 8) * 2);
            int8_t x = (int8_t)tasm_host(&mem, fly_src)[p * atom + ch];
            bad += (int8_t)tasm_host(&mem, fly_dst)[p * atom + ch] != sat(x + e, -128, 127);
        }
    CHECK_EQ_U(bad, 0);

    /* fp32 output: C2 = 4, four surfaces */
    cv.ew_cfg = ew_add_erdma() | NPU_DPU_EW_CFG_EW_BYPASS(1);
    cv.erdma_size = 0;
    cv.out_prec = 5;
    cv.oc_offset = 1000;
    cv.out_surf = npix * atom;
    flying(0, 4, 2, 16, 0);
    CHECK_EQ_U(run_raw(1), 0x100);
    for (uint32_t p = 0; p < npix; p++)
        for (uint32_t ch = 0; ch < 16; ch++) {
            int8_t x = (int8_t)tasm_host(&mem, fly_src)[p * atom + ch];
            bad += ld32(tasm_host(&mem, fly_dst) + (ch / 4) * cv.out_surf + p * atom +
                        (ch % 4) * 4) != f32_bits((float)(x + 1000));
        }
    CHECK_EQ_U(bad, 0);

    /* NONALIGN int8 output of 8 channels */
    cv.out_prec = 0;
    cv.oc_offset = 0;
    cv.out_surf = npix * 8;
    memset(tasm_host(&mem, fly_dst), 0xEE, npix * atom);
    flying(0, 4, 2, 8, 1);
    CHECK_EQ_U(run_raw(1), 0x200);
    for (uint32_t p = 0; p < npix; p++)
        for (uint32_t ch = 0; ch < 8; ch++)
            bad += tasm_host(&mem, fly_dst)[p * 8 + ch] != tasm_host(&mem, fly_src)[p * atom + ch];
    for (uint32_t i = npix * 8; i < npix * atom; i++)
        bad += tasm_host(&mem, fly_dst)[i] != 0xEE; /* packed: nothing beyond */
    CHECK_EQ_U(bad, 0);
}

/* Flying fp16 copies: BS ReLU + ReLU-X at 1.5 (y = min(max(x, 0), 1.5));
 * infinities, subnormals and NaNs (IEEE: they stay what they are);
 * OUT_CVT_OFFSET 65000 (y = x + 65000 rounded to binary16: to nearest
 * even, 65520 and above to infinity). */
static void test_fp16_paths(void)
{
    uint32_t atom, c2, npix = 8, bad = 0;
    uint8_t *src, *dst;

    setup(RKNPU_SOC_RK3588);
    atom = soc->feature_atom_bytes;
    c2 = atom / 2;
    fly_base();
    src = tasm_host(&mem, fly_src);
    dst = tasm_host(&mem, fly_dst);
    for (uint32_t i = 0; i < npix * c2; i++)
        st16(src + i * 2, half_of(rnd_range(-16, 16) / 8.0));
    cv.out_prec = 2;
    cv.bs_cfg = NPU_DPU_BS_CFG_BS_ALU_BYPASS(1) | NPU_DPU_BS_CFG_BS_MUL_BYPASS(1) |
                NPU_DPU_BS_CFG_BS_RELUX_EN(1);
    cv.bs_relux = f32_bits(1.5f);
    flying(2, 4, 2, c2, 0);
    CHECK_EQ_U(run_raw(1), 0x100);
    for (uint32_t i = 0; i < npix * c2; i++) {
        uint16_t h = ld16(src + i * 2);
        int neg = (h & 0x8000u) != 0 && (h & 0x7FFFu) != 0;
        uint16_t want = neg ? 0 : (h > half_of(1.5) ? half_of(1.5) : h);
        bad += ld16(dst + i * 2) != want;
    }
    CHECK_EQ_U(bad, 0);

    /* infinities and NaNs through a plain copy */
    static const uint16_t special[8] = {0x7C00, 0xFC00, 0x7E00, 0xFE00,
                                        0x7C01, 0x7DFF, 0x3C00, 0x0001};
    tasm_conv_defaults(&cv);
    cv.out_addr = fly_dst;
    cv.out_surf = npix * atom;
    cv.out_prec = 2;
    for (uint32_t i = 0; i < 8; i++)
        st16(src + i * 2, special[i]);
    flying(2, 1, 1, c2, 0);
    CHECK_EQ_U(run_raw(1), 0x200);
    for (uint32_t i = 0; i < 8; i++) {
        uint16_t h = special[i], got = ld16(dst + i * 2);
        /* a NaN stays a NaN (the copy multiplies by 2^-0: IEEE leaves its sign open) */
        if ((h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0)
            bad += (got & 0x7C00u) != 0x7C00u || (got & 0x3FFu) == 0;
        else
            bad += got != h;
    }
    CHECK_EQ_U(bad, 0);

    /* overflow to infinity */
    static const double xs[8] = {600.0, 520.0, 519.0, 10.0, -64992.0, -32768.0, 536.0, 0.5};
    cv.oc_offset = 65000;
    for (uint32_t i = 0; i < 8; i++)
        st16(src + i * 2, half_of(xs[i]));
    flying(2, 1, 1, c2, 0);
    CHECK_EQ_U(run_raw(1), 0x100);
    for (uint32_t i = 0; i < 8; i++) {
        uint16_t got = ld16(dst + i * 2), want = half_of(xs[i] + 65000.0);
        if (!CHECK_EQ_U(got, want))
            printf("  %g + 65000\n", xs[i]);
    }
    CHECK_EQ_U(bad, 0);
}

/* RK3566 converter TYPE 1 (vnpu.md §5.3): y = sat8(floor(((x + off) * scale)
 * / 2^trunc)) of the unsigned bytes, per channel; an int32 copy through
 * identity kernels. Then vnpu_set_cvt_bit0: BYPASS makes bit 0 mean bypass,
 * PROFILE restores RK3566's reading (enable). */
static void test_converter_type1(void)
{
    static const int32_t off[3] = {-100, -128, 17};
    static const uint32_t scale[3] = {5, 1, 7}, trunc[3] = {1, 0, 3};
    tasm_conv c;
    uint32_t bad = 0, surf = 20 * 16;

    setup(RKNPU_SOC_RK3566);
    tasm_conv_defaults(&c);
    c.argb = 1;
    c.hin = c.hout = 4;
    c.win = c.wout = 5;
    c.cin_real = 3;
    c.cin = 8;
    c.argb_pitch_px = 8;
    c.nker = 3;
    c.kout = 16;
    c.kh = c.kw = 1;
    c.out_prec = 4;
    c.in_addr = tasm_alloc(&mem, 4 * 8 * 3, 64);
    c.w_addr = tasm_alloc(&mem, 3 * 8, 64);
    c.out_surf = surf;
    c.out_addr = tasm_alloc(&mem, 4 * surf, 64);
    c.cvt_con0 = NPU_CNA_CVT_CON0_CVT_BYPASS(1) | NPU_CNA_CVT_CON0_CVT_TYPE(1) |
                 NPU_CNA_CVT_CON0_CVT_TRUNCATE_0(trunc[0]) |
                 NPU_CNA_CVT_CON0_CVT_TRUNCATE_1(trunc[1]) |
                 NPU_CNA_CVT_CON0_CVT_TRUNCATE_2(trunc[2]);
    for (uint32_t k = 0; k < 3; k++)
        c.cvt_con[k] = NPU_CNA_CVT_CON1_CVT_SCALE0(scale[k]) |
                       NPU_CNA_CVT_CON1_CVT_OFFSET0((uint32_t)off[k] & 0xFFFFu);
    c.cvt_con[3] = NPU_CNA_CVT_CON1_CVT_SCALE0(1);
    for (uint32_t i = 0; i < 4 * 8 * 3; i++)
        tasm_host(&mem, c.in_addr)[i] = (uint8_t)(i * 37u + 11u);
    for (uint32_t k = 0; k < 3; k++)
        tasm_host(&mem, c.w_addr)[k * 8 + k] = 1;
    for (int pass = 0; pass < 3; pass++) {
        /* 0: profile (enable), 1: bit 0 = bypass, 2: profile again */
        vnpu_set_cvt_bit0(&dev, pass == 1 ? VNPU_CVT_BIT0_BYPASS : VNPU_CVT_BIT0_PROFILE);
        memset(tasm_host(&mem, c.out_addr), 0, 4 * surf);
        tasm_conv_task(&tasks[0], soc, &c);
        if (!CHECK_EQ_U(run_raw(1) & BOTH, 0))
            printf("  converter: %s\n", vnpu_last_error(&dev, 0));
        for (uint32_t y = 0; y < 4; y++)
            for (uint32_t x = 0; x < 5; x++)
                for (uint32_t k = 0; k < 3; k++) {
                    int64_t raw = tasm_host(&mem, c.in_addr)[(y * 8 + x) * 3 + k];
                    int64_t want = pass == 1 ? (int8_t)raw
                                             : sat(floor_shift((raw + off[k]) * scale[k], trunc[k]),
                                                   -128, 127);
                    int32_t got = (int32_t)ld32(tasm_host(&mem, c.out_addr) + (k / 4) * surf +
                                                (y * 5 + x) * 16 + (k % 4) * 4);
                    bad += got != want;
                }
        if (!CHECK_EQ_U(bad, 0))
            printf("  converter pass %d\n", pass);
    }
}

/* The LUT on the fp16 path (vnpu.md §7.5), tables loaded through MMIO:
 * LE over [0, 512] step 1 with LE[i] = 2i - 300, LO over [600, 1112] with
 * LO[i] = 1000 - i; slopes LE 3/2 (under), LO -1 (under) and 1/4 (over);
 * UFLOW_PRIORITY LE, OFLOW_PRIORITY LO. Each x of a flying fp16 copy must
 * give the document's value: in one window its interpolation (at the end,
 * the last entry), below both LE's underflow line, above both LO's
 * overflow line. Above LE and below LO the document does not say which
 * table answers: the result must be one of the two edge lines. */
typedef struct {
    double start, end, uslope, oslope;
    int16_t t[513];
} lut_table;

static lut_table lut[2];

static double lut_eval(const lut_table *tb, double x)
{
    double pos;
    int i;

    if (x < tb->start)
        return tb->t[0] + (x - tb->start) * tb->uslope;
    if (x > tb->end)
        return tb->t[(int)(tb->end - tb->start)] + (x - tb->end) * tb->oslope;
    pos = x - tb->start; /* step 1 */
    i = (int)pos;
    return i == (int)(tb->end - tb->start) ? tb->t[i]
                                           : tb->t[i] + (tb->t[i + 1] - tb->t[i]) * (pos - i);
}

static void test_lut_fp16(void)
{
    static const double xs[8] = {10.5, 512.0, 0.0, -4.0, 1200.0, 700.5, 1112.0, 550.0};
    uint32_t atom, c2, bad = 0;
    uint8_t *src, *dst;

    setup(RKNPU_SOC_RK3588);
    atom = soc->feature_atom_bytes;
    c2 = atom / 2;
    lut[0].start = 0;
    lut[0].end = 512;
    lut[0].uslope = 3.0 / 2.0;
    lut[0].oslope = 5.0; /* LE over: 5 / 2^0 */
    lut[1].start = 600;
    lut[1].end = 1112;
    lut[1].uslope = -1.0;
    lut[1].oslope = 1.0 / 4.0;
    for (int i = 0; i < 513; i++) {
        lut[0].t[i] = (int16_t)(2 * i - 300);
        lut[1].t[i] = (int16_t)(1000 - i);
    }
    for (uint32_t id = 0; id < 2; id++) {
        wr(NPU_DPU_LUT_ACCESS_CFG,
           NPU_DPU_LUT_ACCESS_CFG_ACCESS_TYPE(1) | NPU_DPU_LUT_ACCESS_CFG_TABLE_ID(id));
        for (int i = 0; i < 513; i++)
            wr(NPU_DPU_LUT_ACCESS_DATA, (uint16_t)lut[id].t[i]);
    }
    fly_base();
    src = tasm_host(&mem, fly_src);
    dst = tasm_host(&mem, fly_dst);
    for (uint32_t i = 0; i < c2; i++)
        st16(src + i * 2, half_of(xs[i]));
    cv.out_prec = 2;
    cv.ew_cfg = NPU_DPU_EW_CFG_EW_OP_BYPASS(1) | NPU_DPU_EW_CFG_EW_OP_CVT_BYPASS(1) |
                NPU_DPU_EW_CFG_EW_RELU_BYPASS(1);
    flying(2, 1, 1, c2, 0);
    set_reg(NPU_DPU_LUT_CFG, NPU_DPU_LUT_CFG_LO_LE_MUX(2) | NPU_DPU_LUT_CFG_OFLOW_PRIORITY(1));
    set_reg(NPU_DPU_LUT_INFO, 0);
    set_reg(NPU_DPU_LUT_LE_START, 0);
    set_reg(NPU_DPU_LUT_LE_END, 512);
    set_reg(NPU_DPU_LUT_LO_START, 600);
    set_reg(NPU_DPU_LUT_LO_END, 1112);
    set_reg(NPU_DPU_LUT_LE_SLOPE_SCALE, NPU_DPU_LUT_LE_SLOPE_SCALE_LUT_LE_SLOPE_UFLOW_SCALE(3) |
                                            NPU_DPU_LUT_LE_SLOPE_SCALE_LUT_LE_SLOPE_OFLOW_SCALE(5));
    set_reg(NPU_DPU_LUT_LE_SLOPE_SHIFT, NPU_DPU_LUT_LE_SLOPE_SHIFT_LUT_LE_SLOPE_UFLOW_SHIFT(1));
    set_reg(NPU_DPU_LUT_LO_SLOPE_SCALE,
            NPU_DPU_LUT_LO_SLOPE_SCALE_LUT_LO_SLOPE_UFLOW_SCALE(0xFFFF) |
                NPU_DPU_LUT_LO_SLOPE_SCALE_LUT_LO_SLOPE_OFLOW_SCALE(1));
    set_reg(NPU_DPU_LUT_LO_SLOPE_SHIFT, NPU_DPU_LUT_LO_SLOPE_SHIFT_LUT_LO_SLOPE_OFLOW_SHIFT(2));
    if (!CHECK_EQ_U(run_raw(1), 0x100))
        printf("  LUT: %s\n", vnpu_last_error(&dev, 0));
    for (uint32_t i = 0; i < c2; i++) {
        double x = xs[i];
        int in0 = x >= lut[0].start && x <= lut[0].end, in1 = x >= lut[1].start && x <= lut[1].end;
        uint16_t got = ld16(dst + i * 2), want;
        if (in0 || in1)
            want = half_of(lut_eval(&lut[in0 ? 0 : 1], x));
        else if (x < lut[0].start && x < lut[1].start)
            want = half_of(lut_eval(&lut[0], x)); /* UFLOW_PRIORITY 0: LE */
        else if (x > lut[0].end && x > lut[1].end)
            want = half_of(lut_eval(&lut[1], x)); /* OFLOW_PRIORITY 1: LO */
        else
            want = got == half_of(lut_eval(&lut[0], x)) ? got : half_of(lut_eval(&lut[1], x));
        if (got != want) {
            bad++;
            printf("  LUT x = %g: got 0x%04x, want 0x%04x\n", x, got, want);
        }
    }
    CHECK_EQ_U(bad, 0);
}

/* A direct int8 convolution of 3 input channels (DATAIN_CHANNEL 3, not a
 * multiple of 4), 1x1 kernels: out[k] = Σ_c w[k][c] x[c]. */
static void test_three_channels(void)
{
    uint32_t atom, bad = 0;
    int8_t w[8][3];

    setup(RKNPU_SOC_RK3588);
    atom = soc->feature_atom_bytes;
    conv_base(0);
    cv.cin = cv.cin_real = 3;
    for (uint32_t p = 0; p < 16; p++)
        for (uint32_t c = 0; c < 3; c++)
            tasm_host(&mem, cv.in_addr)[p * atom + c] = (uint8_t)(int8_t)rnd_range(-5, 5);
    /* weights: [kernel][channel], the 8 kernels one group, 3 channels one slice */
    for (uint32_t k = 0; k < 8; k++)
        for (uint32_t c = 0; c < 3; c++) {
            w[k][c] = (int8_t)rnd_range(-5, 5);
            tasm_host(&mem, cv.w_addr)[k * 3 + c] = (uint8_t)w[k][c];
        }
    conv();
    if (!CHECK_EQ_U(run_raw(1), 0x150))
        printf("  3 channels: %s\n", vnpu_last_error(&dev, 0));
    for (uint32_t p = 0; p < 16; p++)
        for (uint32_t k = 0; k < 32; k++) {
            int32_t s = 0;
            for (uint32_t c = 0; c < 3 && k < 8; c++)
                s += w[k][c] * (int8_t)tasm_host(&mem, cv.in_addr)[p * atom + c];
            bad += (int8_t)tasm_host(&mem,
                                     cv.out_addr)[(k / 16) * cv.out_surf + p * atom + k % 16] != s;
        }
    CHECK_EQ_U(bad, 0);
}

/* ---- 6. compressed weights (vnpu.md §6.2) ----------------------------------------- */

/* A payload written bit by bit, LSB first (vnpu.md §6.2). */
typedef struct {
    uint8_t *p;
    uint32_t pos;
} bit_writer;

static void put_str(bit_writer *w, const char *bits)
{
    for (; *bits; bits++, w->pos++)
        if (*bits == '1')
            w->p[w->pos / 8] |= (uint8_t)(1u << (w->pos % 8));
}

static void put_val(bit_writer *w, uint32_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, w->pos++)
        if ((v >> i) & 1u)
            w->p[w->pos / 8] |= (uint8_t)(1u << (w->pos % 8));
}

/* Stream 0's header at `h`: kind, base 0, the class table's entries 0 and 1
 * (prefix codes "00" and "10"), first zero-run length run0. */
static void stream_header(uint8_t *h, uint8_t kind, unsigned cls0, unsigned cls1, unsigned run0)
{
    memset(h, 0, 16);
    h[0] = kind;
    h[4] = (uint8_t)(cls0 | cls1 << 4);
    h[8] = (uint8_t)run0;
}

/* The conv_base convolution with 32 kernels (512 bytes of weights: 8
 * blocks, 32 bytes a stream), compressed at `at`, stream 0 of AMOUNT
 * `amount`. */
static void dcomp_task(uint32_t at, uint32_t amount)
{
    uint32_t regnum = 0;

    cv.nker = 32;
    conv();
    for (unsigned s = 0; s < 16; s++)
        regnum = npu_field_set(
            regnum, NPU_CNA_DCOMP_REGNUM_STREAM0_SHIFT + s * NPU_CNA_DCOMP_REGNUM_STREAM0_WIDTH,
            NPU_CNA_DCOMP_REGNUM_STREAM0_WIDTH, 1);
    set_reg(NPU_CNA_DCOMP_CTRL, NPU_CNA_DCOMP_CTRL_DECOMP_CONTROL(1));
    set_reg(NPU_CNA_DCOMP_REGNUM, regnum);
    set_reg(NPU_CNA_DCOMP_ADDR0, at);
    set_reg(NPU_CNA_DCOMP_AMOUNT0, amount);
}

/* Streams whose payload (AMOUNT 1: 128 bits) ends right after a symbol's
 * prefix code, before the bits its class needs: a zigzag delta, a zero
 * run's selector, a class-7 field; a zero run longer than the bytes the
 * stream has left. Each an overrun naming CNA_DCOMP_AMOUNT0. Then more
 * native weights than the model holds, and a stream that would start at
 * 2^32. */
static void test_dcomp(void)
{
    uint32_t at;
    uint8_t *h;
    bit_writer w;

    setup(RKNPU_SOC_RK3588);
    conv_base(0);
    at = tasm_alloc(&mem, 1024, 64);
    h = tasm_host(&mem, at);

    /* zigzag: 15 x (entry 0: class 6, 6 bits), 2 x (entry 1: class 0, 1 bit), entry 0 */
    memset(h, 0, 1024);
    stream_header(h, 0x00, 6, 0, 0);
    w = (bit_writer){h + 16, 0};
    for (int i = 0; i < 15; i++) {
        put_str(&w, "00");
        put_val(&w, 5, 6);
    }
    for (int i = 0; i < 2; i++) {
        put_str(&w, "10");
        put_val(&w, 1, 1);
    }
    put_str(&w, "00");
    CHECK_EQ_U(w.pos, 128);
    dcomp_task(at, 1);
    REFUSED("CNA_DCOMP_AMOUNT0", "weight stream 0");
    CHECK(contains(vnpu_last_error(&dev, 0), "an overrun"));

    /* sign-magnitude: 15 x (entry 1: class 6), 2 x (entry 0: zero run, selector 0), entry 0 */
    memset(h, 0, 1024);
    stream_header(h, 0x11, 0, 6, 1);
    w = (bit_writer){h + 16, 0};
    for (int i = 0; i < 15; i++) {
        put_str(&w, "10");
        put_val(&w, 9, 6);
    }
    for (int i = 0; i < 2; i++) {
        put_str(&w, "00");
        put_val(&w, 0, 1);
    }
    put_str(&w, "00");
    CHECK_EQ_U(w.pos, 128);
    dcomp_task(at, 1);
    REFUSED("CNA_DCOMP_AMOUNT0", "an overrun");

    /* sign-magnitude: 12 x (entry 0: class 7, 8 bits of 200), 2 zero runs, entry 0 */
    memset(h, 0, 1024);
    stream_header(h, 0x11, 7, 0, 1);
    w = (bit_writer){h + 16, 0};
    for (int i = 0; i < 12; i++) {
        put_str(&w, "00");
        put_val(&w, 200, 8);
    }
    for (int i = 0; i < 2; i++) {
        put_str(&w, "10");
        put_val(&w, 0, 1);
    }
    put_str(&w, "00");
    CHECK_EQ_U(w.pos, 128);
    dcomp_task(at, 1);
    REFUSED("CNA_DCOMP_AMOUNT0", "an overrun");

    /* sign-magnitude, zero runs of 4: 30 bytes of class 1, then a run with 2 bytes left */
    memset(h, 0, 1024);
    stream_header(h, 0x11, 1, 0, 4);
    h[10] = 1; /* the other run lengths, never selected: 1, 2, 3 */
    h[12] = 2;
    h[14] = 3;
    w = (bit_writer){h + 16, 0};
    for (int i = 0; i < 30; i++) {
        put_str(&w, "00");
        put_val(&w, 0, 1);
    }
    put_str(&w, "10");
    put_val(&w, 0, 1);
    dcomp_task(at, 1);
    REFUSED("CNA_DCOMP_AMOUNT0", "an overrun");

    /* 17 kernels of 4096 channels x 4 x 4: 1088 KiB of weights */
    conv_base(0);
    cv.cin = cv.cin_real = 4096;
    cv.kh = cv.kw = 4;
    cv.hout = cv.wout = 1;
    cv.in_addr = tasm_alloc(&mem, 4 * 4 * 4096, 64);
    conv();
    dcomp_task(at, 1);
    set_field(NPU_CNA_WEIGHT_SIZE2, NPU_CNA_WEIGHT_SIZE2_WEIGHT_KERNELS_MASK,
              NPU_CNA_WEIGHT_SIZE2_WEIGHT_KERNELS(17));
    set_reg(NPU_CNA_WEIGHT_SIZE1, 4096 * 16);
    set_reg(NPU_CNA_WEIGHT_SIZE0, 17 * 4096 * 16);
    REFUSED("bytes of compressed weights", "exceed the model's");

    /* stream 0 ends at 2^32: stream 1 would start past the 32-bit space */
    soc = tasm_setup(&dev, &mem, arena, 0xFFF00000u, ARENA_BYTES, RKNPU_SOC_RK3588);
    CHECK(soc != NULL);
    conv_base(0);
    at = (uint32_t)(0x100000000ull - 1024u);
    h = tasm_host(&mem, at);
    stream_header(h, 0x00, 0, 0, 0); /* every byte the base: zigzag class 0, bit 0 */
    dcomp_task(at, 63);
    STOPPED(0x1000, "weight stream 1", "past the 32-bit address space");
}

int main(void)
{
    tasm_seed(0x5EF05A15u);
    test_pc();
    test_hook_and_stats();
    test_faults();
    test_cna();
    test_dpu_conv();
    test_dpu_flying();
    test_top_of_address_space();
    test_ppu();
    test_ppu_fp16_average();
    test_int_paths();
    test_fp16_paths();
    test_converter_type1();
    test_three_channels();
    test_lut_fp16();
    test_dcomp();
    return test_report("vnpu_refusals");
}
