/*
 * npu_soc.h - per-SoC profile table: everything that differs between the
 * RKNPU generations, as data (hardware.md §2, format.md §3.1, api.md §5).
 *
 * The register table (regs.def) is in RK3588 layout. Where a SoC's registers
 * sit elsewhere (RK356x's CORE block, one slot lower) the profile says so and
 * npu_soc_to_table_offset()/npu_soc_from_table_offset() translate.
 *
 * Lookups return NULL for unknown input and do not log; the caller decides
 * whether that is an error (so the virtual NPU can use this without hal/).
 */
#ifndef NPU_SOC_H
#define NPU_SOC_H

#include <stdbool.h>
#include <stdint.h>

#include "rknpu_soc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NPU_SOC_MAX_PLATFORMS 2
#define NPU_SOC_MAX_FAMILIES  2

/* npu_soc_from_table_offset(): the register does not exist on this SoC. */
#define NPU_SOC_NO_OFFSET 0xFFFFFFFFu

typedef struct npu_soc_profile {
    /* Members ordered so that the tables have no holes (4 x 112 bytes of
     * read-only data): the flags beside id and core_count. */
    rknpu_soc_id id;
    uint8_t core_count;
    bool multi_irq;                /* submit writes CNA/CORE S_POINTER = 0xE + core << 28 */
    bool has_cmac;                 /* CMAC block at 0x2xxx, regcmd target 0x0401 */
    bool cmac_target_carries_ddma; /* streams send DDMA offsets with target 0x0401 */
    const char *name;              /* "RK3588" */
    /* .rknn JSON target_platform strings this SoC runs (lower case; compared
     * case-insensitively); NULL marks unused slots. */
    const char *platforms[NPU_SOC_MAX_PLATFORMS];
    /* FlatBuffer Model field 1 "NPU family" tags seen for this SoC; NULL
     * marks unused slots. All NULL = unknown, do not check. */
    const char *model_families[NPU_SOC_MAX_FAMILIES];

    uint64_t core_base[RKNPU_MAX_CORES]; /* physical MMIO base per core, 64 KiB each */
    uint16_t irq_spi[RKNPU_MAX_CORES];   /* GIC SPI number per core (INTID = SPI + 32) */

    /* PC programming (hardware.md §2.1, §3.2) */
    uint8_t pc_data_amount_scale;   /* PC_DATA_AMOUNT unit in 64-bit words */
    uint8_t pc_task_number_bits;    /* width of TASK_CON.TASK_NUMBER; control bits start here */
    uint32_t pc_task_number_mask;   /* (1 << pc_task_number_bits) - 1 */
    uint16_t pc_task_status_offset; /* where the task counter is read */
    uint16_t core_shift_first;      /* register map: first SoC-native CORE offset the shift
                                     * below applies to */
    uint32_t max_submit_tasks;      /* tasks per PC kick */
    uint32_t int_clear_all;         /* INTERRUPT_CLEAR value that clears everything */
    uint32_t pc_version;            /* PC_VERSION this SoC reads; 0 = not known */

    /* Data layout and compute resources (hardware.md §2.3, §4.1) */
    uint8_t feature_atom_bytes; /* bytes of one NC1HWC2 atom */
    uint8_t c2_int8;            /* channels per atom, int8 */
    uint8_t c2_fp16;            /* channels per atom, fp16 */
    uint8_t cbuf_banks;         /* 0 = unknown */
    uint32_t cbuf_bank_bytes;   /* 0 = unknown */

    /* Register map differences (hardware.md §1.1, §1.7, §2.4) */
    int8_t core_reg_shift; /* SoC CORE offset = table offset + shift (for shifted regs, from
                            * core_shift_first); has_cmac, cmac_target_carries_ddma above */

    uint8_t dma_address_bits; /* width of the NPU's DMA address registers */
} npu_soc_profile;

/* The profile of a SoC, or NULL for an id outside rknpu_soc_id. */
const npu_soc_profile *npu_soc_get(rknpu_soc_id id);

/* The profile that runs models built for `target_platform` ("rk3588s",
 * "RK3568", ...; case-insensitive), or NULL. When two SoCs accept the same
 * string (RK3566/RK3568) the one whose name matches it is returned. */
const npu_soc_profile *npu_soc_find_platform(const char *target_platform);

/* 1 if `profile` runs models built for `target_platform`, else 0. */
int npu_soc_accepts_platform(const npu_soc_profile *profile, const char *target_platform);

/* 1 if `family` (FlatBuffer "NPU family" tag) is one seen for this SoC, or if
 * the profile lists none (unknown); else 0. */
int npu_soc_accepts_model_family(const npu_soc_profile *profile, const char *family);

/* Register offset as written by this SoC's streams -> offset in the register
 * table (RK3588 layout). Offsets outside the shifted range pass unchanged;
 * NPU_SOC_NO_OFFSET if the shift would leave the CORE page. */
uint32_t npu_soc_to_table_offset(const npu_soc_profile *profile, uint32_t soc_offset);

/* Table offset -> this SoC's offset, or NPU_SOC_NO_OFFSET when the register
 * has no counterpart (RK356x CORE MAC_GATING). */
uint32_t npu_soc_from_table_offset(const npu_soc_profile *profile, uint32_t table_offset);

/* TASK_CON value for `task_count` tasks (hardware.md §3.2 step 8):
 * ((0x6 | pingpong) << pc_task_number_bits) | task_count. `task_count` must
 * already be within 1..max_submit_tasks. */
uint32_t npu_soc_task_con(const npu_soc_profile *profile, uint32_t task_count, bool pingpong);

/* RK3566 and RK3568: one NPU generation (CMAC, input converter, 8-byte
 * NHWC row alignment). */
static inline bool npu_soc_is_rk356x(const npu_soc_profile *profile)
{
    return profile->id == RKNPU_SOC_RK3566 || profile->id == RKNPU_SOC_RK3568;
}

#ifdef __cplusplus
}
#endif

#endif /* NPU_SOC_H */
