/*
 * test_rknn_reloc - rknn_model_relocate on the container-6 sample models and
 * PP-OCRv4 det, word by word against what docs/format.md §4.3-§4.4 says a
 * relocated stream holds:
 *  - the word of each relocation entry: its target and register, the value
 *    base + addend, base the tensor's: the stream's own address for a LUT
 *    (its load's dummy op is pointed at the stream), the constants' address
 *    + the blob's offset for a constant, the arena's + the tensor's offset
 *    for an activation;
 *  - each task's tail word (the one after its registers): a chain link,
 *    its value moved from the file's stream address to the copy's, unless
 *    it ends the chain (a NOP or 0);
 *  - every word no task fetches (its registers and the PC's 4 tail words,
 *    hardware.md §3.1): a NOP; every other word as in the file; the bytes
 *    of a copy larger than the stream after it: 0.
 * The entries and tensors are the parser's, which test_rknn_model checks
 * against the Python inspector. The target's addresses and blob offsets are
 * made up here, so no relocated value can come out right by accident.
 *
 * The same with the view cut to its first 1, 4 or 7 tasks, so that words
 * go unfetched. Relocated where it lies (a writable copy of the file), the stream must be
 * the same: tails that several core groups share are moved once. Scratch
 * that is not zero must change nothing. A file changed after the parse is
 * refused: a relocation entry moved past the stream or onto a word that is
 * not an address register, a link off the 16-byte grid; a link of value 0
 * ends the chain and stays.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu_regcmd.h"
#include "rknn_api.h"
#include "rknn_model.h"
#include "rknpu_hooks.h"
#include "test_files.h"
#include "test_util.h"

#define STREAM_DMA    0x30000000u
#define CONSTANTS_DMA 0x10000000u
#define ARENA_DMA     0x20000000u
#define BLOB_STRIDE   0x00100000u /* blob b at b x 1 MiB in the made-up constants */
#define GUARD         64u         /* bytes after a stream copy that must stay as they are */

static const char *dir;

static uint64_t le64_at(const uint8_t *p, uint32_t word)
{
    uint64_t w = 0;

    for (int i = 7; i >= 0; i--)
        w = w << 8 | p[(size_t)word * 8 + (size_t)i];
    return w;
}

static uint8_t *read_model(const char *file, size_t *size)
{
    char path[512];
    uint8_t *buf = malloc(16u << 20);
    size_t n = buf ? test_read_file(test_path(path, sizeof path, dir, file), buf, 16u << 20) : 0;

    if (!CHECK(n > 0)) {
        free(buf);
        return NULL;
    }
    *size = n;
    return buf;
}

/* A relocation target over `stream` (which may be the view's own stream),
 * its scratch filled with ones (it must not matter). */
static rknn_model_reloc_target target_of(const rknn_model_view *m, uint8_t *stream,
                                         uint32_t *offsets, uint32_t *bitmap)
{
    rknn_model_reloc_target to;

    for (uint32_t b = 0; b < m->n_blobs; b++)
        offsets[b] = b * BLOB_STRIDE;
    memset(bitmap, 0xFF, (m->n_regcmd_words + 31) / 32 * 4u);
    to.stream = stream;
    to.stream_dma = STREAM_DMA;
    to.stream_bytes = m->regcmd_size;
    to.constants_dma = CONSTANTS_DMA;
    to.blob_offsets = offsets;
    to.arena_dma = ARENA_DMA;
    to.bitmap = bitmap;
    return to;
}

/* What format.md says each word of the relocated stream holds; counts the
 * words that differ from `got`. `file` is the stream as parsed. */
static uint32_t wrong_words(const rknn_model_view *m, const uint8_t *file, const uint8_t *got)
{
    uint32_t n = m->n_regcmd_words, wrong = 0;
    uint64_t *want = malloc((size_t)n * 8);
    uint8_t *fetched = calloc(n, 1);

    if (!CHECK(want && fetched)) {
        free(want);
        free(fetched);
        return 1;
    }
    for (uint32_t i = 0; i < n; i++)
        want[i] = le64_at(file, i);
    for (uint32_t t = 0; t < m->n_tasks; t++) {
        rknn_model_task_info ti;
        uint32_t first, tail;
        uint64_t w;
        if (!CHECK(rknn_model_task(m, t, &ti) == RKNN_SUCC))
            continue;
        first = (uint32_t)(ti.regcmd_addr / 8);
        tail = first + ti.regcfg_amount;
        for (uint32_t i = first; i < tail + NPU_PC_TAIL_WORDS && i < n; i++)
            fetched[i] = 1;
        w = le64_at(file, tail);
        if (!npu_regcmd_is_nop(w) && npu_regcmd_value(w) != 0)
            want[tail] = npu_regcmd_make(npu_regcmd_target(w), npu_regcmd_reg(w),
                                         STREAM_DMA + (npu_regcmd_value(w) - m->regcmd_dma));
    }
    for (uint32_t r = 0; r < m->n_relocs; r++) {
        rknn_model_reloc_info ri;
        rknn_model_tensor_info ti;
        uint32_t base;
        if (!CHECK(rknn_model_reloc(m, r, &ri) == RKNN_SUCC) ||
            !CHECK(rknn_model_tensor(m, ri.tensor_index, &ti) == RKNN_SUCC))
            continue;
        base = ti.kind == RKNN_MODEL_KIND_LUT ? STREAM_DMA
               : ti.kind == RKNN_MODEL_KIND_CONST || ti.kind == RKNN_MODEL_KIND_HELPER_CONST ||
                       ti.kind == RKNN_MODEL_KIND_GENERATED_CONST
                   ? CONSTANTS_DMA + ti.blob_index * BLOB_STRIDE
                   : ARENA_DMA + ti.arena_offset;
        for (uint32_t e = 0; e < ri.n_entries; e++) {
            uint32_t addend, word;
            if (CHECK(rknn_model_reloc_entry(&ri, e, &addend, &word) == RKNN_SUCC) &&
                CHECK(word < n))
                want[word] = npu_regcmd_make(npu_regcmd_target(want[word]),
                                             npu_regcmd_reg(want[word]), base + addend);
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t w = fetched[i] ? want[i] : npu_regcmd_nop();
        if (le64_at(got, i) != w && wrong++ < 3)
            printf("  word %lu: 0x%016llx, want 0x%016llx\n", (unsigned long)i,
                   (unsigned long long)le64_at(got, i), (unsigned long long)w);
    }
    free(want);
    free(fetched);
    return wrong;
}

/* Words of each kind the model has, so that a model without one says so. */
static void count_kinds(const rknn_model_view *m, unsigned *luts, unsigned *links)
{
    for (uint32_t r = 0; r < m->n_relocs; r++) {
        rknn_model_reloc_info ri;
        rknn_model_tensor_info ti;
        if (rknn_model_reloc(m, r, &ri) == RKNN_SUCC &&
            rknn_model_tensor(m, ri.tensor_index, &ti) == RKNN_SUCC &&
            ti.kind == RKNN_MODEL_KIND_LUT)
            *luts += ri.n_entries;
    }
    for (uint32_t t = 0; t < m->n_tasks; t++) {
        rknn_model_task_info ti;
        if (rknn_model_task(m, t, &ti) == RKNN_SUCC) {
            uint64_t w = le64_at(m->regcmd, (uint32_t)(ti.regcmd_addr / 8) + ti.regcfg_amount);
            *links += !npu_regcmd_is_nop(w) && npu_regcmd_value(w) != 0;
        }
    }
}

/* The first relocation entry's (addend, word) bytes in `file`, where the
 * parser found its table (format.md §4.3: 8 bytes an entry, little endian). */
static uint8_t *first_entry_bytes(const rknn_model_view *m, uint8_t *file, size_t size)
{
    rknn_model_reloc_info ri;
    uint32_t addend, word;
    uint8_t *at;

    if (rknn_model_reloc(m, 0, &ri) != RKNN_SUCC ||
        rknn_model_reloc_entry(&ri, 0, &addend, &word) != RKNN_SUCC)
        return NULL;
    at = (uint8_t *)(uintptr_t)ri.entries.buf.data + ri.entries.pos;
    if (at < file || at + 8 > file + size)
        return NULL;
    CHECK(at[4] == (uint8_t)word && at[0] == (uint8_t)addend);
    return at;
}

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A file changed after the parse: refused, whatever the change. */
static void check_changed_after_parse(const char *file)
{
    size_t size;
    uint8_t *buf = read_model(file, &size), *entry, *copy;
    uint32_t *offsets, *bitmap;
    rknn_model_view m;
    rknn_model_reloc_target to;

    if (!buf)
        return;
    if (!CHECK(rknn_model_parse(buf, size, &m) == RKNN_SUCC) ||
        !CHECK((entry = first_entry_bytes(&m, buf, size)) != NULL)) {
        free(buf);
        return;
    }
    copy = malloc(m.regcmd_size + GUARD);
    offsets = malloc((m.n_blobs + 1) * 4u);
    bitmap = malloc((m.n_regcmd_words + 31) / 32 * 4u);
    if (CHECK(copy && offsets && bitmap)) {
        uint8_t saved[8];
        uint32_t tail;
        rknn_model_task_info ti;
        memcpy(saved, entry, 8);
        put_le32(entry + 4, m.n_regcmd_words); /* the word past the stream */
        to = target_of(&m, copy, offsets, bitmap);
        memset(copy + m.regcmd_size, 0x5A, GUARD);
        CHECK(rknn_model_relocate(&m, &to) == RKNN_ERR_MODEL_INVALID);
        for (uint32_t i = 0; i < GUARD; i++) /* and nothing written past the stream */
            CHECK_EQ_U(copy[m.regcmd_size + i], 0x5A);
        put_le32(entry + 4, 0); /* word 0: not an address register */
        CHECK(rknn_model_relocate(&m, &to) == RKNN_ERR_MODEL_INVALID);
        memcpy(entry, saved, 8);
        CHECK(rknn_model_relocate(&m, &to) == RKNN_SUCC);
        /* the first task whose tail links on: its link 8 bytes off the grid */
        for (uint32_t t = 0; t < m.n_tasks; t++) {
            uint8_t *w;
            if (rknn_model_task(&m, t, &ti) != RKNN_SUCC)
                continue;
            tail = (uint32_t)(ti.regcmd_addr / 8) + ti.regcfg_amount;
            w = (uint8_t *)m.regcmd + (size_t)tail * 8;
            if (npu_regcmd_is_nop(le64_at(m.regcmd, tail)) ||
                npu_regcmd_value(le64_at(m.regcmd, tail)) == 0)
                continue;
            memcpy(saved, w, 8);
            w[2] ^= 8; /* the value field starts at bit 16 */
            CHECK(rknn_model_relocate(&m, &to) == RKNN_ERR_MODEL_INVALID);
            memset(w + 2, 0, 4); /* value 0: the chain ends there, the word stays */
            if (CHECK(rknn_model_relocate(&m, &to) == RKNN_SUCC))
                CHECK(memcmp(copy + (size_t)tail * 8, w, 8) == 0);
            memcpy(w, saved, 8);
            break;
        }
    }
    free(copy);
    free(offsets);
    free(bitmap);
    free(buf);
}

/* Relocated into a copy and where it lies: both as format.md says. */
static void check_model(const char *file, int want_luts)
{
    size_t size;
    uint8_t *buf = read_model(file, &size), *file_stream = NULL, *copy = NULL;
    uint32_t *offsets = NULL, *bitmap = NULL;
    unsigned luts = 0, links = 0;
    rknn_model_view m;
    rknn_model_reloc_target to;

    if (!buf)
        return;
    if (!CHECK(rknn_model_parse(buf, size, &m) == RKNN_SUCC) || !CHECK(m.container_version == 6))
        goto out;
    file_stream = malloc(m.regcmd_size);
    copy = malloc(m.regcmd_size + GUARD);
    offsets = malloc((m.n_blobs + 1) * 4u);
    bitmap = malloc((m.n_regcmd_words + 31) / 32 * 4u);
    if (!CHECK(file_stream && copy && offsets && bitmap))
        goto out;
    count_kinds(&m, &luts, &links);
    printf("%s: %lu words, %lu tasks, %u links, %u LUT words\n", file,
           (unsigned long)m.n_regcmd_words, (unsigned long)m.n_tasks, links, luts);
    CHECK(links > 0 && (luts > 0) == want_luts);
    memcpy(file_stream, m.regcmd, m.regcmd_size);
    memset(copy, 0xEE, m.regcmd_size + GUARD);
    to = target_of(&m, copy, offsets, bitmap);
    to.stream_bytes += GUARD; /* a copy larger than the stream: the rest zeroed */
    if (CHECK(rknn_model_relocate(&m, &to) == RKNN_SUCC)) {
        CHECK_EQ_U(wrong_words(&m, file_stream, copy), 0);
        for (uint32_t i = 0; i < GUARD; i++)
            CHECK_EQ_U(copy[m.regcmd_size + i], 0);
    }
    /* The view cut to its first tasks: everything after them is unfetched
     * and must become NOPs (the samples' tasks fetch every word). */
    for (uint32_t keep = 1; keep <= 7; keep += 3) {
        rknn_model_view cut = m;
        cut.n_tasks = keep;
        memset(copy, 0xEE, m.regcmd_size);
        to = target_of(&cut, copy, offsets, bitmap);
        if (CHECK(rknn_model_relocate(&cut, &to) == RKNN_SUCC))
            CHECK_EQ_U(wrong_words(&cut, file_stream, copy), 0);
    }
    to = target_of(&m, copy, offsets, bitmap); /* the whole view's copy again */
    CHECK(rknn_model_relocate(&m, &to) == RKNN_SUCC);
    /* where it lies: the view's stream is the file's bytes, writable here */
    to = target_of(&m, (uint8_t *)m.regcmd, offsets, bitmap);
    if (CHECK(rknn_model_relocate(&m, &to) == RKNN_SUCC))
        CHECK(memcmp(m.regcmd, copy, m.regcmd_size) == 0);
out:
    free(file_stream);
    free(copy);
    free(offsets);
    free(bitmap);
    free(buf);
}

static char last_error[256];

void rknpu_hook_log(rknpu_log_level level, const char *msg)
{
    if (level == RKNPU_LOG_ERROR)
        snprintf(last_error, sizeof last_error, "%s", msg);
}

/* The first word of a run of at least n words no task covers (body and
 * PC tail), or UINT32_MAX. */
static uint32_t uncovered_run(const rknn_model_view *m, uint32_t n)
{
    for (uint32_t start = 0, i = 0; i < m->n_regcmd_words; i++) {
        int covered = 0;
        for (uint32_t t = 0; t < m->n_tasks && !covered; t++) {
            rknn_model_task_info ti;
            uint32_t first;
            if (rknn_model_task(m, t, &ti) != RKNN_SUCC)
                return UINT32_MAX;
            first = (uint32_t)(ti.regcmd_addr / 8u);
            covered = i >= first && i < first + ti.regcfg_amount + NPU_PC_TAIL_WORDS;
        }
        if (covered)
            start = i + 1;
        else if (i + 1 - start >= n)
            return start;
    }
    return UINT32_MAX;
}

/* A stream relocated where it lies is relocated again as it then is and
 * must come out the same (format.md §4.3, step 6): what relocation reads
 * must not lie inside it. Here the blob offsets lie over words no task
 * covers, which the first pass makes NOPs: the second pass puts other
 * constants' addresses, and the relocation is refused. */
static void check_input_inside_stream(const char *file)
{
    size_t size;
    uint8_t *buf = read_model(file, &size);
    uint32_t *bitmap = NULL, run;
    rknn_model_view m;
    rknn_model_reloc_target to;

    if (!buf)
        return;
    if (!CHECK(rknn_model_parse(buf, size, &m) == RKNN_SUCC))
        goto out;
    run = uncovered_run(&m, (m.n_blobs * 4u + 7u) / 8u);
    bitmap = malloc((m.n_regcmd_words + 31) / 32 * 4u);
    if (!CHECK(run != UINT32_MAX) || !CHECK(bitmap != NULL))
        goto out;
    to = target_of(&m, (uint8_t *)(uintptr_t)m.regcmd,
                   (uint32_t *)(void *)((uint8_t *)(uintptr_t)m.regcmd + (size_t)run * 8u), bitmap);
    last_error[0] = 0;
    CHECK(rknn_model_relocate(&m, &to) == RKNN_ERR_MODEL_INVALID);
    CHECK(strstr(last_error, "overlap its command stream") != NULL);
    /* the blob offsets apart from the stream: relocated where it lies, twice, the same */
    free(buf);
    buf = read_model(file, &size);
    if (!buf || !CHECK(rknn_model_parse(buf, size, &m) == RKNN_SUCC))
        goto out;
    {
        uint32_t offsets[64];
        if (CHECK(m.n_blobs <= 64)) {
            to = target_of(&m, (uint8_t *)(uintptr_t)m.regcmd, offsets, bitmap);
            CHECK(rknn_model_relocate(&m, &to) == RKNN_SUCC);
            CHECK_EQ_U(m.regcmd_dma, STREAM_DMA);
        }
    }
out:
    free(bitmap);
    free(buf);
}

int main(int argc, char **argv)
{
    dir = argc > 1 ? argv[1] : "../shared/models";
    check_model("rk3588_multiple_input_demo.v6.rknn", 0);
    check_model("rk3566_multiple_input_demo.v6.rknn", 0);
    check_model("rk3588_dual_residual_custom.v6.rknn", 0);
    check_model("rk3588_ppocrv4_det.v6.rknn", 1);
    check_changed_after_parse("rk3588_multiple_input_demo.v6.rknn");
    check_input_inside_stream("rk3588_multiple_input_demo.v6.rknn");
    return test_report("rknn_reloc");
}
