/* Binary images handed over as bytes, read without trusting them: ELF64
 * objects (the host backend's shared objects, CUDA's cubins) and CUDA
 * fatbins. Each check says whether every structure a loader finds through
 * the headers lies inside the bytes (NULL), or what does not (a phrase for
 * a message). The bytes may sit at any alignment: fields are copied out. */
#ifndef ACLCUDA_UTIL_IMAGE_H
#define ACLCUDA_UTIL_IMAGE_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t image_u16(const unsigned char *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline uint32_t image_u32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline uint64_t image_u64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Whether [off, off + len) lies inside [0, size), without overflow. */
static inline bool image_within(uint64_t size, uint64_t off, uint64_t len)
{
    return off <= size && len <= size - off;
}

/* An ELF64 object of this machine's byte order whose header, program
 * header table and section header table lie inside its bytes. */
typedef struct elf_image {
    const unsigned char *p;
    size_t size;
    Elf64_Ehdr eh;
} elf_image;

/* Opens the object: the identification, the header, the two tables, every
 * segment's and section's file bytes inside the image, and the sections'
 * own structure (names, string tables ending in NUL, symbol and relocation
 * tables whose links, names and indices stay inside). */
const char *elf_open(elf_image *img, const void *p, size_t size);
void elf_phdr(const elf_image *img, size_t i, Elf64_Phdr *out);
void elf_shdr(const elf_image *img, size_t i, Elf64_Shdr *out);

/* A CUDA fatbin: its header, every entry inside it, each uncompressed cubin
 * a sound ELF object for CUDA and each uncompressed PTX text ending in NUL.
 * A fatbin wrapper (__fatBinC_Wrapper_t) holds a pointer, which bytes from
 * anywhere cannot hold, and is refused. */
enum { FATBIN_MAGIC = 0xBA55ED50u, FATBIN_WRAPPER_MAGIC = 0x466243B1u };
const char *fatbin_check(const void *p, size_t size);

#endif
