# SPDX-License-Identifier: Apache-2.0
# The release image and the cri tier; included from the top-level Makefile.
