/*
 * Function symbols of an ELF file to uprobe file offsets.  See tp_elfsym.h.
 */
#include "tp_elfsym.h"
#include "tp_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#define SHOW_MAX 128

/* Where a resolution's reasons go, and the path they quote. */
struct ctx {
    char *err;
    size_t errlen;
    char path[SHOW_MAX + 4];    /* printable, cut */
    uint64_t size;              /* of the file */
};

/* How well a symbol's name matches: none, any version, default version, exact. */
enum match { MATCH_NONE, MATCH_VERSION, MATCH_DEFAULT, MATCH_EXACT };


/* Text for a reason: at most SHOW_MAX bytes, non-printable bytes as '?'. */
static void show(char out[SHOW_MAX + 4], const char *s)
{
    size_t k = 0;
    for (; s[k] && k < SHOW_MAX; k++)
        out[k] = s[k] >= 0x20 && s[k] < 0x7f ? s[k] : '?';
    if (s[k]) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
}

static int host_class(void)
{
    return sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32;
}

static int host_data(void)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return ELFDATA2MSB;
#else
    return ELFDATA2LSB;
#endif
}

/* The host's e_machine, or EM_NONE where any machine is taken. */
static int host_machine(void)
{
#if defined(__x86_64__)
    return EM_X86_64;
#elif defined(__aarch64__)
    return EM_AARCH64;
#elif defined(__i386__)
    return EM_386;
#else
    return EM_NONE;
#endif
}

/* A regular file, opened without blocking (a FIFO, a tty, a device). */
static int open_regular(struct ctx *c, const char *path, int *fd)
{
    struct stat st;
    int e;
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (*fd < 0) {
        e = errno;
        return tp_errf(c->err, c->errlen, -e, "cannot open %s: %s", c->path, strerror(e));
    }
    if (fstat(*fd, &st) != 0) {
        e = errno;
        return tp_errf(c->err, c->errlen, -e, "cannot stat %s: %s", c->path, strerror(e));
    }
    if (!S_ISREG(st.st_mode))
        return tp_errf(c->err, c->errlen, -EINVAL, "%s is not a regular file", c->path);
    c->size = (uint64_t)st.st_size;
    return 0;
}

/* An ELF executable or shared object of this host's class and machine. */
static int check_header(const struct ctx *c, Elf *e)
{
    GElf_Ehdr eh;
    if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
        return tp_errf(c->err, c->errlen, -ENOEXEC, "%s is not an ELF file", c->path);
    if (eh.e_ident[EI_CLASS] != host_class() || eh.e_ident[EI_DATA] != host_data() ||
        (host_machine() != EM_NONE && eh.e_machine != host_machine()))
        return tp_errf(c->err, c->errlen, -ENOEXEC, "%s is an ELF file for another machine (class %d, machine %d)",
                    c->path, eh.e_ident[EI_CLASS], eh.e_machine);
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
        return tp_errf(c->err, c->errlen, -ENOEXEC, "%s is not an executable or a shared object (ELF type %d)",
                    c->path, eh.e_type);
    return 0;
}

static enum match name_match(const char *name, const char *symbol)
{
    size_t n = strlen(symbol);
    if (n == 0 || strncmp(name, symbol, n) != 0)
        return MATCH_NONE;
    if (name[n] == '\0')
        return MATCH_EXACT;
    if (name[n] == '@')
        return name[n + 1] == '@' ? MATCH_DEFAULT : MATCH_VERSION;
    return MATCH_NONE;
}

static bool defined_function(const GElf_Sym *sym)
{
    int type = GELF_ST_TYPE(sym->st_info);
    return (type == STT_FUNC || type == STT_GNU_IFUNC) && sym->st_shndx != SHN_UNDEF &&
           sym->st_value != 0;
}

/* The best match in one symbol table section; *best and *addr updated. */
static void search_table(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, const char *symbol,
                         enum match *best, GElf_Addr *addr)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
    for (size_t i = 0; data && i < n && *best != MATCH_EXACT; i++) {
        GElf_Sym sym;
        const char *name;
        if (!gelf_getsym(data, (int)i, &sym) || !defined_function(&sym))
            continue;
        name = elf_strptr(e, sh->sh_link, sym.st_name);
        enum match m = name ? name_match(name, symbol) : MATCH_NONE;
        if (m > *best) {
            *best = m;
            *addr = sym.st_value;
        }
    }
}

/* The symbol's address from the tables of one type (SHT_SYMTAB, SHT_DYNSYM). */
static bool find_symbol(Elf *e, GElf_Word type, const char *symbol, GElf_Addr *addr)
{
    enum match best = MATCH_NONE;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
            search_table(e, scn, &sh, symbol, &best, addr);
    }
    return best != MATCH_NONE;
}

/*
 * A virtual address to a file offset through the PT_LOAD segment holding it
 * (in the part of the segment the file has).
 */
static bool to_offset(Elf *e, GElf_Addr addr, uint64_t size, uint64_t *offset)
{
    size_t n;
    if (elf_getphdrnum(e, &n) != 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        uint64_t in = addr - ph.p_vaddr;
        if (addr >= ph.p_vaddr && in < ph.p_filesz && ph.p_offset < size &&
            in < size - ph.p_offset) {
            *offset = ph.p_offset + in;
            return true;
        }
    }
    return false;
}

static int resolve_in(const struct ctx *c, Elf *e, const char *symbol, uint64_t *offset)
{
    char shown[SHOW_MAX + 4];
    GElf_Addr addr = 0;
    int rc = check_header(c, e);
    if (rc)
        return rc;
    show(shown, symbol);
    if (!find_symbol(e, SHT_SYMTAB, symbol, &addr) &&
        !find_symbol(e, SHT_DYNSYM, symbol, &addr))
        return tp_errf(c->err, c->errlen, -ESRCH, "no function %s in %s", shown, c->path);
    if (!to_offset(e, addr, c->size, offset))
        return tp_errf(c->err, c->errlen, -ERANGE, "function %s of %s (0x%llx) is in no loadable segment", shown,
                    c->path, (unsigned long long)addr);
    return 0;
}

int tp_elf_resolve(const char *path, const char *symbol, uint64_t *offset,
                   char *err, size_t errlen)
{
    struct ctx c = { .err = err, .errlen = errlen };
    Elf *e = NULL;
    int fd = -1;
    if (errlen)
        err[0] = '\0';
    show(c.path, path);
    int rc = open_regular(&c, path, &fd);
    if (rc == 0 && elf_version(EV_CURRENT) == EV_NONE)
        rc = tp_errf(c.err, c.errlen, -ENOEXEC, "libelf: %s", elf_errmsg(-1));
    if (rc == 0)
        e = elf_begin(fd, ELF_C_READ, NULL);
    if (rc == 0)
        rc = resolve_in(&c, e, symbol, offset);
    elf_end(e);
    if (fd >= 0)
        close(fd);
    return rc;
}
