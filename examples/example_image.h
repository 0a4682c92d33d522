/*
 * example_image.h - the pictures the examples (text_detect, object_detect)
 * read and write, so that both take the same files and say the same about
 * a bad one:
 *
 * - decoding: binary PPM and uint8 .npy always (no heap: the pixels stay in
 *   the file's bytes, which is how firmware reads its linked-in image), PNG
 *   through libpng and JPEG through libjpeg when the host build has them
 *   (EXAMPLE_HAVE_PNG, EXAMPLE_HAVE_JPEG; those decode into malloc'd memory);
 * - on the host (not EXAMPLE_FIRMWARE): the command line, reading whole
 *   files, and --out's PNG with the example's boxes drawn on the picture.
 *
 * Every message starts with `who`, the example's name, as the rest of its
 * output does.
 */
#ifndef EXAMPLE_IMAGE_H
#define EXAMPLE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#ifndef EXAMPLE_FIRMWARE
#define EXAMPLE_FIRMWARE 0
#endif
#ifndef EXAMPLE_HAVE_PNG
#define EXAMPLE_HAVE_PNG 0
#endif
#ifndef EXAMPLE_HAVE_JPEG
#define EXAMPLE_HAVE_JPEG 0
#endif

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
 * .npy: uint8 of shape (H, W, 3) or (1, H, W, 3), C order.
 */
int decode_image(const char *who, const char *label, const uint8_t *data, size_t size,
                 struct rgb_image *img, uint8_t **owned);

#if !EXAMPLE_FIRMWARE
/*
 * The host command line, `WHO MODEL.rknn IMAGE [--out BOXES.png]`: 0 with
 * *out_path the --out file (NULL without it), or the usage printed and 2,
 * the exit status, when the arguments are otherwise or --out is asked of a
 * build without libpng.
 */
int parse_command_line(const char *who, int argc, char **argv, const char **out_path);

/* The whole file in a malloc'd buffer, or NULL after "WHO: cannot open
 * PATH" / "WHO: cannot read PATH" (an empty file counts as unreadable). */
uint8_t *read_file(const char *who, const char *path, size_t *size);

/* An image file read and decoded (decode_image); free_image_file frees
 * what load_image_file left, also after it failed. */
struct image_file {
    struct rgb_image img;
    uint8_t *file, *decoded;
};
int load_image_file(const char *who, const char *path, struct image_file *f);
void free_image_file(struct image_file *f);

#if EXAMPLE_HAVE_PNG
/* Draws the example's first `count` boxes on canvas (width x height RGB). */
typedef void box_painter(uint8_t *canvas, unsigned width, unsigned height, unsigned count);

/* A copy of the image with paint's boxes on it, written to path as an RGB
 * PNG; prints "WHO: boxes drawn in PATH" or why not. 0 or -1. */
int write_boxes_png(const char *who, const char *path, const struct rgb_image *img,
                    box_painter *paint, unsigned count);
#endif
#endif

#endif
