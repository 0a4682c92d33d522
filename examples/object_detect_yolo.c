/*
 * object_detect_yolo.c - letterbox and YOLOv8 post-processing (see
 * object_detect_yolo.h). Written from Ultralytics' published recipe: the
 * letterbox of its predictor, the DFL box decode, per-class NMS.
 */
#include "object_detect_yolo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The COCO detection classes in the order the model's score channels use. */
const char *const yolo_class_names[YOLO_CLASSES] = {
    "person",        "bicycle",      "car",
    "motorcycle",    "airplane",     "bus",
    "train",         "truck",        "boat",
    "traffic light", "fire hydrant", "stop sign",
    "parking meter", "bench",        "bird",
    "cat",           "dog",          "horse",
    "sheep",         "cow",          "elephant",
    "bear",          "zebra",        "giraffe",
    "backpack",      "umbrella",     "handbag",
    "tie",           "suitcase",     "frisbee",
    "skis",          "snowboard",    "sports ball",
    "kite",          "baseball bat", "baseball glove",
    "skateboard",    "surfboard",    "tennis racket",
    "bottle",        "wine glass",   "cup",
    "fork",          "knife",        "spoon",
    "bowl",          "banana",       "apple",
    "sandwich",      "orange",       "broccoli",
    "carrot",        "hot dog",      "pizza",
    "donut",         "cake",         "chair",
    "couch",         "potted plant", "bed",
    "dining table",  "toilet",       "tv",
    "laptop",        "mouse",        "remote",
    "keyboard",      "cell phone",   "microwave",
    "oven",          "toaster",      "sink",
    "refrigerator",  "book",         "clock",
    "vase",          "scissors",     "teddy bear",
    "hair drier",    "toothbrush",
};

/* ---- letterbox ------------------------------------------------------------ */

/* a * b / c rounded to nearest, in 64 bits (sides and products stay small). */
static unsigned scale_rounded(unsigned a, unsigned b, unsigned c)
{
    return (unsigned)(((uint64_t)2 * a * b + c) / ((uint64_t)2 * c));
}

int yolo_letterbox_plan(unsigned image_width, unsigned image_height, unsigned net_width,
                        unsigned net_height, struct yolo_letterbox *lb)
{
    if (image_width == 0 || image_height == 0 || net_width == 0 || net_height == 0 ||
        net_width > YOLO_INPUT_MAX_SIDE || net_height > YOLO_INPUT_MAX_SIDE)
        return -1;
    lb->image_width = image_width;
    lb->image_height = image_height;
    lb->net_width = net_width;
    lb->net_height = net_height;
    /* the side that fills the input first sets the scale; integer
     * arithmetic so that the reference computes the same sizes */
    if ((uint64_t)image_width * net_height >= (uint64_t)image_height * net_width) {
        lb->resized_width = net_width;
        lb->resized_height = scale_rounded(image_height, net_width, image_width);
    } else {
        lb->resized_height = net_height;
        lb->resized_width = scale_rounded(image_width, net_height, image_height);
    }
    if (lb->resized_width == 0)
        lb->resized_width = 1;
    if (lb->resized_height == 0)
        lb->resized_height = 1;
    /* centred; an odd padding leaves the extra pixel at the right/bottom,
     * as Ultralytics' round(d - 0.1) / round(d + 0.1) split does */
    lb->pad_left = (net_width - lb->resized_width) / 2;
    lb->pad_top = (net_height - lb->resized_height) / 2;
    return 0;
}

#define LERP_ONE 2048 /* bilinear weights in 1/2048 steps, as OpenCV's */

/* Source pixel and weight of its right/lower neighbour for output pixel i
 * of a src -> dst resize: centres line up, (i + 0.5) * src / dst - 0.5,
 * clamped to the first and last pixel. */
static void lerp_tap(unsigned i, unsigned src, unsigned dst, uint32_t *first, uint32_t *weight)
{
    int64_t num = (int64_t)(2 * (int64_t)i + 1) * src - dst; /* position * 2 dst */
    int64_t den = 2 * (int64_t)dst;

    *first = 0;
    *weight = 0;
    if (num <= 0)
        return;
    *first = (uint32_t)(num / den);
    *weight = (uint32_t)(((num % den) * LERP_ONE + den / 2) / den);
    if (*weight == LERP_ONE) {
        (*first)++;
        *weight = 0;
    }
    if (*first >= src - 1) {
        *first = src - 1;
        *weight = 0;
    }
}

static void resize_bilinear(const uint8_t *src, unsigned src_width, unsigned src_height,
                            uint8_t *dst, unsigned dst_width, unsigned dst_height,
                            size_t dst_row_bytes)
{
    uint32_t col[YOLO_INPUT_MAX_SIDE], col_w[YOLO_INPUT_MAX_SIDE];

    for (unsigned x = 0; x < dst_width; x++)
        lerp_tap(x, src_width, dst_width, &col[x], &col_w[x]);
    for (unsigned y = 0; y < dst_height; y++) {
        uint32_t row, row_w;
        lerp_tap(y, src_height, dst_height, &row, &row_w);
        const uint8_t *top = src + (size_t)row * src_width * 3;
        const uint8_t *bottom = row_w ? top + (size_t)src_width * 3 : top;
        uint8_t *out = dst + (size_t)y * dst_row_bytes;
        for (unsigned x = 0; x < dst_width; x++) {
            size_t left = (size_t)col[x] * 3, right = col_w[x] ? left + 3 : left;
            for (unsigned c = 0; c < 3; c++) {
                uint32_t upper = top[left + c] * (LERP_ONE - col_w[x]) + top[right + c] * col_w[x];
                uint32_t lower =
                    bottom[left + c] * (LERP_ONE - col_w[x]) + bottom[right + c] * col_w[x];
                uint32_t sum = upper * (LERP_ONE - row_w) + lower * row_w;
                out[x * 3 + c] = (uint8_t)((sum + LERP_ONE * LERP_ONE / 2) / (LERP_ONE * LERP_ONE));
            }
        }
    }
}

void yolo_letterbox_rgb(const uint8_t *image, const struct yolo_letterbox *lb, uint8_t *net_input)
{
    size_t row_bytes = (size_t)lb->net_width * 3;
    uint8_t *inside = net_input + (size_t)lb->pad_top * row_bytes + (size_t)lb->pad_left * 3;

    memset(net_input, YOLO_PAD_VALUE, row_bytes * lb->net_height);
    if (lb->resized_width == lb->image_width && lb->resized_height == lb->image_height) {
        for (unsigned y = 0; y < lb->image_height; y++)
            memcpy(inside + y * row_bytes, image + (size_t)y * lb->image_width * 3,
                   (size_t)lb->image_width * 3);
        return;
    }
    resize_bilinear(image, lb->image_width, lb->image_height, inside, lb->resized_width,
                    lb->resized_height, row_bytes);
}

/* ---- outputs ------------------------------------------------------------- */

static size_t branch_cells(const struct yolo_branch *branches, unsigned count)
{
    size_t cells = 0;

    for (unsigned b = 0; b < count; b++)
        cells += (size_t)branches[b].boxes->height * branches[b].boxes->width;
    return cells;
}

int yolo_pair_outputs(const struct yolo_tensor *outputs, unsigned count, unsigned net_width,
                      unsigned net_height, struct yolo_branch *branches, const char **why)
{
    unsigned n = 0;

    for (unsigned i = 0; i < count; i++) {
        const struct yolo_tensor *t = &outputs[i];
        if (t->channels == 1)
            continue; /* a score sum for early rejection: not needed here */
        if (t->channels != YOLO_BOX_CHANNELS && t->channels != YOLO_CLASSES) {
            *why = "an output has neither 64 box channels (4 x 16 bins) nor 80 class channels";
            return -1;
        }
        if (!t->values && !t->codes) {
            *why = "an output has no data";
            return -1;
        }
        if (t->height == 0 || t->width == 0 || net_height % t->height != 0 ||
            net_width % t->width != 0 || net_height / t->height != net_width / t->width) {
            *why = "an output's grid does not divide the input into square cells";
            return -1;
        }
        unsigned b = 0;
        while (b < n && branches[b].stride != net_height / t->height)
            b++;
        if (b == n) {
            if (n == YOLO_MAX_BRANCHES) {
                *why = "more strides than YOLO_MAX_BRANCHES";
                return -1;
            }
            branches[n++] = (struct yolo_branch){NULL, NULL, net_height / t->height};
        }
        const struct yolo_tensor **slot =
            t->channels == YOLO_BOX_CHANNELS ? &branches[b].boxes : &branches[b].scores;
        if (*slot) {
            *why = "two outputs of the same kind and grid";
            return -1;
        }
        *slot = t;
    }
    for (unsigned b = 0; b < n; b++) {
        if (!branches[b].boxes || !branches[b].scores) {
            *why = "a grid has box distributions without class scores, or the reverse";
            return -1;
        }
    }
    if (n == 0) {
        *why = "no box and class outputs";
        return -1;
    }
    if (branch_cells(branches, n) > YOLO_MAX_CANDIDATES) {
        *why = "the grids have more cells than YOLO_MAX_CANDIDATES";
        return -1;
    }
    for (unsigned i = 1; i < n; i++) /* by stride: a fixed scan order */
        for (unsigned j = i; j > 0 && branches[j - 1].stride > branches[j].stride; j--) {
            struct yolo_branch swap = branches[j];
            branches[j] = branches[j - 1];
            branches[j - 1] = swap;
        }
    return (int)n;
}

/* ---- post-processing ------------------------------------------------------ */

static float tensor_value(const struct yolo_tensor *t, size_t i)
{
    if (t->values)
        return t->values[i];
    return (float)((int32_t)t->codes[i] - t->zero_point) * t->scale;
}

/* The expected bin of one side's distribution (softmax over its bins). */
static float side_distance(const struct yolo_tensor *boxes, unsigned side, size_t cell)
{
    size_t plane = (size_t)boxes->height * boxes->width;
    float logit[YOLO_BOX_BINS], top = -INFINITY, sum = 0.0f, weighted = 0.0f;

    for (unsigned i = 0; i < YOLO_BOX_BINS; i++) {
        logit[i] = tensor_value(boxes, (side * YOLO_BOX_BINS + i) * plane + cell);
        if (logit[i] > top)
            top = logit[i];
    }
    for (unsigned i = 0; i < YOLO_BOX_BINS; i++) {
        float e = expf(logit[i] - top); /* shifted: no overflow */
        sum += e;
        weighted += e * (float)i;
    }
    return weighted / sum;
}

/* Every cell whose best class scores above the threshold. Returns the count. */
static unsigned collect_candidates(const struct yolo_branch *branch, uint32_t first_cell,
                                   struct yolo_candidate *out)
{
    const struct yolo_tensor *scores = branch->scores;
    size_t plane = (size_t)scores->height * scores->width;
    float stride = (float)branch->stride;
    unsigned found = 0;

    for (unsigned y = 0; y < scores->height; y++) {
        for (unsigned x = 0; x < scores->width; x++) {
            size_t cell = (size_t)y * scores->width + x;
            unsigned best = 0;
            float best_score = tensor_value(scores, cell);
            for (unsigned c = 1; c < YOLO_CLASSES; c++) {
                float s = tensor_value(scores, c * plane + cell);
                if (s > best_score) { /* ties keep the lower class */
                    best_score = s;
                    best = c;
                }
            }
            if (!(best_score > YOLO_SCORE_THRESHOLD))
                continue;
            float cx = (float)x + 0.5f, cy = (float)y + 0.5f;
            struct yolo_candidate *k = &out[found++];
            k->x0 = (cx - side_distance(branch->boxes, 0, cell)) * stride;
            k->y0 = (cy - side_distance(branch->boxes, 1, cell)) * stride;
            k->x1 = (cx + side_distance(branch->boxes, 2, cell)) * stride;
            k->y1 = (cy + side_distance(branch->boxes, 3, cell)) * stride;
            k->score = best_score;
            k->class_id = best;
            k->cell = first_cell + (uint32_t)cell;
        }
    }
    return found;
}

static int by_score(const void *a, const void *b)
{
    const struct yolo_candidate *p = a, *q = b;

    if (p->score != q->score)
        return p->score > q->score ? -1 : 1;
    return p->cell < q->cell ? -1 : p->cell > q->cell;
}

static float iou(const struct yolo_candidate *a, const struct yolo_candidate *b)
{
    float w = fminf(a->x1, b->x1) - fmaxf(a->x0, b->x0);
    float h = fminf(a->y1, b->y1) - fmaxf(a->y0, b->y0);
    float inter = w > 0.0f && h > 0.0f ? w * h : 0.0f;
    float uni = (a->x1 - a->x0) * (a->y1 - a->y0) + (b->x1 - b->x0) * (b->y1 - b->y0) - inter;

    return uni > 0.0f ? inter / uni : 0.0f;
}

static float clampf(float v, float high)
{
    return v < 0.0f ? 0.0f : v > high ? high : v;
}

int yolo_detect(const struct yolo_branch *branches, unsigned branch_count,
                const struct yolo_letterbox *lb, struct yolo_workspace *ws,
                struct yolo_detection *detections, unsigned max_detections, const char **why)
{
    struct yolo_candidate *cand = ws->candidates;
    unsigned found = 0, kept = 0;
    uint32_t first_cell = 0;

    if (branch_cells(branches, branch_count) > YOLO_MAX_CANDIDATES) {
        *why = "the grids have more cells than YOLO_MAX_CANDIDATES";
        return -1;
    }
    for (unsigned b = 0; b < branch_count; b++) {
        found += collect_candidates(&branches[b], first_cell, cand + found);
        first_cell += branches[b].scores->height * branches[b].scores->width;
    }
    qsort(cand, found, sizeof *cand, by_score);
    /* greedy NMS, kept boxes compacted to the front: a box only ever meets
     * boxes scoring higher, so stopping at max_detections keeps exactly the
     * first max_detections of a full NMS */
    for (unsigned i = 0; i < found && kept < max_detections; i++) {
        unsigned k = 0;
        while (k < kept &&
               !(cand[k].class_id == cand[i].class_id && iou(&cand[k], &cand[i]) > YOLO_NMS_IOU))
            k++;
        if (k == kept)
            cand[kept++] = cand[i];
    }
    /* network pixels -> image pixels: undo the padding, then the scaling */
    float sx = (float)lb->image_width / (float)lb->resized_width;
    float sy = (float)lb->image_height / (float)lb->resized_height;
    for (unsigned i = 0; i < kept; i++) {
        struct yolo_detection *d = &detections[i];
        d->x0 = clampf((cand[i].x0 - (float)lb->pad_left) * sx, (float)lb->image_width);
        d->y0 = clampf((cand[i].y0 - (float)lb->pad_top) * sy, (float)lb->image_height);
        d->x1 = clampf((cand[i].x1 - (float)lb->pad_left) * sx, (float)lb->image_width);
        d->y1 = clampf((cand[i].y1 - (float)lb->pad_top) * sy, (float)lb->image_height);
        d->score = cand[i].score;
        d->class_id = cand[i].class_id;
    }
    return (int)kept;
}

int yolo_format_detection(char *line, size_t size, unsigned index, const struct yolo_detection *d)
{
    const char *name = d->class_id < YOLO_CLASSES ? yolo_class_names[d->class_id] : "?";

    return snprintf(line, size, "detection %u: %s score %.3f box %.1f %.1f %.1f %.1f", index, name,
                    (double)d->score, (double)d->x0, (double)d->y0, (double)d->x1, (double)d->y1);
}
