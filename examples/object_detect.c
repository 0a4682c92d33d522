/*
 * object_detect - find objects of COCO's 80 classes in an image with
 * YOLOv8n (rk3566_yolov8n.v4.rknn) on the NPU, written the way an
 * application using the vendor API writes it: rknn_init, query the tensor
 * attributes, rknn_inputs_set (uint8 RGB NHWC), rknn_run, rknn_outputs_get,
 * release, destroy; every return code checked.
 *
 *   host:     object_detect MODEL.rknn IMAGE [--out BOXES.png]
 *   firmware: object_detect.elf, with the model and the COCO test images
 *             linked in (examples/meson.build decodes the JPEGs to binary
 *             PPMs named in a comment at build time: bare metal has no
 *             files and no image libraries)
 *
 * IMAGE is a binary PPM (P6, 8-bit), a PNG (libpng), a JPEG (libjpeg) or a
 * uint8 RGB .npy ([1,]H,W,3), read by example_image.c as text_detect reads
 * it. --out writes the image with the boxes drawn into a PNG.
 *
 * Preprocessing, as ../shared/models/README.md documents it for this model:
 * RGB, letterboxed to the network's 640x640 (object_detect_yolo.c: aspect
 * ratio kept, bilinear, centred, grey 114 around it, as Ultralytics
 * trains and validates), raw 0..255 pixels (the model's input quantisation
 * holds the 1/255). The outputs are taken as int8 and dequantised with the
 * queried scale and zero point (float32 from the runtime if an output is
 * not affine int8), then YOLOv8's post-processing (object_detect_yolo.c).
 *
 * Output, per image:
 *   object_detect: image NAME WxH
 *   detection 0: bear score 0.912 box 3.2 70.1 585.0 640.0
 *   ...
 *   object_detect: N detections
 * highest score first; boxes x0 y0 x1 y1 in the image's pixels. Firmware
 * ends with "object_detect: OK".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_image.h"
#include "object_detect_yolo.h"
#include "rknn_api.h"
#include "rknpu_bm.h"

#if EXAMPLE_FIRMWARE
#include "board.h"
#endif

/* YOLOv8 has 6 outputs; exports with score sums 9. */
#define MAX_OUTPUTS 12

/* The model's input and outputs, as the queries describe them. */
struct network {
    rknn_context ctx;
    unsigned input_width, input_height;
    unsigned n_outputs;
    rknn_tensor_attr outputs[MAX_OUTPUTS];
};

static uint8_t network_input[YOLO_INPUT_MAX_SIDE * YOLO_INPUT_MAX_SIDE * 3];
static struct yolo_workspace workspace;
static struct yolo_detection detections[YOLO_MAX_DETECTIONS];

#if EXAMPLE_FIRMWARE
/* Blobs placed by object_detect_blobs.S (examples/meson.build): the model
 * and the images as binary PPMs. */
extern const uint8_t demo_model[], demo_model_end[];
extern const uint8_t *const demo_inputs[], *const demo_inputs_end[];
extern const uint32_t demo_input_count;
#endif

static uint64_t now_ms(void)
{
    return rknpu_hook_time_us() / 1000;
}

/* RKNN_SUCC, or a message naming the call and its code. */
static int check(int ret, const char *call)
{
    if (ret != RKNN_SUCC)
        printf("object_detect: %s failed (%d)\n", call, ret);
    return ret;
}

/* Channels, height and width of a 4-D attribute in whichever layout it reports. */
static void attr_size(const rknn_tensor_attr *attr, unsigned *channels, unsigned *height,
                      unsigned *width)
{
    int nchw = attr->fmt != RKNN_TENSOR_NHWC;

    *channels = attr->dims[nchw ? 1 : 3];
    *height = attr->dims[nchw ? 2 : 1];
    *width = attr->dims[nchw ? 3 : 2];
}

/* Affine int8 outputs are read as int8 codes; anything else as float32. */
static int output_is_int8(const rknn_tensor_attr *attr)
{
    return attr->type == RKNN_TENSOR_INT8 && attr->qnt_type == RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC;
}

/* One RGB input of at most YOLO_INPUT_MAX_SIDE a side, 4-D outputs. */
static int query_shapes(struct network *net)
{
    rknn_input_output_num io;
    rknn_tensor_attr in;
    unsigned channels;

    memset(&in, 0, sizeof in);
    if (check(rknn_query(net->ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io),
              "rknn_query(IN_OUT_NUM)") ||
        check(rknn_query(net->ctx, RKNN_QUERY_INPUT_ATTR, &in, sizeof in),
              "rknn_query(INPUT_ATTR)"))
        return -1;
    attr_size(&in, &channels, &net->input_height, &net->input_width);
    printf("object_detect: input '%s' %ux%ux%u, %u outputs\n", in.name, net->input_width,
           net->input_height, channels, io.n_output);
    if (io.n_input != 1 || in.n_dims != 4 || channels != 3 ||
        net->input_width > YOLO_INPUT_MAX_SIDE || net->input_height > YOLO_INPUT_MAX_SIDE ||
        io.n_output > MAX_OUTPUTS) {
        printf("object_detect: not a detector this example handles: want one RGB input of at "
               "most %ux%u and at most %u outputs\n",
               YOLO_INPUT_MAX_SIDE, YOLO_INPUT_MAX_SIDE, MAX_OUTPUTS);
        return -1;
    }
    net->n_outputs = io.n_output;
    for (unsigned i = 0; i < io.n_output; i++) {
        rknn_tensor_attr *out = &net->outputs[i];
        memset(out, 0, sizeof *out);
        out->index = i;
        if (check(rknn_query(net->ctx, RKNN_QUERY_OUTPUT_ATTR, out, sizeof *out),
                  "rknn_query(OUTPUT_ATTR)"))
            return -1;
        if (out->n_dims != 4 || out->dims[0] != 1) {
            printf("object_detect: output %u '%s' is not [1,C,H,W]\n", i, out->name);
            return -1;
        }
    }
    return 0;
}

/* RKNN_SUCC, rknn_init's error, or RKNN_ERR_FAIL for a model this
 * example does not handle. */
static int open_network(struct network *net, const void *model, size_t model_size)
{
    int ret;

    memset(net, 0, sizeof *net);
    /* rknn_init copies the model (the vendor rule), so a const blob is fine */
    ret = check(rknn_init(&net->ctx, (void *)(uintptr_t)model, (uint32_t)model_size, 0, NULL),
                "rknn_init");
    if (ret != RKNN_SUCC)
        return ret;
    if (query_shapes(net) != 0) {
        rknn_destroy(net->ctx);
        return RKNN_ERR_FAIL;
    }
    return RKNN_SUCC;
}

/* The outputs as the post-processing reads them, checked against their
 * attributes' sizes. */
static int describe_outputs(const struct network *net, const rknn_output *outputs,
                            struct yolo_tensor *tensors)
{
    for (unsigned i = 0; i < net->n_outputs; i++) {
        const rknn_tensor_attr *attr = &net->outputs[i];
        struct yolo_tensor *t = &tensors[i];
        attr_size(attr, &t->channels, &t->height, &t->width);
        size_t elements = (size_t)t->channels * t->height * t->width;
        size_t bytes = elements * (outputs[i].want_float ? sizeof(float) : 1);
        if (outputs[i].size < bytes) {
            printf("object_detect: output %u is %u bytes, want %zu\n", i, (unsigned)outputs[i].size,
                   bytes);
            return -1;
        }
        t->values = outputs[i].want_float ? outputs[i].buf : NULL;
        t->codes = outputs[i].want_float ? NULL : outputs[i].buf;
        t->scale = attr->scale;
        t->zero_point = attr->zp;
    }
    return 0;
}

/* Letterbox, inputs_set, run, outputs_get, post-processing, release.
 * Returns the number of detections, or -1. */
static int detect_objects(const struct network *net, const struct rgb_image *img)
{
    struct yolo_tensor tensors[MAX_OUTPUTS];
    struct yolo_branch branches[YOLO_MAX_BRANCHES];
    struct yolo_letterbox lb;
    rknn_output outputs[MAX_OUTPUTS];
    rknn_input input;
    const char *why = "";
    uint64_t t0, t1;
    int found = -1, branch_count;

    if (yolo_letterbox_plan(img->width, img->height, net->input_width, net->input_height, &lb)) {
        printf("object_detect: cannot letterbox %ux%u into %ux%u\n", img->width, img->height,
               net->input_width, net->input_height);
        return -1;
    }
    yolo_letterbox_rgb(img->pixels, &lb, network_input);
    memset(&input, 0, sizeof input);
    input.index = 0;
    input.buf = network_input;
    input.size = net->input_width * net->input_height * 3;
    input.type = RKNN_TENSOR_UINT8;
    input.fmt = RKNN_TENSOR_NHWC;
    memset(outputs, 0, sizeof outputs);
    for (unsigned i = 0; i < net->n_outputs; i++) {
        outputs[i].index = i;
        outputs[i].want_float = !output_is_int8(&net->outputs[i]);
    }
    t0 = now_ms();
    if (check(rknn_inputs_set(net->ctx, 1, &input), "rknn_inputs_set") ||
        check(rknn_run(net->ctx, NULL), "rknn_run") ||
        check(rknn_outputs_get(net->ctx, net->n_outputs, outputs, NULL), "rknn_outputs_get"))
        return -1;
    t1 = now_ms();
    if (describe_outputs(net, outputs, tensors) == 0) {
        branch_count = yolo_pair_outputs(tensors, net->n_outputs, net->input_width,
                                         net->input_height, branches, &why);
        if (branch_count > 0)
            found = yolo_detect(branches, (unsigned)branch_count, &lb, &workspace, detections,
                                YOLO_MAX_DETECTIONS, &why);
        if (found < 0)
            printf("object_detect: the outputs are not YOLOv8's: %s\n", why);
    }
    printf("object_detect: inference %llu ms, post-processing %llu ms\n",
           (unsigned long long)(t1 - t0), (unsigned long long)(now_ms() - t1));
    if (check(rknn_outputs_release(net->ctx, net->n_outputs, outputs), "rknn_outputs_release"))
        return -1;
    return found;
}

static void print_detections(unsigned found)
{
    char line[160];

    for (unsigned i = 0; i < found; i++) {
        yolo_format_detection(line, sizeof line, i, &detections[i]);
        printf("%s\n", line);
    }
    printf("object_detect: %u detections\n", found);
}

#if EXAMPLE_FIRMWARE
/* ---- firmware ------------------------------------------------------------- */

/* How much of the carve-out (the board's linker region) the detector took
 * at most; when rknn_init ran out of it, what the model needs. */
static void report_carveout(const void *model, size_t size, int init_ret)
{
    rknpu_model_mem need;
    rknpu_mem_stats stats;

    if (rknpu_mem_get_stats(&stats) != RKNN_SUCC)
        return;
    if (init_ret == RKNN_SUCC)
        printf("object_detect: carve-out: peak %zu of %zu bytes\n", stats.peak_used_bytes,
               stats.total_bytes);
    else if (init_ret == RKNN_ERR_MALLOC_FAIL &&
             rknpu_model_mem_requirements(model, size, &need) == RKNN_SUCC)
        printf("object_detect: the carve-out is too small: the model needs %llu bytes, the "
               "board has %zu\n",
               (unsigned long long)need.carveout_bytes, stats.total_bytes);
}

int main(void)
{
    size_t model_size = (size_t)(demo_model_end - demo_model);
    struct network net;
    int ret = board_init(), failed = 0;

    if (ret != RKNN_SUCC) {
        printf("object_detect: board_init failed (%d)\n", ret);
        return 1;
    }
    ret = open_network(&net, demo_model, model_size);
    if (ret != RKNN_SUCC) {
        report_carveout(demo_model, model_size, ret);
        return 1;
    }
    for (uint32_t i = 0; i < demo_input_count && !failed; i++) {
        struct rgb_image img;
        uint8_t *owned; /* always NULL: PPM pixels stay in the blob */
        int found = -1;
        if (decode_image("object_detect", "a linked image", demo_inputs[i],
                         (size_t)(demo_inputs_end[i] - demo_inputs[i]), &img, &owned) == 0) {
            printf("object_detect: image %s %ux%u\n", img.name[0] ? img.name : "(unnamed)",
                   img.width, img.height);
            found = detect_objects(&net, &img);
        }
        if (found < 0)
            failed = 1;
        else
            print_detections((unsigned)found);
    }
    report_carveout(demo_model, model_size, RKNN_SUCC);
    if (check(rknn_destroy(net.ctx), "rknn_destroy") || failed)
        return 1;
    printf("object_detect: OK\n");
    return 0;
}

#else
/* ---- host ------------------------------------------------------------------- */

#if EXAMPLE_HAVE_PNG
/* A colour per class (eight plain ones in turn), so that neighbouring
 * boxes of two classes differ. */
static void class_colour(unsigned class_id, uint8_t rgb[3])
{
    static const uint8_t palette[][3] = {{255, 0, 0},   {0, 255, 0},    {0, 128, 255},
                                         {255, 255, 0}, {255, 0, 255},  {0, 255, 255},
                                         {255, 128, 0}, {255, 255, 255}};
    memcpy(rgb, palette[class_id % (sizeof palette / sizeof palette[0])], 3);
}

/* A 3-pixel frame just inside the box, clipped to the image. */
static void draw_box(uint8_t *canvas, unsigned width, unsigned height,
                     const struct yolo_detection *d)
{
    int x0 = (int)d->x0, y0 = (int)d->y0, x1 = (int)d->x1 - 1, y1 = (int)d->y1 - 1;
    uint8_t colour[3];

    class_colour(d->class_id, colour);
    for (int y = y0; y <= y1; y++) {
        for (int x = x0; x <= x1; x++) {
            int edge = x < x0 + 3 || x > x1 - 3 || y < y0 + 3 || y > y1 - 3;
            if (edge && x >= 0 && y >= 0 && x < (int)width && y < (int)height)
                memcpy(canvas + ((size_t)y * width + (size_t)x) * 3, colour, 3);
        }
    }
}

/* The detections' frames, the best drawn last, on top (box_painter for
 * write_boxes_png). */
static void draw_boxes(uint8_t *canvas, unsigned width, unsigned height, unsigned found)
{
    for (unsigned i = found; i-- > 0;)
        draw_box(canvas, width, height, &detections[i]);
}
#endif

int main(int argc, char **argv)
{
    struct image_file image = {.file = NULL, .decoded = NULL};
    struct network net;
    const char *out_path;
    uint8_t *model;
    size_t model_size = 0;
    int found = -1, ret = parse_command_line("object_detect", argc, argv, &out_path);

    if (ret != 0)
        return ret;
    model = read_file("object_detect", argv[1], &model_size);
    if (model && load_image_file("object_detect", argv[2], &image) == 0) {
        printf("object_detect: image %s %ux%u\n", argv[2], image.img.width, image.img.height);
        if (open_network(&net, model, model_size) == RKNN_SUCC) {
            found = detect_objects(&net, &image.img);
            if (check(rknn_destroy(net.ctx), "rknn_destroy"))
                found = -1;
        }
    }
    free(model); /* rknn_init copied it */
    if (found >= 0)
        print_detections((unsigned)found);
#if EXAMPLE_HAVE_PNG
    if (found >= 0 && out_path &&
        write_boxes_png("object_detect", out_path, &image.img, draw_boxes, (unsigned)found) != 0)
        found = -1;
#endif
    free_image_file(&image);
    return found >= 0 ? 0 : 1;
}
#endif
