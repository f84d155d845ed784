/* What the dynamic loader reads of a shared object, checked before it
 * reads it (host.h, host_elf_check). glibc trusts an object's structure:
 * a truncated or bit-flipped one makes it map pages past the file's end
 * (SIGBUS), follow offsets and indices out of its tables, divide by a zero
 * bucket count, assert on a bad entry size, write relocations anywhere, or
 * call an address it read (constructors, IFUNC resolvers). So everything
 * it follows is checked here: the segments inside the file, the dynamic
 * section and every table it names (strings, symbols, both hash tables,
 * versions, relocations) inside the loaded segments, each relocation
 * writing into a writable segment but into none of those tables, and each
 * code address it calls (DT_INIT, DT_FINI and their arrays) inside an
 * executable segment. What it cannot check is the code itself: a damaged
 * function still crashes when it runs, as a damaged kernel faults on a GPU.
 * Relocations are known for x86-64 and AArch64. */
#include <elf.h>
#include <stdlib.h>

#include "backend/host/host.h"
#include "util/image.h"

enum {
    MAX_LOADS = 16,
    MAX_PROTECTED = 16, /* the tables the loader reads */
    MAX_NEEDED = 64,
    MAX_SYMBOLS = 1 << 22,
    MAX_CHAIN_STEPS = 1 << 22,
    MAX_VERSION_ENTRIES = 4096,
    MAX_SPAN = 1u << 30, /* bytes from the first segment's start to the last one's end */
    MAX_TLS = 64u << 20,
    MAX_INIT_SLOTS = 4096,
    PAGE = 4096, /* the smallest page: segments are congruent modulo it */
};

#if defined(__x86_64__)
#define HOST_ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_ELF_MACHINE EM_AARCH64
#else
#define HOST_ELF_MACHINE EM_NONE
#endif

#ifndef DT_RELRSZ
#define DT_RELRSZ 35
#define DT_RELR 36
#define DT_RELRENT 37
#endif
#ifndef PT_GNU_PROPERTY
#define PT_GNU_PROPERTY 0x6474e553
#endif
#ifndef NT_GNU_PROPERTY_TYPE_0
#define NT_GNU_PROPERTY_TYPE_0 5
#endif

/* The dynamic tags checked, each at most once (DT_NEEDED aside). */
typedef enum tag_index {
    T_STRTAB,
    T_STRSZ,
    T_SYMTAB,
    T_SYMENT,
    T_HASH,
    T_GNU_HASH,
    T_RELA,
    T_RELASZ,
    T_RELAENT,
    T_RELACOUNT,
    T_JMPREL,
    T_PLTRELSZ,
    T_PLTREL,
    T_PLTGOT,
    T_RELR,
    T_RELRSZ,
    T_RELRENT,
    T_INIT,
    T_FINI,
    T_INIT_ARRAY,
    T_INIT_ARRAYSZ,
    T_FINI_ARRAY,
    T_FINI_ARRAYSZ,
    T_VERSYM,
    T_VERNEED,
    T_VERNEEDNUM,
    T_VERDEF,
    T_VERDEFNUM,
    T_FLAGS,
    T_FLAGS_1,
    T_SONAME,
    T_RPATH,
    T_RUNPATH,
    T_SYMBOLIC,
    T_BIND_NOW,
    T_COUNT
} tag_index;

typedef struct range {
    uint64_t start, len;
} range;

/* Relocation kinds, whatever the machine's numbers. */
typedef enum reloc_kind {
    R_NONE,
    R_RELATIVE,
    R_SYMBOLIC, /* a symbol's address (absolute, GOT or PLT slot) */
    R_TLS,      /* a TLS module, offset or static offset */
    R_TLSDESC,  /* a 16-byte TLS descriptor */
    R_REFUSED,
} reloc_kind;

typedef struct dyn_object {
    elf_image img;
    Elf64_Phdr loads[MAX_LOADS];
    size_t nloads;
    Elf64_Phdr tls;
    bool has_tls;
    uint64_t tag[T_COUNT];
    bool has[T_COUNT];
    uint64_t needed[MAX_NEEDED];
    size_t nneeded;
    uint64_t nsyms;
    unsigned version_high; /* the highest version index defined or needed */
    range protected[MAX_PROTECTED];
    size_t nprotected;
    uint64_t *init_values; /* the final values of the init and fini arrays' slots */
    unsigned char *init_set;
    size_t ninit, nfini;
} dyn_object;

/* ---- addresses -------------------------------------------------------------------------- */

/* The file offset of [vaddr, vaddr + len) when a readable segment's file
 * bytes hold all of it: what the loader reads there is what is checked. */
static bool file_of(const dyn_object *d, uint64_t vaddr, uint64_t len, uint64_t *off)
{
    for (size_t i = 0; i < d->nloads; i++) {
        const Elf64_Phdr *l = &d->loads[i];
        if ((l->p_flags & PF_R) && vaddr >= l->p_vaddr &&
            image_within(l->p_filesz, vaddr - l->p_vaddr, len)) {
            *off = l->p_offset + (vaddr - l->p_vaddr);
            return true;
        }
    }
    return false;
}

/* The loaded segment whose memory holds [vaddr, vaddr + len), or NULL. */
static const Elf64_Phdr *segment_of(const dyn_object *d, uint64_t vaddr, uint64_t len)
{
    for (size_t i = 0; i < d->nloads; i++) {
        const Elf64_Phdr *l = &d->loads[i];
        if (vaddr >= l->p_vaddr && image_within(l->p_memsz, vaddr - l->p_vaddr, len))
            return l;
    }
    return NULL;
}

/* Whether code at vaddr lies in an executable segment's file bytes. */
static bool code_at(const dyn_object *d, uint64_t vaddr, uint64_t len)
{
    for (size_t i = 0; i < d->nloads; i++) {
        const Elf64_Phdr *l = &d->loads[i];
        if ((l->p_flags & PF_X) && vaddr >= l->p_vaddr &&
            image_within(l->p_filesz, vaddr - l->p_vaddr, len ? len : 1))
            return true;
    }
    return false;
}

static const unsigned char *bytes_at(const dyn_object *d, uint64_t off)
{
    return d->img.p + off;
}

/* A table the loader reads, [vaddr, vaddr + len), in file bytes it maps;
 * relocations must not write into it. */
static bool table(dyn_object *d, uint64_t vaddr, uint64_t len, uint64_t *off)
{
    if (!file_of(d, vaddr, len, off) || d->nprotected == MAX_PROTECTED)
        return false;
    d->protected[d->nprotected++] = (range){vaddr, len};
    return true;
}

static bool string_ok(const dyn_object *d, uint64_t offset)
{
    return offset < d->tag[T_STRSZ];
}

static const char *string_at(const dyn_object *d, uint64_t offset)
{
    uint64_t off = 0;
    (void)file_of(d, d->tag[T_STRTAB], d->tag[T_STRSZ], &off);
    return (const char *)bytes_at(d, off + offset);
}

/* ---- segments --------------------------------------------------------------------------- */

/* Notes as glibc walks them (GNU property notes: their properties too). */
static const char *check_notes(const dyn_object *d, const Elf64_Phdr *ph)
{
    uint64_t off;
    if (!file_of(d, ph->p_vaddr, ph->p_memsz, &off) || ph->p_filesz != ph->p_memsz)
        return "a shared object with notes outside its loaded file bytes";
    uint64_t align = ph->p_align == 8 ? 8 : 4, size = ph->p_memsz;
    const unsigned char *p = bytes_at(d, off);
    for (uint64_t at = 0; size - at >= sizeof(Elf64_Nhdr);) {
        Elf64_Nhdr n;
        memcpy(&n, p + at, sizeof n);
        uint64_t name = (n.n_namesz + align - 1) / align * align;
        uint64_t desc = (n.n_descsz + align - 1) / align * align;
        uint64_t body = at + sizeof n;
        if (!image_within(size, body, name) || !image_within(size, body + name, desc))
            return "a shared object with a note past its segment";
        if (n.n_type == NT_GNU_PROPERTY_TYPE_0 && n.n_namesz == 4 &&
            memcmp(p + body, "GNU", 4) == 0) {
            const unsigned char *q = p + body + name;
            for (uint64_t pr = 0; n.n_descsz - pr >= 8 && pr < n.n_descsz;) {
                uint64_t datasz = image_u32(q + pr + 4);
                if (!image_within(n.n_descsz, pr + 8, datasz))
                    return "a shared object with a GNU property past its note";
                pr += 8 + (datasz + 7) / 8 * 8;
            }
        }
        at = body + name + desc;
    }
    return NULL;
}

static const char *check_segments(dyn_object *d, Elf64_Phdr *dynamic)
{
    const Elf64_Ehdr *h = &d->img.eh;
    bool has_dynamic = false;
    for (size_t i = 0; i < h->e_phnum; i++) {
        Elf64_Phdr ph;
        elf_phdr(&d->img, i, &ph);
        switch (ph.p_type) {
        case PT_LOAD:
            if (d->nloads == MAX_LOADS)
                return "a shared object with too many loadable segments";
            if (!ph.p_memsz || ph.p_filesz > ph.p_memsz)
                return "a shared object with a loadable segment of bad sizes";
            if ((ph.p_align & (ph.p_align - 1)) || (ph.p_vaddr - ph.p_offset) % PAGE)
                return "a shared object with a misaligned loadable segment";
            /* Code has no zero-filled tail: one would run zeros. */
            if ((ph.p_flags & PF_X) && ph.p_filesz != ph.p_memsz)
                return "a shared object with an executable segment larger than its file bytes";
            for (size_t j = 0; j < d->nloads; j++)
                if (ph.p_filesz && d->loads[j].p_filesz &&
                    ph.p_offset < d->loads[j].p_offset + d->loads[j].p_filesz &&
                    d->loads[j].p_offset < ph.p_offset + ph.p_filesz)
                    return "a shared object whose loadable segments share file bytes";
            if (d->nloads &&
                ph.p_vaddr < d->loads[d->nloads - 1].p_vaddr + d->loads[d->nloads - 1].p_memsz)
                return "a shared object whose loadable segments overlap or are out of order";
            if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
                return "a shared object with a loadable segment past the address space";
            d->loads[d->nloads++] = ph;
            break;
        case PT_DYNAMIC:
            if (has_dynamic)
                return "a shared object with two dynamic sections";
            has_dynamic = true;
            *dynamic = ph;
            break;
        case PT_TLS:
            if (d->has_tls)
                return "a shared object with two TLS segments";
            d->has_tls = true;
            d->tls = ph;
            break;
        case PT_INTERP:
            return "an executable (it names an interpreter), not a shared object";
        case PT_SHLIB:
            return "a shared object with a PT_SHLIB segment";
        case PT_GNU_STACK:
            if (ph.p_flags & PF_X)
                return "a shared object that asks for an executable stack";
            break;
        case PT_NULL:
        case PT_NOTE:
        case PT_PHDR:
        case PT_GNU_EH_FRAME:
        case PT_GNU_RELRO:
        case PT_GNU_PROPERTY:
            break; /* checked once the loadable segments are known */
        default:
            if (ph.p_type < PT_LOOS)
                return "a shared object with a segment of an unknown type";
            break; /* OS- and processor-specific: the loader ignores them */
        }
    }
    if (!d->nloads)
        return "a shared object without loadable segments";
    if (!has_dynamic)
        return "a shared object without a dynamic section";
    const Elf64_Phdr *last = &d->loads[d->nloads - 1];
    if (last->p_vaddr + last->p_memsz - (d->loads[0].p_vaddr & ~(uint64_t)(PAGE - 1)) > MAX_SPAN)
        return "a shared object spanning more than 1 GiB";
    for (size_t i = 0; i < h->e_phnum; i++) {
        Elf64_Phdr ph;
        elf_phdr(&d->img, i, &ph);
        uint64_t off;
        const Elf64_Phdr *seg;
        const char *why = NULL;
        switch (ph.p_type) {
        case PT_NOTE:
        case PT_GNU_PROPERTY:
            why = check_notes(d, &ph);
            break;
        case PT_PHDR:
            if (ph.p_offset != h->e_phoff ||
                ph.p_filesz != (uint64_t)h->e_phnum * sizeof(Elf64_Phdr) ||
                !file_of(d, ph.p_vaddr, ph.p_filesz, &off) || off != h->e_phoff)
                why = "a shared object whose PT_PHDR does not map its program headers";
            break;
        case PT_GNU_EH_FRAME:
            if (!file_of(d, ph.p_vaddr, ph.p_memsz, &off))
                why = "a shared object with unwind data outside its loaded file bytes";
            break;
        case PT_GNU_RELRO:
            seg = segment_of(d, ph.p_vaddr, ph.p_memsz);
            if (!seg || !(seg->p_flags & PF_W))
                why = "a shared object with a read-only-after-relocation range outside its "
                      "writable segments";
            break;
        case PT_TLS:
            if (ph.p_filesz > ph.p_memsz || ph.p_memsz > MAX_TLS ||
                (ph.p_align & (ph.p_align - 1)) ||
                (ph.p_filesz && !file_of(d, ph.p_vaddr, ph.p_filesz, &off)))
                why = "a shared object with a bad TLS segment";
            break;
        case PT_DYNAMIC:
            seg = segment_of(d, ph.p_vaddr, ph.p_filesz);
            if (!seg || ((ph.p_flags & PF_W) && !(seg->p_flags & PF_W)))
                why = "a shared object whose dynamic section is not in a segment that allows "
                      "what its flags say";
            break;
        default:
            break;
        }
        if (why)
            return why;
    }
    return NULL;
}

/* ---- the dynamic section ---------------------------------------------------------------- */

static int tag_slot(int64_t tag)
{
    switch (tag) {
    case DT_STRTAB:
        return T_STRTAB;
    case DT_STRSZ:
        return T_STRSZ;
    case DT_SYMTAB:
        return T_SYMTAB;
    case DT_SYMENT:
        return T_SYMENT;
    case DT_HASH:
        return T_HASH;
    case DT_GNU_HASH:
        return T_GNU_HASH;
    case DT_RELA:
        return T_RELA;
    case DT_RELASZ:
        return T_RELASZ;
    case DT_RELAENT:
        return T_RELAENT;
    case DT_RELACOUNT:
        return T_RELACOUNT;
    case DT_JMPREL:
        return T_JMPREL;
    case DT_PLTRELSZ:
        return T_PLTRELSZ;
    case DT_PLTREL:
        return T_PLTREL;
    case DT_PLTGOT:
        return T_PLTGOT;
    case DT_RELR:
        return T_RELR;
    case DT_RELRSZ:
        return T_RELRSZ;
    case DT_RELRENT:
        return T_RELRENT;
    case DT_INIT:
        return T_INIT;
    case DT_FINI:
        return T_FINI;
    case DT_INIT_ARRAY:
        return T_INIT_ARRAY;
    case DT_INIT_ARRAYSZ:
        return T_INIT_ARRAYSZ;
    case DT_FINI_ARRAY:
        return T_FINI_ARRAY;
    case DT_FINI_ARRAYSZ:
        return T_FINI_ARRAYSZ;
    case DT_VERSYM:
        return T_VERSYM;
    case DT_VERNEED:
        return T_VERNEED;
    case DT_VERNEEDNUM:
        return T_VERNEEDNUM;
    case DT_VERDEF:
        return T_VERDEF;
    case DT_VERDEFNUM:
        return T_VERDEFNUM;
    case DT_FLAGS:
        return T_FLAGS;
    case DT_FLAGS_1:
        return T_FLAGS_1;
    case DT_SONAME:
        return T_SONAME;
    case DT_RPATH:
        return T_RPATH;
    case DT_RUNPATH:
        return T_RUNPATH;
    case DT_SYMBOLIC:
        return T_SYMBOLIC;
    case DT_BIND_NOW:
        return T_BIND_NOW;
    default:
        return -1;
    }
}

static const char *read_dynamic(dyn_object *d, const Elf64_Phdr *dynamic)
{
    uint64_t off;
    if (dynamic->p_filesz < sizeof(Elf64_Dyn) ||
        !file_of(d, dynamic->p_vaddr, dynamic->p_filesz, &off))
        return "a shared object whose dynamic section is not in its loaded file bytes";
    d->protected[d->nprotected++] = (range){dynamic->p_vaddr, dynamic->p_filesz};
    for (uint64_t at = 0;; at += sizeof(Elf64_Dyn)) {
        if (!image_within(dynamic->p_filesz, at, sizeof(Elf64_Dyn)))
            return "a shared object whose dynamic section has no end (DT_NULL)";
        Elf64_Dyn dyn;
        memcpy(&dyn, bytes_at(d, off + at), sizeof dyn);
        if (dyn.d_tag == DT_NULL)
            return NULL;
        if (dyn.d_tag == DT_NEEDED) {
            if (d->nneeded == MAX_NEEDED)
                return "a shared object needing too many libraries";
            d->needed[d->nneeded++] = dyn.d_un.d_val;
            continue;
        }
        int slot = tag_slot(dyn.d_tag);
        if (slot < 0) {
#if defined(__aarch64__)
            if (dyn.d_tag >= DT_LOPROC && dyn.d_tag <= DT_HIPROC)
                continue; /* AArch64's PLT variants, for lazy binding */
#endif
            return "a shared object with a dynamic entry the loader check does not know "
                   "(DT_TEXTREL, DT_DEBUG, DT_REL, filters, audit libraries, or damage)";
        }
        if (d->has[slot])
            return "a shared object with a dynamic entry given twice";
        d->has[slot] = true;
        d->tag[slot] = dyn.d_un.d_val;
    }
}

static const char *check_tags(const dyn_object *d)
{
    const uint64_t flags_ok = DF_ORIGIN | DF_SYMBOLIC | DF_BIND_NOW | DF_STATIC_TLS;
    const uint64_t flags_1_ok = DF_1_NOW | DF_1_NODELETE | DF_1_INITFIRST | DF_1_NOOPEN |
                                DF_1_ORIGIN | DF_1_NODEFLIB | DF_1_PIE;
    if (d->has[T_FLAGS] && (d->tag[T_FLAGS] & ~flags_ok))
        return "a shared object with DT_FLAGS the loader check refuses (DF_TEXTREL or unknown)";
    if (d->has[T_FLAGS_1] && (d->tag[T_FLAGS_1] & ~flags_1_ok))
        return "a shared object with DT_FLAGS_1 the dynamic loader does not support";
    if (!d->has[T_STRTAB] || !d->has[T_STRSZ] || !d->tag[T_STRSZ] || !d->has[T_SYMTAB])
        return "a shared object without its string and symbol tables";
    if (d->has[T_SYMENT] && d->tag[T_SYMENT] != sizeof(Elf64_Sym))
        return "a shared object with symbols of an odd size";
    if (!d->has[T_GNU_HASH] && !d->has[T_HASH])
        return "a shared object without a symbol hash table";
    if (d->has[T_RELA] != d->has[T_RELASZ] ||
        (d->has[T_RELA] && (!d->has[T_RELAENT] || d->tag[T_RELAENT] != sizeof(Elf64_Rela))) ||
        d->tag[T_RELASZ] % sizeof(Elf64_Rela))
        return "a shared object with a bad relocation table (DT_RELA, DT_RELASZ, DT_RELAENT)";
    if (d->has[T_JMPREL] != d->has[T_PLTRELSZ] ||
        (d->has[T_JMPREL] && (!d->has[T_PLTREL] || d->tag[T_PLTREL] != DT_RELA)) ||
        (d->has[T_PLTREL] && d->tag[T_PLTREL] != DT_RELA) ||
        d->tag[T_PLTRELSZ] % sizeof(Elf64_Rela))
        return "a shared object with a bad PLT relocation table (DT_JMPREL, DT_PLTRELSZ, "
               "DT_PLTREL)";
    if (d->has[T_RELR] != d->has[T_RELRSZ] ||
        (d->has[T_RELR] && (!d->has[T_RELRENT] || d->tag[T_RELRENT] != sizeof(uint64_t))) ||
        d->tag[T_RELRSZ] % sizeof(uint64_t))
        return "a shared object with a bad packed relocation table (DT_RELR)";
    if (d->has[T_INIT_ARRAY] != d->has[T_INIT_ARRAYSZ] ||
        d->has[T_FINI_ARRAY] != d->has[T_FINI_ARRAYSZ] ||
        d->tag[T_INIT_ARRAYSZ] % sizeof(uint64_t) || d->tag[T_FINI_ARRAYSZ] % sizeof(uint64_t) ||
        d->tag[T_INIT_ARRAYSZ] / 8 + d->tag[T_FINI_ARRAYSZ] / 8 > MAX_INIT_SLOTS)
        return "a shared object with bad constructor or destructor arrays";
    if ((d->has[T_VERNEED] && !d->has[T_VERNEEDNUM]) || (d->has[T_VERDEF] && !d->has[T_VERDEFNUM]))
        return "a shared object with version tables of no count";
    if (d->has[T_PLTGOT] && !segment_of(d, d->tag[T_PLTGOT], 3 * sizeof(uint64_t)))
        return "a shared object whose PLTGOT is outside its segments";
    if ((d->has[T_SONAME] && !string_ok(d, d->tag[T_SONAME])) ||
        (d->has[T_RPATH] && !string_ok(d, d->tag[T_RPATH])) ||
        (d->has[T_RUNPATH] && !string_ok(d, d->tag[T_RUNPATH])))
        return "a shared object with a name or search path past its string table";
    for (size_t i = 0; i < d->nneeded; i++)
        if (!string_ok(d, d->needed[i]))
            return "a shared object needing a library whose name is past its string table";
    return NULL;
}

/* ---- symbols ---------------------------------------------------------------------------- */

static const char *check_gnu_hash(dyn_object *d)
{
    uint64_t off;
    if (!file_of(d, d->tag[T_GNU_HASH], 16, &off))
        return "a shared object whose GNU hash table is outside its loaded file bytes";
    const unsigned char *h = bytes_at(d, off);
    uint32_t nbuckets = image_u32(h), symoffset = image_u32(h + 4);
    uint32_t bloom = image_u32(h + 8), shift = image_u32(h + 12);
    if (!nbuckets || !bloom || (bloom & (bloom - 1)) || shift >= 32 || symoffset > MAX_SYMBOLS)
        return "a shared object with a damaged GNU hash table header";
    uint64_t head = 16 + (uint64_t)bloom * 8 + (uint64_t)nbuckets * 4;
    if (!table(d, d->tag[T_GNU_HASH], head, &off))
        return "a shared object whose GNU hash table is outside its loaded file bytes";
    const unsigned char *buckets = bytes_at(d, off + 16 + (uint64_t)bloom * 8);
    uint64_t chains = d->tag[T_GNU_HASH] + head; /* the entry of symbol symoffset */
    uint64_t nsyms = symoffset, steps = 0;
    for (uint32_t b = 0; b < nbuckets; b++) {
        uint32_t first = image_u32(buckets + (uint64_t)b * 4);
        if (!first)
            continue;
        if (first < symoffset)
            return "a shared object with a GNU hash bucket below its first hashed symbol";
        for (uint64_t sym = first;; sym++) {
            uint64_t entry;
            if (sym - symoffset > MAX_SYMBOLS || ++steps > MAX_CHAIN_STEPS ||
                !file_of(d, chains + (sym - symoffset) * 4, 4, &entry))
                return "a shared object with a GNU hash chain past its table";
            if (sym + 1 > nsyms)
                nsyms = sym + 1;
            if (image_u32(bytes_at(d, entry)) & 1)
                break;
        }
    }
    if (nsyms > symoffset && !table(d, chains, (nsyms - symoffset) * 4, &off))
        return "a shared object whose GNU hash chains are outside its loaded file bytes";
    d->nsyms = nsyms;
    return NULL;
}

static const char *check_sysv_hash(dyn_object *d)
{
    uint64_t off;
    if (!file_of(d, d->tag[T_HASH], 8, &off))
        return "a shared object whose hash table is outside its loaded file bytes";
    uint32_t nbucket = image_u32(bytes_at(d, off)), nchain = image_u32(bytes_at(d, off + 4));
    if (!nbucket || nchain > MAX_SYMBOLS ||
        !table(d, d->tag[T_HASH], 8 + ((uint64_t)nbucket + nchain) * 4, &off))
        return "a shared object with a damaged hash table";
    const unsigned char *buckets = bytes_at(d, off + 8), *chain = buckets + (uint64_t)nbucket * 4;
    /* Each chain ends (no cycle): the loader follows them to the end. */
    unsigned char *seen = calloc(nchain ? nchain : 1, 1);
    if (!seen)
        return "a shared object too large to check (out of memory)";
    const char *why = NULL;
    for (uint32_t b = 0; b < nbucket && !why; b++) {
        /* An entry is read only once it is known to be in the chain table. */
        for (uint32_t s = image_u32(buckets + (uint64_t)b * 4); s != STN_UNDEF;
             s = image_u32(chain + (uint64_t)s * 4)) {
            if (s >= nchain || seen[s]) {
                why = "a shared object with a damaged hash chain";
                break;
            }
            seen[s] = 1;
        }
    }
    free(seen);
    d->nsyms = nchain;
    return why;
}

static const char *host_check_symbols(dyn_object *d)
{
    const char *why = d->has[T_GNU_HASH] ? check_gnu_hash(d) : check_sysv_hash(d);
    if (why)
        return why;
    uint64_t off, stroff;
    if (!table(d, d->tag[T_STRTAB], d->tag[T_STRSZ], &stroff) ||
        d->img.p[stroff + d->tag[T_STRSZ] - 1] != '\0')
        return "a shared object whose string table is outside its loaded file bytes or does "
               "not end in NUL";
    if (!table(d, d->tag[T_SYMTAB], d->nsyms * sizeof(Elf64_Sym), &off))
        return "a shared object whose symbol table is outside its loaded file bytes";
    for (uint64_t i = 0; i < d->nsyms; i++) {
        Elf64_Sym s;
        memcpy(&s, bytes_at(d, off + i * sizeof s), sizeof s);
        if (!string_ok(d, s.st_name))
            return "a shared object with a symbol name past its string table";
        int type = ELF64_ST_TYPE(s.st_info);
        if (type == STT_GNU_IFUNC)
            return "a shared object with an indirect function (STT_GNU_IFUNC), whose resolver "
                   "the loader would call";
        /* One the loader binds to this object (local, or not of default
         * visibility) gets this object's base plus its value: it must be
         * defined here. */
        bool binds_here =
            ELF64_ST_BIND(s.st_info) == STB_LOCAL || ELF64_ST_VISIBILITY(s.st_other) != STV_DEFAULT;
        if (s.st_shndx == SHN_UNDEF && i && binds_here)
            return "a shared object with an undefined symbol bound to itself (local or hidden)";
        if (s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_ABS)
            continue;
        if (type == STT_FUNC && !code_at(d, s.st_value, s.st_size))
            return "a shared object with a function outside its executable segments";
        if (type == STT_OBJECT && !segment_of(d, s.st_value, s.st_size))
            return "a shared object with a variable outside its segments";
        if (type == STT_TLS &&
            (!d->has_tls || !image_within(d->tls.p_memsz, s.st_value, s.st_size)))
            return "a shared object with a thread-local variable outside its TLS segment";
    }
    return NULL;
}

/* ---- versions --------------------------------------------------------------------------- */

/* A version entry of len bytes at vaddr, inside the loaded file bytes;
 * hull grows to cover it (the tables are protected as one range). */
static bool version_entry(const dyn_object *d, uint64_t vaddr, uint64_t len, range *hull,
                          uint64_t *off)
{
    if (!file_of(d, vaddr, len, off))
        return false;
    uint64_t end = hull->len ? hull->start + hull->len : vaddr;
    if (!hull->len || vaddr < hull->start)
        hull->start = vaddr;
    if (vaddr + len > end)
        end = vaddr + len;
    hull->len = end - hull->start;
    return true;
}

static const char *check_verneed(dyn_object *d, range *hull)
{
    uint64_t vaddr = d->tag[T_VERNEED];
    size_t entries = 0;
    for (;;) {
        uint64_t off;
        Elf64_Verneed vn;
        if (++entries > MAX_VERSION_ENTRIES || !version_entry(d, vaddr, sizeof vn, hull, &off))
            return "a shared object whose needed versions are outside its loaded file bytes";
        memcpy(&vn, bytes_at(d, off), sizeof vn);
        if (vn.vn_version != VER_NEED_CURRENT || !string_ok(d, vn.vn_file))
            return "a shared object with a damaged needed-version entry";
        /* The loader asserts that it names a library it needs. */
        bool needed = false;
        for (size_t i = 0; i < d->nneeded && !needed; i++)
            needed = strcmp(string_at(d, d->needed[i]), string_at(d, vn.vn_file)) == 0;
        if (!needed)
            return "a shared object needing versions of a library it does not need";
        uint64_t aux = vaddr + vn.vn_aux;
        for (;;) {
            Elf64_Vernaux va;
            if (++entries > MAX_VERSION_ENTRIES || aux < vaddr ||
                !version_entry(d, aux, sizeof va, hull, &off))
                return "a shared object whose needed versions are outside its loaded file bytes";
            memcpy(&va, bytes_at(d, off), sizeof va);
            if (!string_ok(d, va.vna_name))
                return "a shared object with a version name past its string table";
            if ((va.vna_other & 0x7fff) > d->version_high)
                d->version_high = va.vna_other & 0x7fff;
            if (!va.vna_next)
                break;
            if (va.vna_next < sizeof va)
                return "a shared object with a damaged needed-version chain";
            aux += va.vna_next;
        }
        if (!vn.vn_next)
            return NULL;
        if (vn.vn_next < sizeof vn)
            return "a shared object with a damaged needed-version chain";
        vaddr += vn.vn_next;
    }
}

static const char *check_verdef(dyn_object *d, range *hull)
{
    uint64_t vaddr = d->tag[T_VERDEF];
    size_t entries = 0;
    for (;;) {
        uint64_t off;
        Elf64_Verdef vd;
        if (++entries > MAX_VERSION_ENTRIES || !version_entry(d, vaddr, sizeof vd, hull, &off))
            return "a shared object whose version definitions are outside its loaded file bytes";
        memcpy(&vd, bytes_at(d, off), sizeof vd);
        if (vd.vd_version != VER_DEF_CURRENT || !vd.vd_cnt)
            return "a shared object with a damaged version definition";
        if ((vd.vd_ndx & 0x7fff) > d->version_high)
            d->version_high = vd.vd_ndx & 0x7fff;
        uint64_t aux = vaddr + vd.vd_aux;
        for (unsigned n = 0; n < vd.vd_cnt; n++) {
            Elf64_Verdaux va;
            if (++entries > MAX_VERSION_ENTRIES || aux < vaddr ||
                !version_entry(d, aux, sizeof va, hull, &off))
                return "a shared object whose version definitions are outside its loaded file "
                       "bytes";
            memcpy(&va, bytes_at(d, off), sizeof va);
            if (!string_ok(d, va.vda_name))
                return "a shared object with a version name past its string table";
            if (n + 1 < vd.vd_cnt && va.vda_next < sizeof va)
                return "a shared object with a damaged version definition chain";
            aux += va.vda_next;
        }
        if (!vd.vd_next)
            return NULL;
        if (vd.vd_next < sizeof vd)
            return "a shared object with a damaged version definition chain";
        vaddr += vd.vd_next;
    }
}

static const char *check_versions(dyn_object *d)
{
    const char *why = NULL;
    range need = {0, 0}, def = {0, 0};
    uint64_t off;
    if (d->has[T_VERNEED] &&
        ((why = check_verneed(d, &need)) || !table(d, need.start, need.len, &off)))
        return why ? why : "a shared object with too many tables";
    if (d->has[T_VERDEF] && ((why = check_verdef(d, &def)) || !table(d, def.start, def.len, &off)))
        return why ? why : "a shared object with too many tables";
    if (!d->has[T_VERSYM])
        return NULL;
    if (!d->version_high)
        return "a shared object with symbol versions but no version table";
    if (!table(d, d->tag[T_VERSYM], d->nsyms * sizeof(Elf64_Half), &off))
        return "a shared object whose symbol versions are outside its loaded file bytes";
    for (uint64_t i = 0; i < d->nsyms; i++)
        if ((image_u16(bytes_at(d, off + i * 2)) & 0x7fff) > d->version_high)
            return "a shared object with a symbol of a version it does not have";
    return NULL;
}

/* ---- relocations ------------------------------------------------------------------------ */

static reloc_kind kind_of(uint32_t type)
{
    switch (type) {
#if defined(__x86_64__)
    case R_X86_64_NONE:
        return R_NONE;
    case R_X86_64_RELATIVE:
        return R_RELATIVE;
    case R_X86_64_64:
    case R_X86_64_GLOB_DAT:
    case R_X86_64_JUMP_SLOT:
        return R_SYMBOLIC;
    case R_X86_64_DTPMOD64:
    case R_X86_64_DTPOFF64:
    case R_X86_64_TPOFF64:
        return R_TLS;
    case R_X86_64_TLSDESC:
        return R_TLSDESC;
#elif defined(__aarch64__)
    case R_AARCH64_NONE:
        return R_NONE;
    case R_AARCH64_RELATIVE:
        return R_RELATIVE;
    case R_AARCH64_ABS64:
    case R_AARCH64_GLOB_DAT:
    case R_AARCH64_JUMP_SLOT:
        return R_SYMBOLIC;
    case R_AARCH64_TLS_DTPMOD:
    case R_AARCH64_TLS_DTPREL:
    case R_AARCH64_TLS_TPREL:
        return R_TLS;
    case R_AARCH64_TLSDESC:
        return R_TLSDESC;
#endif
    default:
        return R_REFUSED; /* COPY, IRELATIVE, and whatever else */
    }
}

/* A relocation writes len bytes at vaddr: into a writable segment, into
 * none of the tables the loader reads. */
static bool writable(const dyn_object *d, uint64_t vaddr, uint64_t len)
{
    const Elf64_Phdr *seg = segment_of(d, vaddr, len);
    if (!seg || !(seg->p_flags & PF_W))
        return false;
    for (size_t i = 0; i < d->nprotected; i++)
        if (vaddr < d->protected[i].start + d->protected[i].len &&
            d->protected[i].start < vaddr + len)
            return false;
    return true;
}

static void symbol_at(const dyn_object *d, uint64_t index, Elf64_Sym *out)
{
    uint64_t off = 0;
    (void)file_of(d, d->tag[T_SYMTAB], d->nsyms * sizeof *out, &off);
    memcpy(out, bytes_at(d, off + index * sizeof *out), sizeof *out);
}

/* A relocation writing at where gives a slot of the constructor or
 * destructor arrays value (known: false when the check cannot tell it). */
static const char *note_init_value(dyn_object *d, uint64_t where, uint64_t value, bool known)
{
    uint64_t base, slot;
    if (d->ninit && where >= d->tag[T_INIT_ARRAY] && where - d->tag[T_INIT_ARRAY] < d->ninit * 8) {
        base = d->tag[T_INIT_ARRAY];
        slot = (where - base) / 8;
    } else if (d->nfini && where >= d->tag[T_FINI_ARRAY] &&
               where - d->tag[T_FINI_ARRAY] < d->nfini * 8) {
        base = d->tag[T_FINI_ARRAY];
        slot = d->ninit + (where - base) / 8;
    } else {
        return NULL;
    }
    if (!known || (where - base) % 8 || d->init_set[slot])
        return "a shared object whose constructor or destructor arrays are relocated in a way "
               "the loader check cannot follow";
    d->init_set[slot] = 1;
    d->init_values[slot] = value;
    return NULL;
}

/* The relocations of [off, off + size) in the file. */
static const char *check_rela(dyn_object *d, uint64_t off, uint64_t size, uint64_t relative)
{
    for (uint64_t i = 0; i < size / sizeof(Elf64_Rela); i++) {
        Elf64_Rela r;
        memcpy(&r, bytes_at(d, off + i * sizeof r), sizeof r);
        uint64_t sym = ELF64_R_SYM(r.r_info);
        uint32_t type = (uint32_t)ELF64_R_TYPE(r.r_info);
        reloc_kind kind = kind_of(type);
        /* The loader takes the first DT_RELACOUNT as relative, whatever they say. */
        if (i < relative && kind != R_RELATIVE)
            return "a shared object whose DT_RELACOUNT counts non-relative relocations";
        if (kind == R_REFUSED)
            return "a shared object with a relocation the loader check refuses (copy, "
                   "indirect, or unknown)";
        if (kind == R_NONE)
            continue;
        if (sym >= d->nsyms || (kind == R_RELATIVE && sym))
            return "a shared object with a relocation of a symbol it does not have";
        if (r.r_offset % 8 || !writable(d, r.r_offset, kind == R_TLSDESC ? 16 : 8))
            return "a shared object with a relocation writing outside its writable data (or "
                   "at an unaligned address)";
        Elf64_Sym s = {0};
        if (sym)
            symbol_at(d, sym, &s);
        bool tls = ELF64_ST_TYPE(s.st_info) == STT_TLS;
        if ((kind == R_SYMBOLIC && tls) ||
            ((kind == R_TLS || kind == R_TLSDESC) && (sym ? !tls : !d->has_tls)))
            return "a shared object with a thread-local relocation of a wrong symbol";
        /* What it stores, where that is known: a code address if it is a
         * constructor's. */
        bool own_function = kind == R_SYMBOLIC && sym && s.st_shndx != SHN_UNDEF &&
                            s.st_shndx != SHN_ABS && ELF64_ST_TYPE(s.st_info) == STT_FUNC;
#if defined(__x86_64__)
        bool addend = type == R_X86_64_64;
#elif defined(__aarch64__)
        bool addend = true;
#else
        bool addend = false;
#endif
        uint64_t value = kind == R_RELATIVE ? (uint64_t)r.r_addend
                         : own_function     ? s.st_value + (addend ? (uint64_t)r.r_addend : 0)
                                            : 0;
        const char *why = note_init_value(d, r.r_offset, value, kind == R_RELATIVE || own_function);
        if (why)
            return why;
    }
    return NULL;
}

/* Packed relative relocations: an address, then bitmaps of the 63 words
 * after it. */
static const char *check_relr(dyn_object *d, uint64_t off, uint64_t size)
{
    uint64_t where = 0;
    bool based = false;
    for (uint64_t i = 0; i < size / 8; i++) {
        uint64_t entry = image_u64(bytes_at(d, off + i * 8));
        uint64_t bits = entry & 1 ? entry >> 1 : 1;
        if (!(entry & 1)) {
            if (entry % 8)
                return "a shared object with a packed relocation at an unaligned address";
            where = entry;
            based = true;
        } else if (!based) {
            return "a shared object whose packed relocations begin with a bitmap";
        }
        for (uint64_t at = where; bits; bits >>= 1, at += 8) {
            if (!(bits & 1))
                continue;
            uint64_t value_off;
            if (!writable(d, at, 8))
                return "a shared object with a relocation writing outside its writable data";
            /* The word's own value is the addend; unmapped (bss) words are 0. */
            uint64_t value = file_of(d, at, 8, &value_off) ? image_u64(bytes_at(d, value_off)) : 0;
            const char *why = note_init_value(d, at, value, true);
            if (why)
                return why;
        }
        where += entry & 1 ? 63 * 8 : 8;
    }
    return NULL;
}

static int compare_addresses(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The starts of the functions an object's symbol tables (its sections,
 * when it kept them) name, sorted; NULL when it names none. */
static uint64_t *function_starts(const dyn_object *d, size_t *count)
{
    const elf_image *img = &d->img;
    *count = 0;
    size_t cap = 0;
    uint64_t *starts = NULL;
    for (size_t i = 0; i < img->eh.e_shnum; i++) {
        Elf64_Shdr sh;
        elf_shdr(img, i, &sh);
        if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
            continue;
        for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= sh.sh_size; at += sizeof(Elf64_Sym)) {
            Elf64_Sym sym;
            memcpy(&sym, img->p + sh.sh_offset + at, sizeof sym);
            if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF)
                continue;
            if (*count == cap) {
                cap = cap ? 2 * cap : 64;
                uint64_t *grown = realloc(starts, cap * sizeof *grown);
                if (!grown) {
                    free(starts);
                    *count = 0;
                    return NULL;
                }
                starts = grown;
            }
            starts[(*count)++] = sym.st_value;
        }
    }
    if (starts)
        qsort(starts, *count, sizeof *starts, compare_addresses);
    return starts;
}

/* Code the loader calls: in an executable segment and, where the object
 * kept its symbol table, where a function begins (an address into the
 * middle of one is damage). */
static bool callable(const dyn_object *d, const uint64_t *starts, size_t count, uint64_t vaddr)
{
    return code_at(d, vaddr, 1) &&
           (!count || bsearch(&vaddr, starts, count, sizeof *starts, compare_addresses));
}

/* The section named name, when the object kept its section headers. */
static bool section_named(const dyn_object *d, const char *name, Elf64_Shdr *out)
{
    const elf_image *img = &d->img;
    if (img->eh.e_shstrndx == SHN_UNDEF)
        return false;
    Elf64_Shdr names;
    elf_shdr(img, img->eh.e_shstrndx, &names);
    for (size_t i = 0; i < img->eh.e_shnum; i++) {
        elf_shdr(img, i, out);
        /* elf_open checked that every name ends inside its table. */
        if (strcmp((const char *)img->p + names.sh_offset + out->sh_name, name) == 0)
            return true;
    }
    return false;
}

/* What the dynamic section says of a constructor's place agrees with the
 * section headers, where the object kept them: two records, so one damaged
 * shows. */
static bool agrees(const dyn_object *d, tag_index tag, tag_index size_tag, const char *name)
{
    Elf64_Shdr sh;
    if (!d->has[tag] || !section_named(d, name, &sh))
        return true;
    return sh.sh_addr == d->tag[tag] && (size_tag == T_COUNT || sh.sh_size == d->tag[size_tag]);
}

/* The code the loader calls: DT_INIT, DT_FINI and each array slot. */
static const char *check_constructors(const dyn_object *d)
{
    if (!agrees(d, T_INIT, T_COUNT, ".init") || !agrees(d, T_FINI, T_COUNT, ".fini") ||
        !agrees(d, T_INIT_ARRAY, T_INIT_ARRAYSZ, ".init_array") ||
        !agrees(d, T_FINI_ARRAY, T_FINI_ARRAYSZ, ".fini_array"))
        return "a shared object whose dynamic section and section headers disagree on its "
               "constructors or destructors";
    size_t count;
    uint64_t *starts = function_starts(d, &count);
    const char *why = NULL;
    if ((d->has[T_INIT] && !callable(d, starts, count, d->tag[T_INIT])) ||
        (d->has[T_FINI] && !callable(d, starts, count, d->tag[T_FINI])))
        why = "a shared object whose initialisation or finalisation code is not a function of "
              "its executable segments";
    for (size_t i = 0; i < d->ninit + d->nfini && !why; i++)
        if (!d->init_set[i] || !callable(d, starts, count, d->init_values[i]))
            why = "a shared object with a constructor or destructor that is not a function of "
                  "its executable segments";
    free(starts);
    return why;
}

static const char *check_object(dyn_object *d, const void *image, size_t size)
{
    const char *why = elf_open(&d->img, image, size);
    if (why)
        return why;
    const Elf64_Ehdr *h = &d->img.eh;
    if (h->e_machine != HOST_ELF_MACHINE)
        return "an ELF object for another machine";
    if (h->e_type != ET_DYN)
        return "an ELF object that is not a shared object (link it with -shared)";
    if ((h->e_ident[EI_OSABI] != ELFOSABI_SYSV && h->e_ident[EI_OSABI] != ELFOSABI_GNU) ||
        h->e_ident[EI_ABIVERSION] != 0)
        return "an ELF object of another operating system ABI";
    Elf64_Phdr dynamic = {0};
    if ((why = check_segments(d, &dynamic)) || (why = read_dynamic(d, &dynamic)) ||
        (why = check_tags(d)) || (why = host_check_symbols(d)) || (why = check_versions(d)))
        return why;
    d->ninit = d->tag[T_INIT_ARRAYSZ] / 8;
    d->nfini = d->tag[T_FINI_ARRAYSZ] / 8;
    if ((d->ninit && !segment_of(d, d->tag[T_INIT_ARRAY], d->ninit * 8)) ||
        (d->nfini && !segment_of(d, d->tag[T_FINI_ARRAY], d->nfini * 8)))
        return "a shared object whose constructor or destructor arrays are outside its segments";
    size_t slots = d->ninit + d->nfini;
    d->init_values = calloc(slots ? slots : 1, sizeof *d->init_values);
    d->init_set = calloc(slots ? slots : 1, 1);
    if (!d->init_values || !d->init_set)
        return "a shared object too large to check (out of memory)";
    /* Every table is known before any relocation is: none may write one. */
    uint64_t relr = 0, rela = 0, jmprel = 0;
    if ((d->tag[T_RELRSZ] && !table(d, d->tag[T_RELR], d->tag[T_RELRSZ], &relr)) ||
        (d->tag[T_RELASZ] && !table(d, d->tag[T_RELA], d->tag[T_RELASZ], &rela)) ||
        (d->tag[T_PLTRELSZ] && !table(d, d->tag[T_JMPREL], d->tag[T_PLTRELSZ], &jmprel)))
        return "a shared object whose relocations are outside its loaded file bytes";
    if (d->tag[T_RELACOUNT] > d->tag[T_RELASZ] / sizeof(Elf64_Rela))
        return "a shared object counting more relative relocations than it has";
    if ((why = check_relr(d, relr, d->tag[T_RELRSZ])) ||
        (why = check_rela(d, rela, d->tag[T_RELASZ], d->tag[T_RELACOUNT])) ||
        (why = check_rela(d, jmprel, d->tag[T_PLTRELSZ], 0)))
        return why;
    return check_constructors(d);
}

const char *host_elf_check(const void *image, size_t size)
{
    dyn_object *d = calloc(1, sizeof *d);
    if (!d)
        return "an object too large to check (out of memory)";
    const char *why = check_object(d, image, size);
    free(d->init_values);
    free(d->init_set);
    free(d);
    return why;
}
