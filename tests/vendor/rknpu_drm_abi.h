/*
 * rknpu_drm_abi.h - the user-space ABI of Rockchip's rknpu DRM kernel
 * driver (0.9.x) as librknnrt 1.6.0 uses it on armhf: ioctl numbers and
 * struct layouts (hardware.md §3.1, §3.5). Written from
 * those notes; sizes are checked against the ioctl numbers' size fields.
 */
#ifndef RKNPU_DRM_ABI_H
#define RKNPU_DRM_ABI_H

#include <stdint.h>

/* ioctl number fields (asm-generic: nr 8 bits, type 8, size 14, dir 2) */
#define ABI_IOC_NR(req)   ((unsigned)(req)&0xFFu)
#define ABI_IOC_TYPE(req) (((unsigned)(req) >> 8) & 0xFFu)
#define ABI_IOC_SIZE(req) (((unsigned)(req) >> 16) & 0x3FFFu)

#define DRM_IOCTL_TYPE 'd'

enum abi_drm_nr {
    ABI_DRM_VERSION = 0x00,
    ABI_DRM_GET_UNIQUE = 0x01,
    ABI_DRM_GEM_CLOSE = 0x09,
    ABI_DRM_GEM_FLINK = 0x0a,
    ABI_DRM_GEM_OPEN = 0x0b,
    ABI_DRM_PRIME_HANDLE_TO_FD = 0x2d,
    ABI_DRM_PRIME_FD_TO_HANDLE = 0x2e,
    ABI_RKNPU_ACTION = 0x40,
    ABI_RKNPU_SUBMIT = 0x41,
    ABI_RKNPU_MEM_CREATE = 0x42,
    ABI_RKNPU_MEM_MAP = 0x43,
    ABI_RKNPU_MEM_DESTROY = 0x44,
    ABI_RKNPU_MEM_SYNC = 0x45,
};

/* struct drm_version on a 32-bit ABI: three ints, then three (len, ptr) pairs */
typedef struct {
    int32_t major, minor, patchlevel;
    uint32_t name_len;
    uint32_t name; /* char * on armhf */
    uint32_t date_len;
    uint32_t date;
    uint32_t desc_len;
    uint32_t desc;
} abi_drm_version;

typedef struct {
    uint32_t unique_len;
    uint32_t unique; /* char * */
} abi_drm_unique;

typedef struct {
    uint32_t handle, pad;
} abi_gem_close;

typedef struct {
    uint32_t handle, name;
} abi_gem_flink;

typedef struct {
    uint32_t name, handle;
    uint64_t size;
} abi_gem_open;

typedef struct {
    uint32_t handle, flags;
    int32_t fd;
} abi_prime_handle;

typedef struct {
    uint32_t flags; /* the action code */
    uint32_t value;
} abi_rknpu_action;

typedef struct {
    uint32_t handle, flags;
    uint64_t size, obj_addr, dma_addr, sram_size;
} abi_rknpu_mem_create;

typedef struct {
    uint32_t handle, reserved;
    uint64_t offset;
} abi_rknpu_mem_map;

typedef struct {
    uint32_t handle, reserved;
    uint64_t obj_addr;
} abi_rknpu_mem_destroy;

typedef struct {
    uint32_t flags, reserved;
    uint64_t obj_addr, offset, size;
} abi_rknpu_mem_sync;

typedef struct {
    uint32_t task_start, task_number;
} abi_subcore_task;

typedef struct {
    uint32_t flags, timeout, task_start, task_number, task_counter;
    int32_t priority;
    uint64_t task_obj_addr;
    uint32_t iommu_domain_id, reserved;
    uint64_t task_base_addr;
    int64_t hw_elapse_time;
    uint32_t core_mask;
    int32_t fence_fd;
    abi_subcore_task subcore_task[5];
} abi_rknpu_submit;

/* struct rknpu_task: 40 bytes, packed; the submission's task buffer holds an array */
#define ABI_TASK_BYTES 40u

_Static_assert(sizeof(abi_drm_version) == 36, "drm_version is 36 bytes on armhf");
_Static_assert(sizeof(abi_rknpu_mem_create) == 40, "rknpu_mem_create is 40 bytes");
_Static_assert(sizeof(abi_rknpu_mem_map) == 16, "rknpu_mem_map is 16 bytes");
_Static_assert(sizeof(abi_rknpu_mem_destroy) == 16, "rknpu_mem_destroy is 16 bytes");
_Static_assert(sizeof(abi_rknpu_mem_sync) == 32, "rknpu_mem_sync is 32 bytes");
_Static_assert(sizeof(abi_rknpu_submit) == 104, "rknpu_submit is 104 bytes");
_Static_assert(sizeof(abi_prime_handle) == 12, "drm_prime_handle is 12 bytes");

/* Submit flags (hardware.md §3.1) */
#define ABI_JOB_PC       0x1u
#define ABI_JOB_NONBLOCK 0x2u
#define ABI_JOB_PINGPONG 0x4u

/* RKNPU_ACTION codes (hardware.md §3.5) */
enum abi_action {
    ABI_ACT_GET_HW_VERSION = 0,
    ABI_ACT_GET_DRV_VERSION = 1,
    ABI_ACT_GET_FREQ = 2,
    ABI_ACT_SET_FREQ = 3,
    ABI_ACT_GET_VOLT = 4,
    ABI_ACT_SET_VOLT = 5,
    ABI_ACT_RESET = 6,
    ABI_ACT_GET_IOMMU_EN = 18,
    ABI_ACT_SET_PROC_NICE = 19,
    ABI_ACT_POWER_ON = 20,
    ABI_ACT_POWER_OFF = 21,
    ABI_ACT_GET_TOTAL_SRAM_SIZE = 22,
    ABI_ACT_GET_FREE_SRAM_SIZE = 23,
};

/* What GET_HW_VERSION answers per SoC (hardware.md §3.5) */
#define ABI_HW_VERSION_RK3588 0x46495245u
#define ABI_HW_VERSION_RK356X 0u
/* The driver version the runtime accepts: 0.9.3 */
#define ABI_DRV_VERSION 903u /* major * 10000 + minor * 100 + patch */

#endif
