/*
 * vnpu_test_asm.h - a small register-program assembler for the virtual NPU
 * tests: a DMA arena, task bodies built word by word, chains with the PC
 * tail (hardware.md §1.5), the BSP submit sequence (hardware.md §3.2), the completion
 * poll (hardware.md §3.3), and a convolution/flying-DPU/pooling register recipe
 * following the layouts documented in docs/hardware.md §4 and
 * docs/vnpu.md §5-§7. It shares no code with the model: register
 * values are written from the documents, data layouts are packed here.
 */
#ifndef VNPU_TEST_ASM_H
#define VNPU_TEST_ASM_H

#include <stdint.h>
#include <string.h>

#include "npu_builder.h"
#include "npu_regcmd.h"
#include "npu_regs.h"
#include "npu_soc.h"
#include "vnpu.h"

/* ---- DMA arena -------------------------------------------------------------- */

typedef struct {
    uint8_t *host;
    uint32_t base; /* NPU address of host[0] */
    uint32_t size;
    uint32_t used;
} tasm_mem;

static inline void tasm_mem_init(tasm_mem *m, uint8_t *host, uint32_t base, uint32_t size)
{
    m->host = host;
    m->base = base;
    m->size = size;
    m->used = 0;
    memset(host, 0, size);
}

/* NPU address of a fresh, zeroed block (0 when the arena is full). */
static inline uint32_t tasm_alloc(tasm_mem *m, uint32_t bytes, uint32_t align)
{
    uint32_t at = (m->used + align - 1u) / align * align;

    if (at > m->size || bytes > m->size - at)
        return 0;
    m->used = at + bytes;
    memset(m->host + at, 0, bytes);
    return m->base + at;
}

static inline uint8_t *tasm_host(const tasm_mem *m, uint32_t addr)
{
    return m->host + (addr - m->base);
}

/* ---- task bodies and recipes: the library's builder (npu/npu_builder.h) ---- */

typedef npu_task_words tasm_task;
typedef npu_conv_desc tasm_conv;
typedef npu_pool_desc tasm_pool;

#define tasm_task_init     npu_task_begin
#define tasm_raw           npu_task_raw
#define tasm_reg           npu_task_reg
#define tasm_conv_defaults npu_conv_defaults
#define tasm_conv_task     npu_build_conv
#define tasm_flying_task   npu_build_flying
#define tasm_pool_task     npu_build_pool

static inline int tasm_is_rk356x(const npu_soc_profile *soc)
{
    return soc->id == RKNPU_SOC_RK3566 || soc->id == RKNPU_SOC_RK3568;
}

/* Little-endian word i of a hand-built regcmd buffer. */
static inline void tasm_store64(uint8_t *buf, unsigned i, uint64_t w)
{
    for (unsigned b = 0; b < 8; b++)
        buf[(size_t)i * 8u + b] = (uint8_t)(w >> (8u * b));
}

/* Place a chain in the arena (npu_chain_write); returns the regcmd address
 * of tasks[0] and its fetch amount, or 0 if the arena is full. */
static inline uint32_t tasm_place_chain(tasm_mem *m, const tasm_task *tasks, unsigned ntasks,
                                        uint32_t *first_amount)
{
    uint8_t records[16 * 40];
    uint32_t bytes = (uint32_t)npu_chain_bytes(tasks, ntasks);
    uint32_t addr = tasm_alloc(m, bytes, 64);

    *first_amount = 0;
    if (!addr || ntasks > 16 ||
        npu_chain_write(tasks, ntasks, tasm_host(m, addr), addr, bytes, records) != 0)
        return 0;
    *first_amount = npu_pc_fetch_amount(tasks[0].n, tasks[0].soc->pc_data_amount_scale);
    return addr;
}

/* ---- submit and poll (hardware.md §3.2, §3.3) ------------------------------------- */

/* The BSP's fold of each 2-bit block group. */
static inline uint32_t tasm_fuzz(uint32_t s)
{
    static const uint32_t groups[6] = {0x003, 0x00C, 0x030, 0x0C0, 0x300, 0xC00};
    uint32_t r = 0;

    for (unsigned i = 0; i < 6; i++)
        if (s & groups[i])
            r |= groups[i];
    return r;
}

static inline void tasm_kick(vnpu_device *dev, unsigned core, uint32_t regcmd, uint32_t amount,
                             uint32_t ntasks, uint32_t first_mask, uint32_t last_mask)
{
    const npu_soc_profile *soc = dev->soc;

    vnpu_mmio_write(dev, core, NPU_PC_DATA_ADDR, 1); /* slave mode */
    if (soc->multi_irq) {
        vnpu_mmio_write(dev, core, NPU_CNA_S_POINTER, 0xEu + 0x10000000u * core);
        vnpu_mmio_write(dev, core, NPU_CORE_S_POINTER, 0xEu + 0x10000000u * core);
    }
    vnpu_mmio_write(dev, core, NPU_PC_DATA_ADDR, regcmd);
    vnpu_mmio_write(dev, core, NPU_PC_DATA_AMOUNT, amount);
    vnpu_mmio_write(dev, core, NPU_PC_INTERRUPT_MASK, last_mask);
    vnpu_mmio_write(dev, core, NPU_PC_INTERRUPT_CLEAR, first_mask);
    vnpu_mmio_write(dev, core, NPU_PC_TASK_CON, npu_soc_task_con(soc, ntasks, false));
    vnpu_mmio_write(dev, core, NPU_PC_TASK_DMA_BASE_ADDR, 0);
    vnpu_mmio_write(dev, core, NPU_PC_OPERATION_ENABLE, 1);
    vnpu_mmio_write(dev, core, NPU_PC_OPERATION_ENABLE, 0);
}

/* Place a chain, kick it on `core`, poll like a driver. Returns 0 when
 * fuzz(INT_STATUS) equals the last task's mask (then clears everything),
 * -1 on DMA error bits, -2 when nothing completed within `polls`. */
static inline int tasm_run(vnpu_device *dev, unsigned core, tasm_mem *m, const tasm_task *tasks,
                           unsigned ntasks)
{
    uint32_t amount, regcmd = tasm_place_chain(m, tasks, ntasks, &amount);
    uint32_t last = tasks[ntasks - 1].int_mask;

    tasm_kick(dev, core, regcmd, amount, ntasks, tasks[0].int_mask, last);
    for (int i = 0; i < 100; i++) {
        uint32_t st = vnpu_mmio_read(dev, core, NPU_PC_INTERRUPT_STATUS);
        uint32_t raw = vnpu_mmio_read(dev, core, NPU_PC_INTERRUPT_RAW_STATUS);
        if (raw & 0x3000u) {
            vnpu_mmio_write(dev, core, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
            return -1;
        }
        if (tasm_fuzz(st) == last) {
            vnpu_mmio_write(dev, core, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
            return 0;
        }
    }
    return -2;
}

/* A virtual NPU for SoC `id` over the test's arena (NPU address `base`),
 * with the arena's allocator reset: the SoC's profile, or NULL when the
 * model refuses it. */
static inline const npu_soc_profile *tasm_setup(vnpu_device *dev, tasm_mem *m, uint8_t *arena,
                                                uint32_t base, uint32_t bytes, rknpu_soc_id id)
{
    vnpu_dma_window w = {base, bytes, arena};
    const npu_soc_profile *soc = npu_soc_get(id);

    tasm_mem_init(m, arena, base, bytes);
    return vnpu_init(dev, soc, &w) == 0 ? soc : NULL;
}

/* ---- deterministic test data ------------------------------------------------ */

/* xorshift32. Each test program sets its own seed (tasm_seed at the start
 * of main), so its cases do not move when another test changes. */
static uint32_t tasm_rng_state = 1u;

static inline void tasm_seed(uint32_t seed)
{
    tasm_rng_state = seed;
}

static inline uint32_t rnd(void)
{
    tasm_rng_state ^= tasm_rng_state << 13;
    tasm_rng_state ^= tasm_rng_state >> 17;
    tasm_rng_state ^= tasm_rng_state << 5;
    return tasm_rng_state;
}

static inline int32_t rnd_range(int32_t lo, int32_t hi)
{
    return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1));
}

static inline uint32_t align_up(uint32_t v, uint32_t a)
{
    return (v + a - 1u) / a * a;
}

#endif /* VNPU_TEST_ASM_H */
