/*
 * rknpu_standin.c - a user-space stand-in for Rockchip's rknpu DRM kernel
 * driver, preloaded (LD_PRELOAD) into programs that link the vendor runtime
 * librknnrt.so under qemu-arm (scripts/vendor-run.sh).
 *
 * It answers the runtime's device discovery and ioctls as the 0.9.3 driver
 * does (hardware.md §3.5), as an RK3588 or an RK3566 (RKNPU_STANDIN_SOC),
 * hands out DMA buffers from one arena of its own, and executes every
 * submission on the virtual NPU (npu/model, built for armhf) over that
 * arena with the kernel driver's submit_pc sequence per core (hardware.md §3.2),
 * filling the completion fields as the driver does. A task the virtual NPU
 * cannot execute fails the submission with its message.
 *
 * Nothing is created under /dev: every path under /dev/dri, /dev/rknpu and
 * /proc/dri is answered here, and the DRM descriptor is a /dev/null
 * descriptor that only this file interprets.
 *
 * Environment:
 *   RKNPU_STANDIN_SOC    rk3588 (default) or rk3566
 *   RKNPU_SUBMIT_LOG     file: one JSON line per core slice of every
 *                        submission, plus memory events (submit_log.h)
 *   RKNPU_STANDIN_ARENA_MB  DMA arena size (default 768)
 *   RKNPU_STANDIN_VERBOSE   1: every intercepted call on stderr
 *   RKNPU_STANDIN_FAULT_AT_TASK  N: the virtual NPU raises a DMA error at
 *                        core 0's task N (counted over all its jobs), to
 *                        check how the runtime takes a failed submission
 *
 * A test instrument running in a Linux process: it uses libc freely.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "npu_regcmd.h"
#include "npu_regs.h"
#include "npu_soc.h"
#include "rknpu_drm_abi.h"
#include "submit_log.h"
#include "vnpu.h"

#define DRM_MAJOR        226
#define DMA_BASE         0x10000000u /* the arena's first NPU address */
#define ARENA_ALIGN      4096u
#define MAX_BUFFERS      65536
#define MAX_FAKE_FDS     4096
#define DEFAULT_ARENA_MB 768u

/* ---- state ----------------------------------------------------------------- */

/* Descriptors this file hands out: /dev/null descriptors only it interprets. */
enum fd_kind { FD_NONE = 0, FD_DRM, FD_DMABUF };

typedef struct {
    uint32_t handle; /* 0: free slot */
    uint32_t flags;
    uint32_t offset; /* in the arena */
    uint32_t size;   /* as requested */
    uint32_t span;   /* reserved (aligned) */
    uint32_t seq;    /* creation order */
} buffer;

static struct {
    pthread_mutex_t lock;
    int ready;
    int verbose;
    const npu_soc_profile *soc;
    uint32_t hw_version;
    uint8_t *arena;
    uint32_t arena_size;
    buffer *bufs; /* sorted by offset among live ones: found by scan */
    uint32_t nbufs;
    uint32_t next_handle;
    uint32_t next_seq;
    uint8_t fd_kind[MAX_FAKE_FDS]; /* what a descriptor of ours stands for (fd_kind) */
    vnpu_device vnpu;
    FILE *log;
    submit_log_watch watch; /* what the CPU changes between submissions */
    submit_log_range *live; /* scratch: the live buffers as watch ranges */
    uint32_t submits;
    int record_only; /* rknpu_standin_set_record_only(): log, do not execute */
    uint64_t live_bytes, peak_bytes;
    uint64_t vnpu_us; /* time the virtual NPU's jobs took (rknpu_standin_vnpu_us) */
    int dry_run;      /* rknpu_standin_set_dry_run(), kept for the device's set-up */
} S = {.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP};

/* ---- the real libc functions ---------------------------------------------- */

#define REAL(name) real_##name
#define DECLARE_REAL(ret, name, ...)                                                               \
    static ret (*real_##name)(__VA_ARGS__);                                                        \
    static void resolve_##name(void)                                                               \
    {                                                                                              \
        if (!real_##name)                                                                          \
            real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name);                            \
    }

DECLARE_REAL(int, open, const char *, int, ...)
DECLARE_REAL(int, open64, const char *, int, ...)
DECLARE_REAL(int, openat, int, const char *, int, ...)
DECLARE_REAL(int, close, int)
DECLARE_REAL(int, ioctl, int, unsigned long, ...)
DECLARE_REAL(void *, mmap, void *, size_t, int, int, int, off_t)
DECLARE_REAL(void *, mmap64, void *, size_t, int, int, int, off64_t)
DECLARE_REAL(int, munmap, void *, size_t)
DECLARE_REAL(int, __xstat, int, const char *, struct stat *)
DECLARE_REAL(int, __xstat64, int, const char *, struct stat64 *)
DECLARE_REAL(int, __lxstat, int, const char *, struct stat *)
DECLARE_REAL(int, __lxstat64, int, const char *, struct stat64 *)
DECLARE_REAL(int, __fxstat, int, int, struct stat *)
DECLARE_REAL(int, __fxstat64, int, int, struct stat64 *)
DECLARE_REAL(int, stat, const char *, struct stat *)
DECLARE_REAL(int, stat64, const char *, struct stat64 *)
DECLARE_REAL(int, lstat, const char *, struct stat *)
DECLARE_REAL(int, lstat64, const char *, struct stat64 *)
DECLARE_REAL(int, fstat, int, struct stat *)
DECLARE_REAL(int, fstat64, int, struct stat64 *)
DECLARE_REAL(int, access, const char *, int)
DECLARE_REAL(int, __xmknod, int, const char *, mode_t, dev_t *)
DECLARE_REAL(int, mknod, const char *, mode_t, dev_t)
DECLARE_REAL(int, chmod, const char *, mode_t)
DECLARE_REAL(int, chown, const char *, uid_t, gid_t)
DECLARE_REAL(int, unlink, const char *)
DECLARE_REAL(int, remove, const char *)
DECLARE_REAL(int, mkdir, const char *, mode_t)

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    va_list ap;

    if (!S.verbose)
        return;
    va_start(ap, fmt);
    fputs("rknpu-standin: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Always printed: what makes a submission fail. */
static void complain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void complain(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fputs("rknpu-standin: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- set-up ---------------------------------------------------------------- */

static void setup_soc(void)
{
    const char *soc = getenv("RKNPU_STANDIN_SOC");

    if (!soc || !*soc || strcmp(soc, "rk3588") == 0) {
        S.soc = npu_soc_get(RKNPU_SOC_RK3588);
        S.hw_version = ABI_HW_VERSION_RK3588;
    } else if (strcmp(soc, "rk3566") == 0 || strcmp(soc, "rk3568") == 0) {
        S.soc = npu_soc_get(strcmp(soc, "rk3566") == 0 ? RKNPU_SOC_RK3566 : RKNPU_SOC_RK3568);
        S.hw_version = ABI_HW_VERSION_RK356X;
    } else {
        complain("RKNPU_STANDIN_SOC=%s: unknown SoC (rk3588, rk3566 or rk3568)", soc);
        _exit(2);
    }
}

static void setup_arena(void)
{
    const char *mb = getenv("RKNPU_STANDIN_ARENA_MB");
    unsigned long n = mb && *mb ? strtoul(mb, NULL, 10) : DEFAULT_ARENA_MB;

    resolve_mmap();
    if (n == 0 || n > 2048)
        n = DEFAULT_ARENA_MB;
    S.arena_size = (uint32_t)(n << 20);
    S.arena = REAL(mmap)(NULL, S.arena_size, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (S.arena == MAP_FAILED) {
        complain("cannot reserve a DMA arena of %lu MiB", n);
        _exit(2);
    }
    S.bufs = calloc(MAX_BUFFERS, sizeof *S.bufs);
    if (!S.bufs) {
        complain("out of memory");
        _exit(2);
    }
}

static void setup_vnpu(void)
{
    vnpu_dma_window dma = {DMA_BASE, S.arena_size, S.arena};
    const char *fault = getenv("RKNPU_STANDIN_FAULT_AT_TASK");

    if (vnpu_init(&S.vnpu, S.soc, &dma) != 0) {
        complain("the virtual NPU refused the %s profile", S.soc->name);
        _exit(2);
    }
    if (fault && *fault)
        vnpu_inject_fault_at_task(&S.vnpu, 0, VNPU_FAULT_DMA_ERROR,
                                  (uint32_t)strtoul(fault, NULL, 10));
    vnpu_set_dry_run(&S.vnpu, S.dry_run);
}

static void setup_log(void)
{
    const char *path = getenv("RKNPU_SUBMIT_LOG");
    char data_path[4096];
    FILE *data;

    if (!path || !*path)
        return;
    snprintf(data_path, sizeof data_path, "%s.bin", path);
    S.log = fopen(path, "a");
    data = fopen(data_path, "ab");
    S.live = calloc(MAX_BUFFERS, sizeof *S.live);
    if (!S.log || !data || !S.live ||
        submit_log_watch_init(&S.watch, S.arena, DMA_BASE, S.arena_size, data) != 0) {
        complain("cannot write RKNPU_SUBMIT_LOG %s (and %s): %s", path, data_path, strerror(errno));
        _exit(2);
    }
    fseek(data, 0, SEEK_END); /* the logged offsets count from the file's start */
}

static void setup(void)
{
    if (S.ready)
        return;
    pthread_mutex_lock(&S.lock);
    if (!S.ready) {
        const char *v = getenv("RKNPU_STANDIN_VERBOSE");
        S.verbose = v && *v == '1';
        setup_soc();
        setup_arena();
        setup_vnpu();
        setup_log();
        S.next_handle = 1;
        S.ready = 1;
        note("%s, arena %u MiB at NPU 0x%08x", S.soc->name, S.arena_size >> 20, DMA_BASE);
    }
    pthread_mutex_unlock(&S.lock);
}

/* ---- the arena ------------------------------------------------------------- */

static buffer *find_handle(uint32_t handle)
{
    for (uint32_t i = 0; i < S.nbufs; i++)
        if (S.bufs[i].handle == handle)
            return &S.bufs[i];
    return NULL;
}

static uint64_t obj_addr_of(const buffer *b)
{
    /* stands for the kernel's object pointer: unique, never dereferenced */
    return 0xC0000000ull + (uint64_t)b->handle * 0x40u;
}

static buffer *find_obj(uint64_t obj)
{
    if (obj < 0xC0000000ull || (obj - 0xC0000000ull) % 0x40u)
        return NULL;
    return find_handle((uint32_t)((obj - 0xC0000000ull) / 0x40u));
}

/* First fit over the live buffers (any order). */
static int arena_place(uint32_t span, uint32_t *offset)
{
    uint32_t at = 0;

    for (;;) {
        uint32_t moved = 0;
        if ((uint64_t)at + span > S.arena_size)
            return -1;
        for (uint32_t i = 0; i < S.nbufs; i++) {
            const buffer *b = &S.bufs[i];
            if (b->handle && at < b->offset + b->span && b->offset < at + span) {
                at = b->offset + b->span;
                moved = 1;
            }
        }
        if (!moved) {
            *offset = at;
            return 0;
        }
    }
}

static buffer *arena_alloc(uint64_t size, uint32_t flags)
{
    uint32_t span, offset, slot;

    if (size == 0 || size > S.arena_size)
        return NULL;
    span = (uint32_t)((size + ARENA_ALIGN - 1) & ~(uint64_t)(ARENA_ALIGN - 1));
    if (arena_place(span, &offset) != 0)
        return NULL;
    for (slot = 0; slot < S.nbufs && S.bufs[slot].handle; slot++)
        ;
    if (slot == S.nbufs) {
        if (S.nbufs == MAX_BUFFERS)
            return NULL;
        S.nbufs++;
    }
    S.bufs[slot] = (buffer){S.next_handle++, flags, offset, (uint32_t)size, span, S.next_seq++};
    memset(S.arena + offset, 0, span); /* deterministic contents, as a zeroing allocation */
    S.live_bytes += span;
    if (S.live_bytes > S.peak_bytes)
        S.peak_bytes = S.live_bytes;
    return &S.bufs[slot];
}

static void arena_free(buffer *b)
{
    S.live_bytes -= b->span;
    b->handle = 0;
}

/* CPU pointer of [dma, dma + size) if it lies in one live buffer. */
static const void *dma_map(void *ctx, uint64_t dma, size_t size)
{
    (void)ctx;
    if (dma < DMA_BASE)
        return NULL;
    dma -= DMA_BASE;
    for (uint32_t i = 0; i < S.nbufs; i++) {
        const buffer *b = &S.bufs[i];
        if (b->handle && dma >= b->offset && dma + size <= (uint64_t)b->offset + b->span)
            return S.arena + dma;
    }
    return NULL;
}

/* For the differential client (dlsym): DMA bytes held now and at the peak. */
void rknpu_standin_dma_bytes(uint64_t *live, uint64_t *peak)
{
    pthread_mutex_lock(&S.lock);
    if (live)
        *live = S.live_bytes;
    if (peak)
        *peak = S.peak_bytes;
    S.peak_bytes = S.live_bytes; /* the next peak is measured from here */
    pthread_mutex_unlock(&S.lock);
}

/* For the differential client (dlsym): 1 = record submissions without
 * executing them (they complete at once; outputs are not computed), for
 * runs made only to capture what a runtime wrote into its input buffers. */
void rknpu_standin_set_record_only(int on)
{
    pthread_mutex_lock(&S.lock);
    S.record_only = on;
    pthread_mutex_unlock(&S.lock);
}

/* For the benchmark client (dlsym): 1 = the virtual NPU walks and checks
 * every job but computes nothing (vnpu_set_dry_run), so a run costs what
 * the runtime itself spends; and the microseconds its jobs took so far. */
void rknpu_standin_set_dry_run(int on)
{
    pthread_mutex_lock(&S.lock);
    S.dry_run = on;
    vnpu_set_dry_run(&S.vnpu, on);
    pthread_mutex_unlock(&S.lock);
}

uint64_t rknpu_standin_vnpu_us(void)
{
    uint64_t us;

    pthread_mutex_lock(&S.lock);
    us = S.vnpu_us;
    pthread_mutex_unlock(&S.lock);
    return us;
}

/* ---- paths and descriptors ------------------------------------------------- */

typedef enum { PATH_OTHER, PATH_DRI_DIR, PATH_CARD0, PATH_DRI_MISSING, PATH_RKNPU } path_kind;

static path_kind classify(const char *path)
{
    if (!path)
        return PATH_OTHER;
    if (strcmp(path, "/dev/dri") == 0 || strcmp(path, "/dev/dri/") == 0)
        return PATH_DRI_DIR;
    if (strcmp(path, "/dev/dri/card0") == 0)
        return PATH_CARD0;
    if (strncmp(path, "/dev/dri/", 9) == 0)
        return PATH_DRI_MISSING;
    if (strcmp(path, "/dev/rknpu") == 0)
        return PATH_RKNPU;
    return PATH_OTHER;
}

/* /proc/dri/N/name: the old procfs name file of DRM minors. */
static int proc_dri_minor(const char *path)
{
    int n;
    char rest[16];

    if (path && sscanf(path, "/proc/dri/%d/%15s", &n, rest) == 2 && strcmp(rest, "name") == 0)
        return n;
    return -1;
}

static int placeholder_fd(void)
{
    resolve_open();
    return REAL(open)("/dev/null", O_RDWR | O_CLOEXEC);
}

/* Every open of the device is a descriptor of its own; all share the one
 * device state (buffers, cores), as the runtime never shares GEM names
 * between opens. */
static int open_drm(void)
{
    int fd;

    setup();
    fd = placeholder_fd();
    if (fd < 0 || fd >= MAX_FAKE_FDS) {
        complain("no descriptor for the DRM device below %d", MAX_FAKE_FDS);
        if (fd >= 0)
            REAL(close)(fd);
        errno = EMFILE;
        return -1;
    }
    S.fd_kind[fd] = FD_DRM;
    note("open /dev/dri/card0 -> fd %d", fd);
    return fd;
}

static int is_drm_fd(int fd)
{
    return fd >= 0 && fd < MAX_FAKE_FDS && S.fd_kind[fd] == FD_DRM;
}

static int open_proc_name(int minor)
{
    int fd;
    char text[64];

    if (minor != 0) {
        errno = ENOENT;
        return -1;
    }
    fd = memfd_create("proc-dri-name", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    snprintf(text, sizeof text, "rknpu dev=rknpu unique=\n");
    if (write(fd, text, strlen(text)) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
        REAL(close)(fd);
        return -1;
    }
    return fd;
}

/* Paths this file answers; -2 = not ours (call the real function). */
static int open_path(const char *path)
{
    switch (classify(path)) {
    case PATH_CARD0: return open_drm();
    case PATH_DRI_MISSING:
    case PATH_RKNPU:
    case PATH_DRI_DIR:
        note("open %s -> ENOENT", path);
        errno = ENOENT;
        return -1;
    case PATH_OTHER: break;
    }
    if (proc_dri_minor(path) >= 0) {
        note("open %s", path);
        resolve_close();
        return open_proc_name(proc_dri_minor(path));
    }
    return -2;
}

#define OPEN_WRAPPER(name, ...)                                                                    \
    {                                                                                              \
        mode_t mode = 0;                                                                           \
        int r;                                                                                     \
        if (flags & (O_CREAT | __O_TMPFILE)) {                                                     \
            va_list ap;                                                                            \
            va_start(ap, flags);                                                                   \
            mode = (mode_t)va_arg(ap, int);                                                        \
            va_end(ap);                                                                            \
        }                                                                                          \
        r = open_path(path);                                                                       \
        if (r != -2)                                                                               \
            return r;                                                                              \
        resolve_##name();                                                                          \
        return REAL(name)(__VA_ARGS__, flags, mode);                                               \
    }

int open(const char *path, int flags, ...)
    OPEN_WRAPPER(open, path) int open64(const char *path, int flags, ...)
        OPEN_WRAPPER(open64, path) int openat(int dirfd, const char *path, int flags, ...)
            OPEN_WRAPPER(openat, dirfd, path)

                int __open_2(const char *path, int flags)
{
    return open(path, flags);
}

int __open64_2(const char *path, int flags)
{
    return open64(path, flags);
}

int close(int fd)
{
    resolve_close();
    if (fd >= 0 && fd < MAX_FAKE_FDS && S.fd_kind[fd] != FD_NONE) {
        note("close %s fd %d", S.fd_kind[fd] == FD_DRM ? "DRM" : "dma-buf", fd);
        S.fd_kind[fd] = FD_NONE;
    }
    return REAL(close)(fd);
}

/* ---- stat family ----------------------------------------------------------- */

/* Fill st for a path or descriptor we answer; 1 if answered, -1 for
 * ENOENT, 0 if not ours. */
#define FAKE_STAT(st, kind)                                                                        \
    do {                                                                                           \
        memset((st), 0, sizeof *(st));                                                             \
        if ((kind) == PATH_DRI_DIR) {                                                              \
            (st)->st_mode = S_IFDIR | 0755;                                                        \
            (st)->st_nlink = 2;                                                                    \
        } else {                                                                                   \
            (st)->st_mode = S_IFCHR | 0666;                                                        \
            (st)->st_rdev = makedev(DRM_MAJOR, 0);                                                 \
            (st)->st_nlink = 1;                                                                    \
        }                                                                                          \
    } while (0)

static int stat_kind(const char *path)
{
    path_kind k = classify(path);

    if (k == PATH_DRI_DIR || k == PATH_CARD0)
        return (int)k;
    if (k == PATH_DRI_MISSING || k == PATH_RKNPU)
        return -1;
    return 0;
}

#define PATH_STAT_WRAPPER(call, st)                                                                \
    {                                                                                              \
        int k = stat_kind(path);                                                                   \
        if (k > 0) {                                                                               \
            FAKE_STAT(st, (path_kind)k);                                                           \
            return 0;                                                                              \
        }                                                                                          \
        if (k < 0) {                                                                               \
            errno = ENOENT;                                                                        \
            return -1;                                                                             \
        }                                                                                          \
        return call;                                                                               \
    }

#define FD_STAT_WRAPPER(call, st)                                                                  \
    {                                                                                              \
        if (is_drm_fd(fd)) {                                                                       \
            FAKE_STAT(st, PATH_CARD0);                                                             \
            return 0;                                                                              \
        }                                                                                          \
        return call;                                                                               \
    }

int __xstat(int ver, const char *path,
            struct stat *st) PATH_STAT_WRAPPER((resolve___xstat(), REAL(__xstat)(ver, path, st)),
                                               st) int __xstat64(int ver, const char *path,
                                                                 struct stat64 *st)
    PATH_STAT_WRAPPER((resolve___xstat64(), REAL(__xstat64)(ver, path, st)),
                      st) int __lxstat(int ver, const char *path, struct stat *st)
        PATH_STAT_WRAPPER((resolve___lxstat(), REAL(__lxstat)(ver, path, st)),
                          st) int __lxstat64(int ver, const char *path, struct stat64 *st)
            PATH_STAT_WRAPPER((resolve___lxstat64(), REAL(__lxstat64)(ver, path, st)),
                              st) int stat(const char *path, struct stat *st)
                PATH_STAT_WRAPPER((resolve_stat(), REAL(stat)(path, st)),
                                  st) int stat64(const char *path, struct stat64 *st)
                    PATH_STAT_WRAPPER((resolve_stat64(), REAL(stat64)(path, st)),
                                      st) int lstat(const char *path, struct stat *st)
                        PATH_STAT_WRAPPER((resolve_lstat(), REAL(lstat)(path, st)),
                                          st) int lstat64(const char *path, struct stat64 *st)
                            PATH_STAT_WRAPPER((resolve_lstat64(), REAL(lstat64)(path, st)),
                                              st) int __fxstat(int ver, int fd, struct stat *st)
                                FD_STAT_WRAPPER((resolve___fxstat(), REAL(__fxstat)(ver, fd, st)),
                                                st) int __fxstat64(int ver, int fd,
                                                                   struct stat64 *st)
                                    FD_STAT_WRAPPER((resolve___fxstat64(),
                                                     REAL(__fxstat64)(ver, fd, st)),
                                                    st) int fstat(int fd, struct stat *st)
                                        FD_STAT_WRAPPER((resolve_fstat(), REAL(fstat)(fd, st)),
                                                        st) int fstat64(int fd, struct stat64 *st)
                                            FD_STAT_WRAPPER((resolve_fstat64(),
                                                             REAL(fstat64)(fd, st)),
                                                            st)

                                                int access(const char *path, int mode)
{
    int k = stat_kind(path);

    if (k > 0)
        return 0;
    if (k < 0) {
        errno = ENOENT;
        return -1;
    }
    resolve_access();
    return REAL(access)(path, mode);
}

/* Device-node management under /dev/dri: pretend it worked, touch nothing. */
static int dev_dri_path(const char *path)
{
    return path && strncmp(path, "/dev/dri", 8) == 0;
}

int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev)
{
    if (dev_dri_path(path))
        return 0;
    resolve___xmknod();
    return REAL(__xmknod)(ver, path, mode, dev);
}

int mknod(const char *path, mode_t mode, dev_t dev)
{
    if (dev_dri_path(path))
        return 0;
    resolve_mknod();
    return REAL(mknod)(path, mode, dev);
}

int chmod(const char *path, mode_t mode)
{
    if (dev_dri_path(path))
        return 0;
    resolve_chmod();
    return REAL(chmod)(path, mode);
}

int chown(const char *path, uid_t uid, gid_t gid)
{
    if (dev_dri_path(path))
        return 0;
    resolve_chown();
    return REAL(chown)(path, uid, gid);
}

int unlink(const char *path)
{
    if (dev_dri_path(path))
        return 0;
    resolve_unlink();
    return REAL(unlink)(path);
}

int remove(const char *path)
{
    if (dev_dri_path(path))
        return 0;
    resolve_remove();
    return REAL(remove)(path);
}

int mkdir(const char *path, mode_t mode)
{
    if (dev_dri_path(path))
        return 0;
    resolve_mkdir();
    return REAL(mkdir)(path, mode);
}

/* ---- mmap ------------------------------------------------------------------ */

/* MEM_MAP offsets: the arena offset plus this, so that 0 is never valid. */
#define MAP_OFFSET_BIAS 0x100000ull

static void *map_drm(size_t len, uint64_t offset)
{
    void *p = MAP_FAILED;

    pthread_mutex_lock(&S.lock);
    if (offset >= MAP_OFFSET_BIAS) {
        uint64_t at = offset - MAP_OFFSET_BIAS;
        for (uint32_t i = 0; i < S.nbufs; i++) {
            const buffer *b = &S.bufs[i];
            if (b->handle && at == b->offset && len <= b->span)
                p = S.arena + at;
        }
    }
    pthread_mutex_unlock(&S.lock);
    note("mmap DRM offset 0x%llx len %zu -> %p", (unsigned long long)offset, len, p);
    if (p == MAP_FAILED)
        errno = EINVAL;
    return p;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (is_drm_fd(fd))
        return map_drm(len, (uint64_t)(uint32_t)off);
    resolve_mmap();
    return REAL(mmap)(addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
    if (is_drm_fd(fd))
        return map_drm(len, (uint64_t)off);
    resolve_mmap64();
    return REAL(mmap64)(addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
    if (S.arena && (uint8_t *)addr >= S.arena && (uint8_t *)addr < S.arena + S.arena_size)
        return 0; /* a view of a buffer: the buffer lives until MEM_DESTROY */
    resolve_munmap();
    return REAL(munmap)(addr, len);
}

/* ---- ioctls: DRM core ------------------------------------------------------ */

static void copy_out_string(uint32_t *len, uint32_t ptr, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);

    if (ptr && *len)
        memcpy((void *)(uintptr_t)ptr, s, n < *len ? n : *len);
    *len = n;
}

static int drm_version(abi_drm_version *v)
{
    v->major = 0;
    v->minor = 9;
    v->patchlevel = 3;
    copy_out_string(&v->name_len, v->name, "rknpu");
    copy_out_string(&v->date_len, v->date, "20220829");
    copy_out_string(&v->desc_len, v->desc, "RKNPU driver");
    return 0;
}

static int prime_to_fd(abi_prime_handle *p)
{
    int fd;

    if (!find_handle(p->handle)) {
        errno = ENOENT;
        return -1;
    }
    fd = placeholder_fd();
    if (fd < 0)
        return -1;
    if (fd < MAX_FAKE_FDS)
        S.fd_kind[fd] = FD_DMABUF;
    p->fd = fd;
    return 0;
}

/* ---- ioctls: rknpu --------------------------------------------------------- */

static int action(abi_rknpu_action *a)
{
    switch (a->flags) {
    case ABI_ACT_GET_HW_VERSION: a->value = S.hw_version; break;
    case ABI_ACT_GET_DRV_VERSION: a->value = ABI_DRV_VERSION; break;
    case ABI_ACT_GET_FREQ: a->value = 1000000000u; break;
    case ABI_ACT_GET_VOLT: a->value = 850000u; break;
    case ABI_ACT_GET_IOMMU_EN: a->value = 1; break;
    case ABI_ACT_GET_TOTAL_SRAM_SIZE:
    case ABI_ACT_GET_FREE_SRAM_SIZE: a->value = 0; break;
    case ABI_ACT_RESET:
        for (unsigned c = 0; c < S.soc->core_count; c++)
            vnpu_reset(&S.vnpu, c);
        break;
    default: break; /* set-only actions: accepted, nothing to model */
    }
    note("action %u -> value 0x%x", a->flags, a->value);
    return 0;
}

static int mem_create(abi_rknpu_mem_create *m)
{
    buffer *b = arena_alloc(m->size, m->flags);

    if (!b) {
        complain("MEM_CREATE of %llu bytes: the %u MiB arena is full (RKNPU_STANDIN_ARENA_MB)",
                 (unsigned long long)m->size, S.arena_size >> 20);
        errno = ENOMEM;
        return -1;
    }
    m->handle = b->handle;
    m->obj_addr = obj_addr_of(b);
    m->dma_addr = DMA_BASE + b->offset;
    m->sram_size = 0;
    note("mem_create %llu bytes flags 0x%x -> handle %u dma 0x%llx", (unsigned long long)m->size,
         m->flags, b->handle, (unsigned long long)m->dma_addr);
    if (S.log)
        submit_log_mem(S.log, "vendor", "create", b->handle, m->dma_addr, m->size, m->flags);
    return 0;
}

static int mem_map(abi_rknpu_mem_map *m)
{
    buffer *b = find_handle(m->handle);

    if (!b) {
        errno = ENOENT;
        return -1;
    }
    m->offset = MAP_OFFSET_BIAS + b->offset;
    return 0;
}

static int mem_destroy(abi_rknpu_mem_destroy *m)
{
    buffer *b = find_handle(m->handle);

    if (!b) {
        errno = ENOENT;
        return -1;
    }
    note("mem_destroy handle %u", m->handle);
    if (S.log)
        submit_log_mem(S.log, "vendor", "destroy", b->handle, DMA_BASE + b->offset, b->size,
                       b->flags);
    arena_free(b);
    return 0;
}

static int gem_close(abi_gem_close *g)
{
    buffer *b = find_handle(g->handle);

    if (b) { /* the runtime closes handles after MEM_DESTROY too: both free once */
        if (S.log)
            submit_log_mem(S.log, "vendor", "destroy", b->handle, DMA_BASE + b->offset, b->size,
                           b->flags);
        arena_free(b);
    }
    return 0;
}

/* ---- submission ------------------------------------------------------------ */

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void le32_put(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint64_t now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void reg_write(unsigned core, uint32_t offset, uint32_t value)
{
    vnpu_mmio_write(&S.vnpu, core, offset, value);
}

static uint32_t reg_read(unsigned core, uint32_t offset)
{
    return vnpu_mmio_read(&S.vnpu, core, offset);
}

/* The slice of the task array a core runs (the driver's rule, hardware.md §3.5). */
static void core_slice(const abi_rknpu_submit *s, unsigned core, unsigned use_cores,
                       uint32_t *start, uint32_t *number)
{
    *start = s->task_start;
    *number = s->task_number;
    if (!S.soc->multi_irq)
        return;
    if (use_cores == 3) {
        *start = s->subcore_task[core + 2].task_start;
        *number = s->subcore_task[core + 2].task_number;
    } else {
        *start = s->subcore_task[core].task_start;
        *number = s->subcore_task[core].task_number;
    }
}

/* The kernel driver's rknpu_fuzz_status (hardware.md §3.3): either
 * ping-pong group of a unit counts as that unit's completion. */
static uint32_t fuzz_status(uint32_t status)
{
    uint32_t out = 0;

    for (uint32_t group = 0x3u; group <= 0xC00u; group <<= 2)
        if (status & group)
            out |= group;
    return out;
}

/* One PC kick of `count` tasks from record `first`: the BSP's
 * rknpu_job_subcore_commit_pc (hardware.md §3.2), then the virtual NPU has
 * run them. Returns 0 on completion, -1 with the reason in *why. */
static int kick(unsigned core, uint8_t *records, uint32_t first, uint32_t count, int pp,
                uint64_t task_base, uint32_t *status, char *why, size_t why_len)
{
    const uint8_t *f = records + (size_t)first * ABI_TASK_BYTES;
    const uint8_t *l = records + (size_t)(first + count - 1) * ABI_TASK_BYTES;
    uint32_t scale = S.soc->pc_data_amount_scale;
    uint32_t last_mask = le32(l + NPU_TASK_INT_MASK);
    uint32_t raw;
    uint64_t t0;

    reg_write(core, NPU_PC_DATA_ADDR, 1); /* slave mode */
    if (S.soc->multi_irq) {
        reg_write(core, NPU_CNA_S_POINTER, 0xEu + 0x10000000u * core);
        reg_write(core, NPU_CORE_S_POINTER, 0xEu + 0x10000000u * core);
    }
    reg_write(core, NPU_PC_DATA_ADDR, le32(f + NPU_TASK_REGCMD_ADDR));
    reg_write(core, NPU_PC_DATA_AMOUNT,
              (le32(f + NPU_TASK_REGCFG_AMOUNT) + NPU_PC_TAIL_WORDS + scale - 1) / scale - 1);
    reg_write(core, NPU_PC_INTERRUPT_MASK, last_mask);
    reg_write(core, NPU_PC_INTERRUPT_CLEAR, le32(f + NPU_TASK_INT_MASK));
    reg_write(core, NPU_PC_TASK_CON, ((0x6u | (uint32_t)pp) << S.soc->pc_task_number_bits) | count);
    reg_write(core, NPU_PC_TASK_DMA_BASE_ADDR, (uint32_t)task_base);
    t0 = now_us();
    reg_write(core, NPU_PC_OPERATION_ENABLE, 1); /* the model runs the chain in this write */
    S.vnpu_us += now_us() - t0;
    reg_write(core, NPU_PC_OPERATION_ENABLE, 0);
    /* the virtual NPU ran the chain synchronously: read what the IRQ handler reads */
    raw = reg_read(core, NPU_PC_INTERRUPT_RAW_STATUS);
    *status = reg_read(core, NPU_PC_INTERRUPT_STATUS);
    reg_write(core, NPU_PC_INTERRUPT_CLEAR, S.soc->int_clear_all);
    if (fuzz_status(*status) == last_mask && !(raw & 0x3000u))
        return 0;
    snprintf(why, why_len, "core %u, tasks %u..%u: %s (INT_STATUS 0x%x, RAW 0x%x, want 0x%x)", core,
             first, first + count - 1,
             vnpu_last_error(&S.vnpu, core)[0] ? vnpu_last_error(&S.vnpu, core) : "no completion",
             *status, raw, last_mask);
    vnpu_reset(&S.vnpu, core);
    return -1;
}

/* Everything one core runs of a submission, in slices of max_submit_tasks. */
static int run_core(const abi_rknpu_submit *s, unsigned core, unsigned core_mask, uint8_t *records,
                    uint32_t nrecords, uint32_t start, uint32_t number, char *why, size_t why_len)
{
    int pp = (s->flags & ABI_JOB_PINGPONG) != 0;
    uint32_t status = 0;

    if (number == 0)
        return 0;
    if ((uint64_t)start + number > nrecords) {
        snprintf(why, why_len, "core %u: tasks %u..%u outside the %u records of the task buffer",
                 core, start, start + number - 1, nrecords);
        return -1;
    }
    for (uint32_t done = 0; done < number;) {
        uint32_t n = number - done;
        rknpu_submit_slice slice;
        if (n > S.soc->max_submit_tasks)
            n = S.soc->max_submit_tasks;
        slice = (rknpu_submit_slice){
            .job = S.submits,
            .core = core,
            .core_mask = core_mask,
            .records = records + (size_t)(start + done) * ABI_TASK_BYTES,
            .first = start + done,
            .count = n,
            .stream_dma = 0, /* the runtime writes absolute regcmd addresses */
            .task_con = ((0x6u | (uint32_t)pp) << S.soc->pc_task_number_bits) | n,
            .pingpong = (unsigned)pp,
            .int_mask =
                le32(records + (size_t)(start + done + n - 1) * ABI_TASK_BYTES + NPU_TASK_INT_MASK),
            .int_clear =
                le32(records + (size_t)(start + done) * ABI_TASK_BYTES + NPU_TASK_INT_MASK),
        };
        if (S.log)
            submit_log_slice(S.log, "vendor", &slice, dma_map, NULL);
        if (!S.record_only &&
            kick(core, records, start + done, n, pp, s->task_base_addr, &status, why, why_len))
            return -1;
        done += n;
    }
    /* the driver writes the IRQ's status into the last task of the job */
    le32_put(records + (size_t)(start + number - 1) * ABI_TASK_BYTES + NPU_TASK_INT_STATUS, status);
    return 0;
}

static unsigned pick_cores(const abi_rknpu_submit *s)
{
    unsigned all = (1u << S.soc->core_count) - 1u;

    if (!S.soc->multi_irq)
        return 1u; /* single-core SoCs: the driver forces core 0 */
    if ((s->core_mask & 7u) == 0)
        return 1u; /* auto: the idlest core; all are idle between synchronous submits */
    return s->core_mask & all;
}

/* The live buffers as ranges of the arena. */
static unsigned live_ranges(void)
{
    unsigned n = 0;

    for (uint32_t i = 0; i < S.nbufs; i++)
        if (S.bufs[i].handle)
            S.live[n++] = (submit_log_range){S.bufs[i].offset, S.bufs[i].span};
    return n;
}

static int submit(abi_rknpu_submit *s)
{
    buffer *tb = find_obj(s->task_obj_addr);
    uint64_t t0 = now_us();
    unsigned mask, use_cores;
    uint32_t nrecords;
    uint8_t *records;
    char why[400] = "";
    int ret = 0;

    S.submits++;
    if (!tb || s->task_number == 0 || !(s->flags & ABI_JOB_PC)) {
        complain("SUBMIT %u: %s", S.submits,
                 !tb                   ? "task_obj_addr names no buffer"
                 : s->task_number == 0 ? "no tasks"
                                       : "not in PC mode");
        errno = EINVAL;
        return -1;
    }
    records = S.arena + tb->offset;
    nrecords = tb->size / ABI_TASK_BYTES;
    if (S.log) {
        unsigned n = live_ranges();
        submit_log_buffers(S.log, "vendor", S.submits, &S.watch, S.live, n);
        submit_log_cpu_writes(S.log, "vendor", S.submits, &S.watch, S.live, n);
    }
    mask = pick_cores(s);
    use_cores = (unsigned)__builtin_popcount(mask);
    for (unsigned core = 0; core < S.soc->core_count && ret == 0; core++) {
        uint32_t start, number;
        if (!(mask & (1u << core)))
            continue;
        core_slice(s, core, use_cores, &start, &number);
        ret = run_core(s, core, mask, records, nrecords, start, number, why, sizeof why);
    }
    if (S.log)
        submit_log_npu_ran(&S.watch, S.live, live_ranges());
    s->hw_elapse_time = (int64_t)(now_us() - t0);
    s->task_counter = ret == 0 ? s->task_number : 0;
    if (S.log)
        submit_log_submit(S.log, "vendor", S.submits, s->flags, s->timeout, s->core_mask, mask,
                          s->task_start, s->task_number, &s->subcore_task[0].task_start, 5,
                          ret == 0 ? "" : why);
    if (ret != 0) {
        complain("SUBMIT %u failed: %s", S.submits, why);
        errno = EIO;
        return -1;
    }
    return 0;
}

/* ---- ioctl ----------------------------------------------------------------- */

static int drm_ioctl(unsigned long req, void *arg)
{
    unsigned nr = ABI_IOC_NR(req);

    if (ABI_IOC_TYPE(req) != DRM_IOCTL_TYPE) {
        note("ioctl 0x%lx on the DRM fd: not DRM", req);
        errno = ENOTTY;
        return -1;
    }
    switch (nr) {
    case ABI_DRM_VERSION: return drm_version(arg);
    case ABI_DRM_GET_UNIQUE: ((abi_drm_unique *)arg)->unique_len = 0; return 0;
    case ABI_DRM_GEM_CLOSE: return gem_close(arg);
    case ABI_DRM_GEM_FLINK: ((abi_gem_flink *)arg)->name = ((abi_gem_flink *)arg)->handle; return 0;
    case ABI_DRM_PRIME_HANDLE_TO_FD: return prime_to_fd(arg);
    case ABI_RKNPU_ACTION: return action(arg);
    case ABI_RKNPU_SUBMIT: return submit(arg);
    case ABI_RKNPU_MEM_CREATE: return mem_create(arg);
    case ABI_RKNPU_MEM_MAP: return mem_map(arg);
    case ABI_RKNPU_MEM_DESTROY: return mem_destroy(arg);
    case ABI_RKNPU_MEM_SYNC: return 0; /* caches are coherent in a simulation */
    default:
        note("DRM ioctl nr 0x%02x (size %u) not handled", nr, ABI_IOC_SIZE(req));
        errno = EINVAL;
        return -1;
    }
}

int ioctl(int fd, unsigned long req, ...)
{
    va_list ap;
    void *arg;
    int r;

    va_start(ap, req);
    arg = va_arg(ap, void *);
    va_end(ap);
    if (!is_drm_fd(fd)) {
        resolve_ioctl();
        return REAL(ioctl)(fd, req, arg);
    }
    pthread_mutex_lock(&S.lock);
    r = drm_ioctl(req, arg);
    pthread_mutex_unlock(&S.lock);
    note("ioctl nr 0x%02x -> %d", ABI_IOC_NR(req), r);
    return r;
}
