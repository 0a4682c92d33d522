/*
 * test_ppocr.h - what the PP-OCRv4 det tests share: the sizes of the
 * network's input and output, reading the test image, and rknn_init the way
 * a vendor-API client does it (its buffer freed right after).
 */
#ifndef TEST_PPOCR_H
#define TEST_PPOCR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "test_files.h"

#define SIDE      480
#define IN_C      3
#define IN_BYTES  (SIDE * SIDE * IN_C)
#define OUT_ELEMS (SIDE * SIDE)
#define N_CORES   3 /* RK3588 */

/* The pixels of a uint8 (1, 480, 480, 3) C-order .npy into img; 0, or -1
 * with a FAIL line. */
static inline int load_image(const char *path, uint8_t *img)
{
    size_t n, hdr, hlen;
    uint8_t *buf = test_load_file(path, &n);
    char header[256];
    int ok;

    if (!buf)
        return -1;
    ok = n >= 12 && memcmp(buf, "\x93NUMPY", 6) == 0 && buf[6] == 1;
    hlen = ok ? (size_t)(buf[8] | buf[9] << 8) : 0;
    hdr = 10 + hlen;
    if (ok && hlen < sizeof header && hdr <= n) {
        memcpy(header, buf + 10, hlen);
        header[hlen] = '\0';
        ok = (strstr(header, "'|u1'") || strstr(header, "'<u1'")) &&
             strstr(header, "'fortran_order': False") && strstr(header, "(1, 480, 480, 3)") &&
             n == hdr + IN_BYTES;
    } else {
        ok = 0;
    }
    if (ok)
        memcpy(img, buf + hdr, IN_BYTES);
    else
        printf("FAIL: %s is not a uint8 (1, 480, 480, 3) .npy file\n", path);
    free(buf);
    return ok ? 0 : -1;
}

/* rknn_init from a malloc'd copy of the file, which is then overwritten
 * and freed: the runtime keeps its own copy. */
static inline int init_model(const char *path, rknn_context *ctx)
{
    size_t size;
    uint8_t *model = test_load_file(path, &size);
    int ret;

    if (!model)
        return -1;
    ret = rknn_init(ctx, model, (uint32_t)size, 0, NULL);
    memset(model, 0xA5, size);
    free(model);
    if (ret != RKNN_SUCC) {
        printf("FAIL: rknn_init(%s) returned %d\n", path, ret);
        return -1;
    }
    return 0;
}

#endif /* TEST_PPOCR_H */
