/*
 * example_image.c - PPM, .npy, PNG and JPEG into packed RGB, and the
 * examples' host files (see example_image.h).
 */
#include "example_image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if EXAMPLE_HAVE_PNG
#include <png.h>
#endif
#if EXAMPLE_HAVE_JPEG
#include <jpeglib.h>
#include <setjmp.h>
#endif
#if !EXAMPLE_FIRMWARE
#include <errno.h>

#include "tool_files.h"
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

/* ---- .npy ------------------------------------------------------------------ */

/* A uint8 .npy (format version 1) of shape (H, W, 3) or (1, H, W, 3), C order. */
static int parse_npy(const uint8_t *data, size_t size, struct rgb_image *img)
{
    unsigned dims[4], n = 0;
    size_t header_len, pos;
    const char *shape;
    char header[512];

    if (size < 10 || data[6] != 1)
        return -1;
    header_len = (size_t)(data[8] | data[9] << 8);
    if (10 + header_len > size || header_len >= sizeof header)
        return -1;
    memcpy(header, data + 10, header_len);
    header[header_len] = '\0';
    shape = strstr(header, "'shape': (");
    if (!strstr(header, "'descr': '|u1'") || !strstr(header, "'fortran_order': False") || !shape)
        return -1;
    for (pos = (size_t)(shape + 10 - header); n < 4 && header[pos] >= '0' && header[pos] <= '9';
         n++) {
        for (dims[n] = 0; header[pos] >= '0' && header[pos] <= '9'; pos++)
            dims[n] = dims[n] * 10 + (unsigned)(header[pos] - '0');
        while (header[pos] == ',' || header[pos] == ' ')
            pos++;
    }
    if (header[pos] != ')' || n < 3 || dims[n - 1] != 3 || (n == 4 && dims[0] != 1))
        return -1;
    img->height = dims[n - 3];
    img->width = dims[n - 2];
    img->pixels = data + 10 + header_len;
    return pixels_fit(img->width, img->height, size - 10 - header_len) ? 0 : -1;
}

/* ---- PNG ------------------------------------------------------------------- */

#if EXAMPLE_HAVE_PNG
/* libpng's simplified API gives 8-bit RGBA for every PNG kind; the alpha
 * byte of each pixel is then squeezed out in place. */
static int decode_png(const char *who, const char *label, const uint8_t *data, size_t size,
                      struct rgb_image *img, uint8_t **owned)
{
    png_image png;
    uint8_t *rgba;

    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&png, data, size)) {
        printf("%s: %s: libpng: %s\n", who, label, png.message);
        return -1;
    }
    png.format = PNG_FORMAT_RGBA;
    rgba = malloc(PNG_IMAGE_SIZE(png));
    if (!rgba || !png_image_finish_read(&png, NULL, rgba, 0, NULL)) {
        printf("%s: %s: %s\n", who, label, rgba ? png.message : "out of memory");
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

#if EXAMPLE_HAVE_JPEG
/* libjpeg reports a corrupt file through error_exit, which must not
 * return: jump back to decode_jpeg with the message printed. */
struct jpeg_failure {
    struct jpeg_error_mgr manager;
    jmp_buf back;
    const char *who, *label;
};

static void jpeg_failed(j_common_ptr info)
{
    struct jpeg_failure *failure = (struct jpeg_failure *)info->err;
    char message[JMSG_LENGTH_MAX];

    info->err->format_message(info, message);
    printf("%s: %s: libjpeg: %s\n", failure->who, failure->label, message);
    longjmp(failure->back, 1);
}

static int decode_jpeg(const char *who, const char *label, const uint8_t *data, size_t size,
                       struct rgb_image *img, uint8_t **owned)
{
    struct jpeg_decompress_struct info;
    struct jpeg_failure failure;
    uint8_t *volatile rgb = NULL; /* volatile: freed after a longjmp */

    info.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = jpeg_failed;
    failure.who = who;
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
        printf("%s: %s: a %ux%u JPEG with %d components, want RGB\n", who, label,
               (unsigned)info.output_width, (unsigned)info.output_height, info.output_components);
        jpeg_destroy_decompress(&info);
        return -1;
    }
    rgb = malloc((size_t)info.output_width * info.output_height * 3);
    if (!rgb) {
        printf("%s: %s: out of memory\n", who, label);
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

#if !EXAMPLE_HAVE_PNG || !EXAMPLE_HAVE_JPEG
/* A picture this build has no library for: which package adds it. -1. */
static int no_library(const char *who, const char *label, const char *format, const char *library,
                      const char *package)
{
    printf("%s: %s is a %s, but this build has no %s (install %s and reconfigure)\n", who, label,
           format, library, package);
    return -1;
}
#endif

int decode_image(const char *who, const char *label, const uint8_t *data, size_t size,
                 struct rgb_image *img, uint8_t **owned)
{
    *owned = NULL;
    img->name[0] = '\0';
    if (size >= 8 && memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0) {
#if EXAMPLE_HAVE_PNG
        return decode_png(who, label, data, size, img, owned);
#else
        return no_library(who, label, "PNG", "libpng", "libpng-dev");
#endif
    }
    if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) {
#if EXAMPLE_HAVE_JPEG
        return decode_jpeg(who, label, data, size, img, owned);
#else
        return no_library(who, label, "JPEG", "libjpeg", "libjpeg62-turbo-dev");
#endif
    }
    if (size >= 2 && data[0] == 'P' && data[1] == '6') {
        if (parse_ppm(data, size, img) == 0)
            return 0;
        printf("%s: %s: not an 8-bit binary PPM (maxval 255), or truncated\n", who, label);
        return -1;
    }
    if (size >= 6 && memcmp(data, "\x93NUMPY", 6) == 0) {
        if (parse_npy(data, size, img) == 0)
            return 0;
        printf("%s: %s: not a uint8 .npy of shape [1,]H,W,3, or truncated\n", who, label);
        return -1;
    }
    printf("%s: %s is not a PNG, a JPEG, a binary PPM (P6) or a .npy\n", who, label);
    return -1;
}

#if !EXAMPLE_FIRMWARE
/* ---- host files ------------------------------------------------------------ */

int parse_command_line(const char *who, int argc, char **argv, const char **out_path)
{
    *out_path = argc == 5 && strcmp(argv[3], "--out") == 0 ? argv[4] : NULL;
    if ((argc == 3 || *out_path) && (!*out_path || EXAMPLE_HAVE_PNG))
        return 0;
    printf("usage: %s MODEL.rknn IMAGE.jpg|IMAGE.png|IMAGE.ppm|IMAGE.npy [--out BOXES.png]\n", who);
#if !EXAMPLE_HAVE_PNG
    printf("(built without libpng: no PNG input and no --out; install libpng-dev and "
           "reconfigure)\n");
#endif
    return 2;
}

uint8_t *read_file(const char *who, const char *path, size_t *size)
{
    uint8_t *buf;

    errno = 0;
    buf = tool_read_file(path, SIZE_MAX, size);
    if (buf && *size > 0)
        return buf;
    /* once the file is open, tool_read_file fails with one of these */
    printf("%s: cannot %s %s\n", who,
           buf || errno == EFBIG || errno == ENOMEM || errno == EIO ? "read" : "open", path);
    free(buf);
    *size = 0;
    return NULL;
}

int load_image_file(const char *who, const char *path, struct image_file *f)
{
    size_t size;

    f->decoded = NULL;
    f->file = read_file(who, path, &size);
    return f->file ? decode_image(who, path, f->file, size, &f->img, &f->decoded) : -1;
}

void free_image_file(struct image_file *f)
{
    free(f->decoded);
    free(f->file);
    f->decoded = f->file = NULL;
}

#if EXAMPLE_HAVE_PNG
int write_boxes_png(const char *who, const char *path, const struct rgb_image *img,
                    box_painter *paint, unsigned count)
{
    size_t bytes = (size_t)img->width * img->height * 3;
    uint8_t *canvas = malloc(bytes);
    png_image png;
    int ok;

    if (!canvas) {
        printf("%s: out of memory for the picture\n", who);
        return -1;
    }
    memcpy(canvas, img->pixels, bytes);
    paint(canvas, img->width, img->height, count);
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    png.width = img->width;
    png.height = img->height;
    png.format = PNG_FORMAT_RGB;
    ok = png_image_write_to_file(&png, path, 0, canvas, 0, NULL);
    if (ok)
        printf("%s: boxes drawn in %s\n", who, path);
    else
        printf("%s: cannot write %s: %s\n", who, path, png.message);
    free(canvas);
    return ok ? 0 : -1;
}
#endif
#endif
