/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The vfio-user protocol as e810-vfio-user speaks it: message layouts and
 * numbers from QEMU's docs/interop/vfio-user.rst (version 0.0).  All
 * fields are little-endian; the server only runs on little-endian hosts
 * (checked at build time in vfu-proto.c).
 */
#ifndef E810_VFU_PROTO_H
#define E810_VFU_PROTO_H

/* Commands */
enum {
    VFU_CMD_VERSION = 1,
    VFU_CMD_DMA_MAP = 2,
    VFU_CMD_DMA_UNMAP = 3,
    VFU_CMD_DEVICE_GET_INFO = 4,
    VFU_CMD_DEVICE_GET_REGION_INFO = 5,
    VFU_CMD_DEVICE_GET_REGION_IO_FDS = 6,
    VFU_CMD_DEVICE_GET_IRQ_INFO = 7,
    VFU_CMD_DEVICE_SET_IRQS = 8,
    VFU_CMD_REGION_READ = 9,
    VFU_CMD_REGION_WRITE = 10,
    VFU_CMD_DMA_READ = 11,
    VFU_CMD_DMA_WRITE = 12,
    VFU_CMD_DEVICE_RESET = 13,
    VFU_CMD_DIRTY_PAGES = 14,
    VFU_CMD_REGION_WRITE_MULTI = 15,
};

/* Header flags */
#define VFU_FLAG_TYPE_MASK      0xF
#define VFU_FLAG_REQUEST        0x0
#define VFU_FLAG_REPLY          0x1
#define VFU_FLAG_NO_REPLY       0x10
#define VFU_FLAG_ERROR          0x20

typedef struct VfuHdr {
    uint16_t id;
    uint16_t command;
    uint32_t size;          /* whole message, header included */
    uint32_t flags;
    uint32_t error;         /* errno, in replies with VFU_FLAG_ERROR */
} VfuHdr;

#define VFU_HDR_SIZE        ((uint32_t)sizeof(VfuHdr))

typedef struct VfuVersion {
    uint16_t major;
    uint16_t minor;
    /* then a NUL-terminated JSON object, optional */
} VfuVersion;

/* DMA_MAP / DMA_UNMAP (struct vfio_iommu_type1_dma_map / _unmap) */
#define VFU_DMA_READ            (1u << 0)
#define VFU_DMA_WRITE           (1u << 1)
#define VFU_DMA_UNMAP_DIRTY     (1u << 0)
#define VFU_DMA_UNMAP_ALL       (1u << 1)

typedef struct VfuDmaMap {
    uint32_t argsz;
    uint32_t flags;
    uint64_t offset;        /* into the file passed along */
    uint64_t iova;
    uint64_t size;
} VfuDmaMap;

typedef struct VfuDmaUnmap {
    uint32_t argsz;
    uint32_t flags;
    uint64_t iova;
    uint64_t size;
} VfuDmaUnmap;

/* DEVICE_GET_INFO (struct vfio_device_info) */
#define VFU_DEVICE_FLAGS_RESET  (1u << 0)
#define VFU_DEVICE_FLAGS_PCI    (1u << 1)

typedef struct VfuDeviceInfo {
    uint32_t argsz;
    uint32_t flags;
    uint32_t num_regions;
    uint32_t num_irqs;
} VfuDeviceInfo;

/* DEVICE_GET_REGION_INFO (struct vfio_region_info) */
#define VFU_REGION_FLAG_READ    (1u << 0)
#define VFU_REGION_FLAG_WRITE   (1u << 1)

/* Region indices of a PCI device (VFIO_PCI_*_REGION_INDEX) */
enum {
    VFU_PCI_BAR0_REGION = 0,
    VFU_PCI_BAR3_REGION = 3,
    VFU_PCI_ROM_REGION = 6,
    VFU_PCI_CONFIG_REGION = 7,
    VFU_PCI_VGA_REGION = 8,
    VFU_PCI_NUM_REGIONS = 9,
};

typedef struct VfuRegionInfo {
    uint32_t argsz;
    uint32_t flags;
    uint32_t index;
    uint32_t cap_offset;
    uint64_t size;
    uint64_t offset;
} VfuRegionInfo;

/* DEVICE_GET_IRQ_INFO / SET_IRQS (struct vfio_irq_info / vfio_irq_set) */
enum {
    VFU_PCI_INTX_IRQ = 0,
    VFU_PCI_MSI_IRQ = 1,
    VFU_PCI_MSIX_IRQ = 2,
    VFU_PCI_NUM_IRQS = 3,   /* no ERR or REQ interrupts */
};

#define VFU_IRQ_INFO_EVENTFD    (1u << 0)
#define VFU_IRQ_INFO_MASKABLE   (1u << 1)
#define VFU_IRQ_INFO_AUTOMASKED (1u << 2)
#define VFU_IRQ_INFO_NORESIZE   (1u << 3)

typedef struct VfuIrqInfo {
    uint32_t argsz;
    uint32_t flags;
    uint32_t index;
    uint32_t count;
} VfuIrqInfo;

#define VFU_IRQ_SET_DATA_NONE       (1u << 0)
#define VFU_IRQ_SET_DATA_BOOL       (1u << 1)
#define VFU_IRQ_SET_DATA_EVENTFD    (1u << 2)
#define VFU_IRQ_SET_DATA_MASK       0x7u
#define VFU_IRQ_SET_ACTION_MASK     (1u << 3)
#define VFU_IRQ_SET_ACTION_UNMASK   (1u << 4)
#define VFU_IRQ_SET_ACTION_TRIGGER  (1u << 5)
#define VFU_IRQ_SET_ACTION_MASKS    0x38u

typedef struct VfuIrqSet {
    uint32_t argsz;
    uint32_t flags;
    uint32_t index;
    uint32_t start;
    uint32_t count;
    /* DATA_BOOL: then @count bytes */
} VfuIrqSet;

/* REGION_READ / REGION_WRITE */
typedef struct VfuRegionRw {
    uint64_t offset;
    uint32_t region;
    uint32_t count;
    /* then the data (write request, read reply) */
} VfuRegionRw;

/*
 * DMA_READ / DMA_WRITE (server to client).  The spec has an 8-byte count
 * and the data at 16; QEMU 10.2's client (the peer this server is for)
 * uses a 4-byte count, puts and takes the data at 12, and counts the
 * fixed part as 16 bytes (its struct's padded size) in every size check.
 */
typedef struct VfuDmaRw {
    uint64_t offset;        /* the IOVA */
    uint32_t count;
} VfuDmaRw;
#define VFU_DMA_RW_DATA         12  /* payload offset of the data */
#define VFU_DMA_RW_FIXED        16  /* fixed part, as the client sizes it */

/* REGION_WRITE_MULTI: a count, then that many fixed-size writes */
#define VFU_MULTI_DATA          8
#define VFU_MULTI_MAX           200

typedef struct VfuWriteOne {
    uint64_t offset;
    uint32_t region;
    uint32_t count;
    uint8_t data[VFU_MULTI_DATA];
} VfuWriteOne;

#endif
