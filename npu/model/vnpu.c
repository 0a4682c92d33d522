/*
 * vnpu.c - the virtual NPU's MMIO face and program controller (PC):
 * register file, regcmd fetch/decode, task chaining, ping-pong executers,
 * interrupts, fault injection, trace and error reporting. The compute
 * units live in vnpu_cna.c / vnpu_dpu*.c / vnpu_ppu.c.
 *
 * Modelling decisions (hardware.md §1.2-§1.5, §3; vnpu.md §2):
 *  - Two register groups per unit (ping-pong, vnpu.md §2): a write lands in
 *    the group of the unit's pointer, a task reads the group of its
 *    executer; PC registers and each unit's S_STATUS/S_POINTER exist once.
 *    After a task each unit it enabled toggles its executer when S_POINTER
 *    has EXECUTER_PP_EN and its pointer when it has POINTER_PP_EN; the
 *    executer selects the completion interrupt bit (group 0/1).
 *  - A job (PC kick = PC OPERATION_ENABLE written with bit 0 set) runs
 *    synchronously: fetch (PC_DATA_AMOUNT + 1) * scale words at
 *    PC_DATA_ADDR, write them into the register file, execute at the 0x0081
 *    op-enable word, follow the tail's PC_DATA_ADDR / PC_DATA_AMOUNT words,
 *    stop after TASK_CON.TASK_NUMBER tasks (a dangling link is ignored; a
 *    missing link before that is an error).
 *  - INTERRUPT_RAW_STATUS receives, when the job ends, the completion bits of
 *    its last task (CNA CSC, CORE, DPU, PPU bits of the group each enabled
 *    unit used): in PC mode the mask applies to the last task (TRM via
 *    hardware.md §1.2), so a chain that fails half-way never looks complete.
 *    INTERRUPT_STATUS = RAW & MASK, INTERRUPT_CLEAR is write-1-to-clear.
 *  - Anything the model does not implement stops the job with DMA
 *    read+write error bits (12|13) and a message for vnpu_last_error(); DMA
 *    outside the window raises bit 12 (read) or 13 (write).
 */
#include <stdio.h>
#include <string.h>

#include "vnpu_base.h"
#include "vnpu_units.h"

/* RK3588's PC_VERSION (hardware.md §1.2, read by gd). The other SoCs' values are
 * unknown; the model reports the same one. */
#define VNPU_PC_VERSION 0x46495245u

static vnpu_core vnpu_cores[VNPU_MAX_CORES];
/* ---- ping-pong executers and completion bits ------------------------------ */

static uint32_t vnpu_s_pointer_offset(unsigned unit)
{
    return ((uint32_t)(unit + 1u) << 12) | 0x4u; /* CNA 0x1004 ... PPU_RDMA 0x7004 */
}

/* Completion bits of one task (group of each enabled unit), then toggle the
 * executers and pointers whose S_POINTER enables their ping-pong: the
 * next task of the unit writes and runs the other register group. */
static uint32_t vnpu_task_done_bits(vnpu_core *c, uint32_t enable)
{
    static const uint8_t irq_base[VNPU_UNIT_COUNT] = {
        [VNPU_UNIT_CNA] = 4,  /* CNA CSC group 0/1 */
        [VNPU_UNIT_CMAC] = 0, /* no interrupt of its own */
        [VNPU_UNIT_CORE] = 6, [VNPU_UNIT_DPU] = 8,      [VNPU_UNIT_DPU_RDMA] = 0,
        [VNPU_UNIT_PPU] = 10, [VNPU_UNIT_PPU_RDMA] = 0,
    };
    uint32_t bits = 0;

    for (unsigned u = 0; u < VNPU_UNIT_COUNT; u++) {
        if (!(enable & (1u << u)))
            continue;
        if (irq_base[u])
            bits |= 1u << (irq_base[u] + c->executer[u]);
        uint32_t sp = vnpu_reg(c, vnpu_s_pointer_offset(u));
        if (sp & NPU_CNA_S_POINTER_EXECUTER_PP_EN_MASK)
            c->executer[u] ^= 1u;
        if (sp & NPU_CNA_S_POINTER_POINTER_PP_EN_MASK)
            c->pointer[u] ^= 1u; /* the next task's writes go to the other group */
    }
    return bits;
}

/* ---- register writes (MMIO and regcmd stream) ----------------------------- */

static int vnpu_is_unit_s_pointer(uint32_t off, unsigned *unit)
{
    unsigned page = off >> 12;

    if ((off & 0xFFFu) != 0x4u || page < 1u || page > VNPU_UNIT_COUNT)
        return 0;
    *unit = page - 1u;
    return 1;
}

static int vnpu_is_unit_op_enable(uint32_t off)
{
    unsigned page = off >> 12;

    return (off & 0xFFFu) == 0x8u && page >= 1u && page <= VNPU_UNIT_COUNT;
}

/* A write to a compute/DMA-config register (not PC). */
static void vnpu_write_block_reg(vnpu_task *t, uint32_t off, uint32_t value, const char *src)
{
    vnpu_core *c = t->core;
    unsigned unit;

    vnpu_trace(t->dev, "vnpu%u %s %-28s [0x%04lx] = 0x%08lx", c->index, src, vnpu_reg_name(off),
               (unsigned long)off, (unsigned long)value);
    if (vnpu_is_unit_s_pointer(off, &unit)) {
        /* POINTER_PP_CLEAR / EXECUTER_PP_CLEAR are write-1-to-clear actions */
        if (value & NPU_CNA_S_POINTER_EXECUTER_PP_CLEAR_MASK)
            c->executer[unit] = 0;
        if (value & NPU_CNA_S_POINTER_POINTER_PP_CLEAR_MASK)
            c->pointer[unit] = 0;
        vnpu_reg_set(c, off,
                     value & ~(NPU_CNA_S_POINTER_POINTER_PP_CLEAR_MASK |
                               NPU_CNA_S_POINTER_EXECUTER_PP_CLEAR_MASK |
                               NPU_CNA_S_POINTER_EXECUTER_MASK));
        return;
    }
    if ((off >> 12) != 0 && (off & 0xFFFu) == 0u && (off >> 12) <= VNPU_UNIT_COUNT)
        return; /* S_STATUS is read-only */
    vnpu_reg_set(c, off, value);
    if (off == NPU_DPU_LUT_ACCESS_DATA) {
        vnpu_dpu_lut_write(t, value);
        return;
    }
    if (vnpu_is_unit_op_enable(off) &&
        NPU_CNA_OPERATION_ENABLE_OP_EN_GET(value)) /* one layout in every unit */
        vnpu_unsupported(t, off,
                         "a per-unit OP_EN (slave-mode start; streams use the 0x0081 op-enable)");
    else if (off == NPU_GLOBAL_OPERATION_ENABLE && value != 0)
        vnpu_unsupported(t, off, "GLOBAL OPERATION_ENABLE (slave-mode start)");
}

/* ---- task execution ------------------------------------------------------- */

/* A convolution: CNA + CORE accumulate a chunk of pixels at a time and the
 * DPU turns each chunk into output. */
static int vnpu_conv_task(vnpu_task *t)
{
    vnpu_cna_shape s;
    vnpu_dpu_plan *plan;
    int want_sumx;

    if (vnpu_cna_decode(t, &s) != 0)
        return -1;
    plan = vnpu_dpu_prepare(t, s.kout, s.npix, s.prec, s.depthwise);
    if (plan == NULL || vnpu_cna_load(t) != 0)
        return -1;
    want_sumx = vnpu_dpu_wants_sumx(plan);
    for (uint32_t p0 = 0; p0 < s.npix; p0 += s.chunk_pixels) {
        uint32_t n = s.npix - p0 < s.chunk_pixels ? s.npix - p0 : s.chunk_pixels;
        vnpu_acc_chunk chunk;

        vnpu_cna_accumulate(p0, n, want_sumx, &chunk);
        if (vnpu_dpu_process(t, plan, &chunk) != 0)
            return -1; /* unreachable: vnpu_dpu_process always returns 0 (the plan was checked) */
    }
    vnpu_cna_count_macs(t);
    return 0;
}

static int vnpu_execute(vnpu_task *t)
{
    uint32_t en = t->enable;
    const uint32_t conv = NPU_UNIT_CNA | NPU_UNIT_CORE | NPU_UNIT_DPU;
    const uint32_t ppu = NPU_UNIT_PPU | NPU_UNIT_PPU_RDMA;

    vnpu_trace(t->dev, "vnpu%u task %u: op-enable 0x%02lx group %u", t->core->index, t->task,
               (unsigned long)en,
               (unsigned)t->core->executer[(en & NPU_UNIT_DPU)   ? VNPU_UNIT_DPU
                                           : (en & NPU_UNIT_PPU) ? VNPU_UNIT_PPU
                                                                 : VNPU_UNIT_CNA]);
    if (en & ~(uint32_t)NPU_UNIT_ALL)
        return vnpu_fail(t, VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR,
                         "op-enable 0x%lx has bits outside the unit mask 0x7F", (unsigned long)en);
    if (en & NPU_UNIT_CNA) {
        if ((en & conv) != conv || (en & ppu))
            return vnpu_fail(t, VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR,
                             "op-enable 0x%lx: CNA without CORE+DPU, or with the PPU, is "
                             "not modelled",
                             (unsigned long)en);
        return t->dev->dry_run ? 0 : vnpu_conv_task(t);
    }
    if (en & (NPU_UNIT_CORE | NPU_UNIT_CMAC))
        return vnpu_fail(t, VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR,
                         "op-enable 0x%lx: CORE/CMAC without CNA is not modelled",
                         (unsigned long)en);
    if (en & NPU_UNIT_DPU) {
        if (en & ppu)
            return vnpu_fail(t, VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR,
                             "op-enable 0x%lx: flying DPU together with the PPU is not "
                             "modelled",
                             (unsigned long)en);
        return t->dev->dry_run ? 0 : vnpu_dpu_flying_task(t);
    }
    if ((en & ppu) == ppu)
        return t->dev->dry_run ? 0 : vnpu_ppu_task(t);
    return vnpu_fail(t, VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR,
                     "op-enable 0x%lx starts no complete pipeline (not modelled)",
                     (unsigned long)en);
}

/* Tail links found while decoding one task's fetch. */
typedef struct {
    uint32_t next_addr;
    uint32_t next_amount;
    int executed;
} vnpu_fetch_result;

/* Decode one regcmd word of a task's fetch. */
static int vnpu_decode_word(vnpu_task *t, uint64_t w, int *pre_enable, vnpu_fetch_result *res)
{
    const npu_soc_profile *soc = t->dev->soc;
    uint16_t tgt = npu_regcmd_target(w);
    uint16_t reg = npu_regcmd_reg(w);
    uint32_t val = npu_regcmd_value(w);
    const uint32_t both = VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR;

    if (tgt == NPU_TARGET_NOP)
        return 0;
    if (tgt == NPU_TARGET_PRE_ENABLE) {
        *pre_enable = 1;
        return 0;
    }
    if (tgt == NPU_TARGET_OP_ENABLE_ALL) {
        if (reg != NPU_PC_OPERATION_ENABLE)
            return vnpu_fail(t, both, "op-enable word 0x%016llx with register 0x%04x",
                             (unsigned long long)w, reg);
        if (!*pre_enable)
            return vnpu_fail(t, both,
                             "op-enable word without a preceding 0x0041 pre-enable "
                             "word (TRM requirement) not modelled");
        t->enable = val;
        res->executed = 1;
        return vnpu_execute(t);
    }
    if (tgt == NPU_TARGET_PC) {
        if (reg == NPU_PC_DATA_ADDR) {
            res->next_addr = val;
            vnpu_trace(t->dev, "vnpu%u stream PC_DATA_ADDR (next task) = 0x%08lx", t->core->index,
                       (unsigned long)val);
            return 0;
        }
        if (reg == NPU_PC_DATA_AMOUNT) {
            res->next_amount = val;
            vnpu_trace(t->dev, "vnpu%u stream PC_DATA_AMOUNT (next task) = 0x%08lx", t->core->index,
                       (unsigned long)val);
            return 0;
        }
        return vnpu_fail(t, both,
                         "regcmd write of PC register 0x%04x (%s) = 0x%08lx not "
                         "modelled",
                         reg, vnpu_reg_name(reg), (unsigned long)val);
    }

    int block = npu_block_from_target(tgt);
    uint32_t off = npu_soc_to_table_offset(soc, reg);
    int off_block = off == NPU_SOC_NO_OFFSET ? -1 : npu_block_of_offset(off);

    if (block < 0)
        return vnpu_fail(t, both, "unknown regcmd target 0x%04x (word 0x%016llx)", tgt,
                         (unsigned long long)w);
    if (block == NPU_BLOCK_CMAC) {
        if (off_block == NPU_BLOCK_DDMA && soc->cmac_target_carries_ddma)
            block = NPU_BLOCK_DDMA; /* RV1106: DDMA words ride on target 0x0401 */
        else if (!soc->has_cmac)
            return vnpu_fail(t, both, "CMAC target 0x0401 writing 0x%04x on %s (no CMAC block)",
                             reg, soc->name);
    }
    if (off_block != block)
        return vnpu_fail(t, both,
                         "regcmd target 0x%04x (%s) writes register 0x%04x outside "
                         "its block",
                         tgt, npu_block_name((enum npu_block)block), reg);
    if (npu_reg_lookup(off) == NULL)
        return vnpu_fail(t, both,
                         "unknown register 0x%04x written by target 0x%04x (%s) = "
                         "0x%08lx",
                         reg, tgt, npu_block_name((enum npu_block)block), (unsigned long)val);
    vnpu_write_block_reg(t, off, val, "W");
    return t->failed ? -1 : 0;
}

/* Fetch and run one task; fills the next link. */
static int vnpu_run_task(vnpu_task *t, uint32_t addr, uint32_t amount, vnpu_fetch_result *res)
{
    uint64_t words =
        npu_pc_fetch_words(NPU_PC_DATA_AMOUNT_DATA_AMOUNT_GET(amount), t->cfg->pc_scale);
    const uint8_t *p;
    int pre_enable = 0;

    vnpu_trace(t->dev, "vnpu%u task %u: fetch %llu words at 0x%08lx", t->core->index, t->task,
               (unsigned long long)words, (unsigned long)addr);
    p = vnpu_dma_read(t, addr, words * 8u, "PC regcmd fetch");
    if (p == NULL)
        return -1;
    res->next_addr = 0;
    res->next_amount = 0;
    res->executed = 0;
    for (uint64_t i = 0; i < words; i++) {
        uint64_t w = (uint64_t)vnpu_ld32(p + i * 8u) | ((uint64_t)vnpu_ld32(p + i * 8u + 4u) << 32);
        if (res->executed) {
            if (!npu_regcmd_is_nop(w))
                vnpu_trace(t->dev,
                           "vnpu%u task %u: word %llu after the op-enable ignored "
                           "(over-fetch)",
                           t->core->index, t->task, (unsigned long long)i);
            continue;
        }
        if (vnpu_decode_word(t, w, &pre_enable, res) != 0)
            return -1;
    }
    if (!res->executed)
        return vnpu_fail(t, VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR,
                         "no op-enable word in the %llu words fetched at 0x%08lx (PC_DATA_AMOUNT "
                         "0x%lx)",
                         (unsigned long long)words, (unsigned long)addr, (unsigned long)amount);
    return 0;
}

/* Flip bits of the last output the job wrote (VNPU_FAULT_CORRUPT_OUTPUT). */
static void vnpu_corrupt(vnpu_device *dev, uint32_t addr, uint32_t len)
{
    uint8_t *p;

    if (len == 0 || addr < dev->dma.dma_base)
        return;
    p = dev->dma.host + (addr - dev->dma.dma_base);
    for (uint32_t i = 0; i < len; i += 61u)
        p[i] ^= 0x5Au;
}

/* A fault armed for one task rather than a job (vnpu_inject_fault_at_task).
 * Only the dispatcher counts tasks and fires it, so its state lives here,
 * one slot per core, cleared with the core (vnpu_core_reset). */
typedef struct {
    vnpu_fault fault;    /* VNPU_FAULT_NONE: disarmed */
    uint32_t at_task;    /* the task it fires at, counted from arming (for the message) */
    uint32_t tasks_left; /* tasks the core still completes before it fires */
} vnpu_task_fault;

static vnpu_task_fault vnpu_task_faults[VNPU_MAX_CORES];

/* Called before task `k` of the job runs: if the core has reached the
 * armed task, stop the job there (t->failed, so no completion bit is
 * raised) and disarm. A hang leaves the core busy like a never-completing
 * job; a DMA error raises both error bits. Returns 1 if it fired. */
static int vnpu_task_fault_fires(vnpu_task *t, uint32_t k)
{
    vnpu_core *c = t->core;
    vnpu_task_fault *tf = &vnpu_task_faults[c->index];
    const char *what;

    if (tf->fault == VNPU_FAULT_NONE || tf->tasks_left > 0)
        return 0;
    if (tf->fault == VNPU_FAULT_NEVER_COMPLETE) {
        c->hung = 1;
        what = "the job never completes (core busy until reset)";
    } else {
        c->int_raw |= VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR;
        what = "DMA read+write error, the job stops";
    }
    snprintf(c->last_error, sizeof c->last_error,
             "injected fault at task %lu (task %lu of the job): %s", (unsigned long)tf->at_task,
             (unsigned long)k, what);
    vnpu_trace(t->dev, "vnpu%u %s", c->index, c->last_error);
    tf->fault = VNPU_FAULT_NONE;
    t->failed = 1;
    return 1;
}

/* A task of the core completed: one step closer to an armed task fault. */
static void vnpu_task_fault_count(const vnpu_core *c)
{
    vnpu_task_fault *tf = &vnpu_task_faults[c->index];

    if (tf->fault != VNPU_FAULT_NONE && tf->tasks_left > 0)
        tf->tasks_left--;
}

static vnpu_fault vnpu_take_fault(vnpu_core *c)
{
    vnpu_fault f = VNPU_FAULT_NONE;

    if (c->fault_jobs > 0) {
        f = c->fault;
        if (--c->fault_jobs == 0)
            c->fault = VNPU_FAULT_NONE;
    }
    return f;
}

/* One PC kick: run the chain described by the PC registers. */
static void vnpu_run_job(vnpu_device *dev, vnpu_core *c)
{
    vnpu_task t;
    vnpu_fetch_result res = {0, 0, 0};
    uint32_t pc_addr = vnpu_reg(c, NPU_PC_DATA_ADDR);
    uint32_t amount = vnpu_reg(c, NPU_PC_DATA_AMOUNT);
    uint32_t ntasks = vnpu_reg(c, NPU_PC_TASK_CON) & vnpu_cfg()->task_number_mask;
    uint32_t last_bits = 0, dpu_addr = 0, dpu_len = 0, any_addr = 0, any_len = 0;
    vnpu_fault fault;
    const uint32_t both = VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR;

    c->stats.jobs++;
    if (c->hung) {
        vnpu_trace(dev, "vnpu%u kick ignored: core busy (never-complete fault) until reset",
                   c->index);
        return;
    }
    fault = vnpu_take_fault(c);
    c->last_error[0] = '\0';
    memset(&t, 0, sizeof t);
    t.dev = dev;
    t.core = c;
    t.cfg = vnpu_cfg();
    vnpu_trace(dev, "vnpu%u job: PC_DATA_ADDR 0x%08lx PC_DATA_AMOUNT 0x%lx TASK_CON 0x%lx",
               c->index, (unsigned long)pc_addr, (unsigned long)amount,
               (unsigned long)vnpu_reg(c, NPU_PC_TASK_CON));
    if (fault == VNPU_FAULT_NEVER_COMPLETE) {
        c->hung = 1;
        snprintf(c->last_error, sizeof c->last_error,
                 "injected fault: the job never completes (core busy until reset)");
        vnpu_trace(dev, "vnpu%u %s", c->index, c->last_error);
        return;
    }
    if (pc_addr & NPU_PC_DATA_ADDR_PC_SEL_MASK)
        vnpu_unsupported(&t, NPU_PC_DATA_ADDR, "a kick in slave mode (PC_SEL = 1)");
    else if (pc_addr & ~(NPU_PC_DATA_ADDR_PC_SEL_MASK | NPU_PC_DATA_ADDR_PC_SOURCE_ADDR_MASK))
        vnpu_unsupported(&t, NPU_PC_DATA_ADDR, "a regcmd address that is not 16-byte aligned");
    else if (ntasks == 0)
        vnpu_unsupported(&t, NPU_PC_TASK_CON, "TASK_NUMBER 0");
    else if (vnpu_reg(c, NPU_PC_TASK_DMA_BASE_ADDR) != 0)
        vnpu_unsupported(&t, NPU_PC_TASK_DMA_BASE_ADDR, "a non-zero task DMA base");

    uint32_t addr = pc_addr;
    for (uint32_t k = 0; !t.failed && k < ntasks; k++) {
        t.task = k;
        if (k > 0 && addr == 0) {
            vnpu_fail(&t, VNPU_INT_DMA_READ_ERROR,
                      "the chain ended after %lu tasks (no PC_DATA_ADDR in the tail) but "
                      "TASK_CON.TASK_NUMBER is %lu",
                      (unsigned long)k, (unsigned long)ntasks);
            break;
        }
        if (vnpu_task_fault_fires(&t, k))
            break;
        t.last_write_len = 0;
        if (vnpu_run_task(&t, addr, amount, &res) != 0)
            break;
        c->task_counter = (c->task_counter + 1u) & vnpu_cfg()->task_number_mask;
        c->stats.tasks++;
        if (dev->task_done)
            dev->task_done(dev->task_done_ctx, c->index, k);
        vnpu_task_fault_count(c);
        last_bits = vnpu_task_done_bits(c, t.enable);
        if (t.last_write_len) {
            any_addr = t.last_write_addr;
            any_len = t.last_write_len;
            if (t.last_write_dpu) {
                dpu_addr = t.last_write_addr;
                dpu_len = t.last_write_len;
            }
        }
        addr = res.next_addr;
        amount = res.next_amount;
    }
    if (t.failed)
        return; /* error bits raised by vnpu_fail, no completion */
    if (fault == VNPU_FAULT_CORRUPT_OUTPUT) {
        if (dpu_len)
            vnpu_corrupt(dev, dpu_addr, dpu_len);
        else
            vnpu_corrupt(dev, any_addr, any_len);
    }
    if (fault == VNPU_FAULT_DMA_ERROR) {
        c->int_raw |= both;
        snprintf(c->last_error, sizeof c->last_error, "injected fault: DMA read+write error");
    }
    if (fault == VNPU_FAULT_DROP_IRQ)
        snprintf(c->last_error, sizeof c->last_error,
                 "injected fault: the last task's completion interrupt was dropped");
    else
        c->int_raw |= last_bits;
    vnpu_trace(dev, "vnpu%u job done: %lu tasks, INT_RAW_STATUS 0x%05lx", c->index,
               (unsigned long)ntasks, (unsigned long)c->int_raw);
}

/* ---- MMIO ------------------------------------------------------------------ */

static vnpu_core *vnpu_core_of(const vnpu_device *dev, unsigned core)
{
    if (dev == NULL || core >= VNPU_MAX_CORES)
        return NULL;
    return dev->cores[core];
}

/* A PC register written through MMIO. */
static void vnpu_write_pc(vnpu_device *dev, vnpu_core *c, vnpu_task *t, uint32_t off,
                          uint32_t value)
{
    uint32_t clear_bit = 1u << (vnpu_cfg()->task_number_bits + 1u); /* TASK_COUNT_CLEAR */

    vnpu_trace(dev, "vnpu%u mmio %-28s [0x%04lx] = 0x%08lx", c->index, vnpu_reg_name(off),
               (unsigned long)off, (unsigned long)value);
    switch (off) {
    case NPU_PC_OPERATION_ENABLE:
        vnpu_reg_set(c, off,
                     NPU_PC_OPERATION_ENABLE_OP_EN(NPU_PC_OPERATION_ENABLE_OP_EN_GET(value)));
        if (NPU_PC_OPERATION_ENABLE_OP_EN_GET(value))
            vnpu_run_job(dev, c);
        return;
    case NPU_PC_INTERRUPT_MASK: c->int_mask = value & VNPU_INT_ALL; return;
    case NPU_PC_INTERRUPT_CLEAR: c->int_raw &= ~value; return;
    case NPU_PC_INTERRUPT_STATUS:
    case NPU_PC_INTERRUPT_RAW_STATUS:
    case NPU_PC_VERSION:
    case NPU_PC_VERSION_NUM:
    case NPU_PC_TASK_STATUS: return; /* read-only */
    case NPU_PC_TASK_CON:
        if (value & clear_bit)
            c->task_counter = 0;
        vnpu_reg_set(c, off, value);
        return;
    case NPU_PC_DATA_ADDR:
    case NPU_PC_DATA_AMOUNT:
    case NPU_PC_TASK_DMA_BASE_ADDR: vnpu_reg_set(c, off, value); return;
    default:
        vnpu_reg_set(c, off, value);
        vnpu_unsupported(t, off, "this PC register");
        return;
    }
}

void vnpu_mmio_write(vnpu_device *dev, unsigned core, uint32_t offset, uint32_t value)
{
    vnpu_core *c = vnpu_core_of(dev, core);
    vnpu_task t;
    uint32_t off;

    if (c == NULL)
        return;
    memset(&t, 0, sizeof t);
    t.dev = dev;
    t.core = c;
    t.cfg = vnpu_cfg();
    t.task = ~0u;
    off = (offset & 3u) ? NPU_SOC_NO_OFFSET : npu_soc_to_table_offset(dev->soc, offset & 0xFFFFu);
    if (off == NPU_SOC_NO_OFFSET || npu_reg_lookup(off) == NULL || offset > 0xFFFFu) {
        vnpu_trace(dev, "vnpu%u mmio write 0x%04lx = 0x%08lx: unknown register", c->index,
                   (unsigned long)offset, (unsigned long)value);
        vnpu_fail(&t, VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR,
                  "write of 0x%08lx to unknown register offset 0x%04lx not modelled",
                  (unsigned long)value, (unsigned long)offset);
        return;
    }
    if (npu_block_of_offset(off) == NPU_BLOCK_PC)
        vnpu_write_pc(dev, c, &t, off, value);
    else
        vnpu_write_block_reg(&t, off, value, "mmio");
}

uint32_t vnpu_mmio_read(vnpu_device *dev, unsigned core, uint32_t offset)
{
    vnpu_core *c = vnpu_core_of(dev, core);
    uint32_t off;
    unsigned unit;

    if (c == NULL || (offset & 3u) || offset > 0xFFFFu)
        return 0;
    off = npu_soc_to_table_offset(dev->soc, offset);
    if (off == NPU_SOC_NO_OFFSET)
        return 0;
    switch (off) {
    case NPU_PC_VERSION: return dev->pc_version;
    case NPU_PC_VERSION_NUM: return 0;
    case NPU_PC_INTERRUPT_MASK: return c->int_mask;
    case NPU_PC_INTERRUPT_CLEAR: return 0;
    case NPU_PC_INTERRUPT_STATUS: return c->int_raw & c->int_mask;
    case NPU_PC_INTERRUPT_RAW_STATUS: return c->int_raw;
    case NPU_PC_TASK_STATUS: return c->task_counter & vnpu_cfg()->task_number_mask;
    case NPU_DDMA_CFG_STATUS:
    case NPU_SDMA_CFG_STATUS: return NPU_DDMA_CFG_STATUS_IDLE_MASK; /* DMA idle */
    default: break;
    }
    if (vnpu_is_unit_s_pointer(off, &unit))
        return vnpu_reg(c, off) |
               NPU_CNA_S_POINTER_EXECUTER(c->executer[unit]); /* one layout in every unit */
    if ((off & 0xFFFu) == 0u && (off >> 12) >= 1u && (off >> 12) <= VNPU_UNIT_COUNT) {
        /* S_STATUS: operating (1) while hung, idle otherwise */
        return c->hung ? 1u : 0u;
    }
    return vnpu_reg(c, off);
}

/* ---- life cycle ------------------------------------------------------------ */

static void vnpu_core_reset(vnpu_core *c, unsigned index)
{
    vnpu_stats keep = c->stats;

    memset(c, 0, sizeof *c);
    memset(&vnpu_task_faults[index], 0, sizeof vnpu_task_faults[index]);
    c->index = index;
    c->int_mask = VNPU_INT_ALL; /* reset value (hardware.md §1.2) */
    c->stats = keep;            /* counters are not hardware state */
}

int vnpu_init(vnpu_device *dev, const npu_soc_profile *soc, const vnpu_dma_window *dma)
{
    if (dev == NULL || soc == NULL || dma == NULL || (dma->host == NULL && dma->size != 0) ||
        soc->core_count == 0 || soc->core_count > VNPU_MAX_CORES ||
        (soc->feature_atom_bytes != 8 && soc->feature_atom_bytes != 16))
        return -1;
    if (vnpu_base_init(soc) != 0)
        return -1;
    memset(dev, 0, sizeof *dev);
    dev->soc = soc;
    dev->dma = *dma;
    dev->pc_version = VNPU_PC_VERSION;
    for (unsigned i = 0; i < VNPU_MAX_CORES; i++) {
        memset(&vnpu_cores[i], 0, sizeof vnpu_cores[i]);
        vnpu_core_reset(&vnpu_cores[i], i);
        dev->cores[i] = i < soc->core_count ? &vnpu_cores[i] : NULL;
    }
    return 0;
}

void vnpu_set_pc_version(vnpu_device *dev, uint32_t version)
{
    dev->pc_version = version;
}

void vnpu_reset(vnpu_device *dev, unsigned core)
{
    vnpu_core *c = vnpu_core_of(dev, core);

    if (c == NULL)
        return;
    vnpu_core_reset(c, core);
    vnpu_trace(dev, "vnpu%u reset", core);
}

void vnpu_inject_fault(vnpu_device *dev, unsigned core, vnpu_fault fault, unsigned count)
{
    vnpu_core *c = vnpu_core_of(dev, core);

    if (c == NULL)
        return;
    c->fault = count ? fault : VNPU_FAULT_NONE;
    c->fault_jobs = fault == VNPU_FAULT_NONE ? 0 : count;
}

int vnpu_inject_fault_at_task(vnpu_device *dev, unsigned core, vnpu_fault fault, uint32_t task)
{
    vnpu_core *c = vnpu_core_of(dev, core);

    if (c == NULL || (fault != VNPU_FAULT_NONE && fault != VNPU_FAULT_NEVER_COMPLETE &&
                      fault != VNPU_FAULT_DMA_ERROR))
        return -1;
    vnpu_task_faults[core].fault = fault;
    vnpu_task_faults[core].at_task = task;
    vnpu_task_faults[core].tasks_left = task;
    return 0;
}

void vnpu_set_trace(vnpu_device *dev, vnpu_trace_sink sink, void *ctx)
{
    if (dev == NULL)
        return;
    dev->trace = sink;
    dev->trace_ctx = ctx;
}

void vnpu_set_dry_run(vnpu_device *dev, int on)
{
    if (dev != NULL)
        dev->dry_run = on != 0;
}

void vnpu_set_task_hook(vnpu_device *dev, vnpu_task_hook hook, void *ctx)
{
    if (dev == NULL)
        return;
    dev->task_done = hook;
    dev->task_done_ctx = ctx;
}

const char *vnpu_last_error(const vnpu_device *dev, unsigned core)
{
    vnpu_core *c = vnpu_core_of(dev, core);

    return c ? c->last_error : "";
}

void vnpu_get_stats(const vnpu_device *dev, unsigned core, vnpu_stats *out)
{
    vnpu_core *c = vnpu_core_of(dev, core);

    if (out == NULL)
        return;
    if (c == NULL)
        memset(out, 0, sizeof *out);
    else
        *out = c->stats;
}

void vnpu_set_cvt_bit0(vnpu_device *dev, vnpu_cvt_bit0 meaning)
{
    if (dev == NULL || dev->soc == NULL)
        return;
    if (meaning == VNPU_CVT_BIT0_PROFILE)
        vnpu_cfg_set_cvt_bit0(npu_soc_is_rk356x(dev->soc));
    else
        vnpu_cfg_set_cvt_bit0(meaning == VNPU_CVT_BIT0_ENABLE);
}
