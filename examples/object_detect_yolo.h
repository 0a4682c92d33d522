/*
 * object_detect_yolo.h - the image side of YOLOv8 object detection, in
 * plain C: the letterbox that makes the network's input, and the
 * post-processing that turns the network's six outputs into boxes. No heap
 * and no files: the caller owns every buffer (the candidate work space is
 * a struct of fixed size), so firmware can use it as is.
 *
 * The network (Ultralytics YOLOv8, "rknnopt" export of the RKNN model zoo)
 * has one pair of outputs per stride (8, 16, 32): box distributions
 * [1, 64, H, W] (4 sides x 16 bins, DFL) and class scores [1, 80, H, W]
 * (after the sigmoid), H = input height / stride. The pairs are found by
 * shape, never by output index; [1, 1, H, W] score-sum outputs some exports
 * add are ignored.
 */
#ifndef OBJECT_DETECT_YOLO_H
#define OBJECT_DETECT_YOLO_H

#include <stddef.h>
#include <stdint.h>

/* The letterbox buffer holds the network input up to this side (YOLOv8n: 640). */
#define YOLO_INPUT_MAX_SIDE 640
/* Letterbox padding, Ultralytics' grey (the colour the model was trained with). */
#define YOLO_PAD_VALUE 114
/* Distribution Focal Loss box head: 16 bins for each of left, top, right, bottom. */
#define YOLO_BOX_BINS     16
#define YOLO_BOX_CHANNELS (4 * YOLO_BOX_BINS)
/* COCO's 80 classes. */
#define YOLO_CLASSES 80
/* Strides per network (YOLOv8: 8, 16, 32; room for a P6 model's 64). */
#define YOLO_MAX_BRANCHES 4
/* Every cell of every grid is at most one candidate, so this bounds the
 * grids: 80x80 + 40x40 + 20x20 cells of a 640x640 input. A network with
 * more cells is refused, never truncated. */
#define YOLO_MAX_CANDIDATES 8400
/* Detections kept after NMS, the highest scores first (Ultralytics' max_det). */
#define YOLO_MAX_DETECTIONS 300
/* A cell is a candidate when its best class score is above this. */
#define YOLO_SCORE_THRESHOLD 0.25f
/* NMS drops a box whose IoU with a kept box of the same class is above this. */
#define YOLO_NMS_IOU 0.45f

extern const char *const yolo_class_names[YOLO_CLASSES];

/* How an image sits in the network's input: scaled by the same factor in
 * both directions to fit, centred, the rest padded. */
struct yolo_letterbox {
    unsigned image_width, image_height;     /* the original */
    unsigned net_width, net_height;         /* the network's input */
    unsigned resized_width, resized_height; /* the image inside it */
    unsigned pad_left, pad_top;             /* where it starts */
};

/* The geometry for an image of image_width x image_height. Returns 0, or -1
 * if a side is 0 or the network's input is larger than YOLO_INPUT_MAX_SIDE. */
int yolo_letterbox_plan(unsigned image_width, unsigned image_height, unsigned net_width,
                        unsigned net_height, struct yolo_letterbox *lb);

/* Packed RGB (3 bytes a pixel, rows without padding) into the network's
 * input (net_width x net_height x 3, same packing), as planned: bilinear on
 * pixel centres (OpenCV's INTER_LINEAR, which Ultralytics' letterbox uses;
 * weights in 1/2048 steps), the border pixels repeated at the edges, padding
 * YOLO_PAD_VALUE. An image already at the resized size is copied as is. */
void yolo_letterbox_rgb(const uint8_t *image, const struct yolo_letterbox *lb, uint8_t *net_input);

/* One output as the application got it, NCHW with batch 1: float values,
 * or, when values is NULL, int8 codes meaning (code - zero_point) * scale. */
struct yolo_tensor {
    const float *values;
    const int8_t *codes;
    float scale;
    int32_t zero_point;
    unsigned channels, height, width;
};

/* The two outputs of one stride. */
struct yolo_branch {
    const struct yolo_tensor *boxes;  /* YOLO_BOX_CHANNELS channels */
    const struct yolo_tensor *scores; /* YOLO_CLASSES channels */
    unsigned stride;                  /* input pixels per cell */
};

/* Pair the outputs by shape into branches sorted by stride. Returns the
 * number of branches, or -1 with *why saying what does not fit. */
int yolo_pair_outputs(const struct yolo_tensor *outputs, unsigned count, unsigned net_width,
                      unsigned net_height, struct yolo_branch *branches, const char **why);

/* A detection in the original image's pixels, clamped to the image. */
struct yolo_detection {
    float x0, y0, x1, y1;
    float score;
    unsigned class_id;
};

/* A cell above the threshold, its box in network pixels. */
struct yolo_candidate {
    float x0, y0, x1, y1;
    float score;
    uint32_t class_id;
    uint32_t cell; /* scan order (branch, row, column): breaks score ties */
};

/* The post-processing's work space (about 200 KB: static in firmware). */
struct yolo_workspace {
    struct yolo_candidate candidates[YOLO_MAX_CANDIDATES];
};

/*
 * Post-processing: per cell the best class score; cells scoring above
 * YOLO_SCORE_THRESHOLD decode their box (softmax over each side's 16 bins,
 * the expected bin, box = (cx - l, cy - t, cx + r, cy + b) * stride with
 * cx, cy the cell centre); highest score first, class-wise NMS at
 * YOLO_NMS_IOU in network pixels; the kept boxes mapped back through the
 * letterbox and clamped to the image. Stores at most max_detections
 * (highest scores first) and returns how many, or -1 with *why if the
 * branches hold more cells than YOLO_MAX_CANDIDATES.
 */
int yolo_detect(const struct yolo_branch *branches, unsigned branch_count,
                const struct yolo_letterbox *lb, struct yolo_workspace *ws,
                struct yolo_detection *detections, unsigned max_detections, const char **why);

/* The line object_detect prints for detection `index`:
 *   detection 0: bear score 0.912 box 3.2 70.1 585.0 640.0
 * (class name, score, x0 y0 x1 y1 in image pixels; names may hold spaces,
 * " score " ends them). Returns snprintf's count. */
int yolo_format_detection(char *line, size_t size, unsigned index, const struct yolo_detection *d);

#endif
