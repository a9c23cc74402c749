/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 device core: the PCI function both front ends present, the QEMU
 * glue through QEMU's PCI code (qemu/e810-pci.c) and e810-vfio-user by
 * hand (vfio-user/vfu-server.c): its identity, the BARs, where the
 * capabilities sit in config space and what they say, and its serial
 * number.  Only numbers and their derivations: each front end writes
 * them with its own means.
 */
#ifndef E810_PCI_H
#define E810_PCI_H

#include "types.h"

#define E810_PCI_VENDOR_ID      0x8086      /* Intel */
#define E810_PCI_DEVICE_ID      0x159B      /* E810-XXV SFP */
#define E810_PCI_SUBSYS_VENDOR_ID E810_PCI_VENDOR_ID
/* Not an E810-T's subsystem (those pull in GNSS). */
#define E810_PCI_SUBSYS_ID      0x0003
#define E810_PCI_REVISION       0x02
#define E810_PCI_CLASS          0x020000    /* Ethernet controller, prog-if 0 */
#define E810_PCI_CACHE_LINE     0x10        /* cache line size (dwords) */
#define E810_PCI_INTERRUPT_PIN  1           /* INTA#, never asserted */

/* BAR0 is the register file (E810_BAR0_SIZE); BAR3 the MSI-X table and
 * its pending-bit array.  Both 64-bit prefetchable memory. */
#define E810_PCI_REG_BAR        0
#define E810_PCI_MSIX_BAR       3
#define E810_PCI_MSIX_BAR_SIZE  (64u << 10)
#define E810_PCI_MSIX_TABLE_OFF 0x0000
#define E810_PCI_MSIX_PBA_OFF   0x8000

/* Config space: the standard capabilities, then the extended one. */
#define E810_PCI_CAP_PM         0x40
#define E810_PCI_CAP_MSIX       0x70
#define E810_PCI_CAP_PCIE       0xA0
#define E810_PCI_EXTCAP_DSN     0x100
/* The serial number's 8 bytes in its capability. */
#define E810_PCI_DSN_SERIAL     (E810_PCI_EXTCAP_DSN + 4)

/* Power management 1.2 with PME from D0 and D3hot; in PMCSR the power
 * state and PME enable are writable, PME status is write-1-to-clear. */
#define E810_PCI_PM_PMC         (0x0003 | 1u << 11 | 1u << 14)
#define E810_PCI_PM_CTRL_WMASK  0x0103
#define E810_PCI_PM_CTRL_W1C    0x8000

/* The link of a PCIe 4.0 x8 part (ice prints the available bandwidth):
 * the speed as PCIe numbers it (1: 2.5 GT/s .. 4: 16 GT/s), the lanes. */
#define E810_PCI_LINK_SPEED     4
#define E810_PCI_LINK_WIDTH     8

/* The Device Serial Number when none is set: an EUI-64 from the MAC,
 * unique per VM as long as the MACs are. */
static inline uint64_t e810_pci_dsn_from_mac(const uint8_t m[6])
{
    return (uint64_t)m[0] << 56 | (uint64_t)m[1] << 48 | (uint64_t)m[2] << 40 |
           0xFFull << 32 | 0xFEull << 24 |
           (uint64_t)m[3] << 16 | (uint64_t)m[4] << 8 | m[5];
}

/* The serial number a function shows: @dsn as set (not 0), else the
 * MAC's. */
static inline uint64_t e810_pci_dsn(uint64_t dsn, const uint8_t mac[6])
{
    return dsn ? dsn : e810_pci_dsn_from_mac(mac);
}

#endif
