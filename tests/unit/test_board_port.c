/*
 * test_board_port - a port's own board functions replace the library's weak
 * defaults (rknpu_board.h): this program is a "board" with a file system
 * (semihosting stdio standing in for FatFs or littlefs). Its
 * rknpu_board_map_file loads a model into a static buffer, so
 * rknn_init(..., size 0) with a path works on firmware; the outputs equal
 * those of the same model passed as bytes, and every map is unmapped.
 * Bare-metal builds only: the host board defines these functions itself.
 */
#include <string.h>

#include "board.h"
#include "rknn_api.h"
#include "rknpu_board.h"
#include "test_files.h"
#include "test_util.h"

#define MODEL "rk3588_multiple_input_demo.v6.rknn"

static uint8_t file_buf[256u << 10], bytes_buf[256u << 10];
static unsigned maps, unmaps;

int rknpu_board_map_file(const char *path, const void **data, size_t *size)
{
    size_t n = test_read_file(path, file_buf, sizeof file_buf);

    if (!n)
        return RKNN_ERR_MODEL_INVALID;
    maps++;
    *data = file_buf;
    *size = n;
    return RKNN_SUCC;
}

void rknpu_board_unmap_file(const void *data, size_t size)
{
    unmaps += data == file_buf && size > 0;
}

/* Run the context on fixed inputs: its first output's size, and an FNV-1a
 * hash of its bytes in *hash. */
static size_t run_once(rknn_context h, uint32_t *hash)
{
    rknn_input_output_num num;
    rknn_input in[4];
    rknn_output o = {0};
    static uint8_t pixels[4][64u << 10];
    size_t n = 0;

    if (!CHECK(rknn_query(h, RKNN_QUERY_IN_OUT_NUM, &num, sizeof num) == RKNN_SUCC) ||
        !CHECK(num.n_input <= 4))
        return 0;
    memset(in, 0, sizeof in);
    for (uint32_t i = 0; i < num.n_input; i++) {
        rknn_tensor_attr a = {.index = i};
        CHECK(rknn_query(h, RKNN_QUERY_INPUT_ATTR, &a, sizeof a) == RKNN_SUCC);
        for (uint32_t b = 0; b < a.n_elems && b < sizeof pixels[i]; b++)
            pixels[i][b] = (uint8_t)(b * 7u + i * 13u);
        in[i].index = i;
        in[i].buf = pixels[i];
        in[i].size = a.n_elems;
        in[i].type = RKNN_TENSOR_UINT8;
        in[i].fmt = RKNN_TENSOR_NHWC;
    }
    CHECK(rknn_inputs_set(h, num.n_input, in) == RKNN_SUCC);
    CHECK(rknn_run(h, NULL) == RKNN_SUCC);
    *hash = 2166136261u;
    if (CHECK(rknn_outputs_get(h, 1, &o, NULL) == RKNN_SUCC)) {
        for (uint32_t b = 0; b < o.size; b++)
            *hash = (*hash ^ ((const uint8_t *)o.buf)[b]) * 16777619u;
        n = o.size;
    }
    rknn_outputs_release(h, 1, &o);
    return n;
}

int main(int argc, char **argv)
{
    uint32_t want = 0, got = 1;
    char path[512];
    rknn_context h = 0;
    size_t n_bytes, n_want, n_got;

    if (!CHECK(argc > 1) || !CHECK(board_init() == RKNN_SUCC))
        return test_report("board_port");
    test_path(path, sizeof path, argv[argc - 1], MODEL);
    n_bytes = test_read_file(path, bytes_buf, sizeof bytes_buf);
    if (!n_bytes) {
        printf("FAIL: missing input file %s\n", path);
        return TEST_MISSING_INPUT;
    }
    /* the reference: the model given as bytes */
    CHECK(rknn_init(&h, bytes_buf, (uint32_t)n_bytes, 0, NULL) == RKNN_SUCC);
    n_want = run_once(h, &want);
    CHECK(rknn_destroy(h) == RKNN_SUCC);
    CHECK_EQ_U(maps, 0);

    /* the same model by path, through the port: copied, so unmapped at once */
    CHECK(rknn_init(&h, path, 0, 0, NULL) == RKNN_SUCC);
    CHECK_EQ_U(maps, 1);
    CHECK_EQ_U(unmaps, 1);
    n_got = run_once(h, &got);
    CHECK(rknn_destroy(h) == RKNN_SUCC);
    CHECK(n_want > 0 && n_got == n_want && got == want);

    /* zero-copy: the mapping lives until rknn_destroy */
    CHECK(rknn_init(&h, path, 0, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, NULL) == RKNN_SUCC);
    CHECK_EQ_U(maps, 2);
    CHECK_EQ_U(unmaps, 1);
    n_got = run_once(h, &got);
    CHECK(rknn_destroy(h) == RKNN_SUCC);
    CHECK_EQ_U(unmaps, 2);
    CHECK(n_got == n_want && got == want);

    /* a file the port cannot read: its code comes back from rknn_init */
    CHECK(rknn_init(&h, "no-such-model.rknn", 0, 0, NULL) == RKNN_ERR_MODEL_INVALID);
    return test_report("board_port");
}
