/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-vfio-user: the E810 device core behind a vfio-user socket.
 *
 * VfuServer is the device as the client (QEMU's vfio-user-pci) sees it:
 * PCI config space, BAR0 (the core's registers), BAR3 (MSI-X table and
 * PBA), the client's DMA regions and the interrupt eventfds, plus the
 * core's host interface (timers and bottom halves the event loop runs).
 * One message is handled at a time (vfu_handle_msg); the loop, the link
 * and the command line are vfu-main.c's, so tests drive this in-process.
 */
#ifndef E810_VFU_SERVER_H
#define E810_VFU_SERVER_H

#include "e810.h"
#include "vfu-proto.h"
#include "vfu-keeper.h"
#include "pci.h"

#define VFU_MAX_FDS         8           /* fds per message, announced */
#define VFU_MAX_XFER        (1u << 20)  /* max_data_xfer_size, announced */
#define VFU_MAX_MSG         (VFU_MAX_XFER + 64)
#define VFU_MAX_DMA         128         /* max_dma_maps, announced */
#define VFU_REGION_RW_MAX   (64u << 10) /* bytes per region access */
#define VFU_DEFERRED_MAX    16          /* requests held during a DMA wait */
#define VFU_DMA_WAIT_MSGS   64          /* messages read waiting for one */
#define VFU_TIMERS_MAX      1024
#define VFU_BHS_MAX         64

#define VFU_CONFIG_SIZE     4096

typedef struct VfuDmaRegion {
    uint64_t iova;
    uint64_t size;
    uint8_t *host;          /* [iova, iova + size), NULL: via messages */
    void *map;              /* the page-aligned mapping behind @host */
    size_t map_len;
    uint32_t prot;          /* VFU_DMA_READ | VFU_DMA_WRITE */
} VfuDmaRegion;

/* What was refused or lost; each also has a trace line. */
typedef struct VfuStats {
    uint64_t bad_msgs;      /* requests answered with an error */
    uint64_t posted_errors; /* of those, NO_REPLY ones (no reply sent) */
    uint64_t stray_replies; /* replies to nothing we asked */
    uint64_t dma_miss;      /* device DMA outside the mapped regions */
    uint64_t dma_blocked;   /* device DMA with bus mastering off */
    uint64_t dma_msg_errors;/* DMA_READ/WRITE the client failed or timed out */
    uint64_t irq_no_fd;     /* MSI-X message with no eventfd set */
    uint64_t irq_disabled;  /* MSI-X message with MSI-X off */
    uint64_t irq_bad;       /* vector out of range */
    uint64_t deferred_drops;/* requests refused during a DMA wait */
    uint64_t send_errors;   /* replies that could not be sent */
    uint64_t bar3_ignored;  /* BAR3 accesses outside the table and PBA */
    uint64_t tx_no_link;    /* frames sent with no link attached */
} VfuStats;

/* What a timer or a bottom half of the core runs. */
typedef struct VfuWork {
    E810TimerCb *cb;
    void *opaque;
} VfuWork;

struct E810Timer {
    VfuWork work;           /* first */
    int64_t expire;
    bool armed;
};

struct E810Bh {
    VfuWork work;           /* first */
    bool scheduled;
};

/* A request that arrived while the server waited for a DMA reply. */
typedef struct VfuDeferred {
    uint8_t *buf;
    size_t len;
    int fds[VFU_MAX_FDS];
    unsigned nfds;
} VfuDeferred;

/* The wire, as the link (vfu-main.c) provides it. */
typedef E810TxResult VfuSendFrame(void *opaque, const void *frame,
                                  size_t len, bool flow);

typedef struct VfuConfig {
    uint8_t mac[6];
    uint64_t dsn;           /* 0: EUI-64 of the MAC */
    uint64_t mem_limit;
} VfuConfig;

typedef struct VfuServer {
    int sock;               /* the client, -1 when none */
    bool negotiated;        /* VERSION done */
    bool broken;            /* the connection cannot go on */
    uint64_t peer_max_xfer; /* the client's max_data_xfer_size */
    uint16_t next_id;       /* of our own requests */
    int dma_wait_ms;        /* for the client's DMA replies */

    uint8_t *msg;           /* the request being handled */
    uint8_t *aux;           /* messages read while waiting for DMA */
    uint8_t *reply;
    VfuDeferred deferred[VFU_DEFERRED_MAX];
    unsigned ndeferred;

    VfuDmaRegion dma[VFU_MAX_DMA];
    unsigned ndma;

    uint8_t config[VFU_CONFIG_SIZE];
    uint8_t cfg_wmask[VFU_CONFIG_SIZE];
    uint8_t cfg_w1cmask[VFU_CONFIG_SIZE];

    uint8_t msix_table[E810_MSIX_VECTORS * 16];
    uint64_t msix_pba;
    uint64_t msix_irq_masked;   /* by SET_IRQS ACTION_MASK */
    bool msix_table_used;       /* the client accesses our table */
    int msix_fd[E810_MSIX_VECTORS];
    int intx_fd;
    int intx_unmask_fd;

    /*
     * The core's timers and bottom halves, each set also seen as their
     * VfuWork (the same pointers: it comes first in both).
     */
    union {
        E810Timer *timers[VFU_TIMERS_MAX];
        VfuWork *timer_work[VFU_TIMERS_MAX];
    };
    unsigned ntimers;
    union {
        E810Bh *bhs[VFU_BHS_MAX];
        VfuWork *bh_work[VFU_BHS_MAX];
    };
    unsigned nbhs;

    VfuSendFrame *send_frame;
    void *link_opaque;
    bool link_up;

    VfuConfig cfg;
    VfuStats stats;
    VfuKeep *keep;          /* shared with the keeper process, or NULL */
    E810Core core;
} VfuServer;

void vfu_server_init(VfuServer *s, const VfuConfig *cfg);
void vfu_server_cleanup(VfuServer *s);
/*
 * Back to a fresh server's state on the same socket (as after init and
 * attach): DMA maps, interrupts, held requests, config space, MSI-X and
 * the core (a power-on reset) and the link; the buffers, timers and
 * bottom halves are kept.  For the fuzz target, which would otherwise
 * allocate the whole device per input.
 */
void vfu_server_restart(VfuServer *s);
/* Take @fd as the client's connection (a connected stream socket). */
void vfu_server_attach(VfuServer *s, int fd);
/*
 * Read one message from the client and handle it: 1 handled (replied or
 * refused), 0 the client is gone, -1 the stream cannot be trusted on.
 */
int vfu_server_recv(VfuServer *s);
/*
 * Handle one whole message of @len bytes; the @nfds fds that came with
 * it are the handler's (kept or closed).
 */
void vfu_handle_msg(VfuServer *s, uint8_t *buf, size_t len, int *fds,
                    unsigned nfds);
/* Requests that arrived during a DMA wait. */
void vfu_run_deferred(VfuServer *s);

/* The core's deferred work, for the event loop. */
int64_t vfu_clock_ns(void);
int64_t vfu_timers_next(VfuServer *s);      /* -1: none armed */
void vfu_timers_run(VfuServer *s, int64_t now);
bool vfu_bhs_run(VfuServer *s);             /* true if any ran */

void vfu_set_link(VfuServer *s, bool up);
void vfu_log(const char *kind, const char *msg);

#endif
