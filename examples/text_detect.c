/*
 * text_detect - find the lines of text in an image with PP-OCRv4 text
 * detection (rk3588_ppocrv4_det.v6.rknn) on the NPU, written the way an
 * application using the vendor API writes it: rknn_init, query the tensor
 * attributes, rknn_inputs_set (uint8 RGB NHWC), rknn_run, rknn_outputs_get
 * (want_float), release, destroy; every return code checked.
 *
 *   host:     text_detect MODEL.rknn IMAGE [--out BOXES.png]
 *   firmware: text_detect.elf, with the model and test1.png linked in
 *             (examples/meson.build decodes the PNG to a binary PPM at
 *             build time: bare metal has no files and no libpng)
 *
 * IMAGE is a PNG (libpng), a JPEG (libjpeg), a binary PPM (P6, 8-bit) or a
 * uint8 RGB .npy ([1,]H,W,3), read by example_image.c as object_detect
 * reads it. --out writes the image with the boxes drawn in red.
 *
 * Preprocessing, as ../shared/models/README.md documents it for this
 * model: RGB (alpha dropped, as Pillow's convert("RGB") does), resized to
 * the network's 480x480 with Pillow's BILINEAR filter, raw 0..255 pixels
 * (mean and std are folded into the model). The resize is Pillow's, byte
 * for byte (text_detect_db.c): an image already at the network's size is
 * used as is. Post-processing: PaddleOCR's DB recipe (text_detect_db.c).
 *
 * Output, boxes in the original image's pixels, corners clockwise from the
 * top-left:
 *   box 0: x0,y0 x1,y1 x2,y2 x3,y3 score 0.987
 *   ...
 *   text_detect: N boxes
 * and on firmware a last line "text_detect: OK".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_image.h"
#include "rknn_api.h"
#include "rknpu_bm.h"
#include "text_detect_db.h"

#if EXAMPLE_FIRMWARE
#include "board.h"
#endif

/* The model's one input and one output, as the queries describe them. */
struct network {
    rknn_context ctx;
    unsigned input_width, input_height;
    unsigned map_width, map_height;
};

static uint8_t network_input[TEXT_DET_MAX_SIDE * TEXT_DET_MAX_SIDE * 3];
static struct text_box boxes[TEXT_DET_MAX_BOXES];

#if EXAMPLE_FIRMWARE
/* Firmware has no heap: the resize's intermediate (network width x image
 * height) is static, so images taller than this are refused. */
#define FIRMWARE_MAX_IMAGE_HEIGHT 2048
static uint8_t resize_scratch[TEXT_DET_MAX_SIDE * FIRMWARE_MAX_IMAGE_HEIGHT * 3];

/* Blobs placed by text_detect_blobs.S (examples/meson.build): the model
 * and, as input 0, the image as a binary PPM. */
extern const uint8_t demo_model[], demo_model_end[];
extern const uint8_t *const demo_inputs[], *const demo_inputs_end[];
#endif

/* ---- the network ---------------------------------------------------------- */

static uint64_t now_ms(void)
{
    return rknpu_hook_time_us() / 1000;
}

/* RKNN_SUCC, or a message naming the call and its code. */
static int check(int ret, const char *call)
{
    if (ret != RKNN_SUCC)
        printf("text_detect: %s failed (%d)\n", call, ret);
    return ret;
}

/* Height and width of a 4-D attribute in whichever layout it reports. */
static void attr_size(const rknn_tensor_attr *attr, unsigned *height, unsigned *width,
                      unsigned *channels)
{
    int nchw = attr->fmt == RKNN_TENSOR_NCHW;

    *channels = attr->dims[nchw ? 1 : 3];
    *height = attr->dims[nchw ? 2 : 1];
    *width = attr->dims[nchw ? 3 : 2];
}

/* The input must be an RGB image and the output a one-channel map the
 * post-processing's buffers hold. */
static int query_shapes(struct network *net)
{
    rknn_input_output_num io;
    rknn_tensor_attr in, out;
    unsigned in_c, out_c;

    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    in.index = 0;
    out.index = 0;
    if (check(rknn_query(net->ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io),
              "rknn_query(IN_OUT_NUM)") ||
        check(rknn_query(net->ctx, RKNN_QUERY_INPUT_ATTR, &in, sizeof in),
              "rknn_query(INPUT_ATTR)") ||
        check(rknn_query(net->ctx, RKNN_QUERY_OUTPUT_ATTR, &out, sizeof out),
              "rknn_query(OUTPUT_ATTR)"))
        return -1;
    attr_size(&in, &net->input_height, &net->input_width, &in_c);
    attr_size(&out, &net->map_height, &net->map_width, &out_c);
    printf("text_detect: input '%s' %ux%ux%u, output '%s' %ux%u\n", in.name, net->input_width,
           net->input_height, in_c, out.name, net->map_width, net->map_height);
    if (io.n_input != 1 || io.n_output != 1 || in.n_dims != 4 || out.n_dims != 4 || in_c != 3 ||
        out_c != 1 || net->input_width > TEXT_DET_MAX_SIDE ||
        net->input_height > TEXT_DET_MAX_SIDE || net->map_width > TEXT_DET_MAX_SIDE ||
        net->map_height > TEXT_DET_MAX_SIDE) {
        printf("text_detect: not a text detector this example handles: want one RGB input and "
               "one 1-channel output, each at most %ux%u\n",
               TEXT_DET_MAX_SIDE, TEXT_DET_MAX_SIDE);
        return -1;
    }
    return 0;
}

static int open_network(struct network *net, const void *model, size_t model_size)
{
    memset(net, 0, sizeof *net);
    /* rknn_init copies the model (the vendor rule), so a const blob is fine */
    if (check(rknn_init(&net->ctx, (void *)(uintptr_t)model, (uint32_t)model_size, 0, NULL),
              "rknn_init"))
        return -1;
    if (query_shapes(net) != 0) {
        rknn_destroy(net->ctx);
        return -1;
    }
    return 0;
}

/* The image at the network's size: resized into network_input, or the
 * image itself when it already has that size. NULL on failure. */
static const uint8_t *network_pixels(const struct network *net, const struct rgb_image *img)
{
    size_t scratch_bytes = resize_scratch_bytes(img->height, net->input_width);
    uint8_t *scratch;
    int ret;

    if (img->width == net->input_width && img->height == net->input_height)
        return img->pixels;
#if EXAMPLE_FIRMWARE
    scratch = scratch_bytes <= sizeof resize_scratch ? resize_scratch : NULL;
#else
    scratch = malloc(scratch_bytes);
#endif
    ret = scratch ? resize_rgb_bilinear(img->pixels, img->width, img->height, network_input,
                                        net->input_width, net->input_height, scratch)
                  : -1;
#if !EXAMPLE_FIRMWARE
    free(scratch);
#endif
    if (ret != 0) {
        printf("text_detect: cannot resize %ux%u to %ux%u (at most %u times larger, and "
               "memory for %zu bytes of scratch)\n",
               img->width, img->height, net->input_width, net->input_height, TEXT_DET_MAX_SCALE,
               scratch_bytes);
        return NULL;
    }
    return network_input;
}

/* inputs_set, run, outputs_get, DB post-processing, outputs_release.
 * Returns the number of boxes, or -1. */
static int run_network(const struct network *net, const uint8_t *pixels,
                       const struct rgb_image *img)
{
    rknn_input input;
    rknn_output output;
    uint64_t t0 = now_ms(), t1;
    int found;

    memset(&input, 0, sizeof input);
    input.index = 0;
    input.buf = (void *)(uintptr_t)pixels;
    input.size = net->input_width * net->input_height * 3;
    input.type = RKNN_TENSOR_UINT8;
    input.fmt = RKNN_TENSOR_NHWC;
    memset(&output, 0, sizeof output);
    output.index = 0;
    output.want_float = 1;
    if (check(rknn_inputs_set(net->ctx, 1, &input), "rknn_inputs_set") ||
        check(rknn_run(net->ctx, NULL), "rknn_run") ||
        check(rknn_outputs_get(net->ctx, 1, &output, NULL), "rknn_outputs_get"))
        return -1;
    t1 = now_ms();
    if (output.size < net->map_width * net->map_height * sizeof(float)) {
        printf("text_detect: output is %u bytes, want %u floats\n", (unsigned)output.size,
               net->map_width * net->map_height);
        found = -1;
    } else {
        found = db_find_boxes(output.buf, net->map_width, net->map_height, img->width, img->height,
                              boxes, TEXT_DET_MAX_BOXES);
    }
    printf("text_detect: inference %llu ms, post-processing %llu ms\n",
           (unsigned long long)(t1 - t0), (unsigned long long)(now_ms() - t1));
    if (check(rknn_outputs_release(net->ctx, 1, &output), "rknn_outputs_release"))
        return -1;
    return found;
}

/* The whole detector on one image. Returns the number of boxes, or -1. */
static int detect_text(const void *model, size_t model_size, const struct rgb_image *img)
{
    struct network net;
    const uint8_t *pixels;
    int found = -1;

    if (open_network(&net, model, model_size) != 0)
        return -1;
    pixels = network_pixels(&net, img);
    if (pixels)
        found = run_network(&net, pixels, img);
    if (check(rknn_destroy(net.ctx), "rknn_destroy"))
        return -1;
    return found;
}

static void print_boxes(unsigned found)
{
    unsigned shown = found < TEXT_DET_MAX_BOXES ? found : TEXT_DET_MAX_BOXES;

    for (unsigned i = 0; i < shown; i++) {
        const struct text_box *b = &boxes[i];
        printf("box %u: %d,%d %d,%d %d,%d %d,%d score %.3f\n", i, b->x[0], b->y[0], b->x[1],
               b->y[1], b->x[2], b->y[2], b->x[3], b->y[3], (double)b->score);
    }
    if (shown < found)
        printf("text_detect: %u more boxes not kept (TEXT_DET_MAX_BOXES)\n", found - shown);
    printf("text_detect: %u boxes\n", found);
}

#if EXAMPLE_FIRMWARE
/* ---- firmware ------------------------------------------------------------- */

int main(void)
{
    struct rgb_image img;
    uint8_t *owned;
    int found, ret = board_init();

    if (ret != RKNN_SUCC) {
        printf("text_detect: board_init failed (%d)\n", ret);
        return 1;
    }
    if (decode_image("text_detect", "the linked image", demo_inputs[0],
                     (size_t)(demo_inputs_end[0] - demo_inputs[0]), &img, &owned) != 0)
        return 1;
    printf("text_detect: image %ux%u\n", img.width, img.height);
    found = detect_text(demo_model, (size_t)(demo_model_end - demo_model), &img);
    if (found < 0)
        return 1;
    print_boxes((unsigned)found);
    printf("text_detect: OK\n");
    return 0;
}

#else
/* ---- host ------------------------------------------------------------------- */

#if EXAMPLE_HAVE_PNG
static void paint(uint8_t *rgb, unsigned width, unsigned height, int x, int y)
{
    if (x < 0 || y < 0 || x >= (int)width || y >= (int)height)
        return;
    rgb[((size_t)y * width + (size_t)x) * 3 + 0] = 255;
    rgb[((size_t)y * width + (size_t)x) * 3 + 1] = 0;
    rgb[((size_t)y * width + (size_t)x) * 3 + 2] = 0;
}

/* Bresenham, two pixels thick so that the boxes show on a busy page. */
static void draw_line(uint8_t *rgb, unsigned width, unsigned height, int x0, int y0, int x1, int y1)
{
    int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;

    for (;;) {
        paint(rgb, width, height, x0, y0);
        paint(rgb, width, height, x0 + (dx < -dy), y0 + (dx >= -dy));
        if (x0 == x1 && y0 == y1)
            break;
        int twice_err = 2 * err; /* both steps judge the error before either */
        if (twice_err >= dy) {
            err += dy;
            x0 += sx;
        }
        if (twice_err <= dx) {
            err += dx;
            y0 += sy;
        }
    }
}

/* The boxes' outlines (box_painter for write_boxes_png). */
static void draw_boxes(uint8_t *canvas, unsigned width, unsigned height, unsigned found)
{
    for (unsigned i = 0; i < found && i < TEXT_DET_MAX_BOXES; i++)
        for (int k = 0; k < 4; k++)
            draw_line(canvas, width, height, boxes[i].x[k], boxes[i].y[k], boxes[i].x[(k + 1) % 4],
                      boxes[i].y[(k + 1) % 4]);
}
#endif

int main(int argc, char **argv)
{
    struct image_file image = {.file = NULL, .decoded = NULL};
    const char *out_path;
    uint8_t *model;
    size_t model_size = 0;
    int found = -1, ret = parse_command_line("text_detect", argc, argv, &out_path);

    if (ret != 0)
        return ret;
    model = read_file("text_detect", argv[1], &model_size);
    if (model && load_image_file("text_detect", argv[2], &image) == 0) {
        printf("text_detect: image %ux%u\n", image.img.width, image.img.height);
        found = detect_text(model, model_size, &image.img);
    }
    free(model); /* rknn_init copied it; the context is gone by now anyway */
    if (found >= 0)
        print_boxes((unsigned)found);
#if EXAMPLE_HAVE_PNG
    if (found >= 0 && out_path &&
        write_boxes_png("text_detect", out_path, &image.img, draw_boxes, (unsigned)found) != 0)
        found = -1;
#endif
    free_image_file(&image);
    return found >= 0 ? 0 : 1;
}
#endif
