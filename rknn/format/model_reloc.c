/*
 * model_reloc.c - relocation: a copy of the model's command stream made to
 * point at one context's memory (rknn_model_reloc_target). Every patched
 * word was checked to be an address register inside its tensor
 * (model_check.c), every chain link to be a task start; words no task
 * covers become NOPs.
 */
#include "model_internal.h"

#include <string.h>

#include "hal.h"
#include "npu_regs.h"
#include "rknn_api.h"

FMT_API void fmt_put_word(uint8_t *stream, uint32_t index, uint64_t w)
{
#if HAL_LITTLE_ENDIAN
    /* the stream is little-endian, like the CPU: one copy (a 32-bit CPU
     * pays for every 64-bit shift of the loop below) */
    memcpy(stream + (size_t)index * 8, &w, sizeof w);
#else
    for (unsigned i = 0; i < 8; i++)
        stream[(size_t)index * 8 + i] = (uint8_t)(w >> (8 * i));
#endif
}

/* The DMA address of a tensor's first byte in the target. A LUT tensor is
 * only the scratch of its load's dummy DPU op (8 bytes read and written
 * back): Rockchip's runtime points that op at the command stream and
 * uploads no LUT blob (format.md §4.3), and so do we. */
static uint32_t tensor_dma(const rknn_model_reloc_target *to, const rknn_model_tensor_info *t)
{
    if (t->kind == RKNN_MODEL_KIND_LUT)
        return to->stream_dma;
    if (fmt_is_constant(t->kind))
        return to->constants_dma + to->blob_offsets[t->blob_index];
    return to->arena_dma + t->arena_offset;
}

/* Points every word of one relocation at base + its addend. The entries are
 * decoded again (the decoder bounds each word), since the model may sit in
 * writable memory. */
static int patch_entries(const rknn_model_view *m, uint8_t *stream, const rknn_model_reloc_info *ri,
                         uint32_t base)
{
    for (uint32_t e = 0; e < ri->n_entries; e++) {
        uint32_t addend, word;
        uint64_t w;
        int ret = rknn_model_reloc_entry(ri, e, &addend, &word);
        if (ret != RKNN_SUCC)
            return ret; /* unreachable: fmt_check_reloc() (patch_relocs) or, at the parse,
                           fmt_validate_relocs() (rknn_model_repoint) bounded every entry */
        w = fmt_stream_word(m, word);
        fmt_put_word(stream, word,
                     npu_regcmd_make(npu_regcmd_target(w), npu_regcmd_reg(w), base + addend));
    }
    return RKNN_SUCC;
}

static int patch_relocs(const rknn_model_view *m, const rknn_model_reloc_target *to,
                        uint32_t *patched)
{
    for (uint32_t r = 0; r < m->n_relocs; r++) {
        rknn_model_reloc_info ri;
        rknn_model_tensor_info t;
        /* checked again: the file is re-read, and may be in writable memory */
        int ret = fmt_check_reloc(m, r, patched, &ri, &t);
        if (ret != RKNN_SUCC)
            return ret; /* the file changed since rknn_model_plan() checked the same
                           tables, stricter (each value against its addend) */
        ret = patch_entries(m, to->stream, &ri, tensor_dma(to, &t));
        if (ret != RKNN_SUCC)
            return ret; /* unreachable: fmt_check_reloc() has just decoded these entries */
    }
    return RKNN_SUCC;
}

/* Chain words hold stream-relative offsets (plus m->regcmd_dma in a stream
 * relocated where it lies): make them DMA addresses. Each one was checked to
 * be a task start (check_tail) or is rejected here. Records of several core
 * groups may share a tail: each is rebased once (`done`: the bitmap, whose
 * address words are no tails), as a stream relocated where it lies must. */
static int rebase_chain(const rknn_model_view *m, const rknn_model_reloc_target *to)
{
    uint32_t *done = to->bitmap;

    for (uint32_t t = 0; t < m->n_tasks; t++) {
        rknn_model_task_info ti;
        uint32_t at, off;
        uint64_t w;
        if (rknn_model_task(m, t, &ti) != RKNN_SUCC)
            return RKNN_ERR_MODEL_INVALID; /* cannot fail: t < n_tasks, records attached */
        at = (uint32_t)(ti.regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE) + ti.regcfg_amount;
        if (done[at / 32] & (1u << (at % 32)))
            continue;
        done[at / 32] |= 1u << (at % 32);
        w = fmt_stream_word(m, at);
        if (npu_regcmd_is_nop(w) || npu_regcmd_value(w) == 0)
            continue;
        off = npu_regcmd_value(w) - m->regcmd_dma;
        if (off % 16u || off >= m->regcmd_size) {
            /* the parse let a link be only 0 or a record's start (check_tail(),
             * check_chain_end(), check_task_record()): a file changed since */
            HAL_LOG_ERR("rknn_init: task %lu links to stream byte %lu, outside the stream",
                        (unsigned long)(t), (unsigned long)(off));
            return RKNN_ERR_MODEL_INVALID;
        }
        fmt_put_word(to->stream, at, npu_regcmd_next_address(to->stream_dma + off));
    }
    return RKNN_SUCC;
}

/* Words no task covers (gaps between tasks, the DMA block's padding) become
 * NOPs: nothing the file put there was validated, and the PC's fetch
 * granularity (2 words on RK3588) can reach one word past a task's tail.
 * `covered` is a bitmap of n_regcmd_words bits. */
static void clear_unfetched(const rknn_model_view *m, const rknn_model_reloc_target *to,
                            uint32_t *covered)
{
    memset(covered, 0, (m->n_regcmd_words + 31) / 32 * 4u);
    for (uint32_t t = 0; t < m->n_tasks; t++) {
        rknn_model_task_info ti;
        uint32_t first;
        if (rknn_model_task(m, t, &ti) != RKNN_SUCC)
            continue; /* unreachable: t < n_tasks, records attached */
        first = (uint32_t)(ti.regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE);
        for (uint32_t i = first, end = first + ti.regcfg_amount + NPU_PC_TAIL_WORDS; i < end;)
            if (i % 32 == 0 && end - i >= 32) {
                covered[i / 32] = UINT32_MAX; /* 32 words at once */
                i += 32;
            } else {
                covered[i / 32] |= 1u << (i % 32);
                i++;
            }
    }
    for (uint32_t i = 0; i < m->n_regcmd_words; i++)
        if (covered[i / 32] == UINT32_MAX)
            i |= 31u; /* 32 covered words at once */
        else if (!(covered[i / 32] & (1u << (i % 32))))
            fmt_put_word(to->stream, i, npu_regcmd_nop());
    memset(to->stream + m->regcmd_size, 0, to->stream_bytes - m->regcmd_size);
}

#if RKNN_CONTAINER_V4
/* Whether task t of a built payload loads a LUT: it sets LUT_ACCESS_CFG to
 * write (every other task writes it 0). */
static int loads_lut(const rknn_model_view *m, const rknn_model_task_info *t)
{
    uint32_t first = (uint32_t)(t->regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE);

    for (uint32_t k = first; k < first + t->regcfg_amount; k++) {
        uint64_t w = fmt_stream_word(m, k);
        if (npu_regcmd_target(w) == NPU_TARGET_DPU && npu_regcmd_reg(w) == NPU_DPU_LUT_ACCESS_CFG &&
            NPU_DPU_LUT_ACCESS_CFG_ACCESS_TYPE_GET(npu_regcmd_value(w)))
            return 1;
    }
    return 0;
}

/* A LUT load's dummy DPU op reads and writes its 8 bytes at the start of
 * the command stream (a copy onto itself), where Rockchip's runtime points
 * it (format.md §5.1): its DPU_RDMA_SRC_BASE_ADDR and DPU_DST_BASE_ADDR,
 * which no relocation covers, get the stream's address; `patched` marks
 * them relocated. */
static void bind_lut_loads(const rknn_model_view *m, uint8_t *stream, uint32_t stream_dma,
                           uint32_t *patched)
{
    for (uint32_t t = 0; t < m->n_tasks; t++) {
        rknn_model_task_info ti;
        uint32_t first;
        if (rknn_model_task(m, t, &ti) != RKNN_SUCC || !loads_lut(m, &ti))
            continue;
        first = (uint32_t)(ti.regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE);
        for (uint32_t k = first; k < first + ti.regcfg_amount; k++) {
            uint64_t w = fmt_stream_word(m, k);
            uint16_t reg = npu_regcmd_reg(w);
            if (!fmt_is_address_word(w) || (patched[k / 32] & (1u << (k % 32))) ||
                (reg != NPU_DPU_DST_BASE_ADDR && reg != NPU_DPU_RDMA_SRC_BASE_ADDR))
                continue;
            fmt_put_word(stream, k, npu_regcmd_make(npu_regcmd_target(w), reg, stream_dma));
            patched[k / 32] |= 1u << (k % 32);
        }
    }
}

#endif

static int overlap_error(void)
{
    HAL_LOG_ERR("rknn_init: the file's tables overlap its command stream (relocating it where "
                "it lies changed them)");
    return RKNN_ERR_MODEL_INVALID;
}

/* A stream relocated where it lies shares its bytes with the file: a file
 * whose tables lie inside its stream would read other sizes and offsets
 * once relocated than those the relocation checked, and a later view of it
 * (rknn_dup_context) would refuse it. Such a stream is relocated twice, the
 * second time as it now is (its links holding its own address), and must
 * come out of it the same. */
int rknn_model_relocate(rknn_model_view *m, const rknn_model_reloc_target *to)
{
    uint64_t before = 0;

    for (unsigned pass = 0;; pass++) {
        uint64_t digest = 0;
        int ret;
        memset(to->bitmap, 0, (m->n_regcmd_words + 31) / 32 * 4u);
        if (to->stream != m->regcmd) /* else relocated where it lies */
            memcpy(to->stream, m->regcmd, m->regcmd_size);
        ret = patch_relocs(m, to, to->bitmap);
#if RKNN_CONTAINER_V4
        if (ret == RKNN_SUCC && m->lowered)
            bind_lut_loads(m, to->stream, to->stream_dma, to->bitmap);
#endif
        /* a lowered stream has no such word: its walk binds every address
         * register to a tensor or leaves it 0 (model_v4.c, address_entry) */
        if (ret == RKNN_SUCC && !rknn_model_lowered(m))
            ret = fmt_check_unrelocated(m, to->bitmap);
        if (ret == RKNN_SUCC)
            ret = rebase_chain(m, to);
        if (ret != RKNN_SUCC)
            return ret;
        clear_unfetched(m, to, to->bitmap); /* the bitmap is free again */
        if (to->stream != m->regcmd)
            return RKNN_SUCC;
        m->regcmd_dma = to->stream_dma; /* its links point at itself now */
        if (rknn_model_lowered(m))
            return RKNN_SUCC; /* built here, apart from the file's tables */
        for (uint32_t i = 0; i < m->n_regcmd_words; i++) /* 64-byte aligned where it lies */
            digest = (digest << 7 | digest >> 57) ^ ((const fmt_word *)(const void *)m->regcmd)[i];
        if (pass)
            return digest == before ? RKNN_SUCC : overlap_error();
        before = digest;
    }
}

/* The CNA words from DATA_SIZE0 on that rknn_cvt.c programs for what an
 * input's buffer holds, a bit a word: DATA_SIZE0, CVT_CON0..4, DMA_CON1/2. */
#define CNA_WORD(reg) (((reg)-NPU_CNA_DATA_SIZE0) / 4u)
#define PER_INPUT_WORDS                                                                            \
    (1u | 0x1fu << CNA_WORD(NPU_CNA_CVT_CON0) | 3u << CNA_WORD(NPU_CNA_DMA_CON1))

/* Words a context rewrites in its stream: addresses, chain links, and the
 * CNA's per-input words (above, and CVT_CON5). */
static int rewritten(uint64_t w)
{
    uint32_t reg = npu_regcmd_reg(w), k = CNA_WORD(reg);
    int per_input = (k < 32u && (PER_INPUT_WORDS >> k) & 1u) || reg == NPU_CNA_CVT_CON5;

    return fmt_is_address_word(w) || npu_regcmd_target(w) == NPU_TARGET_PC ||
           (per_input && npu_regcmd_target(w) == NPU_TARGET_CNA);
}

int rknn_model_same_program(const rknn_model_view *m, const uint8_t *stream)
{
    const uint64_t value = (uint64_t)UINT32_MAX << 16; /* npu_regcmd_make's value bits */

    for (uint32_t i = 0; i < m->n_regcmd_words; i++) {
        uint64_t a = fmt_stream_word(m, i), b = rknn_fbs_le64(stream + (size_t)i * 8);
        if (a != b && !npu_regcmd_is_nop(b) && !(rewritten(a) && ((a ^ b) & ~value) == 0))
            return 0;
    }
    return 1;
}

int rknn_model_repoint(const rknn_model_view *m, uint8_t *stream, uint32_t tensor_index,
                       uint32_t dma)
{
    for (uint32_t r = 0; r < m->n_relocs; r++) {
        rknn_model_reloc_info ri;
        int ret = rknn_model_reloc(m, r, &ri);
        if (ret != RKNN_SUCC)
            return ret; /* unreachable: fmt_validate_relocs() decoded every table at the
                           parse (rknn_model_lower()'s, for a built payload) */
        if (ri.tensor_index != tensor_index)
            continue;
        ret = patch_entries(m, stream, &ri, dma);
        if (ret != RKNN_SUCC)
            return ret; /* unreachable: fmt_validate_relocs() bounded every entry */
    }
    return RKNN_SUCC;
}
