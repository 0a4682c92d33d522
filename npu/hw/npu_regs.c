/*
 * npu_regs.c - build-time checks of regs.def (unique offsets, fields inside
 * 32 bits, registers inside their block's page) and the block <-> regcmd
 * target mapping the runtime uses. The name tables are in npu_reg_names.c.
 */
#include "npu_regs.h"

/* Never called: a duplicate offset in regs.def makes this switch fail to
 * compile ("duplicate case value"), so uniqueness is a build-time check. */
__attribute__((unused)) static int npu_regs_offsets_are_unique(uint32_t offset)
{
    switch (offset) {
#define NPU_REG(block, name, offset) case (offset):
#include "regs.def"
        return 1;
    default: return 0;
    }
}

/* Every field must fit in 32 bits; checked at build time. */
#define NPU_FIELD(block, reg, field, lsb, width)                                                   \
    _Static_assert((width) >= 1 && (lsb) + (width) <= 32,                                          \
                   #block "_" #reg "_" #field " does not fit in 32 bits");
#include "regs.def"

/* Every register must lie inside the window of the block it names. */
enum npu_block_page {
    NPU_PAGE_PC = 0x0,
    NPU_PAGE_CNA = 0x1,
    NPU_PAGE_CMAC = 0x2,
    NPU_PAGE_CORE = 0x3,
    NPU_PAGE_DPU = 0x4,
    NPU_PAGE_DPU_RDMA = 0x5,
    NPU_PAGE_PPU = 0x6,
    NPU_PAGE_PPU_RDMA = 0x7,
    NPU_PAGE_DDMA = 0x8,
    NPU_PAGE_SDMA = 0x9,
    NPU_PAGE_GLOBAL = 0xF,
};
#define NPU_REG(block, name, offset)                                                               \
    _Static_assert(((offset) >> 12) == NPU_PAGE_##block && (offset) % 4 == 0,                      \
                   #block "_" #name " is outside its block or misaligned");
#include "regs.def"

/* The regcmd target of each block (0: not addressed by command words);
 * the block names are in npu_reg_names.c. */
static const uint16_t npu_block_targets[NPU_BLOCK_COUNT] = {
    [NPU_BLOCK_PC] = NPU_TARGET_PC,     [NPU_BLOCK_CNA] = NPU_TARGET_CNA,
    [NPU_BLOCK_CMAC] = NPU_TARGET_CMAC, [NPU_BLOCK_CORE] = NPU_TARGET_CORE,
    [NPU_BLOCK_DPU] = NPU_TARGET_DPU,   [NPU_BLOCK_DPU_RDMA] = NPU_TARGET_DPU_RDMA,
    [NPU_BLOCK_PPU] = NPU_TARGET_PPU,   [NPU_BLOCK_PPU_RDMA] = NPU_TARGET_PPU_RDMA,
};

/* Block of each 4 KiB page of a core window (-1: no block). The loader and
 * the virtual NPU ask this for every command word, so it is a table. */
static const int8_t page_block[16] = {
    [NPU_PAGE_PC] = NPU_BLOCK_PC,
    [NPU_PAGE_CNA] = NPU_BLOCK_CNA,
    [NPU_PAGE_CMAC] = NPU_BLOCK_CMAC,
    [NPU_PAGE_CORE] = NPU_BLOCK_CORE,
    [NPU_PAGE_DPU] = NPU_BLOCK_DPU,
    [NPU_PAGE_DPU_RDMA] = NPU_BLOCK_DPU_RDMA,
    [NPU_PAGE_PPU] = NPU_BLOCK_PPU,
    [NPU_PAGE_PPU_RDMA] = NPU_BLOCK_PPU_RDMA,
    [NPU_PAGE_DDMA] = NPU_BLOCK_DDMA,
    [NPU_PAGE_SDMA] = NPU_BLOCK_SDMA,
    [0xA] = -1,
    [0xB] = -1,
    [0xC] = -1,
    [0xD] = -1,
    [0xE] = -1,
    [NPU_PAGE_GLOBAL] = NPU_BLOCK_GLOBAL,
};

int npu_block_of_offset(uint32_t offset)
{
    if (offset >= NPU_CORE_WINDOW_BYTES)
        return -1;
    return page_block[offset >> 12];
}

uint16_t npu_block_target(enum npu_block block)
{
    if ((unsigned)block >= NPU_BLOCK_COUNT)
        return 0;
    return npu_block_targets[block];
}

int npu_block_from_target(uint16_t target)
{
    /* Block targets are one bit in 15:8 plus bit 0 (hardware.md §1.5). */
    static const int8_t bit_block[8] = {
        NPU_BLOCK_PC,  NPU_BLOCK_CNA,      NPU_BLOCK_CMAC, NPU_BLOCK_CORE,
        NPU_BLOCK_DPU, NPU_BLOCK_DPU_RDMA, NPU_BLOCK_PPU,  NPU_BLOCK_PPU_RDMA,
    };
    unsigned high = target >> 8;

    if ((target & 0xFFu) != 0x01u || high == 0 || (high & (high - 1)) != 0)
        return -1;
    return bit_block[__builtin_ctz(high)];
}
