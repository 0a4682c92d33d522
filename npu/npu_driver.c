/*
 * npu_driver.c - the submit_pc sequence, completion polling with the
 * fuzz-status rule, timeouts and reset (see npu_driver.h).
 */
#include <string.h>

#include "hal.h"
#include "npu_driver.h"
#include "npu_regcmd.h"
#include "npu_regs.h"
#include "rknn_api.h"


static const npu_soc_profile *soc;
static uintptr_t core_base[RKNPU_MAX_CORES];
static uint32_t timeout_us = 1000000u;

/* Which pending job each core runs: a second job must not restart a core
 * whose job nobody has waited for yet. */
static npu_pending *core_owner[RKNPU_MAX_CORES];

void npu_driver_configure(const npu_soc_profile *profile, const uintptr_t *bases, uint32_t t_us)
{
    soc = profile;
    for (unsigned i = 0; i < RKNPU_MAX_CORES; i++) {
        core_base[i] = bases[i];
        core_owner[i] = NULL;
    }
    timeout_us = t_us ? t_us : 1000000u;
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
    out->regcmd_addr =
        (uint64_t)le32(r + NPU_TASK_REGCMD_ADDR) | (uint64_t)le32(r + NPU_TASK_REGCMD_ADDR + 4) << 32;
}

uint32_t npu_fuzz_status(uint32_t status)
{
    /* each unit's two ping-pong groups */
#define GROUPS(unit) (NPU_PC_INTERRUPT_STATUS_##unit##_GROUP0_MASK | NPU_PC_INTERRUPT_STATUS_##unit##_GROUP1_MASK)
    static const uint32_t groups[] = {GROUPS(CNA_FEATURE), GROUPS(CNA_WEIGHT), GROUPS(CNA_CSC),
                                      GROUPS(CORE),        GROUPS(DPU),        GROUPS(PPU)};
#undef GROUPS
    uint32_t out = 0;

    for (unsigned i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (status & groups[i])
            out |= groups[i];
    return out;
}

static void reg_write(unsigned core, uint32_t offset, uint32_t value)
{
    hal_mmio_write32(core_base[core] + offset, value);
}

static uint32_t reg_read(unsigned core, uint32_t offset)
{
    return hal_mmio_read32(core_base[core] + offset);
}

void npu_core_reset(unsigned core)
{
    if (rknpu_hook_npu_reset(core) != 0)
        HAL_LOG_WARN("npu: core %u has no reset hook: its state after the failure is unknown", core);
    reg_write(core, NPU_PC_INTERRUPT_CLEAR, soc->int_clear_all);
}

/* ---- submission ----------------------------------------------------------- */

/* The BSP's submit_pc for tasks [first, first + count) (hw.md §3.2). */
static void submit_slice(unsigned core, const npu_core_job *job, uint32_t first, uint32_t count,
                         uint32_t *last_int_mask)
{
    npu_task t_first, t_last;

    npu_task_decode(job->records, first, &t_first);
    npu_task_decode(job->records, first + count - 1, &t_last);
    reg_write(core, NPU_PC_DATA_ADDR, NPU_PC_DATA_ADDR_PC_SEL(1)); /* slave mode */
    if (soc->multi_irq) {
        uint32_t arm = NPU_S_POINTER_PP_ARM | NPU_CNA_S_POINTER_CORE_INDEX(core);
        reg_write(core, NPU_CNA_S_POINTER, arm);
        reg_write(core, NPU_CORE_S_POINTER, arm);
    }
    reg_write(core, NPU_PC_DATA_ADDR, job->stream_dma + (uint32_t)t_first.regcmd_addr);
    reg_write(core, NPU_PC_DATA_AMOUNT,
              npu_pc_fetch_amount(t_first.regcfg_amount, soc->pc_data_amount_scale));
    reg_write(core, NPU_PC_INTERRUPT_MASK, t_last.int_mask);
    reg_write(core, NPU_PC_INTERRUPT_CLEAR, t_first.int_mask);
    reg_write(core, NPU_PC_TASK_CON, npu_soc_task_con(soc, count, false));
    reg_write(core, NPU_PC_TASK_DMA_BASE_ADDR, 0);
    hal_wmb(); /* the stream and data must be visible before the kick */
    reg_write(core, NPU_PC_OPERATION_ENABLE, 1);
    reg_write(core, NPU_PC_OPERATION_ENABLE, 0);
    *last_int_mask = t_last.int_mask;
}

static void start_next_slice(npu_core_state *cs)
{
    uint32_t n = cs->left < soc->max_submit_tasks ? cs->left : soc->max_submit_tasks;

    submit_slice(cs->job.core, &cs->job, cs->next, n, &cs->int_mask);
    cs->next += n;
    cs->left -= n;
    cs->busy = 1;
}

static int check_jobs(const npu_core_job *jobs, unsigned n)
{
    unsigned seen = 0;

    if (!soc || !jobs || n == 0 || n > soc->core_count)
        return RKNN_ERR_PARAM_INVALID;
    for (unsigned i = 0; i < n; i++) {
        if (jobs[i].core >= soc->core_count || (seen & (1u << jobs[i].core)) || !jobs[i].records ||
            jobs[i].count == 0)
            return RKNN_ERR_PARAM_INVALID;
        seen |= 1u << jobs[i].core;
    }
    return RKNN_SUCC;
}

/* Tasks the core has completed in the current submission (TASK_STATUS). */
static uint32_t tasks_done(unsigned core)
{
    return reg_read(core, soc->pc_task_status_offset) & soc->pc_task_number_mask;
}

/* Poll one busy core once. Returns 1 when its slice finished, 0 while it
 * runs, or a negative RKNN error. */
static int poll_core(npu_core_state *cs, uint32_t *status_out)
{
    unsigned core = cs->job.core;
    uint32_t raw = reg_read(core, NPU_PC_INTERRUPT_RAW_STATUS);
    uint32_t status = reg_read(core, NPU_PC_INTERRUPT_STATUS);

    *status_out = status;
    if (raw & (NPU_PC_INTERRUPT_RAW_STATUS_DMA_READ_ERROR_MASK |
               NPU_PC_INTERRUPT_RAW_STATUS_DMA_WRITE_ERROR_MASK)) {
        HAL_LOG_ERR("npu: core %u raised a DMA %s error (raw status 0x%lx) after %lu task(s)", core,
                    (raw & NPU_PC_INTERRUPT_RAW_STATUS_DMA_READ_ERROR_MASK) ? "read" : "write",
                    (unsigned long)raw, (unsigned long)tasks_done(core));
        return RKNN_ERR_FAIL;
    }
    if (status && npu_fuzz_status(status) == cs->int_mask) {
        reg_write(core, NPU_PC_INTERRUPT_CLEAR, soc->int_clear_all);
        cs->busy = 0;
        return 1;
    }
    return 0;
}

npu_pending *npu_core_owner(unsigned core)
{
    return core < RKNPU_MAX_CORES ? core_owner[core] : NULL;
}

/* The job is over (done or failed): its cores are free again. */
static void finish(npu_pending *p)
{
    for (unsigned i = 0; i < p->n; i++)
        core_owner[p->cs[i].job.core] = NULL;
    p->active = 0;
}

static void fail_all(npu_pending *p)
{
    for (unsigned i = 0; i < p->n; i++) {
        unsigned core = p->cs[i].job.core;
        p->result.tasks_done[i] = tasks_done(core);
        npu_core_reset(core);
    }
    finish(p);
}

int npu_start(const npu_core_job *jobs, unsigned n, npu_pending *p)
{
    int ret = check_jobs(jobs, n);

    if (ret != RKNN_SUCC) {
        memset(p, 0, sizeof *p);
        HAL_LOG_ERR("npu: invalid job (%u core(s))", n);
        return ret;
    }
    for (unsigned i = 0; i < n; i++)
        if (core_owner[jobs[i].core]) {
            HAL_LOG_ERR("npu: core %u still runs a job nobody has waited for", jobs[i].core);
            return RKNN_ERR_DEVICE_UNAVAILABLE;
        }
    memset(p, 0, sizeof *p);
    p->n = n;
    p->busy = n;
    p->start = rknpu_hook_time_us();
    for (unsigned i = 0; i < n; i++) {
        p->cs[i].job = jobs[i];
        p->cs[i].next = jobs[i].first;
        p->cs[i].left = jobs[i].count;
        core_owner[jobs[i].core] = p;
        start_next_slice(&p->cs[i]);
    }
    p->deadline = p->start + timeout_us;
    p->active = 1;
    return RKNN_SUCC;
}

/* One pass over the busy cores; RKNN_SUCC, or a failure (cores reset). */
static int poll_pass(npu_pending *p)
{
    for (unsigned i = 0; i < p->n; i++) {
        int ret;
        if (!p->cs[i].busy)
            continue;
        ret = poll_core(&p->cs[i], &p->result.int_status[i]);
        if (ret < 0) {
            fail_all(p);
            return ret;
        }
        if (ret == 1) {
            if (p->cs[i].left)
                start_next_slice(&p->cs[i]); /* the next slice gets a fresh timeout */
            else
                p->busy--;
            p->deadline = rknpu_hook_time_us() + timeout_us;
        }
    }
    return RKNN_SUCC;
}

int npu_wait(npu_pending *p, npu_job_result *res)
{
    int ret = RKNN_SUCC;

    if (!p->active)
        return RKNN_ERR_PARAM_INVALID;
    while (p->busy && ret == RKNN_SUCC) {
        ret = poll_pass(p);
        if (ret != RKNN_SUCC || !p->busy)
            break;
        if (rknpu_hook_time_us() > p->deadline) {
            for (unsigned i = 0; i < p->n; i++)
                if (p->cs[i].busy)
                    HAL_LOG_ERR("npu: core %u: no completion within %lu us (status 0x%lx, want "
                                "0x%lx)", p->cs[i].job.core, (unsigned long)timeout_us,
                                (unsigned long)p->result.int_status[i],
                                (unsigned long)p->cs[i].int_mask);
            fail_all(p);
            ret = RKNN_ERR_TIMEOUT;
            break;
        }
        rknpu_hook_poll_yield();
    }
    if (ret == RKNN_SUCC) {
        hal_rmb(); /* outputs written by the NPU are visible from here on */
        p->result.hw_time_us = rknpu_hook_time_us() - p->start;
        finish(p);
    }
    if (res)
        *res = p->result;
    return ret;
}

int npu_run(const npu_core_job *jobs, unsigned n, npu_job_result *res)
{
    npu_pending p;
    int ret = npu_start(jobs, n, &p);

    if (ret != RKNN_SUCC) {
        memset(res, 0, sizeof *res);
        return ret;
    }
    return npu_wait(&p, res);
}
