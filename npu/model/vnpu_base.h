/*
 * vnpu_base.h - the base of the virtual NPU: state, register file, errors,
 * DMA, fp16 and bit helpers, shared by every file of the model. Three
 * levels, each calling only the ones below it:
 *   dispatcher  vnpu.c: MMIO face, PC front-end, task chaining, interrupts,
 *               faults; the only file that knows the units (vnpu_units.h)
 *   units       vnpu_cna.c (CNA + CORE), vnpu_dpu*.c (DPU + DPU_RDMA),
 *               vnpu_ppu.c (PPU + PPU_RDMA); they do not call each other
 *   base        vnpu_base.c, this header and vnpu_fp.h (fp16 conversion)
 *
 * Not part of the interface: only the model's own .c files include it.
 *
 * Execution model: a job (PC kick) runs synchronously inside the
 * vnpu_mmio_write() that sets PC OPERATION_ENABLE, one task after the other.
 * The model is not reentrant (one call at a time, all cores); the large
 * compute scratch buffers are therefore shared by the cores, and each core's
 * own state is small (a register file indexed like the register table).
 */
#ifndef VNPU_BASE_H
#define VNPU_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "npu_regcmd.h"
#include "npu_regs.h"
#include "npu_soc.h"
#include "vnpu.h"

/* Register-file slots; vnpu_init() refuses a table larger than this. */
#define VNPU_MAX_REGS  320u
#define VNPU_ERROR_LEN 256u

/* Interrupt bits (hardware.md §1.2). */
#define VNPU_INT_DMA_READ_ERROR  NPU_PC_INTERRUPT_RAW_STATUS_DMA_READ_ERROR_MASK
#define VNPU_INT_DMA_WRITE_ERROR NPU_PC_INTERRUPT_RAW_STATUS_DMA_WRITE_ERROR_MASK
#define VNPU_INT_ALL             0x1FFFFu

/* Compute units with a ping-pong executer (order of enum npu_block). */
enum vnpu_unit {
    VNPU_UNIT_CNA,
    VNPU_UNIT_CMAC,
    VNPU_UNIT_CORE,
    VNPU_UNIT_DPU,
    VNPU_UNIT_DPU_RDMA,
    VNPU_UNIT_PPU,
    VNPU_UNIT_PPU_RDMA,
    VNPU_UNIT_COUNT
};

/* Precision codes (hardware.md §4.5): CNA/CORE and DPU share 0 int8, 1 int16,
 * 2 fp16, 3 bf16, 6 int4; DPU adds 4 int32, 5 fp32. */
enum vnpu_precision {
    VNPU_PREC_INT8 = 0,
    VNPU_PREC_INT16 = 1,
    VNPU_PREC_FP16 = 2,
    VNPU_PREC_BF16 = 3,
    VNPU_PREC_INT32 = 4,
    VNPU_PREC_FP32 = 5,
    VNPU_PREC_INT4 = 6,
};

/* Everything that differs per SoC and matters to the data path. */
typedef struct {
    uint8_t atom;            /* feature atom bytes (C2 = atom / element bytes) */
    uint8_t pc_scale;        /* PC fetch unit in words */
    uint8_t rk356x;          /* RK356x field maps (CBUF_CON1, PAD value, algo bits, ...) */
    uint8_t kgroup_int8;     /* kernels per weight group, int8 */
    uint8_t kgroup_fp16;     /* kernels per weight group, fp16 */
    uint8_t kgroup_int4;     /* kernels per weight group, int4 (0: no int4 MAC) */
    uint8_t bs_group;        /* channels per group of the BS operand stream */
    uint8_t dw_slice_bytes;  /* depthwise weight slice width in bytes */
    uint8_t cvt_bit0_enable; /* CNA CVT_CON0[0]: 1 = converter enable, 0 = bypass */
    uint32_t task_number_mask;
    uint8_t task_number_bits;
} vnpu_soc_cfg;

/* The DPU's two lookup tables (LE, LO), 513 16-bit entries each (vnpu.md §7.5). */
#define VNPU_LUT_ENTRIES 513u

struct vnpu_core {
    unsigned index;
    int16_t lut[2][VNPU_LUT_ENTRIES];  /* DPU LUT: [0] LE, [1] LO, loaded by LUT_ACCESS_DATA */
    uint32_t regs[2][VNPU_MAX_REGS];   /* register file, by register-table index: two
                                          ping-pong groups for the units' registers
                                          (vnpu.md §2), group 0 for the others */
    uint8_t pointer[VNPU_UNIT_COUNT];  /* group the unit's register writes go to */
    uint32_t int_raw;                  /* INTERRUPT_RAW_STATUS */
    uint32_t int_mask;                 /* INTERRUPT_MASK */
    uint32_t task_counter;             /* TASK_STATUS counter */
    uint8_t executer[VNPU_UNIT_COUNT]; /* ping-pong group the unit executes next */
    uint8_t hung;                      /* VNPU_FAULT_NEVER_COMPLETE: busy until reset */
    vnpu_fault fault;                  /* armed fault and the jobs it still applies to */
    unsigned fault_jobs;
    char last_error[VNPU_ERROR_LEN];
    vnpu_stats stats;
};

/* One task being executed: what every compute function gets. */
typedef struct {
    vnpu_device *dev;
    vnpu_core *core;
    const vnpu_soc_cfg *cfg;
    unsigned task;            /* index within the job */
    uint32_t enable;          /* op-enable unit mask */
    int failed;               /* an error was recorded; stop */
    uint32_t last_write_addr; /* last output region (for VNPU_FAULT_CORRUPT_OUTPUT) */
    uint32_t last_write_len;
    uint8_t last_write_dpu; /* the region was written by the DPU */
} vnpu_task;

/* ---- vnpu_base.c ---------------------------------------------------------- */

/* Latch the SoC's configuration and the register table; -1 if the table
 * has more registers than VNPU_MAX_REGS. */
int vnpu_base_init(const npu_soc_profile *soc);
const vnpu_soc_cfg *vnpu_cfg(void);
/* The RK356x input converter's bit-0 reading (vnpu_set_cvt_bit0). */
void vnpu_cfg_set_cvt_bit0(int enable);

/* Register value by table offset (RK3588 layout), from the group the
 * register's unit executes; 0 if never written. */
uint32_t vnpu_reg(const vnpu_core *c, uint32_t table_offset);
/* Store a register in the group its unit's pointer selects; offsets the
 * table does not have are dropped. */
void vnpu_reg_set(vnpu_core *c, uint32_t table_offset, uint32_t value);
/* The register table's name of an offset, or "UNKNOWN". */
const char *vnpu_reg_name(uint32_t table_offset);
/* The one register accessor of the unit decoders: register `off` (a
 * register-table offset, NPU_<BLOCK>_<NAME>) of the task's core. */
static inline uint32_t R(const vnpu_task *t, uint32_t off)
{
    return vnpu_reg(t->core, off);
}

/* Record the first error of the job ("task N: ..."), raise `irq_bits` in
 * RAW and mark the task failed. Always returns -1. */
int vnpu_fail(vnpu_task *t, uint32_t irq_bits, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "task N: BLOCK_REG = 0x........: <what> not modelled", DMA error bits. */
int vnpu_unsupported(vnpu_task *t, uint32_t table_offset, const char *what);

/* "task N: BLOCK_REG = 0x........ and BLOCK_REG2 = 0x...: <what>". */
int vnpu_inconsistent(vnpu_task *t, uint32_t off_a, uint32_t off_b, const char *what);

/* Host pointer of [addr, addr + len) in the DMA window, or NULL after a DMA
 * read (12) / write (13) error naming `what`. Counts the bytes. */
const uint8_t *vnpu_dma_read(vnpu_task *t, uint32_t addr, uint64_t len, const char *what);
uint8_t *vnpu_dma_write(vnpu_task *t, uint32_t addr, uint64_t len, const char *what, int dpu);

/* Optional trace line (no-op without a sink). */
void vnpu_trace(const vnpu_device *dev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- CORE -> DPU ----------------------------------------------------------- */

/* Accumulators of `n` consecutive pixels starting at linear pixel `p0` of
 * the CORE cube, `k` channels each: acc[i * k + ch] (int32 or float), and the
 * OW operand's window sums (sumx[i], or sumx[i * k + ch] when per channel):
 * what CORE hands to the DPU. */
typedef struct {
    uint32_t p0, n, k;
    const int32_t *acc_i;
    float *acc_f; /* the DPU works on these in place */
    const int32_t *sumx;
    uint8_t sumx_per_channel;
} vnpu_acc_chunk;

/* ---- small helpers ------------------------------------------------------- */

static inline int32_t vnpu_sext(uint32_t v, unsigned nbits)
{
    uint32_t m = 1u << (nbits - 1);
    v &= (uint32_t)((((uint64_t)1) << nbits) - 1u);
    return (int32_t)((v ^ m) - m);
}

static inline uint16_t vnpu_ld16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t vnpu_ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline void vnpu_st16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void vnpu_st32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline float vnpu_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* 2^e as a float, for -127 < e < 128 (the exponent field, no libm). */
static inline float vnpu_pow2f(int e)
{
    return vnpu_f32_from_bits((uint32_t)(e + 127) << 23);
}

static inline uint32_t vnpu_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Bytes of one element of a DPU precision code, 0 for unsupported codes. */
static inline unsigned vnpu_prec_bytes(unsigned prec)
{
    switch (prec) {
    case VNPU_PREC_INT8: return 1;
    case VNPU_PREC_INT16:
    case VNPU_PREC_FP16:
    case VNPU_PREC_BF16: return 2;
    case VNPU_PREC_INT32:
    case VNPU_PREC_FP32: return 4;
    default: return 0;
    }
}

/* Kernels per MAC weight group for CORE input of precision `prec` (fp32
 * reaches the DPU only from MRDMA; it counts with fp16). */
static inline uint32_t vnpu_kgroup(const vnpu_soc_cfg *cfg, unsigned prec)
{
    if (prec == VNPU_PREC_FP16 || prec == VNPU_PREC_FP32)
        return cfg->kgroup_fp16;
    return prec == VNPU_PREC_INT4 ? cfg->kgroup_int4 : cfg->kgroup_int8;
}

/* x >> sh rounded toward minus infinity (arithmetic shift), sh 0..63. */
static inline int64_t vnpu_shift_floor(int64_t x, unsigned sh)
{
    if (sh == 0)
        return x;
    if (x >= 0)
        return (int64_t)((uint64_t)x >> sh);
    return -(int64_t)((((uint64_t)(-(x + 1))) >> sh)) - 1;
}

/* x >> sh (sh 0..63) rounded to nearest, ties to even (half_away = 0) or
 * away from zero (half_away = 1). */
static inline int64_t vnpu_shift_round(int64_t x, unsigned sh, int half_away)
{
    if (sh == 0)
        return x;
    int64_t q = vnpu_shift_floor(x, sh);
    uint64_t r = (uint64_t)x & ((((uint64_t)1) << sh) - 1u);
    uint64_t half = ((uint64_t)1) << (sh - 1);
    if (r > half)
        return q + 1;
    if (r < half)
        return q;
    if (half_away)
        return x >= 0 ? q + 1 : q; /* tie: away from zero (q is floor) */
    return q + (q & 1);
}

static inline int64_t vnpu_clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/* ---- fp16 ------------------------------------------------------------------ */

#include "vnpu_fp.h"

#endif /* VNPU_BASE_H */
