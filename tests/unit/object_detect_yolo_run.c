/*
 * object_detect_yolo_run - examples/object_detect_yolo.c on files, for
 * tests/tools/check_object_detect_yolo.py, which builds the inputs and
 * judges the output against its own numpy reference (host only).
 *
 *   object_detect_yolo_run letterbox IN.ppm NET_W NET_H OUT.ppm
 *   object_detect_yolo_run detect TENSORS.bin
 *   object_detect_yolo_run decode IN.jpg|IN.png|IN.ppm OUT.ppm
 *
 * decode writes the picture as examples/example_image.c reads it
 * (libjpeg, libpng) as a binary PPM and prints "decoded WxH name 'NAME'"
 * (a PPM's first comment).
 * letterbox prints "letterbox: resized W H pad L T" and writes the network
 * input as a binary PPM. detect reads a tensor file (little endian):
 *   "YOLOTEN1", u32 net_width, net_height, image_width, image_height, count,
 *   then per tensor: u32 channels, height, width, kind (0 float32, 1 int8),
 *   f32 scale, i32 zero_point, and channels*height*width values (NCHW);
 * data blocks padded to a multiple of 4 bytes. It prints the letterbox
 * line, per detection object_detect's line and an "exact" line with every
 * figure to float precision, then "detections: N", or "refused: WHY" and exits 1 when the outputs do not
 * pair up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_image.h"
#include "object_detect_yolo.h"
#include "tool_files.h"

#define MAX_TENSORS 16

static uint8_t net_input[YOLO_INPUT_MAX_SIDE * YOLO_INPUT_MAX_SIDE * 3];
static struct yolo_workspace workspace;
static struct yolo_detection detections[YOLO_MAX_DETECTIONS];

/* A little-endian field of the tensor file; fails past its end. */
struct cursor {
    const uint8_t *data;
    size_t size, pos;
};

static int take(struct cursor *c, void *out, size_t bytes)
{
    if (c->size - c->pos < bytes)
        return -1;
    memcpy(out, c->data + c->pos, bytes); /* the host is little endian, as the file */
    c->pos += bytes;
    return 0;
}

static void print_letterbox(const struct yolo_letterbox *lb)
{
    printf("letterbox: resized %u %u pad %u %u\n", lb->resized_width, lb->resized_height,
           lb->pad_left, lb->pad_top);
}

static int run_letterbox(const char *in_path, unsigned net_w, unsigned net_h, const char *out_path)
{
    struct yolo_letterbox lb;
    struct rgb_image img;
    uint8_t *owned, *file;
    size_t size;
    FILE *out;
    int ok;

    file = tool_read_file(in_path, SIZE_MAX, &size);
    if (!file || decode_image("object_detect", in_path, file, size, &img, &owned) != 0 ||
        yolo_letterbox_plan(img.width, img.height, net_w, net_h, &lb) != 0) {
        printf("cannot letterbox %s\n", in_path);
        free(file);
        return 1;
    }
    print_letterbox(&lb);
    yolo_letterbox_rgb(img.pixels, &lb, net_input);
    out = fopen(out_path, "wb");
    ok = out && fprintf(out, "P6\n%u %u\n255\n", net_w, net_h) > 0 &&
         fwrite(net_input, 3, (size_t)net_w * net_h, out) == (size_t)net_w * net_h;
    if (out && fclose(out) != 0)
        ok = 0;
    free(file);
    if (!ok)
        printf("cannot write %s\n", out_path);
    return ok ? 0 : 1;
}

/* The picture as object_detect decodes it, written back as a binary PPM. */
static int run_decode(const char *in_path, const char *out_path)
{
    struct rgb_image img;
    uint8_t *owned = NULL, *file;
    size_t size;
    FILE *out = NULL;
    int ok;

    file = tool_read_file(in_path, SIZE_MAX, &size);
    ok = file && decode_image("object_detect", in_path, file, size, &img, &owned) == 0 &&
         (out = fopen(out_path, "wb")) != NULL &&
         fprintf(out, "P6\n%u %u\n255\n", img.width, img.height) > 0 &&
         fwrite(img.pixels, 3, (size_t)img.width * img.height, out) ==
             (size_t)img.width * img.height;
    if (out && fclose(out) != 0)
        ok = 0;
    if (ok)
        printf("decoded %ux%u name '%s'\n", img.width, img.height, img.name);
    else
        printf("cannot decode %s into %s\n", in_path, out_path);
    free(owned);
    free(file);
    return ok ? 0 : 1;
}

static int run_detect(const char *path)
{
    struct yolo_tensor tensors[MAX_TENSORS];
    struct yolo_branch branches[YOLO_MAX_BRANCHES];
    struct yolo_letterbox lb;
    uint32_t head[5];
    char magic[8], line[160];
    const char *why = "";
    struct cursor c;
    int branch_count, found = -1;

    c.data = tool_read_file(path, SIZE_MAX, &c.size);
    c.pos = 0;
    if (!c.data || take(&c, magic, 8) != 0 || memcmp(magic, "YOLOTEN1", 8) != 0 ||
        take(&c, head, sizeof head) != 0 || head[4] > MAX_TENSORS ||
        yolo_letterbox_plan(head[2], head[3], head[0], head[1], &lb) != 0) {
        printf("%s: not a tensor file this harness reads\n", path);
        free((void *)c.data);
        return 1;
    }
    for (uint32_t i = 0; i < head[4]; i++) {
        struct yolo_tensor *t = &tensors[i];
        uint32_t shape[4];
        if (take(&c, shape, sizeof shape) != 0 || take(&c, &t->scale, 4) != 0 ||
            take(&c, &t->zero_point, 4) != 0 || shape[3] > 1) {
            printf("%s: tensor %u header cut short\n", path, (unsigned)i);
            free((void *)c.data);
            return 1;
        }
        t->channels = shape[0];
        t->height = shape[1];
        t->width = shape[2];
        size_t bytes = (size_t)shape[0] * shape[1] * shape[2] * (shape[3] ? 1 : 4);
        if (c.size - c.pos < bytes) {
            printf("%s: tensor %u data cut short\n", path, (unsigned)i);
            free((void *)c.data);
            return 1;
        }
        /* every block is padded to 4 bytes, so float data stays aligned */
        t->values = shape[3] ? NULL : (const float *)(const void *)(c.data + c.pos);
        t->codes = shape[3] ? (const int8_t *)(c.data + c.pos) : NULL;
        c.pos += (bytes + 3) & ~(size_t)3;
        if (c.pos > c.size)
            c.pos = c.size;
    }
    print_letterbox(&lb);
    branch_count = yolo_pair_outputs(tensors, head[4], head[0], head[1], branches, &why);
    if (branch_count > 0)
        found = yolo_detect(branches, (unsigned)branch_count, &lb, &workspace, detections,
                            YOLO_MAX_DETECTIONS, &why);
    if (found < 0) {
        printf("refused: %s\n", why);
        free((void *)c.data);
        return 1;
    }
    for (int i = 0; i < found; i++) {
        const struct yolo_detection *d = &detections[i];
        yolo_format_detection(line, sizeof line, (unsigned)i, d);
        printf("%s\n", line);
        printf("exact %d: class %u score %.9g box %.9g %.9g %.9g %.9g\n", i, d->class_id,
               (double)d->score, (double)d->x0, (double)d->y0, (double)d->x1, (double)d->y1);
    }
    printf("detections: %d\n", found);
    free((void *)c.data);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "letterbox") == 0)
        return run_letterbox(argv[2], (unsigned)atoi(argv[3]), (unsigned)atoi(argv[4]), argv[5]);
    if (argc == 3 && strcmp(argv[1], "detect") == 0)
        return run_detect(argv[2]);
    if (argc == 4 && strcmp(argv[1], "decode") == 0)
        return run_decode(argv[2], argv[3]);
    printf("usage: object_detect_yolo_run letterbox IN.ppm NET_W NET_H OUT.ppm\n"
           "       object_detect_yolo_run detect TENSORS.bin\n"
           "       object_detect_yolo_run decode IN.jpg|IN.png|IN.ppm OUT.ppm\n");
    return 2;
}
