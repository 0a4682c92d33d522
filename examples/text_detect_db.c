/*
 * text_detect_db.c - the resize that feeds PP-OCR's text detector and the
 * DB ("differentiable binarization") post-processing of its output, after
 * PaddleOCR's DBPostProcess (ppocr/postprocess/db_postprocess.py):
 *
 *   1. binarize: p > 0.3 is text;
 *   2. regions: 8-connected groups of text pixels (OpenCV's findContours,
 *      which PaddleOCR uses, traces 8-connected borders too); holes inside
 *      a region are part of it;
 *   3. per region, the minimum-area rotated rectangle around its pixel
 *      centres (cv2.minAreaRect): the convex hull of the pixels, then
 *      rotating calipers over the hull's edges (the smallest rectangle has
 *      a side on one of them);
 *   4. score = mean probability over the region's own pixels (PaddleOCR's
 *      "slow" score_mode, the polygon of the region; its "fast" mode
 *      averages over the rectangle, which also counts the background in
 *      its corners); drop score < 0.6 or a shortest side < 3 map pixels;
 *   5. unclip: grow the shape by d = area * 1.5 / perimeter. PaddleOCR
 *      offsets the polygon with pyclipper (round joins) and takes the
 *      minimum-area rectangle again; for a rectangle that is exactly the
 *      rectangle grown by d on every side, which is what happens here;
 *      drop a shortest side < 5 (PaddleOCR's min_size + 2);
 *   6. scale to the original image, round to whole pixels, clip.
 *
 * Every buffer is static: one byte a map pixel for its class, one uint32_t
 * for the region being measured, a few kilobytes for outlines and hulls.
 */
#include "text_detect_db.h"

#include <math.h>
#include <string.h>

/* ---- resize: Pillow's bilinear, byte for byte ---------------------------- */

/* Pillow's fixed point for 8-bit images: 32 bits - 8 of pixel - 2 spare. */
#define RESIZE_PRECISION_BITS 22
/* Pillow's kernel size for a downscale s: 2 * ceil(s) + 1 taps. */
#define RESIZE_MAX_TAPS (2 * TEXT_DET_MAX_SCALE + 1)

/* The weights of one axis: output pixel o reads inputs first[o] ..
 * first[o] + count[o] - 1. */
struct resize_taps {
    unsigned first[TEXT_DET_MAX_SIDE];
    unsigned count[TEXT_DET_MAX_SIDE];
    int32_t weight[TEXT_DET_MAX_SIDE][RESIZE_MAX_TAPS];
};

static struct resize_taps taps;

static double triangle(double x)
{
    x = fabs(x);
    return x < 1.0 ? 1.0 - x : 0.0;
}

/* Pillow's precompute_coeffs() and normalize_coeffs_8bpc(), with the same
 * arithmetic in the same order so that every weight rounds the same way. */
static int compute_taps(unsigned in_size, unsigned out_size, struct resize_taps *t)
{
    double scale = (double)in_size / out_size;
    double filter_scale = scale < 1.0 ? 1.0 : scale; /* widen only to shrink */
    double support = filter_scale;                   /* the triangle's is 1 */
    double inverse = 1.0 / filter_scale;

    if (ceil(support) * 2 + 1 > RESIZE_MAX_TAPS)
        return -1;
    for (unsigned o = 0; o < out_size; o++) {
        double centre = (o + 0.5) * scale, w[RESIZE_MAX_TAPS], sum = 0.0;
        int lo = (int)(centre - support + 0.5), hi = (int)(centre + support + 0.5);

        lo = lo < 0 ? 0 : lo;
        hi = hi > (int)in_size ? (int)in_size : hi;
        if (hi - lo > RESIZE_MAX_TAPS)
            return -1;
        t->first[o] = (unsigned)lo;
        t->count[o] = (unsigned)(hi - lo);
        for (int k = 0; k < hi - lo; k++) {
            w[k] = triangle((k + lo - centre + 0.5) * inverse);
            sum += w[k];
        }
        for (int k = 0; k < hi - lo; k++) {
            double normalised = sum != 0.0 ? w[k] / sum : w[k];
            t->weight[o][k] = (int32_t)(0.5 + normalised * (1 << RESIZE_PRECISION_BITS));
        }
    }
    return 0;
}

static uint8_t fixed_to_byte(int32_t acc)
{
    acc >>= RESIZE_PRECISION_BITS;
    return (uint8_t)(acc < 0 ? 0 : acc > 255 ? 255 : acc);
}

/* Horizontal pass: every row of src (src_width wide) into dst_width. */
static void resample_rows(const uint8_t *src, unsigned src_width, unsigned rows, uint8_t *dst,
                          unsigned dst_width)
{
    for (unsigned y = 0; y < rows; y++) {
        const uint8_t *in = src + (size_t)y * src_width * 3;
        uint8_t *out = dst + (size_t)y * dst_width * 3;
        for (unsigned x = 0; x < dst_width; x++) {
            for (unsigned c = 0; c < 3; c++) {
                int32_t acc = 1 << (RESIZE_PRECISION_BITS - 1); /* rounds the result */
                for (unsigned k = 0; k < taps.count[x]; k++)
                    acc += in[(taps.first[x] + k) * 3 + c] * taps.weight[x][k];
                out[x * 3 + c] = fixed_to_byte(acc);
            }
        }
    }
}

/* Vertical pass: the rows of src (width pixels each) into dst_height rows. */
static void resample_columns(const uint8_t *src, unsigned width, uint8_t *dst, unsigned dst_height)
{
    size_t stride = (size_t)width * 3;

    for (unsigned y = 0; y < dst_height; y++) {
        const uint8_t *in = src + taps.first[y] * stride;
        for (size_t i = 0; i < stride; i++) {
            int32_t acc = 1 << (RESIZE_PRECISION_BITS - 1);
            for (unsigned k = 0; k < taps.count[y]; k++)
                acc += in[k * stride + i] * taps.weight[y][k];
            dst[y * stride + i] = fixed_to_byte(acc);
        }
    }
}

size_t resize_scratch_bytes(unsigned src_height, unsigned dst_width)
{
    return (size_t)src_height * dst_width * 3;
}

int resize_rgb_bilinear(const uint8_t *src, unsigned src_width, unsigned src_height, uint8_t *dst,
                        unsigned dst_width, unsigned dst_height, uint8_t *scratch)
{
    if (src_width == 0 || src_height == 0 || dst_width == 0 || dst_height == 0 ||
        dst_width > TEXT_DET_MAX_SIDE || dst_height > TEXT_DET_MAX_SIDE)
        return -1;
    /* Pillow's order: rows first (into 8-bit pixels, rounded), then columns */
    if (compute_taps(src_width, dst_width, &taps) != 0)
        return -1;
    resample_rows(src, src_width, src_height, scratch, dst_width);
    if (compute_taps(src_height, dst_height, &taps) != 0)
        return -1;
    resample_columns(scratch, dst_width, dst, dst_height);
    return 0;
}

/* ---- DB post-processing ------------------------------------------------ */

#define MAX_PIXELS  (TEXT_DET_MAX_SIDE * TEXT_DET_MAX_SIDE)
#define MAX_OUTLINE (2 * TEXT_DET_MAX_SIDE) /* two extremes a row */

enum pixel_class { BACKGROUND, TEXT, SEEN };

struct point {
    double x, y;
};

/* A rotated rectangle: unit side direction u, its normal v = (-u.y, u.x),
 * and the rectangle's extent along each (projections onto u and v). */
struct rect {
    struct point u;
    double u_min, u_max, v_min, v_max;
};

static uint8_t pixel_class[MAX_PIXELS];
static uint32_t region[MAX_PIXELS]; /* the region being measured: its pixel indices */
static int row_first[TEXT_DET_MAX_SIDE], row_last[TEXT_DET_MAX_SIDE];
static struct point outline[MAX_OUTLINE];
static struct point hull[MAX_OUTLINE + 1];

/* Breadth-first flood of the 8-connected text region around seed; the
 * queue is the region itself, so it ends holding every pixel once. */
static unsigned collect_region(unsigned seed, unsigned width, unsigned height)
{
    unsigned head = 0, tail = 0;

    region[tail++] = seed;
    pixel_class[seed] = SEEN;
    while (head < tail) {
        int x = (int)(region[head] % width), y = (int)(region[head] / width);
        head++;
        for (int ny = y - 1; ny <= y + 1; ny++) {
            for (int nx = x - 1; nx <= x + 1; nx++) {
                if (nx < 0 || ny < 0 || nx >= (int)width || ny >= (int)height)
                    continue;
                unsigned q = (unsigned)ny * width + (unsigned)nx;
                if (pixel_class[q] == TEXT) {
                    pixel_class[q] = SEEN;
                    region[tail++] = q;
                }
            }
        }
    }
    return tail;
}

static double region_mean(const float *prob, unsigned pixels)
{
    double sum = 0.0;

    for (unsigned i = 0; i < pixels; i++)
        sum += prob[region[i]];
    return sum / pixels;
}

/* The leftmost and rightmost pixel of each row of the region, in (y, x)
 * order: the hull of these is the hull of the whole region. */
static unsigned region_outline(unsigned pixels, unsigned width, unsigned height)
{
    unsigned y_min = height, y_max = 0, n = 0;

    for (unsigned i = 0; i < pixels; i++) {
        unsigned y = region[i] / width;
        y_min = y < y_min ? y : y_min;
        y_max = y > y_max ? y : y_max;
    }
    for (unsigned y = y_min; y <= y_max; y++) {
        row_first[y] = (int)width;
        row_last[y] = -1;
    }
    for (unsigned i = 0; i < pixels; i++) {
        int x = (int)(region[i] % width);
        unsigned y = region[i] / width;
        row_first[y] = x < row_first[y] ? x : row_first[y];
        row_last[y] = x > row_last[y] ? x : row_last[y];
    }
    for (unsigned y = y_min; y <= y_max; y++) {
        if (row_last[y] < 0)
            continue;
        outline[n++] = (struct point){row_first[y], y};
        if (row_last[y] != row_first[y])
            outline[n++] = (struct point){row_last[y], y};
    }
    return n;
}

/* > 0 when o -> a -> b turns counter-clockwise (x right, y up). */
static double turn(struct point o, struct point a, struct point b)
{
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/* Andrew's monotone chain over points sorted by (y, x); collinear points
 * dropped. Returns the vertex count, the vertices counter-clockwise. */
static unsigned convex_hull(const struct point *pts, unsigned n, struct point *out)
{
    unsigned k = 0;

    if (n < 3) {
        memcpy(out, pts, n * sizeof *pts);
        return n;
    }
    for (unsigned i = 0; i < n; i++) {
        while (k >= 2 && turn(out[k - 2], out[k - 1], pts[i]) <= 0)
            k--;
        out[k++] = pts[i];
    }
    for (unsigned i = n - 1, lower = k + 1; i-- > 0;) {
        while (k >= lower && turn(out[k - 2], out[k - 1], pts[i]) <= 0)
            k--;
        out[k++] = pts[i];
    }
    return k - 1; /* the last point repeats the first */
}

static double dot(struct point a, struct point b)
{
    return a.x * b.x + a.y * b.y;
}

/* Move index i forward around the hull while the projection onto dir
 * grows (sign 1) or shrinks (sign -1): on a convex polygon it has one
 * peak, and it moves only forward as the calipers turn. */
static unsigned advance(const struct point *p, unsigned n, unsigned i, struct point dir, int sign)
{
    for (unsigned steps = 0; steps < n; steps++) {
        unsigned next = (i + 1) % n;
        if (sign * (dot(p[next], dir) - dot(p[i], dir)) <= 0)
            break;
        i = next;
    }
    return i;
}

/* The smallest rectangle around a convex polygon of n >= 3 vertices
 * (counter-clockwise): one side on each edge in turn, the three other
 * sides' contact vertices carried along (rotating calipers). */
static struct rect min_area_rect(const struct point *p, unsigned n)
{
    struct rect best = {{1, 0}, 0, 0, 0, 0};
    double best_area = -1.0;
    unsigned far_u = 1, far_v = 1, near_u = 1;

    for (unsigned i = 0; i < n; i++) {
        struct point a = p[i], b = p[(i + 1) % n];
        double len = hypot(b.x - a.x, b.y - a.y);
        struct point u = {(b.x - a.x) / len, (b.y - a.y) / len}, v = {-u.y, u.x};
        /* CCW, the contacts follow the edge in this order; the first edge
         * finds them, the others carry them along */
        far_u = advance(p, n, i == 0 ? 1 : far_u, u, 1);
        far_v = advance(p, n, i == 0 ? far_u : far_v, v, 1);
        near_u = advance(p, n, i == 0 ? far_v : near_u, u, -1);
        struct rect r = {u, dot(p[near_u], u), dot(p[far_u], u), dot(a, v), dot(p[far_v], v)};
        double area = (r.u_max - r.u_min) * (r.v_max - r.v_min);
        if (best_area < 0 || area < best_area) {
            best = r;
            best_area = area;
        }
    }
    return best;
}

static double shortest_side(const struct rect *r)
{
    return fmin(r->u_max - r->u_min, r->v_max - r->v_min);
}

/* PaddleOCR's unclip of a rectangle: every side moves out by
 * area * ratio / perimeter. */
static void unclip(struct rect *r)
{
    double w = r->u_max - r->u_min, h = r->v_max - r->v_min;
    double grow = w * h * DB_UNCLIP_RATIO / (2 * (w + h));

    r->u_min -= grow;
    r->u_max += grow;
    r->v_min -= grow;
    r->v_max += grow;
}

static int clamp_round(double v, unsigned size)
{
    double r = rint(v); /* to nearest, ties to even, as numpy's round */
    return r < 0 ? 0 : r > size - 1 ? (int)size - 1 : (int)r;
}

/* Corners in PaddleOCR's get_mini_boxes order, then scaled from map to
 * image pixels: of the two leftmost corners the upper one is top-left,
 * of the two rightmost the upper one is top-right. */
static void rect_to_box(const struct rect *r, double sx, double sy, unsigned image_width,
                        unsigned image_height, struct text_box *box)
{
    struct point v = {-r->u.y, r->u.x}, c[4];
    const double us[4] = {r->u_min, r->u_max, r->u_max, r->u_min};
    const double vs[4] = {r->v_min, r->v_min, r->v_max, r->v_max};
    static const int order_slot[4] = {0, 3, 1, 2}; /* sorted index -> TL, BL, TR, BR */

    for (int k = 0; k < 4; k++)
        c[k] = (struct point){us[k] * r->u.x + vs[k] * v.x, us[k] * r->u.y + vs[k] * v.y};
    for (int i = 1; i < 4; i++) { /* insertion sort by x, stable like Python's */
        struct point t = c[i];
        int j = i;
        for (; j > 0 && c[j - 1].x > t.x; j--)
            c[j] = c[j - 1];
        c[j] = t;
    }
    if (c[1].y <= c[0].y) { /* PaddleOCR: index_1 = 0 only if points[1].y > points[0].y */
        struct point t = c[0];
        c[0] = c[1];
        c[1] = t;
    }
    if (c[3].y <= c[2].y) {
        struct point t = c[2];
        c[2] = c[3];
        c[3] = t;
    }
    for (int k = 0; k < 4; k++) {
        box->x[order_slot[k]] = clamp_round(c[k].x * sx, image_width);
        box->y[order_slot[k]] = clamp_round(c[k].y * sy, image_height);
    }
}

/* The box of one region, or -1 when the recipe drops it. */
static int region_box(const float *prob, unsigned pixels, unsigned width, unsigned height,
                      struct rect *out, float *score)
{
    unsigned n;

    *score = (float)region_mean(prob, pixels);
    if (*score < DB_BOX_THRESHOLD)
        return -1;
    n = convex_hull(outline, region_outline(pixels, width, height), hull);
    if (n < 3) /* a single pixel or a straight line: no width */
        return -1;
    *out = min_area_rect(hull, n);
    if (shortest_side(out) < DB_MIN_SIDE)
        return -1;
    unclip(out);
    return shortest_side(out) < DB_MIN_SIDE + 2 ? -1 : 0;
}

int db_find_boxes(const float *prob, unsigned map_width, unsigned map_height, unsigned image_width,
                  unsigned image_height, struct text_box *boxes, unsigned max_boxes)
{
    unsigned pixels = map_width * map_height, found = 0;
    double sx = (double)image_width / map_width, sy = (double)image_height / map_height;

    if (map_width == 0 || map_height == 0 || map_width > TEXT_DET_MAX_SIDE ||
        map_height > TEXT_DET_MAX_SIDE || image_width == 0 || image_height == 0)
        return -1;
    for (unsigned i = 0; i < pixels; i++)
        pixel_class[i] = prob[i] > DB_BINARY_THRESHOLD ? TEXT : BACKGROUND;
    /* raster order: boxes come out roughly in reading order */
    for (unsigned i = 0; i < pixels; i++) {
        struct rect r;
        float score;
        if (pixel_class[i] != TEXT)
            continue;
        if (region_box(prob, collect_region(i, map_width, map_height), map_width, map_height, &r,
                       &score) != 0)
            continue;
        if (found < max_boxes) {
            rect_to_box(&r, sx, sy, image_width, image_height, &boxes[found]);
            boxes[found].score = score;
        }
        found++;
    }
    return (int)found;
}
