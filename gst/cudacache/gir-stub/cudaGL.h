/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Stands in for <cudaGL.h> for g-ir-scanner only: see cuda.h here. */
