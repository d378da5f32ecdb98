/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Stands in for <cudaGL.h> for g-ir-scanner only: see cuda.h here. */
