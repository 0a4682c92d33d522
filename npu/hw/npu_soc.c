/*
 * npu_soc.c - the per-SoC profile table. Every value cites where it comes
 * from: hardware.md §x (docs/hardware.md), format.md §x (format.md), api.md §x
 * (api.md). [UNK] marks values nobody has verified on that SoC.
 */
#include "npu_soc.h"

#include "npu_regs.h"

/* Longest target_platform / family string compared; anything longer
 * cannot match a table entry. */
#define NPU_SOC_MAX_NAME 32u

static const npu_soc_profile npu_soc_rk3588 = {
    .id = RKNPU_SOC_RK3588,
    .name = "RK3588",
    .platforms = {"rk3588", "rk3588s"},                   /* api.md §5.2 */
    .model_families = {"RKNPU v2", NULL},                 /* format.md §3.1 */
    .core_count = 3,                                      /* hardware.md §2.1 */
    .core_base = {0xFDAB0000u, 0xFDAC0000u, 0xFDAD0000u}, /* hardware.md §2.2 */
    .irq_spi = {110, 111, 112},                           /* hardware.md §2.2 (INTIDs 142-144) */
    .pc_data_amount_scale = 2,                            /* hardware.md §2.1, §1.5 */
    .pc_task_number_bits = 12,                            /* hardware.md §2.1 */
    .pc_task_number_mask = 0xFFFu,                        /* hardware.md §2.1 */
    .pc_task_status_offset = NPU_PC_TASK_STATUS,          /* 0x3C, hardware.md §2.1 */
    .max_submit_tasks = 4095,                             /* hardware.md §2.1, §2.3 */
    .multi_irq = true,                                    /* hardware.md §3.2 step 2 */
    .int_clear_all = 0x1FFFFu,                            /* hardware.md §1.2 */
    .pc_version = 0x46495245u, /* hardware.md §1.2: "FIRE", read by gd */
    .feature_atom_bytes = 16,  /* hardware.md §2.3, §4.1 */
    .c2_int8 = 16,             /* hardware.md §4.1, api.md §5.1 */
    .c2_fp16 = 8,              /* hardware.md §4.1, api.md §5.1 */
    .cbuf_banks = 12,          /* hardware.md §2.3 */
    .cbuf_bank_bytes = 32768,  /* hardware.md §2.3 */
    .core_reg_shift = 0,       /* hardware.md §1.7: the table's layout */
    .core_shift_first = 0,
    .has_cmac = false, /* hardware.md §1.1: not in the RK3588 TRM */
    .cmac_target_carries_ddma = false,
    .dma_address_bits = 32, /* hardware.md §1.2: 32-bit address registers */
};

/* RK3566 and RK3568 carry the same NPU (api.md §5.1, §5.2); two ids, one data set. */
#define NPU_SOC_RK356X_DATA                                                                        \
    .platforms = {"rk3566", "rk3568"},                /* api.md §5.2 */                           \
        .model_families = {"RKNPU lite", "RKNPU v2"}, /* format.md §3.1: old files say v2 */      \
        .core_count = 1,                              /* hardware.md §2.1 */                      \
        .core_base = {0xFDE40000u, 0, 0},             /* hardware.md §2.2 */                      \
        .irq_spi = {151, 0, 0},                       /* hardware.md §2.2 (INTID 183) */          \
        .pc_data_amount_scale = 1,                    /* hardware.md §2.1, §1.5 */               \
        .pc_task_number_bits = 12,                    /* hardware.md §2.1 */                      \
        .pc_task_number_mask = 0xFFFu,                /* hardware.md §2.1 */                      \
        .pc_task_status_offset = NPU_PC_TASK_STATUS,  /* 0x3C, hardware.md §2.1 */                \
        .max_submit_tasks = 4095,                     /* hardware.md §2.1 */                      \
        .multi_irq = false,                           /* hardware.md §3.2 step 2 */               \
        .int_clear_all = 0x1FFFFu,                    /* hardware.md §1.2 */                      \
        .feature_atom_bytes = 8,                      /* hardware.md §2.3 */                      \
        .c2_int8 = 8,                                 /* hardware.md §4.1, api.md §5.1 */        \
        .c2_fp16 = 4,                                 /* api.md §5.1 */                           \
        .cbuf_banks = 8,                              /* hardware.md §2.3, §4.4 */               \
        .cbuf_bank_bytes = 32768,                     /* hardware.md §2.3 */                      \
        .core_reg_shift = -4,                         /* hardware.md §1.7, §2.4 */               \
        .core_shift_first = NPU_CORE_MAC_GATING,      /* 0x300C holds MISC_CFG there */            \
        .has_cmac = true,                             /* hardware.md §1.1, §2.4 */               \
        .cmac_target_carries_ddma = false, .dma_address_bits = 32 /* hardware.md §2.1, §2.4 */

static const npu_soc_profile npu_soc_rk3566 = {
    .id = RKNPU_SOC_RK3566,
    .name = "RK3566",
    NPU_SOC_RK356X_DATA,
};

static const npu_soc_profile npu_soc_rk3568 = {
    .id = RKNPU_SOC_RK3568,
    .name = "RK3568",
    NPU_SOC_RK356X_DATA,
};

static const npu_soc_profile npu_soc_rv1106 = {
    .id = RKNPU_SOC_RV1106,
    .name = "RV1106",
    .platforms = {"rv1106", "rv1103"},           /* api.md §5.2 */
    .model_families = {NULL, NULL},              /* [UNK] format.md §3.1 has no RV1106 tag */
    .core_count = 1,                             /* hardware.md §2.1 */
    .core_base = {0xFF660000u, 0, 0},            /* hardware.md §2.2 */
    .irq_spi = {109, 0, 0},                      /* hardware.md §2.2 */
    .pc_data_amount_scale = 2,                   /* hardware.md §2.1 */
    .pc_task_number_bits = 16,                   /* hardware.md §2.1, §1.2 TASK_CON */
    .pc_task_number_mask = 0xFFFFu,              /* hardware.md §2.1 */
    .pc_task_status_offset = NPU_PC_TASK_STATUS, /* 0x3C, hardware.md §2.1 */
    .max_submit_tasks = 65535,                   /* hardware.md §2.1 */
    .multi_irq = false,                          /* hardware.md §3.2 step 2 */
    .int_clear_all = 0x1FFFFu,                   /* hardware.md §1.2 */
    .feature_atom_bytes = 16,                    /* hardware.md §2.3 [UNK] */
    .c2_int8 = 16,                               /* api.md §5.1 */
    .c2_fp16 = 8,                                /* api.md §5.1 */
    .cbuf_banks = 0,                             /* hardware.md §2.3: [UNK] */
    .cbuf_bank_bytes = 0,                        /* hardware.md §2.3: [UNK] */
    .core_reg_shift = 0,                         /* hardware.md §2.4: RK3588 CORE offsets */
    .core_shift_first = 0,
    .has_cmac = false,                /* [UNK] hardware.md §1.1 */
    .cmac_target_carries_ddma = true, /* hardware.md §1.1, §2.4: 0x8028/0x802C via 0x0401 */
    .dma_address_bits = 32,           /* hardware.md §2.1 */
};

static const npu_soc_profile *const npu_soc_table[RKNPU_SOC_COUNT] = {
    [RKNPU_SOC_RK3588] = &npu_soc_rk3588,
    [RKNPU_SOC_RK3566] = &npu_soc_rk3566,
    [RKNPU_SOC_RK3568] = &npu_soc_rk3568,
    [RKNPU_SOC_RV1106] = &npu_soc_rv1106,
};

const npu_soc_profile *npu_soc_get(rknpu_soc_id id)
{
    if ((unsigned)id >= RKNPU_SOC_COUNT)
        return NULL;
    return npu_soc_table[id];
}

static char npu_ascii_lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* ASCII case-insensitive equality, bounded by NPU_SOC_MAX_NAME. */
static int npu_names_equal_nocase(const char *a, const char *b)
{
    for (unsigned i = 0; i < NPU_SOC_MAX_NAME; i++) {
        if (npu_ascii_lower(a[i]) != npu_ascii_lower(b[i]))
            return 0;
        if (a[i] == '\0')
            return 1;
    }
    return 0;
}

/* 1 if `name` is in the list (n entries, NULL marks unused ones), 0 if
 * not, -1 if the list is empty. */
static int npu_names_list(const char *const *list, unsigned n, const char *name)
{
    int found = -1;

    for (unsigned i = 0; i < n; i++)
        if (list[i] != NULL && (found = npu_names_equal_nocase(list[i], name)) != 0)
            return 1;
    return found;
}

int npu_soc_accepts_platform(const npu_soc_profile *profile, const char *target_platform)
{
    if (profile == NULL || target_platform == NULL)
        return 0;
    return npu_names_list(profile->platforms, NPU_SOC_MAX_PLATFORMS, target_platform) == 1;
}

const npu_soc_profile *npu_soc_find_platform(const char *target_platform)
{
    const npu_soc_profile *first = NULL;

    for (unsigned i = 0; i < RKNPU_SOC_COUNT; i++) {
        const npu_soc_profile *p = npu_soc_table[i];
        if (!npu_soc_accepts_platform(p, target_platform))
            continue;
        if (npu_names_equal_nocase(p->name, target_platform))
            return p;
        if (first == NULL)
            first = p;
    }
    return first;
}

int npu_soc_accepts_model_family(const npu_soc_profile *profile, const char *family)
{
    if (profile == NULL || family == NULL)
        return 0;
    return npu_names_list(profile->model_families, NPU_SOC_MAX_FAMILIES, family) != 0;
}

/* True when `soc_offset` is a CORE register this SoC keeps shifted. */
static int npu_soc_core_shifted(const npu_soc_profile *p, uint32_t soc_offset)
{
    return p->core_reg_shift != 0 && npu_block_of_offset(soc_offset) == NPU_BLOCK_CORE &&
           soc_offset >= p->core_shift_first;
}

uint32_t npu_soc_to_table_offset(const npu_soc_profile *profile, uint32_t soc_offset)
{
    if (profile == NULL || !npu_soc_core_shifted(profile, soc_offset))
        return soc_offset;

    uint32_t table = (uint32_t)((int64_t)soc_offset - profile->core_reg_shift);
    if (npu_block_of_offset(table) != NPU_BLOCK_CORE)
        return NPU_SOC_NO_OFFSET; /* would leave the CORE page */
    return table;
}

uint32_t npu_soc_from_table_offset(const npu_soc_profile *profile, uint32_t table_offset)
{
    if (profile == NULL || profile->core_reg_shift == 0 ||
        npu_block_of_offset(table_offset) != NPU_BLOCK_CORE)
        return table_offset;

    int64_t soc = (int64_t)table_offset + profile->core_reg_shift;
    if (table_offset < profile->core_shift_first)
        return table_offset; /* S_STATUS/S_POINTER/OPERATION_ENABLE stay put */
    if (soc < (int64_t)profile->core_shift_first)
        return NPU_SOC_NO_OFFSET; /* e.g. MAC_GATING would collide with OP_ENABLE */
    return (uint32_t)soc;
}

uint32_t npu_soc_task_con(const npu_soc_profile *profile, uint32_t task_count, bool pingpong)
{
    uint32_t control = 0x6u | (pingpong ? 1u : 0u);

    if (profile == NULL)
        return 0;
    return (control << profile->pc_task_number_bits) | (task_count & profile->pc_task_number_mask);
}
