/*
 * text_detect_db.h - the image side of PP-OCR text detection, in plain C:
 * the resize that makes the network's input, and the DB post-processing
 * that turns its text-probability map into boxes. No heap and no files:
 * every buffer is static and sized for a map of at most
 * TEXT_DET_MAX_SIDE x TEXT_DET_MAX_SIDE, so firmware can use it as is.
 */
#ifndef TEXT_DETECT_DB_H
#define TEXT_DETECT_DB_H

#include <stddef.h>
#include <stdint.h>

/* PP-OCRv4 det takes 480x480; the static buffers are sized for that. */
#define TEXT_DET_MAX_SIDE 480
/* PaddleOCR's max_candidates: a page rarely has more lines than this. */
#define TEXT_DET_MAX_BOXES 1000
/* The resize's filter reaches this far (in source pixels per output pixel):
 * images up to 16 times the network's side in each direction. */
#define TEXT_DET_MAX_SCALE 16

/* The DB recipe's knobs, PaddleOCR's defaults for its det models. */
#define DB_BINARY_THRESHOLD 0.3f /* p > this is text */
#define DB_BOX_THRESHOLD    0.6f /* drop regions whose mean p is below */
#define DB_MIN_SIDE         3.0  /* drop boxes thinner than this (map pixels) */
#define DB_UNCLIP_RATIO     1.5  /* grow boxes by area * ratio / perimeter */

/* A text box in the original image's pixels: corners clockwise from the
 * top-left (top-left, top-right, bottom-right, bottom-left, y down). */
struct text_box {
    int x[4];
    int y[4];
    float score; /* mean text probability over the region */
};

/* Bytes of scratch resize_rgb_bilinear() needs. */
size_t resize_scratch_bytes(unsigned src_height, unsigned dst_width);

/*
 * Resize packed RGB (3 bytes a pixel, rows without padding) to dst_width x
 * dst_height with Pillow's Image.resize(..., Image.BILINEAR), byte for byte:
 * a triangle filter on half-pixel centres whose width grows with the
 * downscale factor (so shrinking averages every source pixel instead of
 * sampling two), 22-bit fixed-point weights, rows first into `scratch`,
 * then columns. That is how the model's reference input was made.
 * Returns 0, or -1 if a side is 0, dst is larger than TEXT_DET_MAX_SIDE or
 * src more than TEXT_DET_MAX_SCALE times dst.
 */
int resize_rgb_bilinear(const uint8_t *src, unsigned src_width, unsigned src_height, uint8_t *dst,
                        unsigned dst_width, unsigned dst_height, uint8_t *scratch);

/*
 * DB post-processing of a text-probability map (map_width x map_height
 * floats, row-major) into at most max_boxes boxes in the pixels of an
 * image_width x image_height original. Returns the number of boxes found
 * (it may exceed max_boxes: only the first max_boxes are stored), or -1 if
 * the map is larger than TEXT_DET_MAX_SIDE on a side.
 */
int db_find_boxes(const float *prob, unsigned map_width, unsigned map_height, unsigned image_width,
                  unsigned image_height, struct text_box *boxes, unsigned max_boxes);

#endif
