/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A device core on a fake host, for tests that drive registers directly:
 * one per test program (static), set up and torn down around each test.
 */
#ifndef E810_CORE_FIXTURE_H
#define E810_CORE_FIXTURE_H

#include "fake-host.h"

static FakeHost h;
static E810Core c;
static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

static void setup(void)
{
    fake_host_init(&h);
    e810_core_init(&c, &h.host, mac);
}

static void teardown(void)
{
    e810_core_cleanup(&c);
    fake_host_cleanup(&h);
}

static inline uint32_t rd(uint32_t off)
{
    return e810_mmio_read(&c, off, 4);
}

static inline void wr(uint32_t off, uint32_t val)
{
    e810_mmio_write(&c, off, val, 4);
}

#endif
