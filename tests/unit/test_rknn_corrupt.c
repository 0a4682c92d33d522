/*
 * test_rknn_corrupt.c - the FlatBuffer reader and the .rknn parser on broken
 * input. Run it under -fsanitize=address,undefined: the pass criterion is
 * "no crash, no sanitizer report", plus the return-code contract.
 *
 *   test_rknn_corrupt [MODELS_DIR]
 *
 * Part 1 (no files needed): hand-built FlatBuffers with known defects; each
 * must give the documented rknn_fbs error code.
 * Part 2 (sample models; MODELS_DIR defaults to ../shared/models, missing ->
 * a failure naming it): for every model, deterministically
 *   a) every truncation length 0..256, then every 61st length up to the size
 *      (about 512 lengths in all for a model over 61 KiB * 512);
 *   b) at every 4-byte word of the structure (container header, root, every
 *      table and vtable, every offset target such as vector/string lengths and
 *      vector-of-table elements) overwrite with 0x00/0xFF/0x7F/0x80 bytes and
 *      with big/negative/near-size 32-bit values;
 *   c) several thousand random 1-3 byte/word mutations (fixed seed).
 * A real network (MiBs, thousands of tables) gets an even spread of 256
 * structural words and 500 random mutations, so it runs in seconds; under
 * ASan+UBSan (RKNPU_TEST_REDUCED, scripts/run-host-sanitize.sh: a parse of
 * a real network costs ~30x more there) a quarter of each for the real
 * networks, the samples still whole.
 * Each copy lives in a buffer of exactly its length (so reads past the end
 * are caught) and goes through rknn_model_parse(); the result must be
 * RKNN_SUCC or RKNN_ERR_MODEL_INVALID, a rejection must log a line, and
 * after a success every accessor must succeed for every index the view
 * reports (the parser validated all of them). Accessors are also run with the
 * unmutated model's view over the mutated bytes (a stale view must not crash).
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "rknn_fbs.h"
#include "rknn_model.h"
#include "rknpu_bm.h"
#include "test_unsupported.h"
#include "tool_files.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (failures < 50) {                                                                   \
                printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                             \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
            }                                                                                      \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static unsigned long log_lines;
void rknpu_hook_log(rknpu_log_level level, const char *msg)
{
    (void)level;
    unsupported_log(msg);
    log_lines++;
}

/* ---- part 1: hand-built FlatBuffers ---------------------------------------- */

static void put16(uint8_t *b, uint32_t pos, uint16_t v)
{
    b[pos] = (uint8_t)v;
    b[pos + 1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *b, uint32_t pos, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[pos + i] = (uint8_t)(v >> (8 * i));
}

/*
 * A small valid buffer:
 *   0  u32 root = 16
 *   4  vtable: size 10, table size 16, slot0 @4, slot1 @8, slot2 @12
 *   16 table: soffset 12 (vtable at 4); u32 0x11223344; uoffset -> 32; uoffset -> 44
 *   32 vector [int] count 2: 7, -1
 *   44 string "abc" + NUL
 */
#define SMALL_SIZE 52
static void build_small(uint8_t *b)
{
    memset(b, 0, SMALL_SIZE);
    put32(b, 0, 16);
    put16(b, 4, 10);
    put16(b, 6, 16);
    put16(b, 8, 4);
    put16(b, 10, 8);
    put16(b, 12, 12);
    put32(b, 16, 12);
    put32(b, 20, 0x11223344);
    put32(b, 24, 32 - 24);
    put32(b, 28, 44 - 28);
    put32(b, 32, 2);
    put32(b, 36, 7);
    put32(b, 40, 0xffffffffu);
    put32(b, 44, 3);
    memcpy(b + 48, "abc", 4);
}

/* Opens the root of b[0..size) (size <= SMALL_SIZE) from an exact-size copy. */
static int small_root(const uint8_t *b, uint32_t size, uint8_t **copy, rknn_fbs_buf *buf,
                      rknn_fbs_table *t)
{
    *copy = malloc(size ? size : 1);
    if (!*copy)
        exit(1);
    memcpy(*copy, b, size);
    if (rknn_fbs_buf_init(buf, *copy, size) != RKNN_FBS_OK)
        return RKNN_FBS_E_PARAM;
    return rknn_fbs_root(buf, t);
}

static void check_small_valid(void)
{
    uint8_t b[SMALL_SIZE], *c;
    rknn_fbs_buf buf;
    rknn_fbs_table t;
    rknn_fbs_vector v;
    rknn_fbs_string s;
    uint32_t u = 0;
    int32_t i = 0;

    build_small(b);
    CHECK(small_root(b, SMALL_SIZE, &c, &buf, &t) == RKNN_FBS_OK, "root");
    CHECK(t.pos == 16 && t.vtable == 4 && rknn_fbs_slot_count(&t) == 3, "table");
    CHECK(rknn_fbs_get_u32(&t, 0, 5, &u) == RKNN_FBS_OK && u == 0x11223344u, "u32");
    CHECK(rknn_fbs_get_u32(&t, 7, 5, &u) == RKNN_FBS_ABSENT && u == 5, "default");
    CHECK(rknn_fbs_get_vector(&t, 1, 4, &v) == RKNN_FBS_OK && v.count == 2, "vector");
    CHECK(rknn_fbs_vec_i32(&v, 0, &i) == RKNN_FBS_OK && i == 7, "elem 0");
    CHECK(rknn_fbs_vec_i32(&v, 1, &i) == RKNN_FBS_OK && i == -1, "elem 1");
    CHECK(rknn_fbs_vec_i32(&v, 2, &i) == RKNN_FBS_E_INDEX, "elem 2");
    CHECK(rknn_fbs_get_string(&t, 2, &s) == RKNN_FBS_OK && s.len == 3 &&
              memcmp(s.ptr, "abc", 3) == 0,
          "string");
    CHECK(rknn_fbs_get_string(&t, 9, &s) == RKNN_FBS_ABSENT && s.ptr && s.len == 0, "absent");
    /* 2 elements of 8 bytes fill the 16 bytes after the count; 2 of 12 do not fit. */
    CHECK(rknn_fbs_get_vector(&t, 1, 8, &v) == RKNN_FBS_OK, "elem size 8");
    CHECK(rknn_fbs_vec_u32(&v, 0, NULL) == RKNN_FBS_E_INDEX, "wrong element size");
    CHECK(rknn_fbs_get_vector(&t, 1, 12, &v) == RKNN_FBS_E_SIZE, "elem size 12");
    /* The other scalar widths read the same little-endian bytes; a field
     * may end at the table's end, not beyond. */
    uint8_t u8 = 0;
    uint32_t pos = 0;
    CHECK(rknn_fbs_get_u8(&t, 0, 0, &u8) == RKNN_FBS_OK && u8 == 0x44, "u8");
    CHECK(rknn_fbs_field_pos(&t, 1, 8, &pos) == RKNN_FBS_OK, "8 bytes ending at the table end");
    CHECK(rknn_fbs_field_pos(&t, 2, 8, &pos) == RKNN_FBS_E_FIELD, "8 bytes past the table end");
    CHECK(rknn_fbs_field_pos(&t, 6, 4, &pos) == RKNN_FBS_ABSENT, "absent field");
    free(c);
    CHECK(rknn_fbs_buf_init(&buf, NULL, 4) == RKNN_FBS_E_PARAM, "NULL buffer");

    /* A vector of strings: root @12, vtable @4 (1 slot), vector @20, "hi" @28. */
    static const uint8_t strvec[36] = {12, 0, 0, 0, 6, 0, 8, 0, 4, 0, 0, 0, 8, 0, 0,   0,   4, 0,
                                       0,  0, 1, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 'h', 'i', 0, 0};
    const uint8_t *elem = NULL;
    CHECK(rknn_fbs_buf_init(&buf, strvec, sizeof(strvec)) == RKNN_FBS_OK &&
              rknn_fbs_root(&buf, &t) == RKNN_FBS_OK,
          "string vector root");
    CHECK(rknn_fbs_get_vector(&t, 0, 4, &v) == RKNN_FBS_OK && v.count == 1, "string vector");
    CHECK(rknn_fbs_vec_struct(&v, 1, &elem) == RKNN_FBS_E_INDEX, "vec index");
    CHECK(rknn_fbs_vec_struct(&v, 0, &elem) == RKNN_FBS_OK && elem == strvec + 24, "vec struct");
    CHECK(rknn_fbs_vec_table(&v, 0, &t) == RKNN_FBS_E_VTABLE, "string is not a table");
    for (int e = -9; e <= 1; e++)
        CHECK(rknn_fbs_strerror(e) != NULL, "strerror %d", e);
}

typedef struct {
    const char *what;
    uint32_t pos;
    int width; /* 2 or 4 */
    uint32_t value;
    int expect_root; /* error from rknn_fbs_root, or OK */
    int slot;        /* if root OK: slot to read */
    int kind;        /* 0 = u32, 1 = vector of 4, 2 = string */
    int expect;      /* expected result of that read */
} small_case;

static const small_case small_cases[] = {
    {"root misaligned", 0, 4, 18, RKNN_FBS_E_ALIGN, 0, 0, 0},
    {"root past end", 0, 4, 0xfffffff0u, RKNN_FBS_E_RANGE, 0, 0, 0},
    {"root at end", 0, 4, SMALL_SIZE, RKNN_FBS_E_RANGE, 0, 0, 0},
    {"vtable before buffer", 16, 4, 20, RKNN_FBS_E_VTABLE, 0, 0, 0},
    {"vtable past end", 16, 4, 0x80000000u, RKNN_FBS_E_VTABLE, 0, 0, 0},
    {"vtable odd position", 16, 4, 11, RKNN_FBS_E_ALIGN, 0, 0, 0},
    {"vtable size odd", 4, 2, 11, RKNN_FBS_E_VTABLE, 0, 0, 0},
    {"vtable size < 4", 4, 2, 2, RKNN_FBS_E_VTABLE, 0, 0, 0},
    {"vtable larger than buffer", 4, 2, 0xfffe, RKNN_FBS_E_VTABLE, 0, 0, 0},
    {"table size < 4", 6, 2, 3, RKNN_FBS_E_VTABLE, 0, 0, 0},
    {"table larger than buffer", 6, 2, 0xffff, RKNN_FBS_E_RANGE, 0, 0, 0},
    {"field beyond table", 8, 2, 14, RKNN_FBS_OK, 0, 0, RKNN_FBS_E_FIELD},
    {"field inside soffset", 8, 2, 2, RKNN_FBS_OK, 0, 0, RKNN_FBS_E_FIELD},
    {"field absent", 8, 2, 0, RKNN_FBS_OK, 0, 0, RKNN_FBS_ABSENT},
    {"uoffset misaligned field", 10, 2, 6, RKNN_FBS_OK, 1, 1, RKNN_FBS_E_ALIGN},
    {"uoffset target misaligned", 24, 4, 9, RKNN_FBS_OK, 1, 1, RKNN_FBS_E_ALIGN},
    {"uoffset past end", 24, 4, 0xfffffff8u, RKNN_FBS_OK, 1, 1, RKNN_FBS_E_RANGE},
    {"vector count huge", 32, 4, 0xffffffffu, RKNN_FBS_OK, 1, 1, RKNN_FBS_E_SIZE},
    {"vector count wraps 32 bits", 32, 4, 0x40000000u, RKNN_FBS_OK, 1, 1, RKNN_FBS_E_SIZE},
    {"vector count one too many", 32, 4, 5, RKNN_FBS_OK, 1, 1, RKNN_FBS_E_SIZE},
    {"vector count just fits", 32, 4, 4, RKNN_FBS_OK, 1, 1, RKNN_FBS_OK},
    {"string length past end", 44, 4, 5, RKNN_FBS_OK, 2, 2, RKNN_FBS_E_SIZE},
    {"string without NUL is fine", 48, 4, 0x64636261u, RKNN_FBS_OK, 2, 2, RKNN_FBS_OK},
    {"string at last byte", 28, 4, 0x18, RKNN_FBS_OK, 2, 2, RKNN_FBS_E_RANGE},
};

static void check_small_defects(void)
{
    for (size_t k = 0; k < sizeof(small_cases) / sizeof(small_cases[0]); k++) {
        const small_case *c = &small_cases[k];
        uint8_t b[SMALL_SIZE], *copy;
        rknn_fbs_buf buf;
        rknn_fbs_table t;
        rknn_fbs_vector v;
        rknn_fbs_string s;
        uint32_t u;
        int ret;

        build_small(b);
        if (c->width == 2)
            put16(b, c->pos, (uint16_t)c->value);
        else
            put32(b, c->pos, c->value);
        ret = small_root(b, SMALL_SIZE, &copy, &buf, &t);
        CHECK(ret == c->expect_root, "%s: root %d, expected %d", c->what, ret, c->expect_root);
        if (ret == RKNN_FBS_OK && c->expect_root == RKNN_FBS_OK) {
            if (c->kind == 0)
                ret = rknn_fbs_get_u32(&t, (uint32_t)c->slot, 0, &u);
            else if (c->kind == 1)
                ret = rknn_fbs_get_vector(&t, (uint32_t)c->slot, 4, &v);
            else
                ret = rknn_fbs_get_string(&t, (uint32_t)c->slot, &s);
            CHECK(ret == c->expect, "%s: got %d, expected %d", c->what, ret, c->expect);
        }
        free(copy);
    }
}

/* Truncating the small buffer anywhere must fail cleanly or read only inside. */
static void check_small_truncations(void)
{
    uint8_t b[SMALL_SIZE], *copy;
    rknn_fbs_buf buf;
    rknn_fbs_table t;
    rknn_fbs_vector v;
    rknn_fbs_string s;
    int32_t i;

    build_small(b);
    for (uint32_t n = 0; n <= SMALL_SIZE; n++) {
        int ret = small_root(b, n, &copy, &buf, &t);
        if (ret == RKNN_FBS_OK) {
            rknn_fbs_get_u32(&t, 0, 0, NULL);
            if (rknn_fbs_get_vector(&t, 1, 4, &v) == RKNN_FBS_OK)
                for (uint32_t k = 0; k < v.count; k++)
                    CHECK(rknn_fbs_vec_i32(&v, k, &i) == RKNN_FBS_OK, "elem");
            rknn_fbs_get_string(&t, 2, &s);
        }
        CHECK((n < 32) == (ret != RKNN_FBS_OK), "truncated to %lu: %d", (unsigned long)n, ret);
        free(copy);
    }
}

/* 20 tables, each pointing to the next through slot 0: depth limit at 16. */
static void check_depth(void)
{
    enum { N = 20, FIRST = 12 };
    uint8_t b[FIRST + 8 * N];
    rknn_fbs_buf buf;
    rknn_fbs_table t, next;
    int ret = RKNN_FBS_OK;
    uint32_t depth = 0;

    memset(b, 0, sizeof(b));
    put32(b, 0, FIRST);
    put16(b, 4, 6); /* vtable: 1 slot */
    put16(b, 6, 8); /* table: soffset + uoffset */
    put16(b, 8, 4); /* slot 0 at +4 */
    for (uint32_t k = 0; k < N; k++) {
        uint32_t pos = FIRST + 8 * k;
        put32(b, pos, pos - 4);
        put32(b, pos + 4, k + 1 < N ? 4 : 0); /* the last one is never followed */
    }
    CHECK(rknn_fbs_buf_init(&buf, b, sizeof(b)) == RKNN_FBS_OK, "init");
    CHECK(rknn_fbs_root(&buf, &t) == RKNN_FBS_OK, "root");
    /* each table's slot 0 is a uoffset to the next; the parser opens nested
     * tables with the depth of their parent + 1, as here */
    while (depth < N - 1) {
        uint32_t at = 0;
        if ((ret = rknn_fbs_field_pos(&t, 0, 4, &at)) != RKNN_FBS_OK ||
            (ret = rknn_fbs_table_at(&buf, at + rknn_fbs_le32(b + at), (uint32_t)t.depth + 1u,
                                     &next)) != RKNN_FBS_OK)
            break;
        t = next;
        depth++;
    }
    CHECK(ret == RKNN_FBS_E_DEPTH && depth == RKNN_FBS_MAX_DEPTH, "depth %lu ret %d",
          (unsigned long)depth, ret);
}

/* ---- part 2: sample models ------------------------------------------------- */

static unsigned long cases_run, cases_ok;

/* Every accessor for every index of a view that parsed: all must succeed. */
static void walk_valid(const rknn_model_view *v, const char *what)
{
    rknn_model_tensor_info t;
    rknn_model_node_info n;
    rknn_model_reloc_info r;
    rknn_model_norm_info nm;
    rknn_model_task_info task;
    rknn_model_task_range g;
    rknn_model_attr a;
    rknn_model_attr_value e;
    const uint8_t *data;
    uint32_t u, w, size, idx;
    float f;
    int32_t i32;
    int bad = 0;

    for (uint32_t i = 0; i < v->n_tensors; i++) {
        bad |= rknn_model_tensor(v, i, &t) != RKNN_SUCC;
        for (uint32_t k = 0; k < t.n_scales; k++)
            bad |= rknn_model_tensor_scale(&t, k, &f) != RKNN_SUCC;
        for (uint32_t k = 0; k < t.n_zero_points; k++)
            bad |= rknn_model_tensor_zero_point(&t, k, &i32) != RKNN_SUCC;
        bad |= rknn_model_find_tensor(v, t.name.ptr, t.name.len, &idx) != RKNN_SUCC || idx > i;
        if (t.data)
            bad |=
                t.data < v->fbs.fb.data || t.data + t.data_size > v->fbs.fb.data + v->fbs.fb.size;
    }
    for (uint32_t i = 0; i < v->n_nodes; i++) {
        bad |= rknn_model_node(v, i, &n) != RKNN_SUCC;
        for (uint32_t k = 0; k < n.n_inputs; k++)
            bad |= rknn_model_node_input(&n, k, &idx) != RKNN_SUCC || idx >= v->n_tensors;
        for (uint32_t k = 0; k < n.n_outputs; k++)
            bad |= rknn_model_node_output(&n, k, &idx) != RKNN_SUCC || idx >= v->n_tensors;
        for (uint32_t k = 0; k < n.n_attrs; k++) {
            bad |= rknn_model_node_attr(&n, k, &a) != RKNN_SUCC;
            for (uint32_t j = 0; j < a.n_elems; j++)
                bad |= rknn_model_attr_elem(&a, j, &e) != RKNN_SUCC;
            bad |= rknn_model_attr_elem(&a, a.n_elems, &e) != RKNN_ERR_PARAM_INVALID;
        }
        bad |= rknn_model_node_attr(&n, n.n_attrs, &a) != RKNN_ERR_PARAM_INVALID;
    }
    for (uint32_t i = 0; i < v->n_inputs; i++)
        bad |= rknn_model_io(v, 1, i, &idx) != RKNN_SUCC;
    for (uint32_t i = 0; i < v->n_outputs; i++)
        bad |= rknn_model_io(v, 0, i, &idx) != RKNN_SUCC;
    for (uint32_t i = 0; i < v->n_norms; i++) {
        bad |= rknn_model_norm(v, i, &nm) != RKNN_SUCC;
        for (uint32_t c = 0; c < nm.n_channels; c++)
            bad |= rknn_model_norm_mean(&nm, c, &f) != RKNN_SUCC ||
                   rknn_model_norm_std(&nm, c, &f) != RKNN_SUCC;
    }
    for (uint32_t i = 0; i < v->n_relocs; i++) {
        bad |= rknn_model_reloc(v, i, &r) != RKNN_SUCC;
        for (uint32_t k = 0; k < r.n_entries; k++)
            bad |= rknn_model_reloc_entry(&r, k, &u, &w) != RKNN_SUCC || w >= v->n_regcmd_words;
    }
    for (uint32_t i = 0; i < v->n_blobs; i++)
        bad |= rknn_model_blob(v, i, &data, &size) != RKNN_SUCC;
    for (uint32_t i = 0; i < v->n_tasks; i++) {
        bad |= rknn_model_task(v, i, &task) != RKNN_SUCC || task.op_idx >= v->n_nodes ||
               task.regcmd_addr + (uint64_t)task.regcfg_amount * 8 > v->regcmd_size;
    }
    for (uint32_t c = 1; c <= v->max_cores; c++)
        for (uint32_t k = 0; k < c; k++)
            bad |= rknn_model_task_group(v, c, k, &g) != RKNN_SUCC ||
                   (uint64_t)g.first + g.count > v->n_tasks;
    bad |= rknn_model_tensor(v, v->n_tensors, &t) != RKNN_ERR_PARAM_INVALID;
    bad |= rknn_model_node(v, v->n_nodes, &n) != RKNN_ERR_PARAM_INVALID;
    bad |= rknn_model_reloc(v, v->n_relocs, &r) != RKNN_ERR_PARAM_INVALID;
    bad |= rknn_model_task(v, v->n_tasks, &task) != RKNN_ERR_PARAM_INVALID;
    bad |= v->regcmd && !v->lowered &&
           (v->regcmd < v->fbs.fb.data ||
            v->regcmd + v->regcmd_size > v->fbs.fb.data + v->fbs.fb.size);
    bad |= v->lowered && v->regcmd != v->lowered;
    CHECK(!bad, "%s: an accessor failed on a model that parsed", what);
}

static int allowed(int ret)
{
    return ret == RKNN_SUCC || ret == RKNN_ERR_MODEL_INVALID || ret == RKNN_ERR_PARAM_INVALID;
}

/* A view that no longer matches the bytes: accessors may fail, never crash. */
static void walk_stale(const rknn_model_view *v)
{
    rknn_model_tensor_info t;
    rknn_model_node_info n;
    rknn_model_reloc_info r;
    rknn_model_norm_info nm;
    rknn_model_attr a;
    uint32_t u, w, idx;
    int ok = 1;

    for (uint32_t i = 0; i < v->n_tensors; i++)
        if (rknn_model_tensor(v, i, &t) == RKNN_SUCC)
            ok &= allowed(rknn_model_find_tensor(v, t.name.ptr, t.name.len, &idx));
    for (uint32_t i = 0; i < v->n_nodes; i++)
        if (rknn_model_node(v, i, &n) == RKNN_SUCC)
            for (uint32_t k = 0; k < n.n_attrs; k++)
                ok &= allowed(rknn_model_node_attr(&n, k, &a));
    for (uint32_t i = 0; i < v->n_relocs; i++)
        if (rknn_model_reloc(v, i, &r) == RKNN_SUCC)
            for (uint32_t k = 0; k < r.n_entries; k++)
                ok &= allowed(rknn_model_reloc_entry(&r, k, &u, &w));
    for (uint32_t i = 0; i < v->n_norms; i++)
        ok &= allowed(rknn_model_norm(v, i, &nm));
    CHECK(ok, "stale view: unexpected return code");
}

/* One candidate: parse, check the contract, walk the accessors. */
static void run_case(const uint8_t *data, size_t size, const char *what)
{
    rknn_model_view v;
    rknn_model_tensor_info t;
    unsigned long before = log_lines;
    int ret = rknn_model_parse(data, size, &v);

    cases_run++;
    if (ret == RKNN_SUCC) {
        void *lowered = NULL;
        cases_ok++;
        if (v.lowered_size) { /* container 4: what rknn_init builds must build */
            char platform[32];
            rknn_model_string_copy(v.target_platform, platform, sizeof platform);
            lowered = malloc(v.lowered_size);
            CHECK(lowered && rknn_model_lower(&v, npu_soc_find_platform(platform), lowered,
                                              v.lowered_size) == RKNN_SUCC,
                  "%s: parsed but does not lower", what);
        }
        walk_valid(&v, what);
        free(lowered);
        return;
    }
    CHECK(ret == RKNN_ERR_MODEL_INVALID, "%s: parse returned %d", what, ret);
    CHECK(log_lines > before, "%s: rejected without a log line", what);
    CHECK(rknn_model_tensor(&v, 0, &t) == RKNN_ERR_PARAM_INVALID, "%s: view not cleared", what);
}

/* ---- structural positions of a model -------------------------------------- */

typedef struct {
    uint32_t *pos; /* file offsets of 4-byte words */
    size_t count, cap;
    uint8_t *seen; /* one flag per word of the file */
} pos_set;

static void add_pos(pos_set *s, size_t file_off, size_t file_size)
{
    size_t w = file_off / 4;

    if (file_off + 4 > file_size || s->seen[w])
        return;
    s->seen[w] = 1;
    if (s->count == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->pos = realloc(s->pos, s->cap * sizeof(*s->pos));
        if (!s->pos)
            exit(1);
    }
    s->pos[s->count++] = (uint32_t)(w * 4);
}

/* Table words, vtable words and every 4-byte field's offset target. */
static void add_table(pos_set *s, const rknn_model_view *v, const rknn_fbs_table *t)
{
    size_t base = v->payload_offset;
    uint32_t fpos;

    for (uint32_t o = 0; o < t->table_size; o += 4)
        add_pos(s, base + t->pos + o, v->file_size);
    for (uint32_t o = 0; o < t->vtable_size; o += 2)
        add_pos(s, base + t->vtable + o, v->file_size);
    for (uint32_t slot = 0; slot < rknn_fbs_slot_count(t); slot++) {
        if (rknn_fbs_field_pos(t, slot, 4, &fpos) != RKNN_FBS_OK || fpos % 4)
            continue;
        uint64_t target = (uint64_t)fpos + rknn_fbs_le32(v->fbs.fb.data + fpos);
        if (target % 4 == 0 && target + 4 <= v->fbs.fb.size)
            add_pos(s, base + (size_t)target, v->file_size);
    }
}

static void add_table_vector(pos_set *s, const rknn_model_view *v, const rknn_fbs_vector *vec)
{
    rknn_fbs_table t;

    if (vec->count)
        add_pos(s, v->payload_offset + vec->pos - 4, v->file_size);
    for (uint32_t i = 0; i < vec->count; i++) {
        add_pos(s, v->payload_offset + vec->pos + 4 * i, v->file_size);
        if (rknn_fbs_vec_table(vec, i, &t) == RKNN_FBS_OK)
            add_table(s, v, &t);
    }
}

static void collect_positions(const rknn_model_view *v, pos_set *s)
{
    rknn_fbs_vector graphs;

    for (size_t o = 0; o < 64; o += 4)
        add_pos(s, o, v->file_size);
    add_pos(s, v->json_offset - 8, v->file_size);
    add_pos(s, v->json_offset - 4, v->file_size);
    add_pos(s, v->payload_offset, v->file_size);
    add_pos(s, v->payload_offset + 4, v->file_size);
    add_table(s, v, &v->fbs.model);
    if (rknn_fbs_get_vector(&v->fbs.model, 2, 4, &graphs) == RKNN_FBS_OK)
        add_table_vector(s, v, &graphs);
    add_table_vector(s, v, &v->fbs.blobs);
    add_table_vector(s, v, &v->fbs.tensors);
    add_table_vector(s, v, &v->fbs.nodes);
    add_table_vector(s, v, &v->fbs.norms);
    add_table_vector(s, v, &v->fbs.relocs);
}

/* ---- the mutation campaigns ------------------------------------------------ */

static uint32_t rng_state = 0x2545f491u;

static uint32_t rng(void)
{
    /* xorshift32: fixed seed, same sequence on every run and platform. */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static const uint8_t byte_values[] = {0x00, 0xff, 0x7f, 0x80};

static void word_values(uint32_t *vals, uint32_t original, uint32_t payload)
{
    vals[0] = 0x00000000u;
    vals[1] = 0xffffffffu;
    vals[2] = 0x7fffffffu;
    vals[3] = 0x80000000u;
    vals[4] = 0xfffffffcu;  /* -4 */
    vals[5] = 0x00100000u;  /* big */
    vals[6] = payload;      /* just past the end */
    vals[7] = original + 4; /* shifted by one slot */
}

/* 4 for a real network under RKNPU_TEST_REDUCED, else 1: its cases / it. */
static size_t reduction(size_t size)
{
    return size > (1u << 20) && getenv("RKNPU_TEST_REDUCED") ? 4u : 1u;
}

static void truncations(const uint8_t *model, size_t size, const char *name)
{
    char what[256];

    /* Past 256 bytes every 61st length, or about 512 lengths in all for a
     * large model (a real network: a parse costs about a millisecond). */
    size_t lengths = 512u / reduction(size);
    size_t step = size / lengths > 61 ? size / lengths : 61;

    for (size_t n = 0; n <= size; n = n < 256 ? n + 1 : n + step) {
        uint8_t *copy = malloc(n ? n : 1);
        if (!copy)
            exit(1);
        memcpy(copy, model, n);
        snprintf(what, sizeof(what), "%s truncated to %lu", name, (unsigned long)n);
        run_case(copy, n, what);
        free(copy);
    }
    uint8_t *copy = malloc(size - 1);
    if (!copy)
        exit(1);
    memcpy(copy, model, size - 1);
    run_case(copy, size - 1, name);
    free(copy);
}

static void structural(uint8_t *buf, const uint8_t *model, size_t size, const pos_set *s,
                       uint32_t payload, const rknn_model_view *orig, const char *name)
{
    char what[256];
    uint32_t vals[8];

    /* Every structural word, or an even spread of 256 of them (a real
     * network has thousands of tables; the samples cover the schema whole). */
    size_t spread = 256u / reduction(size);
    size_t stride = s->count / spread > 1 ? s->count / spread : 1;

    for (size_t k = 0; k < s->count; k += stride) {
        uint32_t p = s->pos[k];
        word_values(vals, rknn_fbs_le32(model + p), payload);
        for (size_t j = 0; j < sizeof(byte_values) + 8; j++) {
            if (j < sizeof(byte_values)) {
                buf[p] = byte_values[j];
            } else {
                put32(buf, p, vals[j - sizeof(byte_values)]);
            }
            snprintf(what, sizeof(what), "%s word @%lu value #%lu", name, (unsigned long)p,
                     (unsigned long)j);
            run_case(buf, size, what);
            if (j == 0 && orig)
                walk_stale(orig);
            memcpy(buf + p, model + p, 4);
        }
    }
}

static void random_mutations(uint8_t *buf, const uint8_t *model, size_t size,
                             const rknn_model_view *orig, const char *name, unsigned count)
{
    char what[256];
    size_t touched[3];

    for (unsigned k = 0; k < count; k++) {
        unsigned n = 1 + rng() % 3;
        for (unsigned m = 0; m < n; m++) {
            size_t p = rng() % size;
            uint32_t r = rng();
            touched[m] = p;
            switch (r % 4) {
            case 0: buf[p] = byte_values[(r >> 8) % 4]; break;
            case 1: buf[p] ^= (uint8_t)(1u << ((r >> 8) % 8)); break;
            case 2: buf[p] = (uint8_t)(r >> 8); break;
            default:
                p &= ~(size_t)3;
                touched[m] = p;
                if (p + 4 <= size)
                    put32(buf, (uint32_t)p, (r >> 8) % 2 ? 0x80000000u | (r >> 9) : r >> 12);
            }
        }
        snprintf(what, sizeof(what), "%s random #%u", name, k);
        run_case(buf, size, what);
        if (k % 8 == 0 && orig)
            walk_stale(orig);
        for (unsigned m = 0; m < n; m++) {
            size_t p = touched[m];
            size_t len = p + 4 <= size ? 4 : size - p;
            memcpy(buf + p, model + p, len);
        }
    }
}

static unsupported_list unsupported;

static void torture_model(const char *dir, const char *name)
{
    char path[4096];
    size_t size = 0;
    uint8_t *model, *buf;
    rknn_model_view orig;
    pos_set s = {0};
    unsigned long run0 = cases_run;
    unsupported_model *u = unsupported_find(&unsupported, name);
    int parsed, ret;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    model = tool_read_file(path, SIZE_MAX, &size);
    if (!model || size < 72) {
        CHECK(0, "cannot read %s", path);
        free(model);
        return;
    }
    buf = malloc(size);
    s.seen = calloc(size / 4 + 1, 1);
    if (!buf || !s.seen)
        exit(1);
    memcpy(buf, model, size);
    /* orig points into buf, so the stale-view walks see the mutations. */
    unsupported_log_clear();
    ret = rknn_model_parse(buf, size, &orig);
    parsed = ret == RKNN_SUCC;
    if (u) {
        /* Not loadable yet: it must fail the listed way; mutations of it
         * must still be refused cleanly. */
        u->seen = 1;
        failures += unsupported_verdict(u, ret);
    } else {
        CHECK(parsed, "%s: parse returned %d (and it is not in %s)", name, ret,
              TEST_UNSUPPORTED_LIST);
    }
    if (parsed) {
        collect_positions(&orig, &s);
    } else {
        /* The older containers: flip the version to 6 so the FlatBuffer is
         * reached. */
        buf[8] = 6;
        memcpy(model, buf, size);
        for (size_t o = 0; o + 4 <= size && o < 4096; o += 4)
            add_pos(&s, o, size);
    }
    truncations(model, size, name);
    structural(buf, model, size, &s, (uint32_t)(size - 72), parsed ? &orig : NULL, name);
    random_mutations(buf, model, size, parsed ? &orig : NULL, name,
                     size > (1u << 20) ? 500 / reduction(size) : 4000);
    printf("%s: %lu cases (%lu structural words)\n", name, cases_run - run0,
           (unsigned long)s.count);
    free(s.pos);
    free(s.seen);
    free(buf);
    free(model);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/models";
    char *names[64];
    size_t n = 0;
    struct dirent *de;
    DIR *d;

    check_small_valid();
    check_small_defects();
    check_small_truncations();
    check_depth();
    if (failures) {
        printf("test_rknn_corrupt: %d failure(s) in the FlatBuffer reader checks\n", failures);
        return 1;
    }
    if (unsupported_load(&unsupported) != 0)
        return 1;
    d = opendir(dir);
    if (!d) {
        printf("FAIL: missing sample-model directory %s (../shared/models)\n", dir);
        return 1;
    }
    while ((de = readdir(d)) != NULL && n < 64) {
        size_t len = strlen(de->d_name);
        if (len > 5 && strcmp(de->d_name + len - 5, ".rknn") == 0) {
            names[n] = malloc(len + 1);
            if (!names[n])
                exit(1);
            memcpy(names[n++], de->d_name, len + 1);
        }
    }
    closedir(d);
    qsort(names, n, sizeof(names[0]), by_name);
    CHECK(n > 0, "no models in %s", dir);
    for (size_t i = 0; i < n; i++) {
        torture_model(dir, names[i]);
        free(names[i]);
    }
    failures += unsupported_check_seen(&unsupported, dir);
    printf("%lu cases, %lu parsed successfully, %lu log lines\n", cases_run, cases_ok, log_lines);
    if (failures) {
        printf("test_rknn_corrupt: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_rknn_corrupt: OK\n");
    return 0;
}
