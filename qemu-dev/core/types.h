/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Types shared by every block of the E810 core. */
#ifndef E810_TYPES_H
#define E810_TYPES_H

#include "host.h"

typedef struct E810Core E810Core;
typedef struct E810CoreTimer E810CoreTimer;

typedef enum E810ResetType {
    E810_RESET_POWER_ON,    /* device created or PCI function reset */
    E810_RESET_PF,          /* PFGEN_CTRL.PFSWR: keeps the loaded DDP package */
    /* Adapter resets (GLGEN_RTRIG, or a fault): every function of the
     * card, after a warning (PFINT_OICR.GRST); the package is dropped. */
    E810_RESET_CORE,        /* CORER */
    E810_RESET_GLOBAL,      /* GLOBR: the same for the device model */
} E810ResetType;

#endif
