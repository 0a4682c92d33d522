/*
 * npu_driver.c - the submit_pc sequence, completion polling with the
 * fuzz-status rule, timeouts and reset (see npu_driver.h).
 */
#include <string.h>

#include "hal.h"
#include "npu_driver.h"
#include "npu_regcmd.h"
#include "npu_regs.h"

#define DEFAULT_TIMEOUT_US 1000000u

/* Sets of cores (the hooks' core_mask, version_checked) as bit masks. */
static unsigned core_bit(unsigned core)
{
    return 1u << core;
}

int npu_device_init(npu_device *dev, const npu_soc_profile *soc, const uintptr_t *bases,
                    uint32_t timeout_us)
{
    if (!dev || !soc || !bases)
        return NPU_ERR_PARAM;
    memset(dev, 0, sizeof *dev);
    dev->soc = soc;
    for (unsigned i = 0; i < RKNPU_MAX_CORES; i++)
        dev->core_base[i] = bases[i];
    dev->timeout_us = timeout_us ? timeout_us : DEFAULT_TIMEOUT_US;
    return NPU_OK;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void npu_task_decode(const uint8_t *records, uint32_t i, npu_task *out)
{
    const uint8_t *r = records + (size_t)i * NPU_TASK_RECORD_SIZE;

    out->enable_mask = le32(r + NPU_TASK_ENABLE_MASK);
    out->int_mask = le32(r + NPU_TASK_INT_MASK);
    out->regcfg_amount = le32(r + NPU_TASK_REGCFG_AMOUNT);
    out->regcmd_addr = (uint64_t)le32(r + NPU_TASK_REGCMD_ADDR) |
                       (uint64_t)le32(r + NPU_TASK_REGCMD_ADDR + 4) << 32;
}

uint32_t npu_fuzz_status(uint32_t status)
{
    /* each unit's two ping-pong groups */
#define GROUPS(unit)                                                                               \
    (NPU_PC_INTERRUPT_STATUS_##unit##_GROUP0_MASK | NPU_PC_INTERRUPT_STATUS_##unit##_GROUP1_MASK)
    static const uint32_t groups[] = {GROUPS(CNA_FEATURE), GROUPS(CNA_WEIGHT), GROUPS(CNA_CSC),
                                      GROUPS(CORE),        GROUPS(DPU),        GROUPS(PPU)};
#undef GROUPS
    uint32_t out = 0;

    for (unsigned i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (status & groups[i])
            out |= groups[i];
    return out;
}

static void reg_write(const npu_device *dev, unsigned core, uint32_t offset, uint32_t value)
{
    hal_mmio_write32(dev->core_base[core] + offset, value);
}

static uint32_t reg_read(const npu_device *dev, unsigned core, uint32_t offset)
{
    return hal_mmio_read32(dev->core_base[core] + offset);
}

void npu_core_reset(npu_device *dev, unsigned core)
{
    dev->stats.resets++;
    if (rknpu_hook_npu_reset(core) != 0) /* untested: every board of the tests resets */
        HAL_LOG_WARN("npu: core %u has no reset hook: its state after the failure is unknown",
                     core);
    reg_write(dev, core, NPU_PC_INTERRUPT_CLEAR, dev->soc->int_clear_all);
}

/* Before a core's first job: is this the NPU the profile describes? (The
 * Ethos-U driver checks its product and version registers the same way.) */
static int check_version(npu_device *dev, unsigned core)
{
    uint32_t v;

    if (dev->version_checked & core_bit(core))
        return NPU_OK;
    v = reg_read(dev, core, NPU_PC_VERSION);
    if (v == 0) {
        HAL_LOG_ERR("npu: core %u: PC_VERSION reads 0 at 0x%lx: the NPU is not powered or "
                    "clocked, or the address is not an NPU",
                    core, (unsigned long)dev->core_base[core]);
        return NPU_ERR_UNAVAILABLE;
    }
    if (dev->soc->pc_version && v != dev->soc->pc_version) {
        HAL_LOG_ERR("npu: core %u: PC_VERSION 0x%08lx, %s has 0x%08lx: another SoC or a wrong "
                    "platform profile",
                    core, (unsigned long)v, dev->soc->name, (unsigned long)dev->soc->pc_version);
        return NPU_ERR_UNAVAILABLE;
    }
    dev->version_checked |= core_bit(core);
    return NPU_OK;
}

/* ---- submission ----------------------------------------------------------- */

/* What the trace hook sees of a slice (rknpu_hooks.h). */
static void announce_slice(const npu_device *dev, unsigned core, unsigned core_mask,
                           const npu_core_job *job, uint32_t first, uint32_t count,
                           uint32_t task_con, uint32_t int_mask, uint32_t int_clear)
{
    rknpu_submit_slice s = {
        .job = dev->stats.jobs,
        .core = core,
        .core_mask = core_mask,
        .records = job->records + (size_t)first * NPU_TASK_RECORD_SIZE,
        .first = first,
        .count = count,
        .stream_dma = job->stream_dma,
        .task_con = task_con,
        .pingpong = job->ping_pong,
        .int_mask = int_mask,
        .int_clear = int_clear,
    };

    rknpu_hook_submit(&s);
}

/* The BSP's submit_pc for tasks [first, first + count) (hardware.md §3.2). */
static void submit_slice(npu_device *dev, unsigned core, unsigned core_mask,
                         const npu_core_job *job, uint32_t first, uint32_t count,
                         uint32_t *last_int_mask)
{
    const npu_soc_profile *soc = dev->soc;
    uint32_t task_con = npu_soc_task_con(soc, count, job->ping_pong != 0);
    uintptr_t regs = dev->core_base[core]; /* the core's registers: one base for the writes below */
    npu_task t_first, t_last;

    npu_task_decode(job->records, first, &t_first);
    npu_task_decode(job->records, first + count - 1, &t_last);
    announce_slice(dev, core, core_mask, job, first, count, task_con, t_last.int_mask,
                   t_first.int_mask);
    dev->stats.slices++;
    hal_mmio_write32(regs + NPU_PC_DATA_ADDR, NPU_PC_DATA_ADDR_PC_SEL(1)); /* slave mode */
    if (soc->multi_irq) {
        uint32_t arm = NPU_S_POINTER_PP_ARM | NPU_CNA_S_POINTER_CORE_INDEX(core);
        hal_mmio_write32(regs + NPU_CNA_S_POINTER, arm);
        hal_mmio_write32(regs + NPU_CORE_S_POINTER, arm);
    }
    hal_mmio_write32(regs + NPU_PC_DATA_ADDR, job->stream_dma + (uint32_t)t_first.regcmd_addr);
    hal_mmio_write32(regs + NPU_PC_DATA_AMOUNT,
                     npu_pc_fetch_amount(t_first.regcfg_amount, soc->pc_data_amount_scale));
    hal_mmio_write32(regs + NPU_PC_INTERRUPT_MASK, t_last.int_mask);
    hal_mmio_write32(regs + NPU_PC_INTERRUPT_CLEAR, t_first.int_mask);
    hal_mmio_write32(regs + NPU_PC_TASK_CON, task_con);
    hal_mmio_write32(regs + NPU_PC_TASK_DMA_BASE_ADDR, 0);
    hal_wmb(); /* the stream and data must be visible before the kick */
    hal_mmio_write32(regs + NPU_PC_OPERATION_ENABLE, NPU_PC_OPERATION_ENABLE_OP_EN(1));
    hal_mmio_write32(regs + NPU_PC_OPERATION_ENABLE, 0);
    *last_int_mask = t_last.int_mask;
}

static void start_next_slice(npu_device *dev, const npu_pending *p, npu_core_state *cs)
{
    uint32_t max = dev->soc->max_submit_tasks;
    uint32_t n = cs->left < max ? cs->left : max;

    submit_slice(dev, cs->job.core, p->core_mask, &cs->job, cs->next, n, &cs->int_mask);
    cs->next += n;
    cs->left -= n;
    cs->busy = 1;
}

static int check_jobs(const npu_device *dev, const npu_core_job *jobs, unsigned n)
{
    unsigned seen = 0;

    if (!dev || !dev->soc || !jobs || n == 0 || n > dev->soc->core_count)
        return NPU_ERR_PARAM;
    for (unsigned i = 0; i < n; i++) {
        if (jobs[i].core >= dev->soc->core_count || (seen & core_bit(jobs[i].core)) ||
            !jobs[i].records || jobs[i].count == 0)
            return NPU_ERR_PARAM;
        seen |= core_bit(jobs[i].core);
    }
    return NPU_OK;
}

/* Tasks the core has completed in the current submission (TASK_STATUS). */
static uint32_t tasks_done(const npu_device *dev, unsigned core)
{
    return reg_read(dev, core, dev->soc->pc_task_status_offset) & dev->soc->pc_task_number_mask;
}

/* Poll one busy core once. Returns 1 when its slice finished, 0 while it
 * runs, or a negative npu_status. */
static int poll_core(npu_device *dev, npu_core_state *cs, uint32_t *status_out)
{
    unsigned core = cs->job.core;
    uint32_t raw = reg_read(dev, core, NPU_PC_INTERRUPT_RAW_STATUS);
    uint32_t status = reg_read(dev, core, NPU_PC_INTERRUPT_STATUS);

    *status_out = status;
    if (raw & (NPU_PC_INTERRUPT_RAW_STATUS_DMA_READ_ERROR_MASK |
               NPU_PC_INTERRUPT_RAW_STATUS_DMA_WRITE_ERROR_MASK)) {
        HAL_LOG_ERR("npu: core %u raised a DMA %s error (raw status 0x%lx) after %lu task(s)", core,
                    (raw & NPU_PC_INTERRUPT_RAW_STATUS_DMA_READ_ERROR_MASK) ? "read" : "write",
                    (unsigned long)raw, (unsigned long)tasks_done(dev, core));
        dev->stats.dma_errors++;
        return NPU_ERR_FAIL;
    }
    if (status && npu_fuzz_status(status) == cs->int_mask) {
        reg_write(dev, core, NPU_PC_INTERRUPT_CLEAR, dev->soc->int_clear_all);
        cs->busy = 0;
        return 1;
    }
    return 0;
}

npu_pending *npu_core_owner(const npu_device *dev, unsigned core)
{
    return dev && core < RKNPU_MAX_CORES ? dev->owner[core] : NULL;
}

/* The job is over (done or failed): its cores are free again. */
static void finish(npu_device *dev, npu_pending *p, int result)
{
    unsigned mask = 0;

    for (unsigned i = 0; i < p->n; i++) {
        dev->owner[p->cs[i].job.core] = NULL;
        mask |= core_bit(p->cs[i].job.core);
    }
    p->active = 0;
    rknpu_hook_inference_end(p->owner, mask, result);
}

static void fail_all(npu_device *dev, npu_pending *p, int result)
{
    for (unsigned i = 0; i < p->n; i++) {
        unsigned core = p->cs[i].job.core;
        p->result.tasks_done[i] = tasks_done(dev, core);
        npu_core_reset(dev, core);
    }
    finish(dev, p, result);
}

/* The owner of the library's own jobs (the self-test's network). */
static const rknpu_job_owner library_owner;

int npu_start(npu_device *dev, const npu_core_job *jobs, unsigned n, const rknpu_job_owner *owner,
              npu_pending *p)
{
    unsigned mask = 0;
    int ret = check_jobs(dev, jobs, n);

    if (ret != NPU_OK) {
        memset(p, 0, sizeof *p);
        HAL_LOG_ERR("npu: invalid job (%u core(s))", n);
        return ret;
    }
    for (unsigned i = 0; i < n; i++) {
        if (dev->owner[jobs[i].core]) {
            HAL_LOG_ERR("npu: core %u still runs a job nobody has waited for", jobs[i].core);
            return NPU_ERR_UNAVAILABLE;
        }
        if ((ret = check_version(dev, jobs[i].core)) != NPU_OK)
            return ret;
        mask |= core_bit(jobs[i].core);
    }
    memset(p, 0, sizeof *p);
    p->n = n;
    p->core_mask = mask;
    p->busy = n;
    p->owner = owner ? owner : &library_owner;
    dev->stats.jobs++;
    rknpu_hook_inference_begin(p->owner, mask);
    p->start = rknpu_hook_time_us();
    for (unsigned i = 0; i < n; i++) {
        p->cs[i].job = jobs[i];
        p->cs[i].next = jobs[i].first;
        p->cs[i].left = jobs[i].count;
        dev->owner[jobs[i].core] = p;
        start_next_slice(dev, p, &p->cs[i]);
    }
    p->deadline = p->start + dev->timeout_us;
    p->active = 1;
    return NPU_OK;
}

/* One pass over the busy cores; NPU_OK, or a failure (cores reset). */
static int poll_pass(npu_device *dev, npu_pending *p)
{
    for (unsigned i = 0; i < p->n; i++) {
        int ret;
        if (!p->cs[i].busy)
            continue;
        ret = poll_core(dev, &p->cs[i], &p->result.int_status[i]);
        if (ret < 0) {
            fail_all(dev, p, ret);
            return ret;
        }
        if (ret == 1) {
            if (p->cs[i].left)
                start_next_slice(dev, p, &p->cs[i]);
            else
                p->busy--;
            if (p->busy) /* progress: what still runs gets a fresh timeout */
                p->deadline = rknpu_hook_time_us() + dev->timeout_us;
        }
    }
    return NPU_OK;
}

int npu_wait(npu_device *dev, npu_pending *p, npu_job_result *res)
{
    int ret = NPU_OK;

    if (!dev || !p->active)
        return NPU_ERR_PARAM;
    while (p->busy && ret == NPU_OK) {
        ret = poll_pass(dev, p);
        if (ret != NPU_OK || !p->busy)
            break;
        if (rknpu_hook_time_us() > p->deadline) {
            for (unsigned i = 0; i < p->n; i++)
                if (p->cs[i].busy)
                    HAL_LOG_ERR("npu: core %u: no completion within %lu us (status 0x%lx, want "
                                "0x%lx)",
                                p->cs[i].job.core, (unsigned long)dev->timeout_us,
                                (unsigned long)p->result.int_status[i],
                                (unsigned long)p->cs[i].int_mask);
            dev->stats.timeouts++;
            fail_all(dev, p, NPU_ERR_TIMEOUT);
            ret = NPU_ERR_TIMEOUT;
            break;
        }
        rknpu_hook_poll_yield();
    }
    if (ret == NPU_OK) {
        hal_rmb(); /* outputs written by the NPU are visible from here on */
        p->result.hw_time_us = rknpu_hook_time_us() - p->start;
        finish(dev, p, NPU_OK);
    }
    if (res)
        *res = p->result;
    return ret;
}

int npu_run(npu_device *dev, const npu_core_job *jobs, unsigned n, const rknpu_job_owner *owner,
            npu_job_result *res)
{
    npu_pending p;
    int ret = npu_start(dev, jobs, n, owner, &p);

    if (ret != NPU_OK) {
        memset(res, 0, sizeof *res);
        return ret;
    }
    return npu_wait(dev, &p, res);
}
