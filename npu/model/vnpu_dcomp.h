/*
 * vnpu_dcomp.h - the CNA's weight decompressor (vnpu_dcomp.c, vnpu.md §6.2),
 * a part of the CNA unit: only vnpu_cna.c includes it.
 */
#ifndef VNPU_DCOMP_H
#define VNPU_DCOMP_H

#include <stdint.h>

#include "vnpu_base.h"

/* 1 if DCOMP_CTRL asks for compressed weights of precision `prec` (enum
 * vnpu_precision), 0 if the weights are plain, -1 after an error
 * (programming the model has not established). */
int vnpu_dcomp_enabled(vnpu_task *t, unsigned prec);

/* The `total` bytes of native weights decoded from the 16 streams at
 * DCOMP_ADDR0 (static storage of the model), or NULL after an error naming
 * the register. */
const uint8_t *vnpu_dcomp_weights(vnpu_task *t, uint64_t total);

#endif
