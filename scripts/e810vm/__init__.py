# SPDX-License-Identifier: GPL-2.0-or-later
"""The test-guest launcher behind scripts/vm (and scripts/ci): one module
per concern, the command line in cli.py."""
