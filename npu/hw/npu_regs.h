/*
 * npu_regs.h - names, offsets and bit fields of the RKNPU registers, all
 * generated from npu/hw/regs.def (the single source of truth), plus lookups by
 * offset and by name for the virtual NPU and trace printers.
 *
 * Generated names (BLOCK and NAME as written in regs.def):
 *   NPU_<BLOCK>_<NAME>                 register offset in a core's 64 KiB window
 *   NPU_<BLOCK>_<REG>_<FIELD>(x)       x placed in the field (packer)
 *   NPU_<BLOCK>_<REG>_<FIELD>_GET(v)   the field of register value v (unpacker)
 *   NPU_<BLOCK>_<REG>_<FIELD>_SHIFT    least significant bit of a field
 *   NPU_<BLOCK>_<REG>_<FIELD>_WIDTH    field width in bits
 *   NPU_<BLOCK>_<REG>_<FIELD>_MASK     field mask, already shifted (uint32_t)
 *
 * This header depends on nothing but <stddef.h>/<stdint.h> so that the
 * virtual NPU (npu/model) can use it without the driver.
 */
#ifndef NPU_REGS_H
#define NPU_REGS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Register offsets ----------------------------------------------------- */

enum npu_reg_offset {
#define NPU_REG(block, name, offset) NPU_##block##_##name = (offset),
#include "regs.def"
};

/* ---- Field positions ------------------------------------------------------ */

enum npu_field_position {
#define NPU_FIELD(block, reg, field, lsb, width)                                                   \
    NPU_##block##_##reg##_##field##_SHIFT = (lsb), NPU_##block##_##reg##_##field##_WIDTH = (width),
#include "regs.def"
};

/*
 * Masks are uint32_t constants rather than enumerators because C11 limits
 * enumerators to int and many fields include bit 31.
 */
#define NPU_FIELD(block, reg, field, lsb, width)                                                   \
    static const uint32_t NPU_##block##_##reg##_##field##_MASK =                                   \
        (uint32_t)((((uint64_t)1 << (width)) - 1u) << (lsb));
#include "regs.def"

/*
 * Packers and unpackers, one pair per field: the only place a field's
 * position is spelled out. A packer keeps the low WIDTH bits of x, as the
 * register would: values that come from outside (a model, a caller) are
 * range-checked before they are packed.
 */
#define NPU_FIELD(block, reg, field, lsb, width)                                                   \
    static inline uint32_t NPU_##block##_##reg##_##field(uint32_t x)                               \
    {                                                                                              \
        return (uint32_t)(((uint64_t)x << (lsb)) & NPU_##block##_##reg##_##field##_MASK);          \
    }                                                                                              \
    static inline uint32_t NPU_##block##_##reg##_##field##_GET(uint32_t v)                         \
    {                                                                                              \
        return (v & NPU_##block##_##reg##_##field##_MASK) >> (lsb);                                \
    }
#include "regs.def"

/* ---- Field helpers -------------------------------------------------------- */

/* Mask of `width` bits starting at `shift` (width 1..32, shift + width <= 32). */
static inline uint32_t npu_field_mask(unsigned shift, unsigned width)
{
    return (uint32_t)((((uint64_t)1 << width) - 1u) << shift);
}

/* The field's value, right-aligned. */
static inline uint32_t npu_field_get(uint32_t value, unsigned shift, unsigned width)
{
    return (value & npu_field_mask(shift, width)) >> shift;
}

/* `value` with the field replaced by `field` (excess high bits of `field`
 * are dropped; callers that care check the range first). */
static inline uint32_t npu_field_set(uint32_t value, unsigned shift, unsigned width, uint32_t field)
{
    uint32_t mask = npu_field_mask(shift, width);
    return (value & ~mask) | (uint32_t)(((uint64_t)field << shift) & mask);
}

/* Convenience: NPU_FIELD_GET(v, NPU_PC_TASK_CON_TASK_NUMBER). */
#define NPU_FIELD_GET(value, f)    npu_field_get((value), f##_SHIFT, f##_WIDTH)
#define NPU_FIELD_SET(value, f, x) npu_field_set((value), f##_SHIFT, f##_WIDTH, (x))
#define NPU_FIELD_PREP(f, x)       npu_field_set(0u, f##_SHIFT, f##_WIDTH, (x))

/* ---- Blocks (hardware.md §1.1: offset bits [15:12] select the block) ------------ */

enum npu_block {
    NPU_BLOCK_PC,       /* 0x0xxx */
    NPU_BLOCK_CNA,      /* 0x1xxx */
    NPU_BLOCK_CMAC,     /* 0x2xxx, RK356x only */
    NPU_BLOCK_CORE,     /* 0x3xxx */
    NPU_BLOCK_DPU,      /* 0x4xxx */
    NPU_BLOCK_DPU_RDMA, /* 0x5xxx */
    NPU_BLOCK_PPU,      /* 0x6xxx */
    NPU_BLOCK_PPU_RDMA, /* 0x7xxx */
    NPU_BLOCK_DDMA,     /* 0x8xxx */
    NPU_BLOCK_SDMA,     /* 0x9xxx */
    NPU_BLOCK_GLOBAL,   /* 0xFxxx */
    NPU_BLOCK_COUNT
};

/* Size of one core's register window. */
#define NPU_CORE_WINDOW_BYTES 0x10000u

/* ---- regcmd target ids (bits 63:48 of a regcmd word, hardware.md §1.5) ---------- */

enum npu_regcmd_target {
    NPU_TARGET_NOP = 0x0000,           /* padding word */
    NPU_TARGET_PRE_ENABLE = 0x0041,    /* must precede the op-enable word */
    NPU_TARGET_OP_ENABLE_ALL = 0x0081, /* broadcast op-enable, reg 0x0008 */
    NPU_TARGET_PC = 0x0101,
    NPU_TARGET_CNA = 0x0201,
    NPU_TARGET_CMAC = 0x0401, /* RK356x; RV1106 sends DDMA offsets with it */
    NPU_TARGET_CORE = 0x0801,
    NPU_TARGET_DPU = 0x1001,
    NPU_TARGET_DPU_RDMA = 0x2001,
    NPU_TARGET_PPU = 0x4001,
    NPU_TARGET_PPU_RDMA = 0x8001,
};

/* ---- Table lookups -------------------------------------------------------- */

typedef struct {
    uint16_t offset;  /* absolute offset in the core window */
    uint8_t block;    /* enum npu_block */
    const char *name; /* "<BLOCK>_<NAME>", e.g. "PC_TASK_CON" */
} npu_reg_info;

typedef struct {
    uint16_t reg_offset; /* register the field belongs to */
    uint8_t lsb;
    uint8_t width;
    const char *name; /* field name only, e.g. "TASK_NUMBER" */
} npu_field_info;

/* The register at `offset`, or NULL if the table has none there. */
const npu_reg_info *npu_reg_lookup(uint32_t offset);

/* The register called `name` ("PC_TASK_CON"; exact, case-sensitive), or NULL. */
const npu_reg_info *npu_reg_lookup_name(const char *name);

/* Iterate the table (ascending offset order). npu_reg_at() returns NULL
 * for index >= npu_reg_count(). */
size_t npu_reg_count(void);
const npu_reg_info *npu_reg_at(size_t index);

/* Fields of the register at `offset`, ascending by LSB; *count receives the
 * number (0 and NULL for unknown registers or registers without fields).
 * `count` may be NULL. */
const npu_field_info *npu_reg_fields(uint32_t offset, size_t *count);

/* Total number of fields in the table. */
size_t npu_field_count(void);

/* "PC", "CNA", ..., or "UNKNOWN" for a value outside the enum (npu_reg_names.c,
 * with the register names: not in firmware images). */
const char *npu_block_name(enum npu_block block);

/* Block selected by offset bits [15:12], or -1 for offsets outside the
 * window or pages no block occupies (0xA000-0xEFFF). */
int npu_block_of_offset(uint32_t offset);

/* regcmd target id of a block; 0 for blocks without one (DDMA, SDMA, GLOBAL). */
uint16_t npu_block_target(enum npu_block block);

/* Block written by a regcmd target id, or -1 if the id is not a block
 * target (the special words 0x0000, 0x0041, 0x0081 included). */
int npu_block_from_target(uint16_t target);

#ifdef __cplusplus
}
#endif

#endif /* NPU_REGS_H */
