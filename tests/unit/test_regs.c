/*
 * test_regs.c - the register table, regcmd encoding and SoC profiles
 * against values typed here from docs/hardware.md (and the vendor sample
 * streams as dumped by shared/tools/rknn_inspect.py), never against the
 * table itself. Prints each failure; returns 0 if all pass, else 1.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "npu_regcmd.h"
#include "npu_regs.h"
#include "npu_soc.h"
#include "test_util.h"

/* Report a failure with a formatted message (counts like CHECK). */
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    test_checks++;
    test_failures++;
}

/* ---- Spot offsets from hardware.md §1.2-§1.11 ----------------------------------- */

struct spot {
    const char *name;
    uint32_t enum_value; /* the generated constant */
    uint32_t expected;   /* typed from hardware.md */
};

#define SPOT(name, off)                                                                            \
    {                                                                                              \
#name, NPU_##name, (off)                                                                   \
    }

static const struct spot spots[] = {
    SPOT(PC_VERSION, 0x0000),
    SPOT(PC_OPERATION_ENABLE, 0x0008),
    SPOT(PC_DATA_ADDR, 0x0010),
    SPOT(PC_DATA_AMOUNT, 0x0014),
    SPOT(PC_INTERRUPT_MASK, 0x0020),
    SPOT(PC_INTERRUPT_CLEAR, 0x0024),
    SPOT(PC_INTERRUPT_STATUS, 0x0028),
    SPOT(PC_INTERRUPT_RAW_STATUS, 0x002C),
    SPOT(PC_TASK_CON, 0x0030),
    SPOT(PC_TASK_DMA_BASE_ADDR, 0x0034),
    SPOT(PC_TASK_STATUS, 0x003C),
    SPOT(CNA_S_POINTER, 0x1004),
    SPOT(CNA_CONV_CON1, 0x100C),
    SPOT(CNA_DATA_SIZE0, 0x1020),
    SPOT(CNA_CBUF_CON0, 0x1040),
    SPOT(CNA_CVT_CON0, 0x104C),
    SPOT(CNA_CVT_CON4, 0x105C),
    SPOT(CNA_PAD_CON0, 0x1068),
    SPOT(CNA_FEATURE_DATA_ADDR, 0x1070),
    SPOT(CNA_DMA_CON0, 0x1078),
    SPOT(CNA_FC_DATA_SIZE1, 0x1088),
    SPOT(CNA_DCOMP_ADDR0, 0x1110),
    SPOT(CNA_DCOMP_AMOUNT0, 0x1140),
    SPOT(CNA_DCOMP_AMOUNT15, 0x117C),
    SPOT(CNA_CVT_CON5, 0x1180),
    SPOT(CNA_PAD_CON1, 0x1184),
    SPOT(CMAC_S_POINTER, 0x2004),
    SPOT(CMAC_MISC_CFG, 0x200C),
    SPOT(CORE_S_POINTER, 0x3004),
    SPOT(CORE_MAC_GATING, 0x300C),
    SPOT(CORE_MISC_CFG, 0x3010),
    SPOT(CORE_DATAOUT_SIZE_0, 0x3014),
    SPOT(CORE_DATAOUT_SIZE_1, 0x3018),
    SPOT(CORE_CLIP_TRUNCATE, 0x301C),
    SPOT(CORE_UNDOC_3030, 0x3030),
    SPOT(DPU_S_POINTER, 0x4004),
    SPOT(DPU_FEATURE_MODE_CFG, 0x400C),
    SPOT(DPU_DATA_FORMAT, 0x4010),
    SPOT(DPU_DST_BASE_ADDR, 0x4020),
    SPOT(DPU_DST_SURF_STRIDE, 0x4024),
    SPOT(DPU_DATA_CUBE_CHANNEL, 0x403C),
    SPOT(DPU_BS_CFG, 0x4040),
    SPOT(DPU_BS_OW_CFG, 0x4050),
    SPOT(DPU_WDMA_SIZE_1, 0x405C),
    SPOT(DPU_EW_CFG, 0x4070),
    SPOT(DPU_OUT_CVT_SHIFT, 0x4088),
    SPOT(DPU_EW_OP_VALUE_0, 0x4090),
    SPOT(DPU_EW_OP_VALUE_7, 0x40AC),
    SPOT(DPU_SURFACE_ADD, 0x40C0),
    SPOT(DPU_UNDOC_40C4, 0x40C4),
    SPOT(DPU_LUT_ACCESS_CFG, 0x4100),
    SPOT(DPU_LUT_LO_SLOPE_SHIFT, 0x412C),
    SPOT(DPU_RDMA_S_POINTER, 0x5004),
    SPOT(DPU_RDMA_SRC_BASE_ADDR, 0x5018),
    SPOT(DPU_RDMA_BS_BASE_ADDR, 0x5020),
    SPOT(DPU_RDMA_UNDOC_5024, 0x5024),
    SPOT(DPU_RDMA_EW_BASE_ADDR, 0x5038),
    SPOT(DPU_RDMA_FEATURE_MODE_CFG, 0x5044),
    SPOT(DPU_RDMA_WEIGHT, 0x5068),
    SPOT(DPU_RDMA_EW_SURF_NOTCH, 0x506C),
    SPOT(PPU_DATA_CUBE_IN_WIDTH, 0x600C),
    SPOT(PPU_DATA_CUBE_OUT_CHANNEL, 0x6020),
    SPOT(PPU_OPERATION_MODE_CFG, 0x6024),
    SPOT(PPU_POOLING_PADDING_CFG, 0x6040),
    SPOT(PPU_DST_BASE_ADDR, 0x6070),
    SPOT(PPU_DST_SURF_STRIDE, 0x607C),
    SPOT(PPU_MISC_CTRL, 0x60DC),
    SPOT(PPU_RDMA_SRC_BASE_ADDR, 0x701C),
    SPOT(PPU_RDMA_DATA_FORMAT, 0x7030),
    SPOT(PPU_RDMA_UNDOC_7038, 0x7038),
    SPOT(DDMA_CFG_OUTSTANDING, 0x8000),
    SPOT(DDMA_CFG_DMA_WR_CFG, 0x8028),
    SPOT(DDMA_CFG_DMA_WSTRB, 0x802C),
    SPOT(DDMA_CFG_STATUS, 0x8030),
    SPOT(SDMA_CFG_DMA_RD_QOS, 0x9020),
    SPOT(GLOBAL_OPERATION_ENABLE, 0xF008),
};

static void test_spot_offsets(void)
{
    for (size_t i = 0; i < sizeof(spots) / sizeof(spots[0]); i++) {
        const struct spot *s = &spots[i];
        const npu_reg_info *by_name = npu_reg_lookup_name(s->name);
        const npu_reg_info *by_off = npu_reg_lookup(s->expected);

        if (s->enum_value != s->expected)
            fail("FAIL spot %s: enum 0x%04x, hardware.md 0x%04x\n", s->name,
                 (unsigned)s->enum_value, (unsigned)s->expected);
        if (by_name == NULL || by_name->offset != s->expected)
            fail("FAIL spot %s: lookup_name\n", s->name);
        if (by_off == NULL || strcmp(by_off->name, s->name) != 0)
            fail("FAIL spot %s: lookup(0x%04x)\n", s->name, (unsigned)s->expected);
    }
}

/* ---- Whole-table invariants ----------------------------------------------- */

/* Page (offset bits [15:12]) of each block, typed from hardware.md §1.1. */
static int expected_page(int block)
{
    switch (block) {
    case NPU_BLOCK_PC: return 0x0;
    case NPU_BLOCK_CNA: return 0x1;
    case NPU_BLOCK_CMAC: return 0x2;
    case NPU_BLOCK_CORE: return 0x3;
    case NPU_BLOCK_DPU: return 0x4;
    case NPU_BLOCK_DPU_RDMA: return 0x5;
    case NPU_BLOCK_PPU: return 0x6;
    case NPU_BLOCK_PPU_RDMA: return 0x7;
    case NPU_BLOCK_DDMA: return 0x8;
    case NPU_BLOCK_SDMA: return 0x9;
    case NPU_BLOCK_GLOBAL: return 0xF;
    default: return -1;
    }
}

static void test_table_invariants(void)
{
    size_t n = npu_reg_count();
    size_t fields_seen = 0;

    CHECK(n > 200);
    CHECK(npu_reg_at(n) == NULL);
    for (size_t i = 0; i < n; i++) {
        const npu_reg_info *r = npu_reg_at(i);
        const char *block = npu_block_name((enum npu_block)r->block);
        size_t count = 0;
        const npu_field_info *f = npu_reg_fields(r->offset, &count);
        uint32_t used = 0;

        /* strictly ascending => no two registers share an offset */
        if (i > 0 && npu_reg_at(i - 1)->offset >= r->offset)
            fail("FAIL table order at %s\n", r->name);
        if (r->offset % 4 != 0)
            fail("FAIL %s misaligned\n", r->name);
        if ((int)(r->offset >> 12) != expected_page(r->block) ||
            npu_block_of_offset(r->offset) != r->block)
            fail("FAIL %s: offset 0x%04x not in its block\n", r->name, r->offset);
        /* the name starts with its block's name */
        if (strncmp(r->name, block, strlen(block)) != 0 || r->name[strlen(block)] != '_')
            fail("FAIL %s: name does not start with %s_\n", r->name, block);
        /* round trips */
        if (npu_reg_lookup(r->offset) != r)
            fail("FAIL lookup(0x%04x) != %s\n", r->offset, r->name);
        if (npu_reg_lookup_name(r->name) != r)
            fail("FAIL lookup_name(%s)\n", r->name);
        /* fields fit and do not overlap */
        CHECK((count == 0) == (f == NULL));
        for (size_t k = 0; k < count; k++) {
            uint64_t mask64 = ((((uint64_t)1) << f[k].width) - 1u) << f[k].lsb;
            if (f[k].reg_offset != r->offset)
                fail("FAIL field %s of %s: wrong register\n", f[k].name, r->name);
            if (f[k].width == 0 || f[k].lsb + f[k].width > 32)
                fail("FAIL field %s_%s does not fit\n", r->name, f[k].name);
            if ((uint32_t)mask64 & used)
                fail("FAIL field %s_%s overlaps\n", r->name, f[k].name);
            used |= (uint32_t)mask64;
            for (size_t j = 0; j < k; j++) {
                if (strcmp(f[j].name, f[k].name) == 0)
                    fail("FAIL field %s_%s twice\n", r->name, f[k].name);
            }
        }
        fields_seen += count;
    }
    /* every field belongs to some register of the table */
    CHECK_EQ_U(fields_seen, npu_field_count());
}

static void test_unknown_offsets(void)
{
    size_t count = 99;
    static const uint32_t unknown[] = {0x0018, 0x0040, 0x1008 + 2, 0x302C, 0x3020,  0x40F0,
                                       0x5070, 0x7034, 0xA000,     0xF000, 0x10000, 0xFFFFFFFFu};

    for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        if (npu_reg_lookup(unknown[i]) != NULL)
            fail("FAIL 0x%x should be unknown\n", (unsigned)unknown[i]);
    }
    CHECK(npu_reg_fields(0x0018, &count) == NULL);
    CHECK_EQ_U(count, 0);
    CHECK(npu_reg_fields(NPU_CNA_FEATURE_DATA_ADDR, NULL) == NULL); /* no fields */
    CHECK(npu_reg_lookup_name(NULL) == NULL);
    CHECK(npu_reg_lookup_name("TASK_CON") == NULL);    /* block prefix required */
    CHECK(npu_reg_lookup_name("pc_task_con") == NULL); /* exact case */
    CHECK(npu_reg_lookup_name("PC_TASK_CONX") == NULL);
}

/* ---- Fields (hardware.md §1.2-§1.10) -------------------------------------------- */

/* The field called `name` of the register at `offset`, from the field table. */
static const npu_field_info *find_field(uint32_t offset, const char *name)
{
    size_t count = 0;
    const npu_field_info *f = npu_reg_fields(offset, &count);
    for (size_t i = 0; i < count; i++) {
        if (strcmp(f[i].name, name) == 0)
            return &f[i];
    }
    return NULL;
}

static void check_field(uint32_t offset, const char *name, unsigned lsb, unsigned width)
{
    const npu_field_info *f = find_field(offset, name);
    if (f == NULL || f->lsb != lsb || f->width != width)
        fail("FAIL field 0x%04x %s: expected [%u +%u]\n", (unsigned)offset, name, lsb, width);
}

static void test_fields(void)
{
    /* field table entries (what trace printers see) */
    check_field(0x0030, "TASK_NUMBER", 0, 12);
    check_field(0x0030, "TASK_PP_EN", 12, 1);
    check_field(0x0030, "TASK_COUNT_CLEAR", 13, 1);
    check_field(0x0010, "PC_SOURCE_ADDR", 4, 28);
    check_field(0x0014, "DATA_AMOUNT", 0, 16);
    check_field(0x0028, "DPU_GROUP1", 9, 1);
    check_field(0x002C, "DMA_WRITE_ERROR", 13, 1);
    check_field(0x1004, "EXECUTER", 16, 1);
    check_field(0x1010, "FEATURE_GRAINS", 4, 10);
    check_field(0x1010, "KERNEL_GROUP", 16, 8);
    check_field(0x1014, "NN_MODE", 28, 3);
    check_field(0x1020, "DATAIN_WIDTH", 16, 11);
    check_field(0x1024, "DATAIN_CHANNEL_REAL", 16, 14);
    check_field(0x102C, "DATAOUT_ATOMICS", 0, 22);
    check_field(0x1038, "WEIGHT_WIDTH", 24, 5);
    check_field(0x1040, "WEIGHT_REUSE", 13, 1);
    check_field(0x104C, "CVT_TRUNCATE_3", 22, 6);
    check_field(0x1080, "SURF_STRIDE", 0, 28);
    check_field(0x3010, "PROC_PRECISION", 8, 3);
    check_field(0x3014, "DATAOUT_HEIGHT", 16, 16);
    check_field(0x301C, "CLIP_TRUNCATE", 0, 5);
    check_field(0x400C, "SURF_LEN", 9, 16);
    check_field(0x4010, "EW_TRUNCATE_NEG", 16, 10);
    check_field(0x4040, "BS_ALU_ALGO", 16, 4);
    check_field(0x4048, "BS_MUL_SHIFT_VALUE", 8, 6);
    check_field(0x4050, "SIZE_E_2", 8, 3);
    check_field(0x4058, "SIZE_C_WDMA", 16, 11);
    check_field(0x4070, "EDATA_SIZE", 22, 2);
    check_field(0x4078, "EW_TRUNCATE", 22, 10);
    check_field(0x4088, "MINUS_EXP", 12, 8);
    check_field(0x410C, "LO_INDEX_SELECT", 16, 8);
    check_field(0x412C, "LUT_LO_SLOPE_OFLOW_SHIFT", 5, 5);
    check_field(0x5034, "DATA_MODE", 30, 2);
    check_field(0x5044, "IN_PRECISION", 15, 3);
    check_field(0x5048, "LINE_NOTCH_ADDR", 19, 13);
    check_field(0x6024, "NOTCH_ADDR", 16, 13);
    check_field(0x6034, "KERNEL_STRIDE_HEIGHT", 20, 4);
    check_field(0x6038, "RECIP_KERNEL_WIDTH", 0, 17);
    check_field(0x6040, "PAD_BOTTOM", 12, 4);
    check_field(0x60DC, "SURF_LEN", 16, 16);
    check_field(0x7030, "IN_PRECISION", 0, 2);
    check_field(0x8030, "IDLE", 8, 1);
    check_field(0xF008, "PPU_RDMA_EN", 6, 1);

    /* generated constants */
    CHECK_EQ_U(NPU_PC_TASK_CON_TASK_NUMBER_SHIFT, 0);
    CHECK_EQ_U(NPU_PC_TASK_CON_TASK_NUMBER_WIDTH, 12);
    CHECK_EQ_U(NPU_PC_TASK_CON_TASK_NUMBER_MASK, 0xFFFu);
    CHECK_EQ_U(NPU_DPU_DATA_FORMAT_OUT_PRECISION_MASK, 0xE0000000u);
    CHECK_EQ_U(NPU_DPU_EW_CFG_EW_CVT_TYPE_MASK, 0x80000000u);
    CHECK_EQ_U(NPU_CNA_WEIGHT_SIZE0_WEIGHT_BYTES_MASK, 0xFFFFFFFFu);
    CHECK_EQ_U(NPU_CNA_CONV_CON2_FEATURE_GRAINS_MASK, 0x3FF0u);
    CHECK_EQ_U(NPU_PC_INTERRUPT_MASK_UNDOC_16_MASK, 0x10000u);
    /* the universal S_POINTER value 0xE = PP_EN | EXECUTER_PP_EN | PP_MODE (hardware.md §1.3) */
    CHECK_EQ_U(NPU_DPU_S_POINTER_POINTER_PP_EN_MASK | NPU_DPU_S_POINTER_EXECUTER_PP_EN_MASK |
                   NPU_DPU_S_POINTER_POINTER_PP_MODE_MASK,
               0xEu);
    /* BSP multi-core S_POINTER: 0xE + 0x10000000 * core (hardware.md §3.2) */
    CHECK_EQ_U(NPU_FIELD_PREP(NPU_CORE_S_POINTER_CORE_INDEX, 2) | 0xEu, 0x2000000Eu);

    /* decode real values from hardware.md §4.6 recipe A */
    CHECK_EQ_U(NPU_FIELD_GET(0xA8000002u, NPU_DPU_DATA_FORMAT_OUT_PRECISION), 5); /* fp32 */
    CHECK_EQ_U(NPU_FIELD_GET(0xA8000002u, NPU_DPU_DATA_FORMAT_IN_PRECISION), 2);  /* fp16 */
    CHECK_EQ_U(NPU_FIELD_GET(0xA8000002u, NPU_DPU_DATA_FORMAT_PROC_PRECISION), 2);
    CHECK_EQ_U(NPU_FIELD_GET(0x1E4u, NPU_DPU_FEATURE_MODE_CFG_OUTPUT_MODE), 2); /* to memory */
    CHECK_EQ_U(NPU_FIELD_GET(0x1E4u, NPU_DPU_FEATURE_MODE_CFG_BURST_LEN), 15);
    CHECK_EQ_U(NPU_FIELD_GET(0x7810u, NPU_DPU_RDMA_FEATURE_MODE_CFG_MRDMA_DISABLE), 1);
    CHECK_EQ_U(NPU_FIELD_GET(0x7810u, NPU_DPU_RDMA_FEATURE_MODE_CFG_BURST_LEN), 15);
    CHECK_EQ_U(NPU_FIELD_GET(0x120u, NPU_CNA_CONV_CON1_PROC_PRECISION), 2); /* fp16 */
    CHECK_EQ_U(NPU_FIELD_GET(0x120u, NPU_CNA_CONV_CON1_IN_PRECISION), 2);
    CHECK_EQ_U(NPU_FIELD_GET(0x000F000Fu, NPU_CNA_DMA_CON0_WEIGHT_BURST_LEN), 15);
    CHECK_EQ_U(NPU_FIELD_GET(0x7001u, NPU_PC_TASK_CON_TASK_NUMBER), 1);
    CHECK_EQ_U(NPU_FIELD_GET(0x7001u, NPU_PC_TASK_CON_TASK_PP_EN), 1);
    CHECK_EQ_U(NPU_FIELD_GET(0x7001u, NPU_PC_TASK_CON_TASK_COUNT_CLEAR), 1);

    /* helpers */
    CHECK_EQ_U(npu_field_mask(0, 32), 0xFFFFFFFFu);
    CHECK_EQ_U(npu_field_mask(31, 1), 0x80000000u);
    CHECK_EQ_U(npu_field_get(0xFFFFFFFFu, 0, 32), 0xFFFFFFFFu);
    CHECK_EQ_U(npu_field_set(0xFFFFFFFFu, 4, 10, 0), 0xFFFFC00Fu);
    CHECK_EQ_U(npu_field_set(0, 4, 10, 0x7FF), 0x3FF0u); /* excess bits dropped */
    CHECK_EQ_U(npu_field_set(0x12345678u, 28, 4, 0xA), 0xA2345678u);
    for (unsigned v = 0; v < 0x400; v += 37)
        CHECK_EQ_U(npu_field_get(npu_field_set(0x5A5A5A5Au, 4, 10, v), 4, 10), v);
}

/* ---- Blocks and targets (hardware.md §1.1, §1.5) -------------------------------- */

static void test_blocks(void)
{
    static const struct {
        uint32_t offset;
        int block;
    } pages[] = {
        {0x0000, NPU_BLOCK_PC},
        {0x0FFC, NPU_BLOCK_PC},
        {0x1070, NPU_BLOCK_CNA},
        {0x2004, NPU_BLOCK_CMAC},
        {0x3030, NPU_BLOCK_CORE},
        {0x4FFF, NPU_BLOCK_DPU},
        {0x5020, NPU_BLOCK_DPU_RDMA},
        {0x6070, NPU_BLOCK_PPU},
        {0x7038, NPU_BLOCK_PPU_RDMA},
        {0x8028, NPU_BLOCK_DDMA},
        {0x9000, NPU_BLOCK_SDMA},
        {0xF008, NPU_BLOCK_GLOBAL},
        {0xA000, -1},
        {0xE004, -1},
        {0x10000, -1},
        {0x11070, -1},
        {0xFFFFFFFFu, -1},
    };
    static const struct {
        int block;
        const char *name;
        uint16_t target;
    } blocks[] = {
        {NPU_BLOCK_PC, "PC", 0x0101},     {NPU_BLOCK_CNA, "CNA", 0x0201},
        {NPU_BLOCK_CMAC, "CMAC", 0x0401}, {NPU_BLOCK_CORE, "CORE", 0x0801},
        {NPU_BLOCK_DPU, "DPU", 0x1001},   {NPU_BLOCK_DPU_RDMA, "DPU_RDMA", 0x2001},
        {NPU_BLOCK_PPU, "PPU", 0x4001},   {NPU_BLOCK_PPU_RDMA, "PPU_RDMA", 0x8001},
        {NPU_BLOCK_DDMA, "DDMA", 0},      {NPU_BLOCK_SDMA, "SDMA", 0},
        {NPU_BLOCK_GLOBAL, "GLOBAL", 0},
    };

    for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
        if (npu_block_of_offset(pages[i].offset) != pages[i].block)
            fail("FAIL block_of_offset(0x%x)\n", (unsigned)pages[i].offset);
    }
    CHECK_EQ_U(NPU_BLOCK_COUNT, sizeof(blocks) / sizeof(blocks[0]));
    for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
        enum npu_block b = (enum npu_block)blocks[i].block;
        CHECK(strcmp(npu_block_name(b), blocks[i].name) == 0);
        CHECK_EQ_U(npu_block_target(b), blocks[i].target);
        if (blocks[i].target != 0)
            CHECK_EQ_U(npu_block_from_target(blocks[i].target), blocks[i].block);
    }
    CHECK(strcmp(npu_block_name(NPU_BLOCK_COUNT), "UNKNOWN") == 0);
    CHECK_EQ_U(npu_block_target(NPU_BLOCK_COUNT), 0);
    CHECK_EQ_U(npu_block_from_target(0x0000), -1);
    CHECK_EQ_U(npu_block_from_target(0x0041), -1);
    CHECK_EQ_U(npu_block_from_target(0x0081), -1);
    CHECK_EQ_U(npu_block_from_target(0x1003), -1); /* ph's transcription slip (hardware.md §1.5) */
    CHECK_EQ_U(npu_block_from_target(0x0001), -1);
    CHECK_EQ_U(NPU_TARGET_OP_ENABLE_ALL, 0x0081);
    CHECK_EQ_U(NPU_TARGET_PRE_ENABLE, 0x0041);
    CHECK_EQ_U(NPU_TARGET_NOP, 0x0000);
}

/* ---- regcmd words (hardware.md §1.5) -------------------------------------------- */

/* The one S_POINTER arming value is the same three fields in every block. */
static void test_s_pointer_arm(void)
{
#define ARM_FIELDS(b)                                                                              \
    (NPU_##b##_S_POINTER_POINTER_PP_EN_MASK | NPU_##b##_S_POINTER_EXECUTER_PP_EN_MASK |            \
     NPU_##b##_S_POINTER_POINTER_PP_MODE_MASK)
    CHECK_EQ_U(NPU_S_POINTER_PP_ARM, ARM_FIELDS(CNA));
    CHECK_EQ_U(NPU_S_POINTER_PP_ARM, ARM_FIELDS(CMAC));
    CHECK_EQ_U(NPU_S_POINTER_PP_ARM, ARM_FIELDS(CORE));
    CHECK_EQ_U(NPU_S_POINTER_PP_ARM, ARM_FIELDS(DPU));
    CHECK_EQ_U(NPU_S_POINTER_PP_ARM, ARM_FIELDS(DPU_RDMA));
    CHECK_EQ_U(NPU_S_POINTER_PP_ARM, ARM_FIELDS(PPU));
    CHECK_EQ_U(NPU_S_POINTER_PP_ARM, ARM_FIELDS(PPU_RDMA));
#undef ARM_FIELDS
}

static void test_regcmd(void)
{
    static const uint16_t targets[] = {0x0000, 0x0041, 0x0081, 0x0101, 0x0801, 0x8001, 0xFFFF};
    static const uint16_t regs[] = {0x0000, 0x0008, 0x1070, 0x7038, 0xFFFF};
    static const uint32_t values[] = {0, 1, 0x7F, 0x0FFFFFFD, 0x80000000u, 0xFFFFFFFFu};

    for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++)
        for (size_t r = 0; r < sizeof(regs) / sizeof(regs[0]); r++)
            for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
                uint64_t w = npu_regcmd_make(targets[t], regs[r], values[v]);
                CHECK_EQ_U(w, ((uint64_t)targets[t] << 48) | ((uint64_t)values[v] << 16) | regs[r]);
                CHECK_EQ_U(npu_regcmd_target(w), targets[t]);
                CHECK_EQ_U(npu_regcmd_reg(w), regs[r]);
                CHECK_EQ_U(npu_regcmd_value(w), values[v]);
            }

    /* the TRM's broadcast op-enable word */
    CHECK_EQ_U(npu_regcmd_target(0x00810000007F0008ull), 0x0081);
    CHECK_EQ_U(npu_regcmd_reg(0x00810000007F0008ull), 0x0008);
    CHECK_EQ_U(npu_regcmd_value(0x00810000007F0008ull), 0x7F);
    CHECK_EQ_U(npu_regcmd_op_enable(0x7F), 0x00810000007F0008ull);
    CHECK(npu_regcmd_is_op_enable(0x00810000007F0008ull));
    /* words from the RK3566 vendor stream (rknn_inspect --regcmd) */
    CHECK_EQ_U(npu_regcmd_make(0x0201, 0x1004, 0xE), 0x02010000000E1004ull);
    CHECK_EQ_U(npu_regcmd_value(0x0201008000801020ull), 0x00800080u);
    CHECK_EQ_U(npu_regcmd_reg(0x0201008000801020ull), 0x1020);
    CHECK_EQ_U(npu_regcmd_next_address(0x480), 0x0101000004800010ull);
    CHECK_EQ_U(npu_regcmd_next_amount(0x88), 0x0101000000880014ull);
    CHECK_EQ_U(npu_regcmd_pre_enable(), 0x0041000000000000ull);
    CHECK(npu_regcmd_is_pre_enable(0x0041000000000000ull));
    CHECK_EQ_U(npu_regcmd_op_enable(0x1F), 0x00810000001F0008ull);
    CHECK_EQ_U(npu_regcmd_nop(), 0);
    CHECK(npu_regcmd_is_nop(0));
    CHECK(!npu_regcmd_is_nop(0x0041000000000000ull));
    CHECK_EQ_U(NPU_PC_TAIL_WORDS, 4);

    /* unit masks used by vendor tasks (hardware.md §3.1) and the GLOBAL 0xF008 bits (§1.3) */
    CHECK_EQ_U(NPU_UNIT_CNA | NPU_UNIT_CORE | NPU_UNIT_DPU, 0x0D);
    CHECK_EQ_U(NPU_UNIT_CNA | NPU_UNIT_CORE | NPU_UNIT_DPU | NPU_UNIT_DPU_RDMA, 0x1D);
    CHECK_EQ_U(NPU_UNIT_DPU | NPU_UNIT_DPU_RDMA, 0x18);
    CHECK_EQ_U(NPU_UNIT_PPU | NPU_UNIT_PPU_RDMA, 0x60);
    CHECK_EQ_U(NPU_UNIT_CMAC, 0x02);
    CHECK_EQ_U(NPU_UNIT_ALL, 0x7F);
}

static void test_fetch_amount(void)
{
    /* hardware.md §1.5: 110 and 73 words incl. the tail -> 54 and 36 on RK3588 */
    CHECK_EQ_U(npu_pc_fetch_amount(110 - 4, 2), 54);
    CHECK_EQ_U(npu_pc_fetch_amount(73 - 4, 2), 36);
    /* RK3588 vendor streams: regcfg_amount -> in-stream amount */
    CHECK_EQ_U(npu_pc_fetch_amount(126, 2), 64);
    CHECK_EQ_U(npu_pc_fetch_amount(122, 2), 62);
    CHECK_EQ_U(npu_pc_fetch_amount(26, 2), 14);
    /* RK356x, scale 1: words - 1 (0x88, 0x74 in the RK3566 stream) */
    CHECK_EQ_U(npu_pc_fetch_amount(133, 1), 136);
    CHECK_EQ_U(npu_pc_fetch_amount(113, 1), 116);
    for (uint32_t body = 0; body < 300; body++) {
        CHECK_EQ_U(npu_pc_fetch_amount(body, 1), body + 4 - 1);
        CHECK_EQ_U(npu_pc_fetch_amount(body, 2), (body + 4 + 1) / 2 - 1);
        /* the PC fetches at least the whole task, at most one word more */
        CHECK(npu_pc_fetch_words(npu_pc_fetch_amount(body, 2), 2) >= body + 4);
        CHECK(npu_pc_fetch_words(npu_pc_fetch_amount(body, 2), 2) <= body + 5);
    }
    CHECK_EQ_U(npu_pc_fetch_amount(10, 0), 13);                   /* scale 0 acts as 1 */
    CHECK_EQ_U(npu_pc_fetch_amount(0xFFFFFFFFu, 2), 0x80000001u); /* no 32-bit wrap */
    CHECK_EQ_U(npu_pc_fetch_words(54, 2), 110);
}

/* ---- SoC profiles (hardware.md §2, format.md §3.1, api.md §5) --------- */

struct soc_expect {
    rknpu_soc_id id;
    const char *name;
    unsigned cores;
    uint64_t base[3];
    unsigned irq[3];
    unsigned scale, task_bits;
    uint32_t task_mask;
    unsigned status_off;
    uint32_t max_tasks;
    int multi_irq;
    unsigned atom, c2_int8, c2_fp16, banks;
    uint32_t bank_bytes;
    int core_shift, has_cmac;
};

/* One row per case reads as a table. */
/* clang-format off */
static const struct soc_expect socs[] = {
    {RKNPU_SOC_RK3588, "RK3588", 3, {0xFDAB0000u, 0xFDAC0000u, 0xFDAD0000u}, {110, 111, 112},
     2, 12, 0xFFF, 0x3C, 4095, 1, 16, 16, 8, 12, 32768, 0, 0},
    {RKNPU_SOC_RK3566, "RK3566", 1, {0xFDE40000u, 0, 0}, {151, 0, 0},
     1, 12, 0xFFF, 0x3C, 4095, 0, 8, 8, 4, 8, 32768, -4, 1},
    {RKNPU_SOC_RK3568, "RK3568", 1, {0xFDE40000u, 0, 0}, {151, 0, 0},
     1, 12, 0xFFF, 0x3C, 4095, 0, 8, 8, 4, 8, 32768, -4, 1},
    {RKNPU_SOC_RV1106, "RV1106", 1, {0xFF660000u, 0, 0}, {109, 0, 0},
     2, 16, 0xFFFF, 0x3C, 65535, 0, 16, 16, 8, 0, 0, 0, 0},
};
/* clang-format on */

static void test_profiles(void)
{
    for (size_t i = 0; i < sizeof(socs) / sizeof(socs[0]); i++) {
        const struct soc_expect *e = &socs[i];
        const npu_soc_profile *p = npu_soc_get(e->id);
        if (p == NULL) {
            fail("FAIL no profile for %s\n", e->name);
            continue;
        }
        CHECK_EQ_U(p->id, e->id);
        CHECK(strcmp(p->name, e->name) == 0);
        CHECK_EQ_U(p->core_count, e->cores);
        for (unsigned c = 0; c < 3; c++) {
            CHECK_EQ_U(p->core_base[c], e->base[c]);
            CHECK_EQ_U(p->irq_spi[c], e->irq[c]);
        }
        CHECK_EQ_U(p->pc_data_amount_scale, e->scale);
        CHECK_EQ_U(p->pc_task_number_bits, e->task_bits);
        CHECK_EQ_U(p->pc_task_number_mask, e->task_mask);
        CHECK_EQ_U(p->pc_task_status_offset, e->status_off);
        CHECK_EQ_U(p->max_submit_tasks, e->max_tasks);
        CHECK_EQ_U(p->multi_irq, e->multi_irq);
        CHECK_EQ_U(p->feature_atom_bytes, e->atom);
        CHECK_EQ_U(p->c2_int8, e->c2_int8);
        CHECK_EQ_U(p->c2_fp16, e->c2_fp16);
        CHECK_EQ_U(p->cbuf_banks, e->banks);
        CHECK_EQ_U(p->cbuf_bank_bytes, e->bank_bytes);
        CHECK_EQ_U(p->core_reg_shift, e->core_shift);
        CHECK_EQ_U(p->has_cmac, e->has_cmac);
        CHECK_EQ_U(p->int_clear_all, 0x1FFFFu);
        CHECK_EQ_U(p->dma_address_bits, 32);
        CHECK(npu_soc_accepts_platform(p, e->name)); /* "RK3588" etc., any case */
    }
    CHECK(npu_soc_get(RKNPU_SOC_COUNT) == NULL);
    CHECK(npu_soc_get((rknpu_soc_id)-1) == NULL);

    /* target_platform strings (api.md §5.2) */
    CHECK(npu_soc_find_platform("rk3588") == npu_soc_get(RKNPU_SOC_RK3588));
    CHECK(npu_soc_find_platform("RK3588S") == npu_soc_get(RKNPU_SOC_RK3588));
    CHECK(npu_soc_find_platform("rk3566") == npu_soc_get(RKNPU_SOC_RK3566));
    CHECK(npu_soc_find_platform("rk3568") == npu_soc_get(RKNPU_SOC_RK3568));
    CHECK(npu_soc_find_platform("RV1103") == npu_soc_get(RKNPU_SOC_RV1106));
    CHECK(npu_soc_find_platform("rv1106") == npu_soc_get(RKNPU_SOC_RV1106));
    CHECK(npu_soc_find_platform("rk3562") == NULL);
    CHECK(npu_soc_find_platform("rk358") == NULL);
    CHECK(npu_soc_find_platform("rk35888") == NULL);
    CHECK(npu_soc_find_platform("") == NULL);
    CHECK(npu_soc_find_platform(NULL) == NULL);
    CHECK(npu_soc_accepts_platform(npu_soc_get(RKNPU_SOC_RK3566), "rk3568"));
    CHECK(npu_soc_accepts_platform(npu_soc_get(RKNPU_SOC_RK3568), "Rk3566"));
    CHECK(!npu_soc_accepts_platform(npu_soc_get(RKNPU_SOC_RK3588), "rk3566"));
    CHECK(!npu_soc_accepts_platform(npu_soc_get(RKNPU_SOC_RV1106), "rk3588"));
    CHECK(!npu_soc_accepts_platform(NULL, "rk3588"));
    CHECK(!npu_soc_accepts_platform(npu_soc_get(RKNPU_SOC_RK3588), NULL));

    /* FlatBuffer family tags (format.md §3.1) */
    CHECK(npu_soc_accepts_model_family(npu_soc_get(RKNPU_SOC_RK3588), "RKNPU v2"));
    CHECK(!npu_soc_accepts_model_family(npu_soc_get(RKNPU_SOC_RK3588), "RKNPU lite"));
    CHECK(npu_soc_accepts_model_family(npu_soc_get(RKNPU_SOC_RK3566), "RKNPU lite"));
    CHECK(npu_soc_accepts_model_family(npu_soc_get(RKNPU_SOC_RK3566), "RKNPU v2"));
    CHECK(npu_soc_accepts_model_family(npu_soc_get(RKNPU_SOC_RK3568), "RKNPU lite"));
    CHECK(!npu_soc_accepts_model_family(npu_soc_get(RKNPU_SOC_RK3568), "RKNPU f2"));

    /* RK3566 and RK3568: same data apart from id and name */
    {
        npu_soc_profile a = *npu_soc_get(RKNPU_SOC_RK3566);
        npu_soc_profile b = *npu_soc_get(RKNPU_SOC_RK3568);
        a.id = b.id;
        a.name = b.name;
        CHECK(memcmp(&a, &b, sizeof(a)) == 0);
    }

    /* RK356x CORE map one slot lower (hardware.md §1.7) */
    {
        const npu_soc_profile *rk66 = npu_soc_get(RKNPU_SOC_RK3566);
        const npu_soc_profile *rk88 = npu_soc_get(RKNPU_SOC_RK3588);
        CHECK_EQ_U(npu_soc_to_table_offset(rk66, 0x300C), 0x3010); /* MISC_CFG */
        CHECK_EQ_U(npu_soc_to_table_offset(rk66, 0x3010), 0x3014); /* DATAOUT_SIZE_0 */
        CHECK_EQ_U(npu_soc_to_table_offset(rk66, 0x3014), 0x3018); /* DATAOUT_SIZE_1 */
        CHECK_EQ_U(npu_soc_to_table_offset(rk66, 0x302C), 0x3030);
        CHECK_EQ_U(npu_soc_to_table_offset(rk66, 0x3004), 0x3004); /* S_POINTER stays */
        CHECK_EQ_U(npu_soc_to_table_offset(rk66, 0x3008), 0x3008);
        CHECK_EQ_U(npu_soc_to_table_offset(rk66, 0x200C), 0x200C);
        CHECK_EQ_U(npu_soc_to_table_offset(rk66, 0x400C), 0x400C);
        CHECK_EQ_U(npu_soc_to_table_offset(rk66, 0x3FFC), NPU_SOC_NO_OFFSET);
        CHECK_EQ_U(npu_soc_from_table_offset(rk66, 0x3010), 0x300C);
        CHECK_EQ_U(npu_soc_from_table_offset(rk66, 0x3030), 0x302C);
        CHECK_EQ_U(npu_soc_from_table_offset(rk66, 0x3004), 0x3004);
        CHECK_EQ_U(npu_soc_from_table_offset(rk66, 0x300C), NPU_SOC_NO_OFFSET); /* MAC_GATING */
        CHECK_EQ_U(npu_soc_from_table_offset(rk66, 0x4010), 0x4010);
        CHECK_EQ_U(npu_soc_to_table_offset(rk88, 0x300C), 0x300C);
        CHECK_EQ_U(npu_soc_from_table_offset(rk88, 0x300C), 0x300C);
        CHECK_EQ_U(npu_soc_to_table_offset(NULL, 0x300C), 0x300C);
    }

    /* TASK_CON values (hardware.md §3.2 step 8) */
    CHECK_EQ_U(npu_soc_task_con(npu_soc_get(RKNPU_SOC_RK3588), 5, false), 0x6005u);
    CHECK_EQ_U(npu_soc_task_con(npu_soc_get(RKNPU_SOC_RK3588), 1, true), 0x7001u);
    CHECK_EQ_U(npu_soc_task_con(npu_soc_get(RKNPU_SOC_RK3568), 4095, false), 0x6FFFu);
    CHECK_EQ_U(npu_soc_task_con(npu_soc_get(RKNPU_SOC_RV1106), 5, false), 0x60005u);
    CHECK_EQ_U(npu_soc_task_con(npu_soc_get(RKNPU_SOC_RV1106), 65535, true), 0x7FFFFu);
}

/* ---- Every register the vendor sample streams write ------------------------ */

/* (target, reg) pairs written by the shared/models v6 streams, from
 * `rknn_inspect.py MODEL --regcmd 100000` (special words left out). */
struct stream_write {
    uint16_t target;
    uint16_t reg;
};

static const struct stream_write rk3588_writes[] = {
    {0x0101, 0x0010}, {0x0101, 0x0014}, {0x0201, 0x100C}, {0x0201, 0x1010}, {0x0201, 0x1014},
    {0x0201, 0x1020}, {0x0201, 0x1024}, {0x0201, 0x1028}, {0x0201, 0x102C}, {0x0201, 0x1030},
    {0x0201, 0x1034}, {0x0201, 0x1038}, {0x0201, 0x1040}, {0x0201, 0x1044}, {0x0201, 0x104C},
    {0x0201, 0x1050}, {0x0201, 0x1054}, {0x0201, 0x1058}, {0x0201, 0x105C}, {0x0201, 0x1060},
    {0x0201, 0x1064}, {0x0201, 0x1068}, {0x0201, 0x1070}, {0x0201, 0x1074}, {0x0201, 0x1078},
    {0x0201, 0x107C}, {0x0201, 0x1080}, {0x0201, 0x1084}, {0x0201, 0x1088}, {0x0201, 0x1100},
    {0x0201, 0x1104}, {0x0201, 0x1110}, {0x0201, 0x1140}, {0x0201, 0x1144}, {0x0201, 0x1148},
    {0x0201, 0x114C}, {0x0201, 0x1150}, {0x0201, 0x1154}, {0x0201, 0x1158}, {0x0201, 0x115C},
    {0x0201, 0x1160}, {0x0201, 0x1164}, {0x0201, 0x1168}, {0x0201, 0x116C}, {0x0201, 0x1170},
    {0x0201, 0x1174}, {0x0201, 0x1178}, {0x0201, 0x117C}, {0x0201, 0x1180}, {0x0201, 0x1184},
    {0x0801, 0x3010}, {0x0801, 0x3014}, {0x0801, 0x3018}, {0x0801, 0x301C}, {0x0801, 0x3030},
    {0x1001, 0x4004}, {0x1001, 0x400C}, {0x1001, 0x4010}, {0x1001, 0x4014}, {0x1001, 0x4020},
    {0x1001, 0x4024}, {0x1001, 0x4030}, {0x1001, 0x4034}, {0x1001, 0x4038}, {0x1001, 0x403C},
    {0x1001, 0x4040}, {0x1001, 0x4044}, {0x1001, 0x4048}, {0x1001, 0x404C}, {0x1001, 0x4050},
    {0x1001, 0x4054}, {0x1001, 0x4058}, {0x1001, 0x405C}, {0x1001, 0x4060}, {0x1001, 0x4064},
    {0x1001, 0x4068}, {0x1001, 0x406C}, {0x1001, 0x4070}, {0x1001, 0x4074}, {0x1001, 0x4078},
    {0x1001, 0x407C}, {0x1001, 0x4080}, {0x1001, 0x4084}, {0x1001, 0x4088}, {0x1001, 0x4090},
    {0x1001, 0x4094}, {0x1001, 0x4098}, {0x1001, 0x409C}, {0x1001, 0x40A0}, {0x1001, 0x40A4},
    {0x1001, 0x40A8}, {0x1001, 0x40AC}, {0x1001, 0x40C0}, {0x1001, 0x40C4}, {0x1001, 0x4100},
    {0x1001, 0x4104}, {0x1001, 0x4108}, {0x1001, 0x410C}, {0x1001, 0x4110}, {0x1001, 0x4114},
    {0x1001, 0x4118}, {0x1001, 0x411C}, {0x1001, 0x4120}, {0x1001, 0x4124}, {0x1001, 0x4128},
    {0x1001, 0x412C}, {0x2001, 0x5004}, {0x2001, 0x500C}, {0x2001, 0x5010}, {0x2001, 0x5014},
    {0x2001, 0x5018}, {0x2001, 0x501C}, {0x2001, 0x5020}, {0x2001, 0x5028}, {0x2001, 0x502C},
    {0x2001, 0x5034}, {0x2001, 0x5038}, {0x2001, 0x5040}, {0x2001, 0x5044}, {0x2001, 0x5048},
    {0x2001, 0x504C}, {0x2001, 0x5064}, {0x2001, 0x5068}, {0x2001, 0x506C}, {0x4001, 0x6004},
    {0x4001, 0x600C}, {0x4001, 0x6010}, {0x4001, 0x6014}, {0x4001, 0x6018}, {0x4001, 0x601C},
    {0x4001, 0x6020}, {0x4001, 0x6024}, {0x4001, 0x6034}, {0x4001, 0x6038}, {0x4001, 0x603C},
    {0x4001, 0x6040}, {0x4001, 0x6044}, {0x4001, 0x6048}, {0x4001, 0x6070}, {0x4001, 0x607C},
    {0x4001, 0x6084}, {0x4001, 0x60DC}, {0x8001, 0x7004}, {0x8001, 0x700C}, {0x8001, 0x7010},
    {0x8001, 0x7014}, {0x8001, 0x701C}, {0x8001, 0x7024}, {0x8001, 0x7028}, {0x8001, 0x7030},
};

static const struct stream_write rk3566_writes[] = {
    {0x0101, 0x0010}, {0x0101, 0x0014}, {0x0201, 0x1004}, {0x0201, 0x100C}, {0x0201, 0x1010},
    {0x0201, 0x1014}, {0x0201, 0x1018}, {0x0201, 0x1020}, {0x0201, 0x1024}, {0x0201, 0x1028},
    {0x0201, 0x102C}, {0x0201, 0x1030}, {0x0201, 0x1034}, {0x0201, 0x1038}, {0x0201, 0x1040},
    {0x0201, 0x1044}, {0x0201, 0x104C}, {0x0201, 0x1050}, {0x0201, 0x1054}, {0x0201, 0x1058},
    {0x0201, 0x105C}, {0x0201, 0x1060}, {0x0201, 0x1064}, {0x0201, 0x1068}, {0x0201, 0x1070},
    {0x0201, 0x1074}, {0x0201, 0x1078}, {0x0201, 0x107C}, {0x0201, 0x1080}, {0x0201, 0x1084},
    {0x0201, 0x1088}, {0x0201, 0x1100}, {0x0201, 0x1104}, {0x0201, 0x1110}, {0x0201, 0x1114},
    {0x0201, 0x1118}, {0x0201, 0x111C}, {0x0201, 0x1120}, {0x0201, 0x1124}, {0x0201, 0x1128},
    {0x0201, 0x112C}, {0x0201, 0x1130}, {0x0201, 0x1134}, {0x0201, 0x1138}, {0x0201, 0x113C},
    {0x0201, 0x1140}, {0x0201, 0x1144}, {0x0201, 0x1148}, {0x0201, 0x114C}, {0x0201, 0x1210},
    {0x0201, 0x1214}, {0x0201, 0x1218}, {0x0201, 0x121C}, {0x0201, 0x1220}, {0x0201, 0x1224},
    {0x0201, 0x1228}, {0x0201, 0x122C}, {0x0201, 0x1230}, {0x0401, 0x2004}, {0x0401, 0x200C},
    {0x0801, 0x3004}, {0x0801, 0x300C}, {0x0801, 0x3010}, {0x0801, 0x3014}, {0x0801, 0x302C},
    {0x1001, 0x4004}, {0x1001, 0x400C}, {0x1001, 0x4010}, {0x1001, 0x4014}, {0x1001, 0x4020},
    {0x1001, 0x4024}, {0x1001, 0x4030}, {0x1001, 0x4034}, {0x1001, 0x4038}, {0x1001, 0x403C},
    {0x1001, 0x4040}, {0x1001, 0x4044}, {0x1001, 0x4048}, {0x1001, 0x404C}, {0x1001, 0x4050},
    {0x1001, 0x4054}, {0x1001, 0x4060}, {0x1001, 0x4064}, {0x1001, 0x4068}, {0x1001, 0x406C},
    {0x1001, 0x4070}, {0x1001, 0x4074}, {0x1001, 0x4078}, {0x1001, 0x407C}, {0x1001, 0x4080},
    {0x1001, 0x4084}, {0x1001, 0x4088}, {0x1001, 0x4090}, {0x1001, 0x4094}, {0x1001, 0x4098},
    {0x1001, 0x409C}, {0x1001, 0x40A0}, {0x1001, 0x40A4}, {0x1001, 0x40A8}, {0x1001, 0x40AC},
    {0x1001, 0x40C0}, {0x1001, 0x40C4}, {0x1001, 0x4100}, {0x1001, 0x4104}, {0x1001, 0x4108},
    {0x1001, 0x410C}, {0x1001, 0x4110}, {0x1001, 0x4114}, {0x1001, 0x4118}, {0x1001, 0x411C},
    {0x1001, 0x4120}, {0x1001, 0x4124}, {0x1001, 0x4128}, {0x1001, 0x412C}, {0x2001, 0x5004},
    {0x2001, 0x500C}, {0x2001, 0x5010}, {0x2001, 0x5014}, {0x2001, 0x5018}, {0x2001, 0x501C},
    {0x2001, 0x5020}, {0x2001, 0x5024}, {0x2001, 0x5028}, {0x2001, 0x502C}, {0x2001, 0x5030},
    {0x2001, 0x5034}, {0x2001, 0x5038}, {0x2001, 0x503C}, {0x2001, 0x5040}, {0x2001, 0x5044},
    {0x2001, 0x5048}, {0x2001, 0x504C}, {0x2001, 0x5064}, {0x2001, 0x5068},
};

static void check_stream_writes(rknpu_soc_id soc, const struct stream_write *w, size_t n)
{
    const npu_soc_profile *p = npu_soc_get(soc);

    for (size_t i = 0; i < n; i++) {
        uint32_t table_off = npu_soc_to_table_offset(p, w[i].reg);
        const npu_reg_info *r = npu_reg_lookup(table_off);
        int target_block = npu_block_from_target(w[i].target);

        if (r == NULL) {
            fail("FAIL %s stream writes 0x%04x (target 0x%04x): not in the table\n", p->name,
                 w[i].reg, w[i].target);
            continue;
        }
        if (target_block != r->block)
            fail("FAIL %s stream: target 0x%04x writes %s\n", p->name, w[i].target, r->name);
    }
}

static void test_stream_writes(void)
{
    check_stream_writes(RKNPU_SOC_RK3588, rk3588_writes,
                        sizeof(rk3588_writes) / sizeof(rk3588_writes[0]));
    check_stream_writes(RKNPU_SOC_RK3566, rk3566_writes,
                        sizeof(rk3566_writes) / sizeof(rk3566_writes[0]));
    /* the RK3566 CORE words land on the RK3588-layout names */
    {
        const npu_soc_profile *rk66 = npu_soc_get(RKNPU_SOC_RK3566);
        const npu_reg_info *r = npu_reg_lookup(npu_soc_to_table_offset(rk66, 0x300C));
        CHECK(r != NULL && strcmp(r->name, "CORE_MISC_CFG") == 0);
    }
}

int main(void)
{
    test_spot_offsets();
    test_table_invariants();
    test_unknown_offsets();
    test_fields();
    test_blocks();
    test_regcmd();
    test_s_pointer_arm();
    test_fetch_amount();
    test_profiles();
    test_stream_writes();

    printf("test_regs: %zu registers, %zu fields\n", npu_reg_count(), npu_field_count());
    return test_report("test_regs");
}
