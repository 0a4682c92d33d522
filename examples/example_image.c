/*
 * object_detect_image.c - PPM, PNG and JPEG into packed RGB (see
 * object_detect_image.h).
 */
#include "object_detect_image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef OBJECT_DETECT_HAVE_PNG
#define OBJECT_DETECT_HAVE_PNG 0
#endif
#ifndef OBJECT_DETECT_HAVE_JPEG
#define OBJECT_DETECT_HAVE_JPEG 0
#endif

#if OBJECT_DETECT_HAVE_PNG
#include <png.h>
#endif
#if OBJECT_DETECT_HAVE_JPEG
#include <jpeglib.h>
#include <setjmp.h>
#endif

/* Width x height x 3 bytes fit in `bytes` (and in size_t). */
static int pixels_fit(unsigned width, unsigned height, size_t bytes)
{
    return width > 0 && height > 0 && (size_t)width * height / width == height &&
           (size_t)width * height <= bytes / 3;
}

/* ---- PPM ------------------------------------------------------------------- */

struct ppm_reader {
    const uint8_t *data;
    size_t size, pos;
    char *comment; /* the first comment line goes here */
    size_t comment_size;
};

static int is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Whitespace and '#' comments up to the end of their line. */
static void ppm_skip(struct ppm_reader *r)
{
    while (r->pos < r->size && (is_space(r->data[r->pos]) || r->data[r->pos] == '#')) {
        if (r->data[r->pos] != '#') {
            r->pos++;
            continue;
        }
        size_t start = ++r->pos;
        while (r->pos < r->size && r->data[r->pos] != '\n' && r->data[r->pos] != '\r')
            r->pos++;
        while (start < r->pos && is_space(r->data[start]))
            start++;
        size_t len = r->pos - start;
        if (r->comment[0] == '\0' && len > 0) {
            if (len >= r->comment_size)
                len = r->comment_size - 1;
            memcpy(r->comment, r->data + start, len);
            r->comment[len] = '\0';
        }
    }
}

static int ppm_number(struct ppm_reader *r, unsigned *value)
{
    ppm_skip(r);
    if (r->pos >= r->size || r->data[r->pos] < '0' || r->data[r->pos] > '9')
        return -1;
    *value = 0;
    while (r->pos < r->size && r->data[r->pos] >= '0' && r->data[r->pos] <= '9') {
        if (*value >= 100000000u) /* no image side is that long */
            return -1;
        *value = *value * 10 + (unsigned)(r->data[r->pos++] - '0');
    }
    return 0;
}

/* "P6", width, height, maxval 255, exactly one whitespace, the RGB bytes. */
static int parse_ppm(const uint8_t *data, size_t size, struct rgb_image *img)
{
    struct ppm_reader r = {data, size, 2, img->name, sizeof img->name};
    unsigned max_value;

    if (ppm_number(&r, &img->width) != 0 || ppm_number(&r, &img->height) != 0 ||
        ppm_number(&r, &max_value) != 0 || max_value != 255 || r.pos >= size ||
        !is_space(data[r.pos]))
        return -1;
    img->pixels = data + r.pos + 1;
    return pixels_fit(img->width, img->height, size - r.pos - 1) ? 0 : -1;
}

/* ---- PNG ------------------------------------------------------------------- */

#if OBJECT_DETECT_HAVE_PNG
/* libpng's simplified API gives 8-bit RGBA for every PNG kind; the alpha
 * byte of each pixel is then squeezed out in place. */
static int decode_png(const char *label, const uint8_t *data, size_t size, struct rgb_image *img,
                      uint8_t **owned)
{
    png_image png;
    uint8_t *rgba;

    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&png, data, size)) {
        printf("object_detect: %s: libpng: %s\n", label, png.message);
        return -1;
    }
    png.format = PNG_FORMAT_RGBA;
    rgba = malloc(PNG_IMAGE_SIZE(png));
    if (!rgba || !png_image_finish_read(&png, NULL, rgba, 0, NULL)) {
        printf("object_detect: %s: %s\n", label, rgba ? png.message : "out of memory");
        png_image_free(&png);
        free(rgba);
        return -1;
    }
    for (size_t i = 0; i < (size_t)png.width * png.height; i++)
        memmove(rgba + i * 3, rgba + i * 4, 3);
    img->pixels = *owned = rgba;
    img->width = png.width;
    img->height = png.height;
    return 0;
}
#endif

/* ---- JPEG ------------------------------------------------------------------ */

#if OBJECT_DETECT_HAVE_JPEG
/* libjpeg reports a corrupt file through error_exit, which must not
 * return: jump back to decode_jpeg with the message printed. */
struct jpeg_failure {
    struct jpeg_error_mgr manager;
    jmp_buf back;
    const char *label;
};

static void jpeg_failed(j_common_ptr info)
{
    struct jpeg_failure *failure = (struct jpeg_failure *)info->err;
    char message[JMSG_LENGTH_MAX];

    info->err->format_message(info, message);
    printf("object_detect: %s: libjpeg: %s\n", failure->label, message);
    longjmp(failure->back, 1);
}

static int decode_jpeg(const char *label, const uint8_t *data, size_t size, struct rgb_image *img,
                       uint8_t **owned)
{
    struct jpeg_decompress_struct info;
    struct jpeg_failure failure;
    uint8_t *volatile rgb = NULL; /* volatile: freed after a longjmp */

    info.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = jpeg_failed;
    failure.label = label;
    if (setjmp(failure.back)) {
        jpeg_destroy_decompress(&info);
        free(rgb);
        return -1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    info.out_color_space = JCS_RGB; /* grey and YCbCr convert; CMYK fails in start */
    jpeg_start_decompress(&info);
    if (info.output_components != 3 ||
        !pixels_fit(info.output_width, info.output_height, (size_t)-1)) {
        printf("object_detect: %s: a %ux%u JPEG with %d components, want RGB\n", label,
               (unsigned)info.output_width, (unsigned)info.output_height, info.output_components);
        jpeg_destroy_decompress(&info);
        return -1;
    }
    rgb = malloc((size_t)info.output_width * info.output_height * 3);
    if (!rgb) {
        printf("object_detect: %s: out of memory\n", label);
        jpeg_destroy_decompress(&info);
        return -1;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = rgb + (size_t)info.output_scanline * info.output_width * 3;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    img->width = info.output_width;
    img->height = info.output_height;
    jpeg_destroy_decompress(&info);
    img->pixels = *owned = rgb;
    return 0;
}
#endif

int decode_image(const char *label, const uint8_t *data, size_t size, struct rgb_image *img,
                 uint8_t **owned)
{
    *owned = NULL;
    img->name[0] = '\0';
    if (size >= 8 && memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0) {
#if OBJECT_DETECT_HAVE_PNG
        return decode_png(label, data, size, img, owned);
#else
        printf("object_detect: %s is a PNG, but this build has no libpng (install libpng-dev "
               "and reconfigure)\n",
               label);
        return -1;
#endif
    }
    if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) {
#if OBJECT_DETECT_HAVE_JPEG
        return decode_jpeg(label, data, size, img, owned);
#else
        printf("object_detect: %s is a JPEG, but this build has no libjpeg (install "
               "libjpeg62-turbo-dev and reconfigure)\n",
               label);
        return -1;
#endif
    }
    if (size >= 2 && data[0] == 'P' && data[1] == '6') {
        if (parse_ppm(data, size, img) == 0)
            return 0;
        printf("object_detect: %s: not an 8-bit binary PPM (maxval 255), or truncated\n", label);
        return -1;
    }
    printf("object_detect: %s is not a PNG, a JPEG or a binary PPM (P6)\n", label);
    return -1;
}
