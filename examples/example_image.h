/*
 * object_detect_image.h - the pictures object_detect reads: binary PPM
 * always (no heap: the pixels stay in the file's bytes, which is how
 * firmware reads its linked-in image), PNG through libpng and JPEG through
 * libjpeg when the host build has them (OBJECT_DETECT_HAVE_PNG,
 * OBJECT_DETECT_HAVE_JPEG; those decode into malloc'd memory).
 */
#ifndef OBJECT_DETECT_IMAGE_H
#define OBJECT_DETECT_IMAGE_H

#include <stddef.h>
#include <stdint.h>

/* Packed RGB rows (3 bytes a pixel, no padding). */
struct rgb_image {
    const uint8_t *pixels;
    unsigned width, height;
    char name[64]; /* a PPM's first comment line (firmware names its images so), else "" */
};

/*
 * The image in a file's bytes, recognised by its signature. On success
 * *owned is what the caller frees: the decoded pixels, or NULL when they
 * point into data. On failure prints why (naming `label`) and returns -1.
 * PNG: any kind, alpha dropped (not blended), as Pillow's convert("RGB").
 * JPEG: grey or colour, as libjpeg's RGB output; CMYK is refused.
 */
int decode_image(const char *label, const uint8_t *data, size_t size, struct rgb_image *img,
                 uint8_t **owned);

#endif
