/*
 * npu_reg_names.c - the register and field names of regs.def and their
 * look-ups, for the virtual NPU's trace and errors, rknn-inspect and the
 * tests. The runtime itself does not need them, so firmware images without
 * the virtual NPU carry none of these strings.
 */
#include <string.h>

#include "npu_regs.h"

/* regs.def lists registers in ascending offset order and each register's
 * fields right after it, so both arrays come out sorted by offset. */
static const npu_reg_info npu_reg_table[] = {
#define NPU_REG(block, name, offset) {(offset), NPU_BLOCK_##block, #block "_" #name},
#include "regs.def"
};

static const npu_field_info npu_field_table[] = {
#define NPU_FIELD(block, reg, field, lsb, width) {NPU_##block##_##reg, (lsb), (width), #field},
#include "regs.def"
};

#define NPU_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *const npu_block_names[NPU_BLOCK_COUNT] = {
    [NPU_BLOCK_PC] = "PC",     [NPU_BLOCK_CNA] = "CNA",           [NPU_BLOCK_CMAC] = "CMAC",
    [NPU_BLOCK_CORE] = "CORE", [NPU_BLOCK_DPU] = "DPU",           [NPU_BLOCK_DPU_RDMA] = "DPU_RDMA",
    [NPU_BLOCK_PPU] = "PPU",   [NPU_BLOCK_PPU_RDMA] = "PPU_RDMA", [NPU_BLOCK_DDMA] = "DDMA",
    [NPU_BLOCK_SDMA] = "SDMA", [NPU_BLOCK_GLOBAL] = "GLOBAL",
};

const char *npu_block_name(enum npu_block block)
{
    if ((unsigned)block >= NPU_BLOCK_COUNT)
        return "UNKNOWN";
    return npu_block_names[block];
}

size_t npu_reg_count(void)
{
    return NPU_ARRAY_LEN(npu_reg_table);
}

const npu_reg_info *npu_reg_at(size_t index)
{
    return index < NPU_ARRAY_LEN(npu_reg_table) ? &npu_reg_table[index] : NULL;
}

const npu_reg_info *npu_reg_lookup(uint32_t offset)
{
    size_t lo = 0;
    size_t hi = NPU_ARRAY_LEN(npu_reg_table);

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t here = npu_reg_table[mid].offset;
        if (here == offset)
            return &npu_reg_table[mid];
        if (here < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const npu_reg_info *npu_reg_lookup_name(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < NPU_ARRAY_LEN(npu_reg_table); i++) {
        if (strcmp(npu_reg_table[i].name, name) == 0)
            return &npu_reg_table[i];
    }
    return NULL;
}

/* Index of the first field whose register offset is >= offset. */
static size_t npu_field_lower_bound(uint32_t offset)
{
    size_t lo = 0;
    size_t hi = NPU_ARRAY_LEN(npu_field_table);

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (npu_field_table[mid].reg_offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const npu_field_info *npu_reg_fields(uint32_t offset, size_t *count)
{
    size_t first = npu_field_lower_bound(offset);
    size_t end = first;

    while (end < NPU_ARRAY_LEN(npu_field_table) && npu_field_table[end].reg_offset == offset)
        end++;
    if (count != NULL)
        *count = end - first;
    return end > first ? &npu_field_table[first] : NULL;
}

size_t npu_field_count(void)
{
    return NPU_ARRAY_LEN(npu_field_table);
}

/* Per block: name, page (offset bits [15:12]) and regcmd target id. */
