/* Binary images read without trusting them (image.h). */
#include "util/image.h"

#ifndef EM_CUDA
#define EM_CUDA 190
#endif

enum {
    FATBIN_HEADER_SIZE = 16,          /* magic, version, header size, entries' size */
    FATBIN_ENTRY_MIN = 16,            /* kind, version, header size, payload size */
    FATBIN_ENTRY_FLAGS_AT = 0x28,     /* the entry's flags (u64), when its header has them */
    FATBIN_ENTRY_COMPRESSED = 0x2000, /* the payload is compressed */
    FATBIN_KIND_PTX = 1,
    FATBIN_KIND_ELF = 2,
};

void elf_phdr(const elf_image *img, size_t i, Elf64_Phdr *out)
{
    memcpy(out, img->p + img->eh.e_phoff + i * sizeof *out, sizeof *out);
}

void elf_shdr(const elf_image *img, size_t i, Elf64_Shdr *out)
{
    memcpy(out, img->p + img->eh.e_shoff + i * sizeof *out, sizeof *out);
}

/* A string table: its bytes inside the image and NUL last. */
static bool string_table(const elf_image *img, const Elf64_Shdr *s)
{
    return s->sh_type == SHT_STRTAB && s->sh_size > 0 &&
           img->p[s->sh_offset + s->sh_size - 1] == '\0';
}

/* The symbols of a symbol table: names inside its string table, section
 * indices inside the object. */
static const char *check_symbols(const elf_image *img, const Elf64_Shdr *s)
{
    if (s->sh_entsize != sizeof(Elf64_Sym) || s->sh_size % sizeof(Elf64_Sym))
        return "an ELF object with a symbol table of an odd entry size";
    Elf64_Shdr strtab;
    elf_shdr(img, s->sh_link, &strtab);
    if (!string_table(img, &strtab))
        return "an ELF object whose symbol table names no string table";
    for (uint64_t off = 0; off < s->sh_size; off += sizeof(Elf64_Sym)) {
        Elf64_Sym sym;
        memcpy(&sym, img->p + s->sh_offset + off, sizeof sym);
        if (sym.st_name >= strtab.sh_size)
            return "an ELF object with a symbol name past its string table";
        if (sym.st_shndx >= img->eh.e_shnum && sym.st_shndx < SHN_LORESERVE)
            return "an ELF object with a symbol in a section it does not have";
        if (sym.st_shndx == SHN_XINDEX)
            return "an ELF object with extended section indices (not supported)";
    }
    return NULL;
}

/* The entries of a relocation table name symbols of its symbol table. */
static const char *check_relocations(const elf_image *img, const Elf64_Shdr *s)
{
    size_t entry = s->sh_type == SHT_RELA ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
    if (s->sh_entsize != entry || s->sh_size % entry)
        return "an ELF object with a relocation table of an odd entry size";
    uint64_t nsyms = 0;
    if (s->sh_link) {
        Elf64_Shdr symtab;
        elf_shdr(img, s->sh_link, &symtab);
        if (symtab.sh_type != SHT_SYMTAB && symtab.sh_type != SHT_DYNSYM)
            return "an ELF object whose relocation table names no symbol table";
        nsyms = symtab.sh_size / sizeof(Elf64_Sym);
    }
    for (uint64_t off = 0; off < s->sh_size; off += entry) {
        uint64_t info = image_u64(img->p + s->sh_offset + off + sizeof(Elf64_Addr));
        if (ELF64_R_SYM(info) && ELF64_R_SYM(info) >= nsyms)
            return "an ELF object with a relocation of a symbol it does not have";
    }
    return NULL;
}

static const char *check_sections(const elf_image *img)
{
    const Elf64_Ehdr *h = &img->eh;
    for (size_t i = 0; i < h->e_shnum; i++) {
        Elf64_Shdr s;
        elf_shdr(img, i, &s);
        if (s.sh_type != SHT_NOBITS && !image_within(img->size, s.sh_offset, s.sh_size))
            return "an ELF object with a section past its end (truncated?)";
        if (s.sh_link >= h->e_shnum)
            return "an ELF object with a section linked to one it does not have";
    }
    /* Every section's bytes are inside: the tables may be read. */
    Elf64_Shdr names = {0};
    if (h->e_shstrndx != SHN_UNDEF) {
        elf_shdr(img, h->e_shstrndx, &names);
        if (!string_table(img, &names))
            return "an ELF object whose section names are no string table";
    }
    for (size_t i = 0; i < h->e_shnum; i++) {
        Elf64_Shdr s;
        elf_shdr(img, i, &s);
        const char *why = NULL;
        if (h->e_shstrndx != SHN_UNDEF && s.sh_name >= names.sh_size)
            why = "an ELF object with a section name past its string table";
        else if (s.sh_type == SHT_STRTAB && s.sh_size && !string_table(img, &s))
            why = "an ELF object with a string table not ending in NUL";
        else if (s.sh_type == SHT_SYMTAB || s.sh_type == SHT_DYNSYM)
            why = check_symbols(img, &s);
        else if (s.sh_type == SHT_REL || s.sh_type == SHT_RELA)
            why = check_relocations(img, &s);
        if (why)
            return why;
    }
    return NULL;
}

const char *elf_open(elf_image *img, const void *data, size_t size)
{
    const unsigned char *p = data;
    img->p = p;
    img->size = size;
    if (size < SELFMAG || memcmp(p, ELFMAG, SELFMAG) != 0)
        return "not an ELF object";
    if (size < sizeof(Elf64_Ehdr))
        return "an ELF object cut short within its header";
    memcpy(&img->eh, p, sizeof img->eh);
    const Elf64_Ehdr *h = &img->eh;
    if (h->e_ident[EI_CLASS] != ELFCLASS64)
        return "an ELF object that is not 64-bit";
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (h->e_ident[EI_DATA] != ELFDATA2LSB)
#else
    if (h->e_ident[EI_DATA] != ELFDATA2MSB)
#endif
        return "an ELF object of the other byte order";
    if (h->e_ident[EI_VERSION] != EV_CURRENT || h->e_version != EV_CURRENT)
        return "an ELF object of an unknown ELF version";
    if (h->e_ehsize < sizeof(Elf64_Ehdr))
        return "an ELF object with a short header";
    if (h->e_phnum && (h->e_phentsize != sizeof(Elf64_Phdr) || h->e_phnum >= PN_XNUM ||
                       !image_within(size, h->e_phoff, (uint64_t)h->e_phnum * sizeof(Elf64_Phdr))))
        return "an ELF object whose program headers do not lie inside it (truncated?)";
    if (!h->e_shnum && h->e_shoff)
        return "an ELF object with more sections than its header counts (not supported)";
    if (h->e_shnum && (h->e_shentsize != sizeof(Elf64_Shdr) || h->e_shnum >= SHN_LORESERVE ||
                       !image_within(size, h->e_shoff, (uint64_t)h->e_shnum * sizeof(Elf64_Shdr))))
        return "an ELF object whose section headers do not lie inside it (truncated?)";
    if (h->e_shstrndx != SHN_UNDEF && h->e_shstrndx >= h->e_shnum)
        return "an ELF object whose section names are in a section it does not have";
    for (size_t i = 0; i < h->e_phnum; i++) {
        Elf64_Phdr ph;
        elf_phdr(img, i, &ph);
        if (ph.p_filesz && !image_within(size, ph.p_offset, ph.p_filesz))
            return "an ELF object with a segment past its end (truncated?)";
    }
    return check_sections(img);
}

/* One fatbin entry, at p (size bytes left in the fatbin). */
static const char *check_entry(const unsigned char *p, uint64_t size, uint64_t *extent)
{
    if (size < FATBIN_ENTRY_MIN)
        return "a CUDA fatbin cut short within an entry";
    uint16_t kind = image_u16(p);
    uint32_t header = image_u32(p + 4);
    uint64_t payload = image_u64(p + 8);
    if (header < FATBIN_ENTRY_MIN || !image_within(size, header, payload))
        return "a CUDA fatbin with an entry past its end (truncated?)";
    *extent = header + payload;
    uint64_t flags = 0;
    if (header >= FATBIN_ENTRY_FLAGS_AT + sizeof flags)
        flags = image_u64(p + FATBIN_ENTRY_FLAGS_AT);
    if (flags & FATBIN_ENTRY_COMPRESSED)
        return NULL; /* the driver checks what it decompresses */
    const unsigned char *body = p + header;
    if (kind == FATBIN_KIND_ELF) {
        elf_image img;
        const char *why = elf_open(&img, body, payload);
        if (why)
            return why;
        if (img.eh.e_machine != EM_CUDA)
            return "a CUDA fatbin holding an ELF object for another processor";
    } else if (kind == FATBIN_KIND_PTX) {
        if (!payload || !memchr(body, '\0', payload))
            return "a CUDA fatbin holding PTX text without its terminating NUL";
    }
    return NULL;
}

const char *fatbin_check(const void *data, size_t size)
{
    const unsigned char *p = data;
    if (size < 4)
        return "not a CUDA fatbin";
    uint32_t magic = image_u32(p);
    if (magic == FATBIN_WRAPPER_MAGIC)
        return "a fatbin wrapper (__fatBinC_Wrapper_t), which holds a pointer to the fatbin: "
               "pass the fatbin itself";
    if (magic != FATBIN_MAGIC)
        return "not a CUDA fatbin";
    if (size < FATBIN_HEADER_SIZE)
        return "a CUDA fatbin cut short within its header";
    uint16_t header = image_u16(p + 6);
    uint64_t entries = image_u64(p + 8);
    if (header < FATBIN_HEADER_SIZE || !image_within(size, header, entries))
        return "a CUDA fatbin whose entries do not lie inside it (truncated?)";
    if (!entries)
        return "an empty CUDA fatbin";
    for (uint64_t at = 0; at < entries;) {
        uint64_t extent = 0;
        const char *why = check_entry(p + header + at, entries - at, &extent);
        if (why)
            return why;
        at += extent;
    }
    return NULL;
}
