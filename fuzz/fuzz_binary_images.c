/* libFuzzer target: the checks that stand between a binary handed to
 * aclrtBinaryLoadFromData and the loader that would trust it: the host
 * backend's shared-object check (backend/host/elf_check.c), and the ELF and
 * fatbin bounds the cuda backend checks before the driver reads an image
 * (util/image.c). Each must return without reading outside the bytes
 * (ASan, UBSan), whatever they are; an image one check accepts is checked
 * again at every alignment, which must give the same answer.
 *
 * The images are not loaded: a damaged image can pass every structural
 * check and still crash in its own constructors (elf_check.c says which
 * damage), which would be a finding about the image, not the checks.
 * tests/check/test_kernel.c loads damaged images for real. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/host/host.h"
#include "util/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_binary_images: %s\n", what);
    abort();
}

/* Runs every check on the size bytes at p, in a buffer of exactly that
 * size (ASan sees a read past it); returns which accepted them. */
static unsigned check_all(const uint8_t *bytes, size_t size, size_t misalign)
{
    uint8_t *buffer = malloc(size + misalign);
    if (!buffer)
        fail("out of memory");
    uint8_t *p = buffer + misalign;
    memcpy(p, bytes, size);
    elf_image img;
    unsigned accepted = 0;
    accepted |= host_elf_check(p, size) == NULL ? 1u : 0u;
    accepted |= elf_open(&img, p, size) == NULL ? 2u : 0u;
    accepted |= fatbin_check(p, size) == NULL ? 4u : 0u;
    free(buffer);
    return accepted;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned first = check_all(data, size, 0);
    if (first)
        for (size_t misalign = 1; misalign < 8; misalign++)
            if (check_all(data, size, misalign) != first)
                fail("a check depends on where the bytes are");
    return 0;
}
