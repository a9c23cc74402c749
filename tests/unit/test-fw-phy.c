/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Core unit tests: firmware commands (to be filled). */
#include "aq-util.h"
#include "check.h"

int main(void)
{
    return CHECK_DONE();
}
