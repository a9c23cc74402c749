/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 device core: the PCI function both front ends present, the QEMU
 * glue through QEMU's PCI code (qemu/e810-pci.c) and e810-vfio-user by
 * hand (vfio-user/vfu-server.c): its identity, the MSI-X BAR, where the
 * capabilities sit in config space, and its serial number.
 */
#ifndef E810_PCI_H
#define E810_PCI_H

#include "types.h"

#define E810_PCI_VENDOR_ID      0x8086      /* Intel */
#define E810_PCI_DEVICE_ID      0x159B      /* E810-XXV SFP */
#define E810_PCI_SUBSYS_ID      0x0003      /* not an E810-T (those pull in GNSS) */
#define E810_PCI_REVISION       0x02
#define E810_PCI_CLASS          0x020000    /* Ethernet controller */

/* BAR0 is the register file (E810_BAR0_SIZE); BAR3 the MSI-X table and
 * its pending-bit array. */
#define E810_PCI_MSIX_BAR       3
#define E810_PCI_MSIX_BAR_SIZE  (64u << 10)
#define E810_PCI_MSIX_TABLE_OFF 0x0000
#define E810_PCI_MSIX_PBA_OFF   0x8000

/* Config space: the standard capabilities, then the extended one. */
#define E810_PCI_CAP_PM         0x40
#define E810_PCI_CAP_MSIX       0x70
#define E810_PCI_CAP_PCIE       0xA0
#define E810_PCI_EXTCAP_DSN     0x100

/* The Device Serial Number when none is set: an EUI-64 from the MAC,
 * unique per VM as long as the MACs are. */
static inline uint64_t e810_pci_dsn_from_mac(const uint8_t m[6])
{
    return (uint64_t)m[0] << 56 | (uint64_t)m[1] << 48 | (uint64_t)m[2] << 40 |
           0xFFull << 32 | 0xFEull << 24 |
           (uint64_t)m[3] << 16 | (uint64_t)m[4] << 8 | m[5];
}

#endif
